"""Replay metrics on tiny hand-made histories: cache prefix, cost, task loss, budget."""

from __future__ import annotations

import pytest
from builders import Scripted

from ctxmgr.messages import Message, ToolResultBlock, ToolUseBlock, text_message
from ctxmgr.replay import (
    METRIC_KEYS,
    NonePolicy,
    Trajectory,
    replay,
)
from ctxmgr.replay.metrics import (
    cached_prefix_tokens,
    effective_cost,
    prompt_has_task,
    same_message,
    task_text,
)
from ctxmgr.tokens import ApproximateCounter

COUNTER = ApproximateCounter()


def _call(i: int) -> Message:
    use = ToolUseBlock(id=f"call_{i}", name="bash", input={"cmd": f"ls {i}"})
    return Message(role="assistant", content=(use,), id=f"a{i}")


def _result(i: int, text: str = "output " * 20) -> Message:
    return Message(role="tool", content=(ToolResultBlock(tool_use_id=f"call_{i}", content=text),),
                   id=f"r{i}")


def _trajectory(steps: int = 4, task: str = "Fix the failing test in utils.py") -> Trajectory:
    messages = [text_message("system", "You are a coding agent.", id="s"),
                text_message("user", task, id="u")]
    for i in range(steps):
        messages += [_call(i), _result(i)]
    messages.append(text_message("assistant", "Done.", id="final"))
    return Trajectory(id="tiny", source="test", messages=tuple(messages), raw=())


def test_cached_prefix_counts_leading_identical_messages_only() -> None:
    a, b, c, d = (text_message("user", t, id=t) for t in ("one", "two", "three", "four"))
    assert cached_prefix_tokens(None, [a, b], COUNTER) == 0
    assert cached_prefix_tokens([a, b], [a, b, c], COUNTER) == COUNTER.count(a) + COUNTER.count(b)
    assert cached_prefix_tokens([a, b, c], [a, d, c], COUNTER) == COUNTER.count(a)
    assert cached_prefix_tokens([a, b], [b, a], COUNTER) == 0


def test_cached_prefix_matches_equal_content_not_just_the_same_object() -> None:
    a = text_message("user", "same text", id="x")
    twin = text_message("user", "same text", id="y")
    other_role = text_message("assistant", "same text", id="z")
    assert same_message(a, twin)
    assert not same_message(a, other_role)
    assert cached_prefix_tokens([a], [twin], COUNTER) == COUNTER.count(twin)


def test_effective_cost_prices_cached_tokens_at_a_tenth() -> None:
    assert effective_cost(1000, 500) == pytest.approx(600.0)
    assert effective_cost(0, 500, 250) == pytest.approx(750.0)


def test_task_text_is_the_first_user_message() -> None:
    t = _trajectory(task="Please fix bug 42")
    assert task_text(t.messages) == "Please fix bug 42"
    assert task_text([text_message("system", "x")]) is None


def test_prompt_has_task_finds_it_verbatim_inside_another_message() -> None:
    summary = text_message("user", "Summary. The task was: Please fix bug 42. Done so far: ...")
    assert prompt_has_task([summary], "Please fix bug 42", None)
    assert not prompt_has_task([summary], "Please fix bug 43", None)


def test_none_policy_rows_have_every_spec_key_and_no_savings() -> None:
    t = _trajectory()
    data = replay([t], ["none"], budget=10_000, counter=COUNTER).to_json()
    assert data["budget"] == 10_000
    agg = data["policies"]["none"]["aggregate"]
    row = data["policies"]["none"]["trajectories"][0]
    assert set(METRIC_KEYS) <= set(agg) and set(METRIC_KEYS) <= set(row)
    assert row["id"] == "tiny"
    assert agg["model_calls"] == 5
    assert agg["savings"] == 0.0
    assert agg["prompt_tokens"] == agg["baseline_prompt_tokens"]
    assert agg["task_lost"] == 0 and agg["pairing_violations"] == 0
    assert agg["effective_cost_ratio"] == 1.0


