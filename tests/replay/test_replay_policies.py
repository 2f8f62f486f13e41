"""The none policy on recorded runs, and every peer through its real API on a small run."""

from __future__ import annotations

import dataclasses
import re

import pytest

from ctxmgr.errors import ConfigError
from ctxmgr.messages import text_message
from ctxmgr.replay import (
    FakeSummarizer,
    NonePolicy,
    PolicyContext,
    Trajectory,
    available_policies,
    create_policy,
    peer_names,
    register_policy,
    replay,
)
from ctxmgr.replay.policy import IncrementalPolicy, PolicyUnavailableError
from ctxmgr.tokens import default_counter


@pytest.fixture(scope="module")
def counter():
    return default_counter()


@pytest.fixture(scope="module")
def small_runs(fixture_trajectories: list[Trajectory]) -> list[Trajectory]:
    """The start of the shortest SWE run (40 messages) and two tau-bench conversations."""
    swe = min((t for t in fixture_trajectories if not t.id.startswith("tau")),
              key=lambda t: len(t.messages))
    head = dataclasses.replace(swe, id=swe.id + "[:40]", messages=swe.messages[:40])
    tau = [t for t in fixture_trajectories if t.id.startswith("tau")][:2]
    return [head, *tau]


def test_none_policy_on_fixtures_saves_nothing_and_keeps_the_cache(
        fixture_trajectories: list[Trajectory], counter) -> None:
    data = replay(fixture_trajectories, ["none"], budget=32_000, counter=counter).to_json()
    agg = data["policies"]["none"]["aggregate"]
    assert agg["model_calls"] == sum(m.role == "assistant" for t in fixture_trajectories
                                     for m in t.messages)
    assert agg["savings"] == 0.0
    assert agg["task_lost"] == 0 and agg["pairing_violations"] == 0
    assert agg["effective_cost_ratio"] == 1.0
    # every call after the first finds the whole previous history cached
    cached = prompt = 0
    for t in fixture_trajectories:
        sizes = [counter.count_messages(t.messages[:i])
                 for i, m in enumerate(t.messages) if m.role == "assistant"]
        prompt += sum(sizes)
        cached += sum(s - counter.per_request for s in sizes[:-1])
    assert agg["cache_hit_ratio"] == round(cached / prompt, 4)
    assert 0.9 < agg["cache_hit_ratio"] < 1.0
    assert len(data["policies"]["none"]["trajectories"]) == len(fixture_trajectories)


@pytest.mark.parametrize("name", [*peer_names(), "ctxmgr"])
def test_each_policy_runs_on_a_small_run_with_sane_numbers(
        name: str, small_runs: list[Trajectory], counter) -> None:
    if name not in available_policies():
        pytest.skip(f"{name} is not installed here")
    budget = 4_000
    report = replay(small_runs, ["none", name], budget=budget, counter=counter)
    none, agg = report.aggregate("none"), report.aggregate(name)
    assert agg["errors"] == 0, report.to_json()["policies"][name]["trajectories"]
    assert agg["model_calls"] == none["model_calls"] > 0
    assert agg["baseline_prompt_tokens"] == none["prompt_tokens"]
    assert agg["pairing_violations"] == 0
    assert 0 <= agg["cache_hit_ratio"] <= 1
    assert agg["over_budget_calls"] <= none["over_budget_calls"]
    assert agg["peak_prompt_tokens"] <= none["peak_prompt_tokens"]
    assert agg["ms_per_call_median"] >= 0
    # the SWE head reaches ~10k tokens: every peer but LlamaIndex Memory (which only
    # flushes whole user turns) manages it somehow
    if name != "llamaindex_memory":
        assert agg["savings"] > 0.1
    if agg["summarizer_calls"]:
        assert agg["summarizer_tokens"] > agg["summarizer_calls"] * 200


def test_langchain_summarization_reproduces_its_lost_task(
        swe_trajectories: list[Trajectory], counter) -> None:
    """On a coding run the middleware's 4000-token trim finds no human message, so the
    task is replaced by 'Previous conversation was too long to summarize.' (SPEC §9)."""
    pytest.importorskip("langchain")
    fake = FakeSummarizer(counter)
    ctx = PolicyContext(budget=16_000, counter=counter, summarizer=fake)
    policy = create_policy("langchain_summarization", ctx)
    policy.reset()
    run = min(swe_trajectories, key=lambda t: len(t.messages)).messages
    for i, m in enumerate(run):
        if m.role == "assistant":
            out = policy.prompt(run[:i])
            if out.events:
                break
    else:
        pytest.fail("the middleware never summarized")
    assert fake.usage.calls == 0
    assert "Previous conversation was too long to summarize." in out.messages[1].text
    assert not any(m.text == run[1].text for m in out.messages)  # the task is gone


