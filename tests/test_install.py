"""What ``pip install`` puts on a user's machine: the library, not our test generators or
test data (the wheel is built as ``pip install .`` builds it, with no download)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import zipfile

import pytest
from bench_install import PACKAGE_ROOTS, build_wheel, unwanted_files


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    wheel = build_wheel(tmp_path_factory.mktemp("wheel"))
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_wheel_holds_the_three_packages(wheel_files: dict[str, bytes]) -> None:
    roots = {name.split("/")[0] for name in wheel_files if not name.startswith("ctxmgr-")}
    assert roots == {"ctxmgr", "ctxmgr_langgraph", "ctxmgr_llamaindex"}
    assert "ctxmgr/py.typed" in wheel_files


def test_the_wheel_holds_no_generator_or_test_data(wheel_files: dict[str, bytes]) -> None:
    assert unwanted_files(list(wheel_files)) == []
    # the instruction-survival generator, by what its modules define
    assert not [n for n, data in wheel_files.items()
                if n.endswith(".py") and b"def generate_session" in data]


def test_no_module_of_the_wheel_imports_a_test_or_benchmark_module(
        wheel_files: dict[str, bytes]) -> None:
    outside = {"planted", "tests", "benchmarks", "conftest", "builders", "bench_replay",
               "bench_install", "planted_instructions"}
    offenders = []
    for name, data in wheel_files.items():
        if not name.endswith(".py"):
            continue
        for node in ast.walk(ast.parse(data, filename=name)):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module]
            else:
                continue
            offenders += [f"{name}: {t}" for t in targets if t.split(".")[0] in outside]
    assert offenders == []


def test_the_benchmark_names_the_paths_it_keeps_out() -> None:
    assert unwanted_files(["ctxmgr/replay/instructions/generator.py",
                           "planted/generator.py", "ctxmgr/session/engine.py"]) == [
        "ctxmgr/replay/instructions/generator.py", "planted/generator.py"]


def test_import_ctxmgr_loads_no_module_it_needs_only_later() -> None:
    """asyncio (async summarizers), filelock (a FileStore's locks), tiktoken (the first
    count) and regex (the first search) load when first needed, not with ``import
    ctxmgr``; replay and the CLI load only with their commands."""
    later = ["asyncio", "filelock", "tiktoken", "regex", "ctxmgr.replay", "ctxmgr.cli"]
    code = f"import sys, ctxmgr; print([m for m in {later!r} if m in sys.modules])"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in PACKAGE_ROOTS)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[]"
