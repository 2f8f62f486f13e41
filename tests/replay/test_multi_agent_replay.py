"""A recorded multi-agent run replays per agent, each agent beside the peers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from record_multi_agent_run import DEFAULT_OUT, record

from ctxmgr.cli import main
from ctxmgr.replay import load_trajectories, replay
from ctxmgr.replay.runner import OUTERMOST

RUN = Path(__file__).resolve().parents[1] / "fixtures" / "multi_agent" / \
    "deep_agent_scripted.jsonl"


def test_the_recorded_run_is_what_its_script_records() -> None:
    assert RUN == DEFAULT_OUT
    written = [json.loads(line) for line in RUN.read_text(encoding="utf-8").splitlines()]
    assert written == record()


def test_each_run_names_its_agent_and_the_report_splits_by_agent() -> None:
    runs = load_trajectories([RUN])
    assert [t.agent for t in runs] == ["researcher", "writer", "researcher", "writer", None]
    report = replay(runs, ["none", "ctxmgr"], budget=8000)
    parts = report.by_agent(runs)
    assert list(parts) == ["researcher", "writer", OUTERMOST]
    for name in ("none", "ctxmgr"):
        calls = [p.aggregate(name)["model_calls"] for p in parts.values()]
        assert calls == [22, 22, 29] and sum(calls) == report.aggregate(name)["model_calls"]
    for part in parts.values():
        managed = part.aggregate("ctxmgr")
        assert managed["over_budget_calls"] == 0 and managed["pairing_violations"] == 0
    assert parts[OUTERMOST].aggregate("none")["over_budget_calls"] > 0  # it needs managing


def test_ctxmgr_replay_prints_each_agent_beside_the_peers(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(RUN), "--max-tokens", "8000", "--policy", "none,ctxmgr"]) == 0
    out = capsys.readouterr().out
    for heading in ("agent researcher: 2 runs, 22 model calls",
                    "agent writer: 2 runs, 22 model calls", "agent main: 1 run, 29 model calls"):
        assert heading in out


def test_an_agent_that_is_not_a_name_is_one_clear_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    record_line = json.loads(RUN.read_text(encoding="utf-8").splitlines()[0])
    bad.write_text(json.dumps({**record_line, "agent": 7}) + "\n", encoding="utf-8")
    assert main(["replay", str(bad), "--policy", "none"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("ctxmgr replay: error: ")
    assert "'agent' must be a non-empty string" in err[0]
