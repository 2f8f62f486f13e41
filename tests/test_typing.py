"""Typing counts as API: the packages ship ``py.typed``, so mypy must pass on them.

mypy runs with the ``[tool.mypy]`` settings in ``pyproject.toml`` (the three
packages, their import roots, the strictness flags). It keeps its cache in the
repository's ``.mypy_cache`` (gitignored), as a manual ``mypy`` run does: a cold
run takes a few tens of seconds, a warm one about a second.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    ROOT / "packages" / "core" / "ctxmgr",
    ROOT / "packages" / "langgraph_adapter" / "ctxmgr_langgraph",
    ROOT / "packages" / "llamaindex_adapter" / "ctxmgr_llamaindex",
)


def test_every_package_ships_py_typed():
    missing = [str(p.relative_to(ROOT)) for p in PACKAGES if not (p / "py.typed").is_file()]
    assert not missing, f"py.typed missing in {missing}"


def test_mypy_reports_no_errors(monkeypatch: pytest.MonkeyPatch):
    mypy_api = pytest.importorskip(
        "mypy.api", reason="mypy is not installed; install the dev extra: ctxmgr[dev]")
    # files, mypy_path and the cache dir in the config are relative to the repository root
    monkeypatch.chdir(ROOT)
    stdout, stderr, status = mypy_api.run(["--config-file", str(ROOT / "pyproject.toml")])
    report = "\n".join(part for part in (stdout, stderr) if part)
    assert status == 0, f"mypy found problems (exit {status}):\n{report}"
