"""The compression loop: trigger, cheapest strategy first, down to the target, the
over-window error, and the events each step emits."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Sequence
from functools import partial

import builders
import pytest
from builders import LARGE, SMALL, C, answer, dicts, expand, plain_window, system, user
from planted import (
    SessionSpec,
    ctxmgr_compressor,
    generate_session,
    score_prompt,
)

from ctxmgr import Tuning
from ctxmgr.autocontext import pipeline
from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.events import CompressionEvent
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.pipeline import acompress, compress, needs_compression
from ctxmgr.autocontext.strategies import STRATEGY_NAMES, Plan, StrategyContext
from ctxmgr.autocontext.strategies.offload_protected import OffloadProtected, previewed
from ctxmgr.autocontext.summarizers import ExtractiveSummarizer
from ctxmgr.errors import ContextOverflowError, CtxmgrError
from ctxmgr.messages import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    message_to_dict,
)
from ctxmgr.pairing import validate_pairing
from ctxmgr.store.memory import InMemoryStore
from ctxmgr.tokens import default_counter


@pytest.fixture(autouse=True)
def _strategies_in_their_own_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise the strategies in their own order (summaries before the
    history notes of strategy 7): ``Tuning.history_notes_first`` is off here."""
    monkeypatch.setenv("CTXMGR_HISTORY_NOTES_FIRST", "false")

_UUID = re.compile(r"[0-9a-f]{16}")


# ---------------------------------------------------------------- builders

# the tool groups these histories were sized with
group = partial(builders.group, command="cat {key}", head="output")
groups = partial(builders.groups, command="cat {key}", head="output")


def mixed_history() -> list[Message]:
    """Finished rounds with long tool runs and large results, then a long current round."""
    h = [system(), user("T" * 2000, "u1")]
    for r in range(3):
        h += [*groups(f"r{r}x", 4, LARGE), answer(f"answer {r} " + "A" * LARGE, f"f{r}"),
              user(f"question {r + 2}", f"u{r + 2}")]
    h += [*groups("cur", 6, 3000)]
    return h


def run(messages: Sequence[Message], cfg: AutoContextConfig, *, summarizer: object | None = None,
        force: bool = False, use_summarizer: bool = True):  # noqa: ANN201
    store = OffloadStore(InMemoryStore())
    events: list[CompressionEvent] = []
    res = compress(messages, config=cfg, counter=C, offload=store,
                   summarizer=(summarizer or ExtractiveSummarizer()) if use_summarizer else None,
                   on_event=events.append, force=force)
    return res, store, events


class Recording:
    """A summarizer that records what it was asked and answers with a short fixed text."""

    def __init__(self, text: str = "short summary") -> None:
        self.text = text
        self.calls: list[tuple[list[str], str]] = []

    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        self.calls.append(([m.id for m in messages], instruction))
        return self.text


# ================================================================= trigger


def test_below_the_trigger_nothing_changes_and_nothing_is_offloaded() -> None:
    h = [system(), user("task", "u1"), *groups("a", 4, LARGE)]
    cfg = plain_window(max_tokens=100_000)
    res, store, events = run(h, cfg)
    assert res.triggered is False
    assert res.messages == h and res.events == [] and events == []
    assert store.ids() == []
    assert res.tokens == C.count_messages(h)


def test_the_token_trigger_fires_at_max_tokens_times_token_ratio() -> None:
    h = [system(), user("task", "u1"), *groups("a", 4, LARGE)]
    tokens = C.count_messages(h)
    at = plain_window(max_tokens=tokens, token_ratio=1.0, last_keep=0)
    above = plain_window(max_tokens=tokens + 1, token_ratio=1.0, last_keep=0)
    assert needs_compression(tokens, len(h), at) and not needs_compression(tokens, len(h), above)
    assert run(h, at)[0].triggered is True
    assert run(h, above)[0].triggered is False


def test_the_count_trigger_fires_at_msg_threshold() -> None:
    h = [system(), user("task", "u1"), *groups("a", 4, SMALL)]
    assert needs_compression(1, len(h), plain_window(msg_threshold=len(h)))
    assert not needs_compression(1, len(h), plain_window(msg_threshold=len(h) + 1))
    res, _, _ = run(h, plain_window(msg_threshold=len(h)))
    assert res.triggered is True


