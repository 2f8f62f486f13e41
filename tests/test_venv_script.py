"""scripts/_venv.sh installs each extra once per pyproject.toml: demo.sh's ``demo`` set does
not stop test.sh from adding the ``dev`` set, and a dev install satisfies demo.sh. pip is
replaced by a stand-in that records its calls (no network, well under a second)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _fake_venv(tmp_path: Path) -> tuple[Path, Path]:
    venv, log = tmp_path / "venv", tmp_path / "pip.log"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text("#!/usr/bin/env bash\n"
                      'if [ "$1" = -m ] && [ "$2" = pip ]; then echo "${*: -1}" >> "$PIP_LOG"; '
                      "exit 0; fi\n"
                      f'exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return venv, log


def _source(extra: str, venv: Path, log: Path) -> list[str]:
    """Source _venv.sh as the scripts do; the pip installs it made (their last argument)."""
    before = log.read_text().splitlines() if log.exists() else []
    subprocess.run(["bash", "-c", f'CTXMGR_EXTRA={extra}; source "{ROOT}/scripts/_venv.sh"'],
                   env={**os.environ, "CTXMGR_VENV": str(venv), "PIP_LOG": str(log)},
                   check=True, capture_output=True, text=True)
    return log.read_text().splitlines()[len(before):] if log.exists() else []


def test_demo_then_test_installs_each_set_once_and_dev_satisfies_demo(tmp_path: Path) -> None:
    venv, log = _fake_venv(tmp_path)
    assert _source("demo", venv, log) == [f"{ROOT}[demo]"]
    assert _source("demo", venv, log) == []  # current: nothing to do
    assert _source("dev", venv, log) == [f"{ROOT}[dev]"]  # the demo stamp is not enough
    assert _source("dev", venv, log) == []
    (venv / ".ctxmgr-installed-demo").unlink()
    assert _source("demo", venv, log) == []  # the dev set holds the demo's


def test_a_changed_pyproject_reinstalls(tmp_path: Path) -> None:
    venv, log = _fake_venv(tmp_path)
    _source("dev", venv, log)
    (venv / ".ctxmgr-installed").write_text("an older pyproject.toml\n")
    assert _source("demo", venv, log) == [f"{ROOT}[demo]"]
    assert _source("dev", venv, log) == [f"{ROOT}[dev]"]