def test_peers_share_the_fake_summarizer_and_counter(counter) -> None:
    pytest.importorskip("langmem")
    fake = FakeSummarizer(counter)
    ctx = PolicyContext(budget=1_000, counter=counter, summarizer=fake)
    policy = create_policy("langmem_summarize", ctx)
    assert policy.model.summarizer is fake
    assert policy.converter.counter is counter


def test_policies_restart_cleanly_after_reset(small_runs: list[Trajectory], counter) -> None:
    pytest.importorskip("langchain")
    once = replay(small_runs[:1], ["langchain_context_editing"], budget=4_000, counter=counter)
    twice = replay(small_runs[:1] * 2, ["langchain_context_editing"], budget=4_000,
                   counter=counter)
    rows = twice.to_json()["policies"]["langchain_context_editing"]["trajectories"]
    first = once.to_json()["policies"]["langchain_context_editing"]["trajectories"][0]
    drop = {"ms_per_call_median"}
    assert {k: v for k, v in rows[1].items() if k not in drop} == {
        k: v for k, v in first.items() if k not in drop}


def test_incremental_policy_refuses_a_shrinking_history(counter) -> None:
    ctx = PolicyContext(budget=1_000, counter=counter, summarizer=FakeSummarizer(counter))
    p = IncrementalPolicy(ctx)
    s, u = text_message("system", "sys"), text_message("user", "task")
    assert p.take_new([s, u]) == [u] and p.system == [s]
    with pytest.raises(ConfigError, match="history shrank"):
        p.take_new([s])


def test_unknown_policy_names_the_choices(counter) -> None:
    ctx = PolicyContext(budget=1_000, counter=counter, summarizer=FakeSummarizer(counter))
    with pytest.raises(ConfigError, match="unknown policy 'nope'.*langmem_summarize"):
        create_policy("nope", ctx)


@pytest.mark.parametrize(("name", "missing", "extra"), [
    ("langmem_summarize", "langmem.short_term", ".[langmem]"),
    ("langchain_summarization", "langchain.agents.middleware.summarization",
     ".[langgraph]"),
    ("llamaindex_summary_buffer", "llama_index.core.memory", ".[llamaindex]"),
])
def test_a_missing_framework_names_the_extra(monkeypatch: pytest.MonkeyPatch, counter,
                                              name: str, missing: str, extra: str) -> None:
    import sys

    monkeypatch.setitem(sys.modules, missing, None)
    for module in [m for m in sys.modules if ".replay_peers." in m]:
        monkeypatch.delitem(sys.modules, module)
    ctx = PolicyContext(budget=1_000, counter=counter, summarizer=FakeSummarizer(counter))
    with pytest.raises(PolicyUnavailableError, match=re.escape(f'pip install "{extra}"')):
        create_policy(name, ctx)


def test_registered_policies_join_the_run(small_runs: list[Trajectory], counter,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import ctxmgr.replay.registry as policy_module

    monkeypatch.setattr(policy_module, "_FACTORIES", {})

    class Mine(NonePolicy):
        name = "mine"

    register_policy("mine", lambda ctx: Mine(ctx))
    assert "mine" in available_policies()
    data = replay(small_runs[1:], ["mine"], budget=4_000, counter=counter).to_json()
    assert data["policies"]["mine"]["aggregate"]["savings"] == 0.0


def test_bad_budget_is_a_config_error(counter) -> None:
    with pytest.raises(ConfigError, match="budget must be a positive int"):
        PolicyContext(budget=0, counter=counter, summarizer=FakeSummarizer(counter))


def test_importing_replay_imports_no_framework() -> None:
    import subprocess
    import sys

    code = ("import sys, ctxmgr.replay, ctxmgr.replay.report, ctxmgr.cli; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'langchain', "
            "'langchain_core', 'langgraph', 'langmem', 'llama_index', 'rich', 'matplotlib'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
