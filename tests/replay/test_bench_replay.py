"""benchmarks/bench_replay.py runs from a clone: its data is in the repository, it prints
the fidelity table, and a bad folder is one line and exit 2."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
from trajectory_dirs import FIXTURES, SHARED

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_replay.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_replay", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_default_data_is_the_recorded_runs_in_the_repository(bench: ModuleType) -> None:
    assert bench.DEFAULT_TRAJECTORIES == SHARED
    assert len(list(SHARED.glob("swe__*.json"))) == 24
    assert len((SHARED / "tau_airline_gpt4o.jsonl").read_text().splitlines()) == 100
    assert "MIT" in (SHARED / "README.md").read_text()


def test_bench_writes_json_and_the_fidelity_table(
        bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "RESULTS.md"
    rc = bench.main(["--trajectories", str(FIXTURES), "--policy", "none", "ctxmgr",
                     "--budgets", "16000", "--tau-budget", "4000", "--out", str(tmp_path),
                     "--markdown", str(results)])
    assert rc == 0
    data = json.loads((tmp_path / "replay_all_16000.json").read_text())
    none = data["policies"]["none"]["aggregate"]
    assert none["fact_availability"] == none["user_retention"] == none["actions_retained"] == 1.0
    text = results.read_text()
    assert "| 16k SWE (4 runs) | ctxmgr |" in text
    assert "| recency | user retention | actions retained |" in text
    assert "`user retention`: of the user messages before each call" in text
    assert "| 4k tau-bench (12 runs) | none | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |" in text
    assert "fact availability" in capsys.readouterr().out


def test_a_missing_folder_is_one_line_and_exit_2(
        bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--trajectories", str(tmp_path / "nope"), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err