def test_cache_hit_ratio_of_none_is_the_previous_history_share() -> None:
    t = _trajectory()
    calls = [i for i, m in enumerate(t.messages) if m.role == "assistant"]
    prompts = [COUNTER.count_messages(t.messages[:i]) for i in calls]
    cached = [0] + [p - COUNTER.per_request for p in prompts[:-1]]
    agg = replay([t], ["none"], budget=10_000, counter=COUNTER).aggregate("none")
    assert agg["cache_hit_ratio"] == round(sum(cached) / sum(prompts), 4)
    expected_cost = sum(0.1 * c + (p - c) for c, p in zip(cached, prompts, strict=True))
    assert agg["effective_cost"] == round(expected_cost, 1)


def test_over_budget_counts_calls_strictly_above_the_budget() -> None:
    t = _trajectory()
    calls = [i for i, m in enumerate(t.messages) if m.role == "assistant"]
    prompts = [COUNTER.count_messages(t.messages[:i]) for i in calls]
    budget = prompts[2]  # calls 0-2 fit (equal is not over), calls 3-4 do not
    agg = replay([t], ["none"], budget=budget, counter=COUNTER).aggregate("none")
    assert agg["over_budget_calls"] == 2
    assert agg["peak_prompt_tokens"] == prompts[-1]


def test_task_lost_counts_calls_whose_prompt_dropped_the_first_user_message() -> None:
    t = _trajectory()
    # keep the system message and the last 2 messages: the task is gone once history > 4
    drop = Scripted("drop_task", lambda h: h[:1] + h[-2:] if len(h) > 4 else h)
    agg = replay([t], [drop], budget=10_000, counter=COUNTER).aggregate("drop_task")
    assert agg["task_lost"] == 3
    assert agg["savings"] > 0


def test_pairing_violations_are_counted_on_every_prompt() -> None:
    t = _trajectory()
    orphan = Scripted("orphan", lambda h: [m for m in h if m.role != "assistant"])
    agg = replay([t], [orphan], budget=10_000, counter=COUNTER).aggregate("orphan")
    assert agg["pairing_violations"] == 0 + 1 + 2 + 3 + 4


def test_a_changed_prefix_loses_the_cache_from_that_message_on() -> None:
    t = _trajectory()
    # rewrite the task every call: only the system message stays cached
    n = iter(range(100))
    churn = Scripted("churn", lambda h: [h[0], text_message("user", f"v{next(n)}"), *h[2:]])
    agg = replay([t], [churn], budget=10_000, counter=COUNTER).aggregate("churn")
    none = replay([t], [NonePolicy()], budget=10_000, counter=COUNTER).aggregate("none")
    assert agg["cached_tokens"] == COUNTER.count(t.messages[0]) * 4
    assert agg["effective_cost"] > none["effective_cost"]


def test_a_policy_that_raises_is_reported_not_fatal() -> None:
    def boom(h):
        if len(h) > 4:
            raise RuntimeError("peer bug")
        return h

    agg_data = replay([_trajectory()], [Scripted("boom", boom)], budget=10_000,
                      counter=COUNTER).to_json()
    row = agg_data["policies"]["boom"]["trajectories"][0]
    assert "RuntimeError: peer bug" in row["error"]
    assert row["model_calls"] == 2
    assert agg_data["policies"]["boom"]["aggregate"]["errors"] == 1


def test_summarizer_usage_of_a_call_is_charged_to_that_call() -> None:
    from ctxmgr.replay import FakeSummarizer

    fake = FakeSummarizer(COUNTER)

    def summarizing(h):
        if len(h) > 4:
            fake.summarize(h[1:-2], "summarize")
            return [h[0], text_message("user", fake.text, id="sum"), *h[-2:]]
        return h

    data = replay([_trajectory()], [Scripted("s", summarizing)], budget=10_000,
                  counter=COUNTER, summarizer=fake).to_json()
    agg = data["policies"]["s"]["aggregate"]
    assert agg["summarizer_calls"] == 3
    assert agg["summarizer_tokens"] == fake.usage.tokens
    assert agg["summarizer_output_tokens"] == 3 * COUNTER.count_text(fake.text)
