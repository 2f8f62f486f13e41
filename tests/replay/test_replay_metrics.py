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


# --- the prompt cache: pricing, changed prefixes, compressions, where the cost goes -------


class _Compressing:
    """Replaces every tool result but the last with a stand-in once the history is long,
    reporting one step per stand-in written (as a compressing policy does)."""

    name = "compressing"

    def reset(self) -> None:
        self.done: set[str] = set()

    def prompt(self, history):
        from ctxmgr.replay import PolicyResult

        results = [m for m in history if m.role == "tool"]
        fresh = [m.id for m in results[:-1] if m.id not in self.done] if len(history) > 6 else []
        self.done.update(fresh)
        prompt = [_result(int(m.id[1:]), "gone") if m.id in self.done else m for m in history]
        return PolicyResult(messages=tuple(prompt), events=("offload",) * len(fresh))


def test_a_write_surcharge_prices_every_uncached_prompt_token() -> None:
    from ctxmgr.replay import Pricing

    anthropic = Pricing(cache_read=0.1, cache_write=1.25)
    assert effective_cost(1000, 500, pricing=anthropic) == pytest.approx(100 + 625)
    assert effective_cost(0, 500, 250, pricing=anthropic) == pytest.approx(625 + 250)
    assert effective_cost(1000, 500) == pytest.approx(600.0)  # the default: SPEC §8's


@pytest.mark.parametrize(("read", "write", "needle"), [
    (-0.1, 1.0, "cache_read must be a finite number >= 0"),
    (0.1, float("nan"), "cache_write must be a finite number >= 0"),
    (1.25, 0.1, "cache_read (1.25) is above cache_write (0.1)"),
])
def test_pricing_refuses_rates_that_price_nothing_sensible(read: float, write: float,
                                                           needle: str) -> None:
    from ctxmgr.errors import ConfigError
    from ctxmgr.replay import Pricing

    with pytest.raises(ConfigError) as caught:
        Pricing(cache_read=read, cache_write=write)
    assert needle in str(caught.value)


def test_none_never_changes_its_prefix_and_costs_what_its_hit_ratio_says() -> None:
    from ctxmgr.replay import CACHE_KEYS

    agg = replay([_trajectory()], ["none"], budget=10_000, counter=COUNTER).aggregate("none")
    assert set(CACHE_KEYS) <= set(agg)
    assert agg["prefix_changed_calls"] == 0 and agg["prefix_changed_share"] == 0.0
    assert agg["invalidated_tokens"] == 0
    assert agg["compressions"] == 0 and agg["compressions_per_100_calls"] == 0.0
    assert agg["baseline_cache_hit_ratio"] == agg["cache_hit_ratio"]
    assert agg["effective_cost_ratio_at_baseline_hit"] == 1.0


def test_a_policy_that_rewrites_the_top_changes_every_prefix_and_uncaches_the_rest() -> None:
    t = _trajectory()
    sent: list[list[Message]] = []

    def churn(h: list[Message]) -> list[Message]:
        sent.append([h[0], text_message("user", f"version {len(sent)}"), *h[2:]])
        return sent[-1]

    agg = replay([t], [Scripted("churn", churn)], budget=10_000,
                 counter=COUNTER).aggregate("churn")
    assert agg["prefix_changed_calls"] == len(sent) - 1  # the first call has no previous
    assert agg["prefix_changed_share"] == 1.0
    # what the cache held and lost: each previous prompt past its system message
    assert agg["invalidated_tokens"] == sum(
        sum(COUNTER.count(m) for m in p[1:]) for p in sent[:-1])


def test_compressions_are_counted_per_step_and_per_calls_that_compress() -> None:
    t = _trajectory(steps=6)
    agg = replay([t], [_Compressing()], budget=10_000, counter=COUNTER).aggregate("compressing")
    calls = sum(m.role == "assistant" for m in t.messages)
    # history > 6 messages from the 4th call on: the first pass offloads 2 results at once,
    # each later call the one result that has become old
    assert agg["events"] == {"offload": 5}
    assert agg["compressions"] == 5
    assert agg["compressing_calls"] == 4
    assert agg["compressions_per_100_calls"] == round(100 * 5 / calls, 2)
    assert agg["prefix_changed_calls"] == 4  # every compressing call broke the prefix


def test_cost_split_shares_add_up_to_the_effective_cost() -> None:
    from ctxmgr.replay import FakeSummarizer

    fake = FakeSummarizer(COUNTER)

    def summarizing(h):
        if len(h) > 4:
            fake.summarize(h[1:-2], "summarize")
            return [h[0], text_message("user", fake.text, id="sum"), *h[-2:]]
        return h

    agg = replay([_trajectory()], [Scripted("s", summarizing)], budget=10_000,
                 counter=COUNTER, summarizer=fake).aggregate("s")
    cost = agg["effective_cost"]
    assert agg["cost_share_cached"] == round(0.1 * agg["cached_tokens"] / cost, 4)
    assert agg["cost_share_summarizer"] == round(agg["summarizer_tokens"] / cost, 4)
    assert agg["cost_share_uncached"] == round(agg["uncached_tokens"] / cost, 4)
    assert agg["cost_share_uncached"] + agg["cost_share_cached"] + agg[
        "cost_share_summarizer"] == pytest.approx(1.0, abs=2e-4)


def test_a_report_reprices_without_replaying_and_the_surcharge_hits_cache_breakers() -> None:
    from ctxmgr.replay import Pricing

    t = _trajectory()
    churn = Scripted("churn", lambda h: [h[0], text_message("user", f"v{len(h)}"), *h[2:]])
    report = replay([t], ["none", churn], budget=10_000, counter=COUNTER)
    anthropic = Pricing(cache_write=1.25)
    plain, dear = report.aggregate("churn"), report.aggregate("churn", anthropic)
    assert dear["effective_cost"] == round(
        0.1 * plain["cached_tokens"] + 1.25 * plain["uncached_tokens"], 1)
    assert report.aggregate("none", anthropic)["effective_cost_ratio"] == 1.0
    # the policy that breaks the cache pays more of its tokens at the write rate than none
    assert dear["effective_cost_ratio"] > plain["effective_cost_ratio"]
    repriced = replay([t], ["none"], budget=10_000, counter=COUNTER, pricing=anthropic)
    assert repriced.to_json()["pricing"] == {"cache_read": 0.1, "cache_write": 1.25}
    assert repriced.aggregate("none") == report.aggregate("none", anthropic) | {
        "ms_per_call_median": repriced.aggregate("none")["ms_per_call_median"]}
