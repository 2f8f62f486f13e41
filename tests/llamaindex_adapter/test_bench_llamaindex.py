"""benchmarks/bench_llamaindex.py: the three memories on the same runs in real agents; the
table it writes, and a bad path as one line and exit 2."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from trajectory_dirs import FIXTURES

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_llamaindex.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_llamaindex", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def rows(table: str) -> dict[str, list[str]]:
    out = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and cells[1].replace(",", "").isdigit():
            out[cells[0].split(" (")[0]] = cells[1:]
    return out


def test_the_bench_compares_the_three_memories_on_one_swe_run(
        bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "RESULTS.md"
    run = FIXTURES / "swe__deepseek_chat_test_1-100__django__django-11099.json"
    assert bench.main([str(run), "--markdown", str(results)]) == 0
    table = capsys.readouterr().out
    got = rows(table)
    assert set(got) == {"ContextMemory", "Memory", "ChatSummaryMemoryBuffer"}
    calls, tokens, _, peak, over, pairing, lost, stopped, _ = got["ContextMemory"]
    assert (over, pairing, lost, stopped) == ("0", "0", "0", "0")
    assert int(peak.replace(",", "")) <= 16_000
    assert int(got["Memory"][4].replace(",", "")) > 0  # the plain agent overflows
    assert got["Memory"][0] == calls  # the same model calls, replayed the same way
    assert "<!-- bench_llamaindex -->" in results.read_text()


def test_a_missing_path_is_one_line_and_exit_2(
        bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["/no/such/folder"]) == 2
    assert capsys.readouterr().err.strip() == "error: /no/such/folder does not exist"