def test_a_count_trigger_shrinks_the_count_below_the_goal_with_range_strategies_only() -> None:
    h = [system(), user("task", "u1"), answer("A" * LARGE, "f0"), user("go on", "u2"),
         *groups("a", 15, SMALL)]
    cfg = plain_window(max_tokens=100_000, msg_threshold=30, last_keep=0,
                            min_compression_tokens=0)
    assert C.count_messages(h) < cfg.target_tokens and len(h) >= 30
    res, _, _ = run(h, cfg)
    # the goal is msg_threshold * target_ratio / token_ratio = 20 messages, not just < 30
    assert len(res.messages) <= 20
    assert {e.strategy for e in res.events} <= {1, 4}
    # offloading would not reduce the count, so the large answer stays as it is
    assert message_to_dict(next(m for m in res.messages if m.id == "f0")) == message_to_dict(h[2])


def test_force_compresses_below_the_trigger() -> None:
    h = [system(), user("task", "u1"), answer("A" * LARGE, "f1"), user("next", "u2")]
    cfg = plain_window(max_tokens=2800, last_keep=0)  # trigger 2,100, target 1,400
    assert cfg.target_tokens < C.count_messages(h) < cfg.trigger_tokens
    assert run(h, cfg)[0].events == []
    res, _, _ = run(h, cfg, force=True)
    assert res.triggered is True and [e.strategy for e in res.events] == [2]


# ================================================================= order and target


def test_strategies_run_cheapest_first_until_the_target() -> None:
    h = mixed_history()
    cfg = plain_window(max_tokens=12_000, token_ratio=0.75, target_ratio=0.5, last_keep=10)
    res, store, _ = run(h, cfg)
    applied = [e.strategy for e in res.events if e.status == "applied"]
    assert applied == sorted(applied)
    assert len(set(applied)) >= 2  # unlike AgentScope, it does not stop after one strategy
    assert res.tokens <= cfg.target_tokens
    assert validate_pairing(res.messages) == []
    assert dicts(expand(res.messages, store)) == dicts(h)


def test_history_notes_come_first_and_free_the_history_in_one_cut_without_a_summary(
) -> None:
    # issue 43: once triggered, a pass first folds the history before the working set
    # into one note (its record names every call), not a summary per run: no summarizer
    # call, and the cache is cut once, where the history starts
    h = [system(), user("task", "u1"), *groups("g", 12, 2000)]
    cfg = AutoContextConfig(max_tokens=8000, tuning=Tuning(history_notes_first=True))
    assert C.count_messages(h) >= cfg.trigger_tokens
    summarizer = Recording()
    res, store, _ = run(h, cfg, summarizer=summarizer)
    applied = [e for e in res.events if e.status == "applied"]
    assert summarizer.calls == []
    assert [e.strategy for e in applied] == [7]
    assert res.tokens < cfg.trigger_tokens
    assert dicts(res.messages[-6:]) == dicts(h[-6:])  # the working set, verbatim
    assert "cat g0" in res.messages[2].text  # the note's record of the calls it replaced
    assert dicts(expand(res.messages, store)) == dicts(h)
    off = cfg.evolve(history_notes_first=False)
    res, _, _ = run(h, off, summarizer=Recording())
    assert [e.strategy for e in res.events if e.status == "applied"][0] == 1


def test_an_offload_that_suffices_never_calls_the_summarizer() -> None:
    h = [system(), user("task", "u1")]
    for k in range(3):  # short rounds: no tool run long enough for strategy 1
        h += [*group(f"a{k}", LARGE), answer("done", f"f{k}"), user(f"q{k}", f"u{k + 2}")]
    cfg = plain_window(max_tokens=5000, last_keep=0)
    assert C.count_messages(h) >= cfg.trigger_tokens
    summarizer = Recording()
    res, _, _ = run(h, cfg, summarizer=summarizer)
    assert summarizer.calls == []
    assert {e.strategy for e in res.events} == {2}


