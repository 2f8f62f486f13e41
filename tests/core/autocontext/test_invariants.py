"""Invariants that hold after every compression, on generated histories and on real runs.

After every compression step:

* tool pairing is valid under OpenAI and Anthropic rules;
* every system message is still there, verbatim and in order;
* the first user message (the task) and the latest one are there verbatim;
* every offload tag the model sees reloads, and replacing each stand-in by what its
  offload id reloads (recursively) gives back exactly the original history;
* the prompt is under the trigger — or, when pinned or in-flight messages keep it
  above, nothing more applies and it is within the window — or
  ``ContextOverflowError`` is raised;
* the user's words go last: no strategy but the user-turn one (9) ever replaces a user
  turn, and that one only while the prompt is over the budget, after every other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from builders import dicts, expand
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from profiles import examples, sample
from strategies import anthropic_conversations, neutral_conversations

from ctxmgr.autocontext.config import AutoContextConfig, Tuning
from ctxmgr.autocontext.events import CompressionEvent
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OFFLOAD_TAG_RE, OffloadStore
from ctxmgr.autocontext.pins import is_user_turn
from ctxmgr.autocontext.pipeline import CompressionResult, acompress, compress
from ctxmgr.autocontext.strategies import strategy_order
from ctxmgr.autocontext.strategies.user_turns import UserTurns
from ctxmgr.autocontext.summarizers import ExtractiveSummarizer
from ctxmgr.convert import from_anthropic
from ctxmgr.errors import ContextOverflowError
from ctxmgr.messages import Message, message_to_dict
from ctxmgr.pairing import validate_pairing
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.store.memory import InMemoryStore
from ctxmgr.tokens import ApproximateCounter, TokenCounter, default_counter

APPROX = ApproximateCounter()
USER_TURNS = UserTurns.number
Reload = Callable[[str], list[Message]]


# ---------------------------------------------------------------- the invariants


def visible_tags(messages: Sequence[Message]) -> set[str]:
    return {t for m in messages
            for t in OFFLOAD_TAG_RE.findall(m.text + "".join(b.text for b in m.tool_results))}


def check_invariants(original: Sequence[Message], working: Sequence[Message],
                     reload: Reload, where: str = "") -> None:
    for rules in ("openai", "anthropic"):
        violations = validate_pairing(working, rules=rules)
        assert violations == [], f"{where}: {rules} pairing: {[str(v) for v in violations[:3]]}"
    assert dicts([m for m in working if m.role == "system"]) == \
        dicts([m for m in original if m.role == "system"]), f"{where}: system messages"
    users = [m for m in original if is_user_turn(m)]
    if users:
        kept = dicts(working)
        assert message_to_dict(users[0]) in kept, f"{where}: first user message not verbatim"
        assert message_to_dict(users[-1]) in kept, f"{where}: latest user message not verbatim"
    for tag in visible_tags(working):
        reload(tag)  # raises OffloadNotFoundError if the model could not get it back
    assert dicts(expand(working, reload)) == dicts(original), f"{where}: not loss-free"
    if len({m.id for m in original}) == len(original):
        assert len({m.id for m in working}) == len(working), f"{where}: duplicate ids"


def check_user_words_go_last(events: Sequence[CompressionEvent], reload: Reload,
                             cfg: AutoContextConfig, where: str = "") -> None:
    """Only strategy 9 replaces a user turn, only over the budget, and within one pass
    strategies run in their order (so 9 after every other; the history notes of
    strategy 7 first when ``history_notes_first`` is on)."""
    applied = [e for e in events if e.status == "applied"]
    for e in applied:
        replaced = reload(str(e.offload_id))
        if e.strategy == USER_TURNS:
            assert e.tokens_before > cfg.budget_tokens, f"{where}: strategy 9 within the budget"
        else:
            assert not any(is_user_turn(m) for m in replaced), \
                f"{where}: strategy {e.strategy} replaced a user turn"
    order = [s.number for s in strategy_order(cfg)]
    assert [e.strategy for e in applied] == sorted((e.strategy for e in applied),
                                                   key=order.index), where


def check_budget(res: CompressionResult, cfg: AutoContextConfig, counter: TokenCounter,
                 store: OffloadStore, summarizer: object | None, where: str = "",
                 model_calls: int | None = None) -> None:
    """Under the trigger, or within the budget with nothing left that could apply (over
    the same horizon of model calls: the payback of an edit the window does not need
    depends on it)."""
    assert res.tokens == counter.count_messages(res.messages), where
    assert res.tokens <= cfg.budget_tokens, where  # otherwise compress had to raise
    if res.triggered and (res.tokens > cfg.target_tokens
                          or len(res.messages) >= cfg.msg_threshold):
        again = compress(res.messages, config=cfg, counter=counter, offload=store,
                         summarizer=summarizer, force=True, model_calls=model_calls)
        assert [e for e in again.events if e.status == "applied"] == [], \
            f"{where}: stopped above the target while a strategy still applied"


# ---------------------------------------------------------------- generated histories


class Raising:
    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        raise RuntimeError("boom")


class Empty:
    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        return ""


SUMMARIZERS = st.sampled_from([ExtractiveSummarizer(), None, Raising(), Empty()])


@st.composite
def configs(draw: st.DrawFn) -> AutoContextConfig:
    max_tokens = draw(st.sampled_from([1500, 4000, 12_000, 40_000]))
    token_ratio = draw(st.sampled_from([0.5, 0.75, 1.0]))
    return AutoContextConfig(
        max_tokens=max_tokens,
        token_ratio=token_ratio,
        target_ratio=draw(st.sampled_from([0.2, 0.5])) * token_ratio,
        msg_threshold=draw(st.integers(4, 120)),
        disabled_strategies=draw(st.sets(st.integers(1, 6), max_size=2)),
        summary_timeout_s=5,
        tuning=Tuning(
            last_keep=draw(st.integers(0, 8)),
            large_payload_threshold=draw(st.sampled_from([50, 400, 5 * 1024])),
            offload_preview_chars=draw(st.sampled_from([0, 20, 200])),
            min_consecutive_tool_messages=draw(st.integers(1, 6)),
            min_compression_tokens=draw(st.sampled_from([0, 100, 5000]))),
    )


def run_property(conv: list[Message], cfg: AutoContextConfig, summarizer: object | None,
                 use_async: bool) -> None:
    store = OffloadStore(InMemoryStore())
    calls = sum(m.role == "assistant" for m in conv)
    kwargs: dict[str, Any] = {"config": cfg, "counter": APPROX, "offload": store,
                              "summarizer": summarizer, "model_calls": calls}
    try:
        res = (asyncio.run(acompress(conv, **kwargs)) if use_async
               else compress(conv, **kwargs))
    except ContextOverflowError as err:
        assert err.limit == cfg.budget_tokens and err.tokens > cfg.budget_tokens
        assert err.excess == err.tokens - err.limit
        event("outcome: ContextOverflowError")
        return
    applied = sorted({e.strategy for e in res.events if e.status == "applied"})
    event(f"outcome: strategies {applied}" if applied else "outcome: nothing applied")
    check_invariants(conv, res.messages, store.load)
    check_user_words_go_last(res.events, store.load, cfg)
    check_budget(res, cfg, APPROX, store, summarizer, model_calls=calls)
    for e in res.events:
        if e.status == "applied":
            assert [m.id for m in store.load(str(e.offload_id))] == list(e.replaced_ids)


_SETTINGS = settings(max_examples=examples(50), deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_SETTINGS
@given(conv=neutral_conversations(max_rounds=4, max_steps=4, in_flight=None), cfg=configs(),
       summarizer=SUMMARIZERS, use_async=st.booleans())
def test_invariants_hold_on_generated_openai_histories(
        conv: list[Message], cfg: AutoContextConfig, summarizer: object | None,
        use_async: bool) -> None:
    run_property(conv, cfg, summarizer, use_async)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(conv=neutral_conversations(min_rounds=1, max_rounds=2, max_steps=14, max_calls=2,
                                  in_flight=None),
       cfg=configs(), summarizer=SUMMARIZERS)
def test_invariants_hold_on_generated_long_single_task_runs(
        conv: list[Message], cfg: AutoContextConfig, summarizer: object | None) -> None:
    run_property(conv, cfg, summarizer, use_async=False)


@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(body=anthropic_conversations(max_rounds=4, max_steps=4), cfg=configs(),
       summarizer=SUMMARIZERS)
def test_invariants_hold_on_generated_anthropic_histories(
        body: dict[str, Any], cfg: AutoContextConfig, summarizer: object | None) -> None:
    conv = from_anthropic(body["messages"], system=body.get("system"))
    run_property(conv, cfg, summarizer, use_async=False)


@st.composite
def many_user_turns(draw: st.DrawFn) -> tuple[list[Message], AutoContextConfig]:
    """A conversation of many user turns and a window of a fifth to two thirds of it:
    small enough that the user's turns themselves must often go (strategy 9)."""
    conv = draw(neutral_conversations(min_rounds=6, max_rounds=14, max_steps=2, max_calls=2,
                                      in_flight=None))
    share = draw(st.sampled_from([0.2, 0.35, 0.5, 0.67]))
    max_tokens = max(150, int(share * APPROX.count_messages(conv)))
    cfg = AutoContextConfig(
        max_tokens=max_tokens,
        token_ratio=draw(st.sampled_from([0.5, 1.0])),
        target_ratio=0.2 * 0.5,
        msg_threshold=draw(st.integers(10, 120)),
        disabled_strategies=draw(st.sets(st.integers(1, 8), max_size=2)),
        summary_timeout_s=5,
        tuning=Tuning(
            last_keep=draw(st.integers(0, 8)),
            keep_tool_results=draw(st.integers(0, 3)),
            user_note_chars=draw(st.sampled_from([0, 60, "auto"])),
            record_chars=draw(st.sampled_from([0, 200, "auto"])),
            min_compression_tokens=draw(st.sampled_from([0, 100, "auto"]))))
    return conv, cfg


