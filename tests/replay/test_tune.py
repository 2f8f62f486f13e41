"""``ctxmgr tune`` recommends a config on the user's own runs, never one that saves tokens by
losing facts or the user's words, and prints it as Python and as environment variables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from recorded_conversation import conversation_file

from ctxmgr import AutoContextConfig, Tuning
from ctxmgr.cli import main
from ctxmgr.replay.frontier import FrontierRow, mark_frontier
from ctxmgr.replay.tune import config_python, recommend
from ctxmgr.settings import config_from_env


def row(name: str, cwr: float, facts: float = 0.95, user: float = 1.0, recency: float = 1.0,
        kind: str = "ctxmgr", **extra: Any) -> FrontierRow:
    fields: dict[str, Any] = {"cost": cwr, "actions_retained": 1.0, "over_budget_calls": 0,
                              "task_lost": 0, "pairing_violations": 0, **extra}
    return FrontierRow(window="w", policy=f"ctxmgr {name}" if kind == "ctxmgr" else name,
                       kind=kind, fact_availability=facts, user_retention=user,
                       recency=recency, cost_with_recovery=cwr, **fields)


def test_the_cheapest_variant_that_keeps_what_the_defaults_keep_is_recommended() -> None:
    rows = mark_frontier([
        row("defaults", 0.60),
        row("loses facts", 0.40, facts=0.90),
        row("loses user words", 0.45, user=0.97),
        row("cuts the working set", 0.45, recency=0.9),
        row("over budget", 0.30, over_budget_calls=2),
        row("keeps everything", 0.55, facts=0.96),
        row("a peer", 0.20, kind="peer"),
    ])
    best, reason = recommend(rows)
    assert best.policy == "ctxmgr keeps everything"
    assert "keeps as many facts" in reason


def test_the_defaults_stand_on_a_tie_and_when_nothing_keeps_as_much_for_less() -> None:
    assert recommend([row("defaults", 0.6), row("same cost", 0.6004)])[0].policy == \
        "ctxmgr defaults"
    assert recommend([row("defaults", 0.6), row("cheaper, fewer facts", 0.5, facts=0.9)]
                     )[0].policy == "ctxmgr defaults"


def test_when_the_defaults_break_a_call_the_eligible_variant_keeping_most_is_chosen() -> None:
    best, reason = recommend([row("defaults", 0.5, over_budget_calls=1),
                              row("fits, keeps less", 0.6, facts=0.8),
                              row("fits, keeps more", 0.7, facts=0.9)])
    assert best.policy == "ctxmgr fits, keeps more" and "break a call" in reason


def test_the_recommendation_is_printed_as_python_and_as_the_variables_adapters_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tune.json"
    assert main(["tune", str(conversation_file(tmp_path)), "--window", "3000", "--quick",
                 "--peer", "langchain_context_editing", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert "| 3,000 | **ctxmgr defaults** |" in text and "ctxmgr trigger 0.9" in text
    assert "| 3,000 | langchain_context_editing |" in text  # the peer, on the same axes
    assert data["python"] in text and data["recommended"] in text
    config = eval(data["python"], {"AutoContextConfig": AutoContextConfig,  # noqa: S307
                                   "Tuning": Tuning})
    assert config.max_tokens == 3000
    for name, value in data["environment"].items():
        assert f"    {name}={value}\n" in text
    here = {"CTXMGR_HOME": str(config.home)}  # a path of this machine is not printed
    assert config_from_env(environ={**data["environment"], **here}, use_dotenv=False) == config
    chosen = next(r for r in data["rows"] if r["policy"] == data["recommended"])
    assert chosen["over_budget_calls"] == chosen["task_lost"] == 0


def test_config_python_names_the_window_and_what_differs_from_the_defaults() -> None:
    assert config_python(AutoContextConfig(max_tokens=32_000)) == \
        "AutoContextConfig(max_tokens=32_000)"
    assert config_python(AutoContextConfig(max_tokens=4000, token_ratio=0.7,
                                           disabled_strategies={7})) == \
        "AutoContextConfig(max_tokens=4_000, token_ratio=0.7, disabled_strategies={7})"


@pytest.mark.parametrize(("args", "message"), [
    (["--window", "0"], "--window must be"),
    (["--window", "3000", "--peer", "nope"], "--peer nope: not a peer"),
    (["--window", "3000", "--format", "otlp"], "not an OTLP trace export"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          args: list[str], message: str) -> None:
    assert main(["tune", str(conversation_file(tmp_path)), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_the_recommendation_says_how_many_calls_compressions_and_facts_it_rests_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tune.json"
    assert main(["tune", str(conversation_file(tmp_path)), "--window", "2000", "--quick",
                 "--no-peers", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    defaults = next(r for r in json.loads(out.read_text())["rows"]
                    if r["policy"] == "ctxmgr defaults")
    assert defaults["model_calls"] > 0 and defaults["compressions"] > 0
    assert defaults["needed_facts"] > 0
    assert (f"it rests on {defaults['model_calls']:,} model calls, "
            f"{defaults['compressions']:,} compressions under the defaults and "
            f"{defaults['needed_facts']:,} facts the agent reused") in text


def test_runs_that_never_fill_the_window_get_the_defaults_saying_nothing_was_compressed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", str(conversation_file(tmp_path)), "--window", "1000000", "--quick",
                 "--no-peers"]) == 0
    text = capsys.readouterr().out
    assert "Recommended: ctxmgr defaults (no config compressed anything" in text
    assert "0 compressions under the defaults" in text


def _write_run(path: Path, messages: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"id": path.stem, "messages": messages}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("messages", "message"), [
    ([{"role": "user", "content": "hello"}], "no model call in the 1 run given"),
    ([{"role": "system", "content": "You are a helpful assistant."},
      {"role": "user", "content": "Tell me a short story about a lighthouse."},
      {"role": "assistant", "content": "Once, a keeper lit the lamp every night."},
      {"role": "user", "content": "And then?"},
      {"role": "assistant", "content": "One night a ship came home."}],
     "never reuses a fact from earlier tool output"),
], ids=["no model call", "no fact reused"])
def test_tune_refuses_to_recommend_from_runs_that_hold_no_evidence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], messages: list[dict[str, Any]],
        message: str) -> None:
    run = _write_run(tmp_path / "run.json", messages)
    assert main(["tune", str(run), "--window", "3000", "--quick", "--no-peers"]) == 2
    captured = capsys.readouterr()
    assert "Recommended" not in captured.out
    assert captured.err.count("\n") == 1 and message in captured.err