def test_compression_stops_as_soon_as_the_target_is_reached() -> None:
    h = [system(), user("task", "u1")]
    for k in range(6):
        h += [*group(f"a{k}", LARGE), answer("done", f"f{k}"), user(f"q{k}", f"u{k + 2}")]
    results = [m for m in h if m.id.endswith(".result")]
    savings = [C.count(m) - C.count(previewed(m, "0" * 32, chars=200, by=OffloadProtected()))
               for m in results]
    total = C.count_messages(h)
    after_three = total - sum(savings[:3])
    cfg = plain_window(max_tokens=2 * (after_three + 1), token_ratio=0.75, target_ratio=0.5,
                            last_keep=0)  # target just above
    assert cfg.trigger_tokens <= total < cfg.max_tokens
    res, _, _ = run(h, cfg)
    assert [e.replaced_ids for e in res.events] == [("a0.result",), ("a1.result",),
                                                    ("a2.result",)]
    assert res.events[-1].tokens_before > cfg.target_tokens >= res.events[-1].tokens_after
    untouched = {m.id: m for m in res.messages}
    assert dicts([untouched[f"a{k}.result"] for k in (3, 4, 5)]) == dicts(results[3:])


def test_over_the_target_but_inside_the_window_returns_without_error() -> None:
    h = [system("S" * 10_000), user("task", "u1"), answer("ok", "f1"), user("next", "u2")]
    cfg = plain_window(max_tokens=3000)  # trigger 2,250 < ~2,530 pinned tokens < 3,000
    res, _, _ = run(h, cfg)
    assert res.triggered and res.events == [] and res.tokens > cfg.trigger_tokens


def test_nothing_left_to_do_once_the_loop_ends_above_the_target() -> None:
    h = [system("S" * 14_000), user("task", "u1"), *groups("a", 4, LARGE), answer("ok", "f1"),
         user("next", "u2")]
    cfg = plain_window(max_tokens=6000, last_keep=0, min_compression_tokens=0)
    res, store, _ = run(h, cfg)
    assert res.events  # the tool run went, but the pinned system prompt alone is 3,500 tokens
    assert res.tokens > cfg.target_tokens
    again = compress(res.messages, config=cfg, counter=C, offload=store,
                     summarizer=ExtractiveSummarizer(), force=True)
    assert [e for e in again.events if e.status == "applied"] == []


# ================================================================= overflow


def test_overflow_error_says_tokens_limit_and_excess() -> None:
    h = [system("S" * 8000), user("task", "u1")]
    cfg = plain_window(max_tokens=1000)
    with pytest.raises(ContextOverflowError) as info:
        run(h, cfg)
    err = info.value
    assert isinstance(err, CtxmgrError)
    assert err.tokens == C.count_messages(h) and err.limit == 1000
    assert err.excess == err.tokens - 1000 > 0
    assert f"{err.tokens} tokens" in str(err) and f"{err.excess} over" in str(err)
    assert "-token budget" in str(err)


def test_overflow_is_raised_only_after_every_strategy_was_tried() -> None:
    h = [system("S" * 8000), user("task", "u1"), *group("a0", LARGE), answer("ok", "f1"),
         user("next", "u2")]
    cfg = plain_window(max_tokens=1500, last_keep=0)
    events: list[CompressionEvent] = []
    with pytest.raises(ContextOverflowError) as info:
        compress(h, config=cfg, counter=C, offload=OffloadStore(InMemoryStore()),
                 summarizer=ExtractiveSummarizer(), on_event=events.append)
    assert [e.strategy for e in events] == [2, 7]  # a preview, then one note for the round
    assert info.value.tokens == events[-1].tokens_after < C.count_messages(h)


# ================================================================= events


def test_events_carry_real_token_counts_step_by_step() -> None:
    h = mixed_history()
    res, _, _ = run(h, plain_window(max_tokens=12_000, last_keep=10))
    assert res.events
    current = C.count_messages(h)
    for e in res.events:
        assert e.tokens_before == current
        assert e.tokens_after < e.tokens_before
        current = e.tokens_after
    fresh = C.per_request + sum(C.count_uncached(m) for m in res.messages)
    assert current == res.tokens == fresh


def test_each_event_offload_id_reloads_exactly_the_messages_it_replaced() -> None:
    h = mixed_history()
    res, store, _ = run(h, plain_window(max_tokens=12_000, last_keep=10))
    assert sorted(e.offload_id for e in res.events) == store.ids()
    for e in res.events:
        assert e.offload_id is not None
        assert tuple(m.id for m in store.load(e.offload_id)) == e.replaced_ids
    first = res.events[0]
    by_id = {m.id: m for m in h}
    assert dicts(store.load(first.offload_id)) == dicts([by_id[i] for i in first.replaced_ids])