@settings(max_examples=examples(20), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=many_user_turns(), summarizer=SUMMARIZERS)
def test_invariants_hold_when_the_users_turns_must_go_too(
        case: tuple[list[Message], AutoContextConfig], summarizer: object | None) -> None:
    conv, cfg = case
    run_property(conv, cfg, summarizer, use_async=False)


# ---------------------------------------------------------------- recorded runs


def replay(trajectory: Trajectory, cfg: AutoContextConfig, counter: TokenCounter, *,
           strict: bool) -> dict[str, int]:
    """Feed the run to an AutoContextMemory message by message, compressing before every
    model call (each recorded assistant message) and at the end, and check every step.

    ``strict``: the prompt must end under the trigger unless the error is raised.
    """
    mem = AutoContextMemory(cfg, counter=counter, summarizer=ExtractiveSummarizer())
    stats = {"calls": 0, "compressions": 0, "overflows": 0, "above_trigger": 0}

    def model_call(step: int) -> None:
        where = f"{trajectory.id} step {step} at {cfg.max_tokens}"
        stats["calls"] += 1
        try:
            events = mem.compress_if_needed()
        except ContextOverflowError as err:
            assert err.tokens > cfg.budget_tokens, where
            stats["overflows"] += 1
            return
        assert mem.tokens == counter.count_messages(mem.prompt), where
        if events:
            stats["compressions"] += 1
            check_invariants(mem.originals, mem.messages, mem.reload, where)
            check_user_words_go_last(events, mem.reload, cfg, where)
        if mem.needs_compression():  # still at the trigger (tokens or message count)
            stats["above_trigger"] += 1
            assert not strict, f"{where}: {mem.tokens} tokens, trigger {cfg.trigger_tokens}"
            assert mem.tokens <= cfg.budget_tokens, where
            again = AutoContextMemory.from_json(mem.to_json(), config=cfg, counter=counter,
                                                store=mem.offload.store)
            assert [e for e in again.compress_if_needed()
                    if e.status == "applied"] == [], f"{where}: a strategy still applied"

    for step, m in enumerate(trajectory.messages):
        if m.role == "assistant" and step > 0:
            model_call(step)
        mem.add(m)
    model_call(len(trajectory.messages))
    return stats


