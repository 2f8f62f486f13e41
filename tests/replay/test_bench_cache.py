"""benchmarks/bench_cache.py: 300-call sessions built from the recorded coding runs, the
prompt-cache table per window with ctxmgr's steps by strategy, and bad input as one line
and exit 2."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from trajectory_dirs import FIXTURES

from ctxmgr.pairing import validate_pairing
from ctxmgr.replay import load_trajectories

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_cache.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_cache", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _swe() -> list:
    return [t for t in load_trajectories([FIXTURES]) if t.id.startswith("deepseek")]


def test_sessions_are_the_recorded_runs_back_to_back_with_exactly_the_calls_asked(
        bench: ModuleType) -> None:
    runs = _swe()
    made = bench.sessions(runs, calls=100)
    assert [sum(m.role == "assistant" for m in s.messages) for s in made] == [100] * len(made)
    assert len(made) >= 2
    first = made[0]
    # one system prompt, then the first run's task as recorded, its steps, and the next task
    assert [m.role for m in first.messages[:2]] == ["system", "user"]
    assert sum(m.role == "system" for m in first.messages) == 1
    assert first.messages[1].text == runs[0].messages[1].text
    assert first.messages[-1].role == "assistant"  # it ends on its 100th call
    answers = [m for m in first.messages if m.text == bench.FINAL_ANSWER]
    assert len(answers) == first.source.count(" + ")  # every run it finished is answered
    assert first.source.startswith(runs[0].id)
    for s in made:
        assert validate_pairing(s.messages, rules="openai") == []
        assert len({m.id for m in s.messages}) == len(s.messages)


def test_bench_prints_the_cache_table_and_ctxmgrs_steps_and_writes_its_section(
        bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results, rows_json = tmp_path / "RESULTS.md", tmp_path / "cache.json"
    results.write_text("# Results\n\nhand-written\n", encoding="utf-8")
    rc = bench.main(["--trajectories", str(FIXTURES), "--window", "8k 300-call",
                     "--policy", "none", "ctxmgr", "--markdown", str(results),
                     "--json", str(rows_json)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "**8k 300-call: 1 runs, 300 model calls, budget 8,000 tokens**" in out
    assert "ctxmgr by strategy (8k 300-call):" in out
    assert "compressions per 100 calls" in out and "(target ≤ 20:" in out
    data = json.loads(rows_json.read_text())["8k 300-call"]
    rows = {r["policy"]: r for r in data["rows"]}
    assert set(rows) == {"none", "ctxmgr"}
    none, ctxmgr = rows["none"], rows["ctxmgr"]
    assert none["surcharge_cost_ratio"] == none["effective_cost_ratio"] == 1.0
    assert ctxmgr["compressions"] > 0 and ctxmgr["prefix_changed_calls"] > 0
    # the steps tallied from ctxmgr's events are the steps replay counted
    steps = data["ctxmgr_strategies"]
    assert sum(s["steps"] for s in steps.values()) == ctxmgr["compressions"]
    assert all(s["freed"] > 0 for s in steps.values())
    text = results.read_text(encoding="utf-8")
    assert text.startswith("# Results\n\nhand-written\n")
    assert "<!-- bench_cache -->" in text and "<!-- /bench_cache -->" in text
    assert "| cached tokens cut off |" in text


@pytest.mark.parametrize(("args", "message"), [
    (["--trajectories", "{tmp}/nope"], "does not exist"),
    (["--window", "9k"], "unknown window '9k'"),
    (["--policy", "no_such_policy"], "policy 'no_such_policy' is unknown or not installed"),
    (["--sessions", "-1"], "--sessions must be 0 (all) or more"),
    (["--cache-write", "-2"], "cache_write must be a finite number >= 0"),
])
def test_bad_input_is_one_line_and_exit_2(bench: ModuleType, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          args: list[str], message: str) -> None:
    argv = ["--trajectories", str(FIXTURES), *(a.format(tmp=tmp_path) for a in args)]
    assert bench.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