def test_llm_events_report_summarizer_usage_and_offload_events_do_not() -> None:
    res, _, _ = run(mixed_history(), plain_window(max_tokens=12_000, last_keep=10))
    for e in res.events:
        assert e.name == STRATEGY_NAMES[e.strategy] and e.status == "applied"
        assert e.reason is None and e.duration_s >= 0
        if e.strategy in (2, 3):
            assert (e.summarizer_input_tokens, e.summarizer_output_tokens) == (0, 0)
        else:
            assert e.summarizer_input_tokens > 0 and e.summarizer_output_tokens > 0
    d = res.events[0].to_dict()
    assert isinstance(d["replaced_ids"], list)
    assert json.loads(json.dumps(d)) == d


def test_events_reach_the_callback_and_the_log(caplog: pytest.LogCaptureFixture) -> None:
    h = [system(), user("task", "u1"), answer("A" * LARGE, "f1"), user("next", "u2")]
    with caplog.at_level(logging.INFO, logger="ctxmgr.autocontext"):
        res, _, seen = run(h, plain_window(max_tokens=2000, token_ratio=0.7, last_keep=0))
    assert seen == res.events and len(seen) == 1
    [record] = [r for r in caplog.records if r.name == "ctxmgr.autocontext"]
    assert record.levelno == logging.INFO
    text = record.getMessage()
    assert "strategy 2 (offload_protected)" in text and str(seen[0].offload_id) in text
    assert f"{seen[0].tokens_before} -> {seen[0].tokens_after} tokens" in text


# ================================================================= switches and purity


def test_without_a_summarizer_only_the_offload_strategies_run() -> None:
    res, _, _ = run(mixed_history(), plain_window(max_tokens=12_000, last_keep=10),
                    use_summarizer=False)
    assert res.events and {e.strategy for e in res.events} <= {2, 3}


@pytest.mark.parametrize("disabled", [{1}, {1, 2}, {2, 3}, {4, 5, 6}])
def test_disabled_strategies_never_run(disabled: set[int]) -> None:
    cfg = plain_window(max_tokens=12_000, last_keep=10, disabled_strategies=disabled)
    res, _, _ = run(mixed_history(), cfg)
    assert res.events and not {e.strategy for e in res.events} & disabled


def test_the_input_history_is_not_mutated() -> None:
    h = mixed_history()
    before = dicts(h)
    snapshot = list(h)
    run(h, plain_window(max_tokens=12_000, last_keep=10))
    assert h == snapshot and dicts(h) == before


@pytest.mark.parametrize(
    ("strategy", "field", "expected"),
    [(1, "tool_run_prompt", "PROMPT 1"), (4, "previous_round_prompt", "PROMPT 4"),
     (5, "current_large_prompt", "PROMPT 5"), (6, "current_round_prompt", "PROMPT 6 at 30%")],
)
def test_custom_prompts_reach_the_summarizer(strategy: int, field: str, expected: str) -> None:
    prompt = "PROMPT 6 at {ratio}" if strategy == 6 else f"PROMPT {strategy}"
    cfg = plain_window(max_tokens=10**9, token_ratio=1e-9, target_ratio=1e-9,
                            last_keep=0, min_compression_tokens=0, large_payload_threshold=1000,
                            cached_token_price=None, **{field: prompt},
                            disabled_strategies=set(range(1, 7)) - {strategy})
    summarizer = Recording()
    run(mixed_history(), cfg, summarizer=summarizer, force=True)
    assert summarizer.calls and {instr for _, instr in summarizer.calls} == {expected}


def test_a_stand_in_that_is_not_smaller_is_not_applied() -> None:
    h = [system(), user("task", "u1"), *groups("a", 4, SMALL), *group("z", SMALL)]
    cfg = plain_window(max_tokens=10**9, target_ratio=1e-9, last_keep=0,
                            min_compression_tokens=0)
    res, store, _ = run(h, cfg, summarizer=Recording("x" * 50_000), force=True)
    assert [e for e in res.events if e.status == "applied"] == []
    assert res.messages == h and store.ids() == []