@pytest.fixture(scope="module")
def exact() -> TokenCounter:
    return default_counter()


@pytest.mark.parametrize(("budget", "strict", "keep"),
                         [(8000, False, 3), (16_000, False, 3), (16_000, True, 0)])
def test_every_fixture_swe_run_stays_valid_step_by_step_under_the_trigger(
        swe_trajectories: list[Trajectory], exact: TokenCounter, budget: int,
        strict: bool, keep: int) -> None:
    # at 8k the trigger (4,800) is under what the pinned task plus one large in-flight
    # tool result can hold: there the prompt must stay in the window with nothing left
    # to apply, or the error is raised
    assert len(swe_trajectories) >= 4
    total = 0
    for t in swe_trajectories:
        # with the working set on (keep=3) the last tool results stay verbatim even above
        # the trigger, and an edit the window does not need waits until it pays back;
        # without either the prompt ends under the trigger
        cfg = AutoContextConfig(max_tokens=budget,
                                tuning=Tuning(keep_tool_results=keep,
                                              cached_token_price=None if strict else 0.1))
        stats = replay(t, cfg, exact, strict=strict)
        total += stats["compressions"]
    assert total > 0


@pytest.mark.parametrize("budget", [2000, 4000])
def test_every_fixture_support_conversation_stays_valid_step_by_step(
        fixture_trajectories: list[Trajectory], budget: int) -> None:
    tau = [t for t in fixture_trajectories if t.id.startswith("tau")]
    assert tau
    for t in tau:
        replay(t, AutoContextConfig(max_tokens=budget, tuning=Tuning(min_compression_tokens=200)),
               APPROX,
               strict=False)


def compress_whole(t: Trajectory, counter: TokenCounter, budget: int) -> None:
    """``ctxmgr compress --max-tokens N --summarizer extractive`` on one run, as a function."""
    cfg = AutoContextConfig(max_tokens=budget)
    store = OffloadStore(InMemoryStore())
    messages = list(t.messages)
    try:
        res = compress(messages, config=cfg, counter=counter, offload=store,
                       summarizer=ExtractiveSummarizer())
    except ContextOverflowError as err:
        assert err.tokens > cfg.budget_tokens
        return
    check_invariants(messages, res.messages, store.load, t.id)
    assert res.tokens < 12_000, f"{t.id}: {res.tokens} tokens"


def test_compressing_each_fixture_swe_run_at_16k_leaves_it_under_12k(
        swe_trajectories: list[Trajectory], exact: TokenCounter) -> None:
    for t in swe_trajectories:
        compress_whole(t, exact, 16_000)


# ---------------------------------------------------------------- every shared run (slow)


@pytest.mark.slow
@pytest.mark.parametrize("budget", [8000, 16_000])
def test_every_shared_run_stays_valid_step_by_step(
        shared_trajectories: list[Trajectory], exact: TokenCounter, budget: int) -> None:
    assert len(shared_trajectories) == 124
    above = 0
    for t in sample(shared_trajectories, every=4):  # every run in the long profile
        stats = replay(t, AutoContextConfig(max_tokens=budget), exact, strict=False)
        above += stats["above_trigger"]


@pytest.mark.slow
def test_compressing_each_shared_swe_run_at_16k_leaves_it_under_12k(
        shared_trajectories: list[Trajectory], exact: TokenCounter) -> None:
    swe = [t for t in shared_trajectories if not t.id.startswith("tau")]
    assert len(swe) == 24
    for t in swe:
        compress_whole(t, exact, 16_000)