def test_acompress_gives_the_same_result_as_compress() -> None:
    h = mixed_history()
    cfg = plain_window(max_tokens=12_000, token_ratio=0.75, target_ratio=0.5, last_keep=10)
    sync, _, _ = run(h, cfg)
    store = OffloadStore(InMemoryStore())
    async_ = asyncio.run(acompress(h, config=cfg, counter=C, offload=store,
                                   summarizer=ExtractiveSummarizer()))

    def normal(x: object) -> str:
        return _UUID.sub("ID", json.dumps(x, sort_keys=True))

    assert normal(dicts(async_.messages)) == normal(dicts(sync.messages))
    assert [(e.strategy, e.replaced_ids, e.tokens_before, e.tokens_after) for e in async_.events] \
        == [(e.strategy, e.replaced_ids, e.tokens_before, e.tokens_after) for e in sync.events]
    assert async_.tokens == sync.tokens


def test_text_blocks_are_counted_in_the_result_tokens() -> None:
    h = [system(), user("task", "u1"),
         Message(role="assistant", id="a", content=(TextBlock(text="A" * LARGE),
                                                    TextBlock(text="B" * 10))),
         user("next", "u2")]
    res, _, _ = run(h, plain_window(max_tokens=2000, token_ratio=0.7, last_keep=0))
    assert res.tokens == C.count_messages(res.messages) < C.count_messages(h)


def test_a_lone_surrogate_in_an_offloaded_message_reloads_exactly() -> None:
    h = [system(), user("task", "u1"),
         Message(role="assistant", id="a", content=(
             ToolUseBlock(id="c1", name="bash", input={"command": "cat blob"}),)),
         Message(role="tool", id="t", content=(
             ToolResultBlock(tool_use_id="c1", content="bad \ud800 byte\n" + "x" * LARGE),)),
         answer("done", "f1"), user("next", "u2")]
    res, store, _ = run(h, plain_window(max_tokens=2000, token_ratio=0.7, last_keep=0))
    assert [e.replaced_ids for e in res.events] == [("t",)]
    assert dicts(store.load(str(res.events[0].offload_id))) == dicts([h[3]])


# ================================================================= payback gate


def gate_history() -> list[Message]:
    """A long single-task run of 8 tool groups of ~1,000-token results (never "large")."""
    return [system(), user("task", "u1"), *groups("g", 8, 3800)]


def gate_config(**kw: object) -> AutoContextConfig:
    # trigger 6,000 / window 10,000: the ~7,700-token history is over the trigger only
    base: dict[str, object] = {"max_tokens": 10_000, "last_keep": 2,
                               "min_compression_tokens": 0, "disabled_strategies": {2, 3},
                               "cached_token_price": 0.1, "token_ratio": 0.6}
    base.update(kw)
    return plain_window(**base)  # type: ignore[arg-type]


def test_a_summary_the_window_does_not_need_is_skipped_when_it_would_not_pay() -> None:
    h, cfg, summarizer = gate_history(), gate_config(), Recording()
    assert cfg.trigger_tokens <= C.count_messages(h) <= cfg.max_tokens
    res = compress(h, config=cfg, counter=C, offload=OffloadStore(InMemoryStore()),
                   summarizer=summarizer, model_calls=1)
    # one model call so far: removing ~6,000 cached tokens saves ~540 later, the summary
    # costs ~1,800 now, so no summarizer call and nothing changes
    assert summarizer.calls == [] and res.events == [] and res.messages == h


def test_the_same_summary_is_made_once_the_run_is_long_enough_to_repay_it() -> None:
    h, cfg, summarizer = gate_history(), gate_config(), Recording()
    res = compress(h, config=cfg, counter=C, offload=OffloadStore(InMemoryStore()),
                   summarizer=summarizer, model_calls=40)
    assert [e.strategy for e in res.events] == [1] and len(summarizer.calls) == 1
    assert res.tokens <= cfg.target_tokens


def offload_gate_history() -> list[Message]:
    """Two finished rounds with a large (~2,500-token) tool result, then a third round:
    over a 10,000-token window's trigger (6,000), under its budget."""
    h = [system(), user("task", "u1")]
    for k in range(2):
        h += [*group(f"r{k}", 10_000), answer(f"done {k}", f"f{k}"), user(f"next {k}",
                                                                                f"u{k + 2}")]
    return [*h, *group("r2", 4_000)]


@pytest.mark.parametrize(("model_calls", "offloaded"), [(1, False), (40, True)])
def test_an_offload_the_window_does_not_need_waits_until_it_pays_back(
        model_calls: int, offloaded: bool) -> None:
    h = offload_gate_history()
    cfg = gate_config(disabled_strategies={1, 4, 5, 6})  # offloads only, no LLM
    assert cfg.trigger_tokens <= C.count_messages(h) <= cfg.budget_tokens
    res = compress(h, config=cfg, counter=C, offload=OffloadStore(InMemoryStore()),
                   summarizer=None, model_calls=model_calls)
    # an offload frees ~2,450 cached tokens a call (~245 at the cached price) and turns
    # what follows it uncached once (~0.9 x 3,700): not worth it after one call, worth it
    # over forty
    assert bool(res.events) is offloaded
    if not offloaded:
        assert res.messages == h
    over = compress(h, config=gate_config(disabled_strategies={1, 4, 5, 6}, max_tokens=6000),
                    counter=C, offload=OffloadStore(InMemoryStore()), summarizer=None,
                    model_calls=1)
    assert over.events and over.tokens <= 6000  # over the budget the window decides


@pytest.mark.parametrize("groups_so_far", [2, 8, 30])
def test_the_model_call_count_defaults_to_the_assistant_messages_in_the_history(
        groups_so_far: int) -> None:
    h = [system(), user("task", "u1"), *groups("g", groups_so_far, 3800)]
    cfg = gate_config(max_tokens=10**6, token_ratio=0.001, target_ratio=0.001)

    def strategies(**kw: object) -> list[int]:
        res = compress(h, config=cfg, counter=C, offload=OffloadStore(InMemoryStore()),
                       summarizer=Recording(), **kw)  # type: ignore[arg-type]
        return [e.strategy for e in res.events]

    assert strategies() == strategies(model_calls=groups_so_far)


def test_a_summary_the_window_needs_is_made_whatever_it_costs() -> None:
    h, summarizer = gate_history(), Recording()
    cfg = gate_config(max_tokens=7000, token_ratio=0.6, target_ratio=0.3)
    assert C.count_messages(h) > cfg.max_tokens
    res = compress(h, config=cfg, counter=C, offload=OffloadStore(InMemoryStore()),
                   summarizer=summarizer, model_calls=1)
    assert [e.strategy for e in res.events] == [1] and res.tokens <= cfg.max_tokens


def test_no_cached_token_price_makes_every_planned_summary() -> None:
    h, summarizer = gate_history(), Recording()
    res = compress(h, config=gate_config(cached_token_price=None), counter=C,
                   offload=OffloadStore(InMemoryStore()), summarizer=summarizer, model_calls=1)
    assert [e.strategy for e in res.events] == [1]


# ================================================================= the user's words go last


def short_rounds(n: int) -> list[Message]:
    """The task, then ``n`` rounds of a short user turn, one tool call (a 1,000-character
    result) and a short answer."""
    h = [system(), user("Help me with the support queue today.", "u0")]
    for k in range(n):
        h += [user(f"Please look at ticket {k} next, and keep it brief.", f"u{k + 1}"),
              *group(f"t{k}", 1000), answer(f"Ticket {k} is handled.", f"f{k}")]
    return h


@pytest.mark.parametrize("min_compression_tokens", ["auto", 0])
def test_when_everything_fits_the_message_count_trigger_compresses_no_user_message(
        min_compression_tokens: int | str) -> None:
    h = short_rounds(37)  # 150 messages, some 10,000 tokens: far within the window
    assert len(h) == 150
    cfg = AutoContextConfig(msg_threshold=100,
                            tuning=Tuning(min_compression_tokens=min_compression_tokens))
    assert C.count_messages(h) < cfg.target_tokens
    res, store, _ = run(h, cfg)
    assert res.triggered
    if min_compression_tokens == 0:  # every round is worth a summary: they are made
        assert len(res.messages) < 100
    assert {e.strategy for e in res.events} <= {1, 4}
    assert [m for m in res.messages if m.role == "user"] == [m for m in h if m.role == "user"]
    assert dicts(expand(res.messages, store)) == dicts(h)


def test_a_chat_session_in_twice_its_size_keeps_every_user_message_and_instruction() -> None:
    """Issue 16: in a window twice the session's size the message-count trigger fired and
    summarized, and 11 of 20 planted instructions survived."""
    session = generate_session(0, SessionSpec(kind="chat"))
    window = 2 * default_counter().count_messages(session.messages)
    compressed = ctxmgr_compressor(session.messages, window)
    assert not compressed.overflow and len(session.messages) >= 100
    users = [m for m in session.messages if m.role == "user"]
    assert [m for m in compressed.prompt if m.role == "user"] == users
    assert all(s.kept for s in score_prompt(session.items, compressed.prompt))


class Spy:
    """A strategy that plans nothing and records the prompt sizes it was asked at."""

    number = 1
    name = "spy"
    uses_llm = False
    runs_when = "over_target"
    reduces_count = False
    writes_summary = False
    closes_round = False
    last_resort = False
    frees_history = False

    def __init__(self, **declared: object) -> None:
        for key, value in declared.items():
            setattr(self, key, value)
        self.asked: list[int] = []

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        self.asked.append(ctx.tokens)
        return []


def spy_run(monkeypatch: pytest.MonkeyPatch, spy: Spy, h: Sequence[Message],
            cfg: AutoContextConfig, **kw: object) -> None:
    monkeypatch.setattr(pipeline, "STRATEGIES", (spy,))
    with contextlib.suppress(ContextOverflowError):
        compress(h, config=cfg, counter=C, offload=OffloadStore(InMemoryStore()),
                 **kw)  # type: ignore[arg-type]


def test_a_strategy_that_uses_a_model_is_not_asked_without_a_summarizer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = [system(), user("task", "u1"), answer("A" * LARGE, "f1"), user("next", "u2")]
    cfg = plain_window(max_tokens=1000)
    spy = Spy(uses_llm=True)
    spy_run(monkeypatch, spy, h, cfg, summarizer=None)
    assert spy.asked == []
    spy_run(monkeypatch, spy, h, cfg, summarizer=ExtractiveSummarizer())
    assert spy.asked


def test_a_last_resort_is_never_asked_while_the_prompt_fits_the_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = [system(), user("task", "u1"), answer("A" * LARGE, "f1"), user("next", "u2")]
    tokens = C.count_messages(h)
    fits = plain_window(max_tokens=tokens + 10, token_ratio=0.5, target_ratio=0.1)
    assert fits.trigger_tokens < tokens <= fits.budget_tokens
    spy = Spy(runs_when="over_budget", last_resort=True)
    spy_run(monkeypatch, spy, h, fits, summarizer=None)
    assert spy.asked == []
    spy_run(monkeypatch, spy, h, plain_window(max_tokens=tokens - 10), summarizer=None)
    assert spy.asked and min(spy.asked) > tokens - 10


def test_an_over_trigger_strategy_is_not_asked_below_the_trigger_even_when_forced(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = [system(), user("task", "u1"), answer("A" * LARGE, "f1"), user("next", "u2")]
    tokens = C.count_messages(h)
    below = plain_window(max_tokens=2 * tokens, token_ratio=0.9, target_ratio=0.1)
    assert below.target_tokens < tokens < below.trigger_tokens
    spy = Spy(runs_when="over_trigger")
    spy_run(monkeypatch, spy, h, below, summarizer=None, force=True)
    assert spy.asked == []
    over = plain_window(max_tokens=2 * tokens, token_ratio=0.4, target_ratio=0.1)
    spy_run(monkeypatch, spy, h, over, summarizer=None)
    assert spy.asked


def test_only_a_strategy_that_merges_messages_is_asked_for_the_message_count(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = short_rounds(10)
    cfg = plain_window(max_tokens=10**6, msg_threshold=20)
    assert C.count_messages(h) < cfg.target_tokens and len(h) >= 20
    keeps_count = Spy(reduces_count=False)
    spy_run(monkeypatch, keeps_count, h, cfg, summarizer=None)
    assert keeps_count.asked == []
    merges = Spy(reduces_count=True)
    spy_run(monkeypatch, merges, h, cfg, summarizer=None)
    assert merges.asked
