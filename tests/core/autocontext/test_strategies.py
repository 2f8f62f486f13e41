"""The six strategies on small hand-made histories: what each selects, what it protects,
what it skips and why.

Each section first asks the strategy for its plans (pure: which range it would
replace) and then runs it alone through ``compress`` to check the stand-in it
builds. Sizes are in characters; ``ApproximateCounter`` counts 4 per token.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from builders import (
    LARGE,
    SMALL,
    C,
    answer,
    call,
    dicts,
    expand_one,
    group,
    groups,
    result,
    system,
    user,
)

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.marker import CompressedMarker, tagged_size
from ctxmgr.autocontext.offload import OffloadStore, offload_tag
from ctxmgr.autocontext.pins import is_user_turn, pinned_indices
from ctxmgr.autocontext.pipeline import CompressionResult, compress
from ctxmgr.autocontext.record import CALLS_HEADER
from ctxmgr.autocontext.rounds import closes_round, is_compressed, is_final_answer, layout
from ctxmgr.autocontext.standing import USER_NOTE_HEADER
from ctxmgr.autocontext.strategies import STRATEGIES, STRATEGY_NAMES, Plan, StrategyContext
from ctxmgr.autocontext.summarizers import ExtractiveSummarizer
from ctxmgr.convert import from_openai, to_openai
from ctxmgr.messages import (
    Message,
    ToolResultBlock,
    ToolUseBlock,
    message_to_dict,
)
from ctxmgr.pairing import validate_pairing
from ctxmgr.store.memory import InMemoryStore


@pytest.fixture(autouse=True)
def _strategies_in_their_own_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise the strategies in their own order (summaries before the
    history notes of strategy 7): ``Tuning.history_notes_first`` is off here."""
    monkeypatch.setenv("CTXMGR_HISTORY_NOTES_FIRST", "false")

BIG = 10**9


# ---------------------------------------------------------------- builders


def sized_tag(stand_in: object, offload_id: str) -> str:
    """The tag ``stand_in`` must end with: ``offload_id`` and the size its reload gives
    back (what the tag states is checked against the reload in test_stated_sizes)."""
    text = getattr(stand_in, "text", "")
    size = tagged_size(text, offload_id)
    assert size is not None, text[-200:]
    return offload_tag(offload_id, size)


def config(**kw: object) -> AutoContextConfig:
    """A window so large that the tail is never capped by tokens and nothing overflows;
    no tail, no minimum range size and no payback gate on summaries unless asked for."""
    base: dict[str, object] = {"max_tokens": BIG, "last_keep": 0, "min_compression_tokens": 0,
                               "cached_token_price": None, "reserve_output_tokens": 0,
                               "safety_margin": 0.0, "keep_tool_results": 0,
                               "identifiers_chars": 0}
    base.update(kw)
    return AutoContextConfig().evolve(**base)


def plans(n: int, messages: Sequence[Message], cfg: AutoContextConfig) -> list[Plan]:
    strategy = STRATEGIES[n - 1]
    assert strategy.number == n
    ctx = StrategyContext(messages=messages, layout=layout(messages, cfg, C), config=cfg,
                          counter=C, tokens=C.count_messages(messages))
    return strategy.plan(ctx)


def spans(n: int, messages: Sequence[Message], cfg: AutoContextConfig) -> list[tuple[int, int]]:
    return [(p.start, p.end) for p in plans(n, messages, cfg)]


def ids_of(messages: Sequence[Message], n: int, cfg: AutoContextConfig) -> list[str]:
    """Ids of the messages strategy ``n`` would replace."""
    return [m.id for p in plans(n, messages, cfg) for m in messages[p.start:p.end]]


def only(n: int, messages: Sequence[Message], cfg: AutoContextConfig,
         summarizer: object | None = None) -> tuple[CompressionResult, OffloadStore]:
    """Run strategy ``n`` alone with a trigger and target of 1 token, so it applies every
    plan it has, and return the result and the offload store."""
    cfg = AutoContextConfig(**{**_fields(cfg), "token_ratio": 1e-9, "target_ratio": 1e-9,
                               "disabled_strategies": set(STRATEGY_NAMES) - {n}})
    store = OffloadStore(InMemoryStore())
    res = compress(messages, config=cfg, counter=C, offload=store,
                   summarizer=summarizer or ExtractiveSummarizer(), force=True)
    assert validate_pairing(res.messages) == []
    assert validate_pairing(res.messages, rules="anthropic") == []
    return res, store


def _fields(cfg: AutoContextConfig) -> dict[str, object]:
    return {f: getattr(cfg, f) for f in cfg.__dataclass_fields__}


def by_id(messages: Sequence[Message]) -> dict[str, Message]:
    return {m.id: m for m in messages}


def meta(m: Message) -> dict[str, object]:
    return dict(m.metadata["ctxmgr"])


# ================================================================= pins


def test_pins_cover_every_system_message_the_first_and_the_latest_user_turn() -> None:
    h = [system(id="s1"), user("task", "u1"), system("more rules", id="s2"),
         *group("g0", SMALL), answer("done", "f1"), user("middle", "u2"),
         answer("ok", "f2"), user("latest", "u3")]
    pinned = {h[i].id for i in pinned_indices(h, config())}
    assert pinned == {"s1", "s2", "u1", "u3"}


def test_pins_add_caller_ids_and_every_call_and_result_of_never_compress_tools() -> None:
    h = [system(), user("task", "u1"), *group("g0", SMALL, name="read_skill"),
         *group("g1", SMALL), answer("a", "f1")]
    cfg = config(never_compress_tools={"read_skill"}, pinned_ids={"f1"})
    pinned = {h[i].id for i in pinned_indices(h, cfg)}
    assert pinned == {"sys", "u1", "g0.call", "g0.result", "f1"}


def test_a_user_message_carrying_tool_results_is_not_a_user_turn() -> None:
    carrier = Message(role="user", content=(ToolResultBlock(tool_use_id="x", content="out"),))
    assert not is_user_turn(carrier)
    assert is_user_turn(user("hi", "u"))


# ================================================================= strategy 1: tool runs


def test_tool_runs_select_the_oldest_run_of_more_than_six_tool_messages() -> None:
    h = [system(), user("task", "u1"), *groups("a", 4, LARGE), answer("a", "f1"),
         user("next", "u2"), *groups("b", 4, LARGE), answer("b", "f2"), user("last", "u3")]
    # every qualifying run, oldest first: the pipeline applies the first that shrinks
    assert spans(1, h, config()) == [(2, 10), (12, 20)]


def test_tool_runs_start_on_a_tool_use_and_end_on_its_result() -> None:
    h = [system(), user("task", "u1"), *groups("a", 5, LARGE), answer("a", "f1"), user("u", "u2")]
    [(start, end)] = spans(1, h, config())
    assert h[start].tool_uses and h[end - 1].tool_results
    calls = {b.id for m in h[start:end] for b in m.tool_uses}
    answered = {b.tool_use_id for m in h[start:end] for b in m.tool_results}
    assert calls == answered


def test_tool_runs_skip_a_run_of_six_messages_or_fewer() -> None:
    h = [system(), user("task", "u1"), *groups("a", 3, LARGE), answer("a", "f1"), user("u", "u2")]
    assert spans(1, h, config()) == []


def test_tool_runs_accept_seven_messages_with_parallel_calls() -> None:
    parallel = [Message(role="assistant", id="p.call", content=(
        ToolUseBlock(id="p1", name="bash", input={"command": "ls"}),
        ToolUseBlock(id="p2", name="bash", input={"command": "pwd"}))),
        result("p1", "r" * LARGE, "p1.result"), result("p2", "r" * LARGE, "p2.result")]
    h = [system(), user("task", "u1"), *parallel, *groups("a", 2, LARGE), answer("a", "f1"),
         user("u", "u2")]
    assert spans(1, h, config()) == [(2, 9)]


def test_tool_runs_follow_min_consecutive_tool_messages() -> None:
    h = [system(), user("task", "u1"), *groups("a", 2, LARGE), answer("a", "f1"), user("u", "u2")]
    assert spans(1, h, config(min_consecutive_tool_messages=3)) == [(2, 6)]
    assert spans(1, h, config(min_consecutive_tool_messages=4)) == []


def test_tool_runs_skip_runs_under_min_compression_tokens_and_move_past_them() -> None:
    small = groups("a", 4, 1000)  # ~1,100 tokens
    large = groups("b", 4, LARGE)  # ~6,100 tokens
    h = [system(), user("task", "u1"), *small, answer("a", "f1"), user("u", "u2"), *large,
         answer("b", "f2"), user("last", "u3")]
    cfg = config(min_compression_tokens=5000)
    assert spans(1, h, cfg) == [(12, 20)]
    h_small_only = [system(), user("task", "u1"), *small, answer("a", "f1"), user("u", "u2")]
    assert spans(1, h_small_only, cfg) == []


def test_tool_runs_are_broken_by_plain_messages() -> None:
    h = [system(), user("task", "u1"), *groups("a", 3, LARGE), answer("thinking", "f1"),
         *groups("b", 3, LARGE), answer("b", "f2"), user("u", "u2")]
    assert spans(1, h, config()) == []


def test_tool_runs_never_reach_into_the_protected_tail() -> None:
    h = [system(), user("task", "u1"), *groups("a", 8, LARGE)]  # 18 messages, no answer yet
    assert spans(1, h, config(last_keep=6)) == [(2, 12)]


def test_a_tool_run_cut_by_the_tail_ends_on_a_whole_group() -> None:
    h = [system(), user("task", "u1"), *groups("a", 8, LARGE)]
    # the tail starts at 13, inside the group (12, 14): that group stays out
    assert spans(1, h, config(last_keep=5)) == [(2, 12)]


def tail_budget(messages: Sequence[Message], cfg: AutoContextConfig) -> int:
    pinned = pinned_indices(messages, cfg)
    return (cfg.target_tokens - sum(C.count(messages[i]) for i in pinned)) * 3 // 4


def test_the_protected_tail_fits_three_quarters_of_the_room_beside_the_pinned_messages() -> None:
    h = [system(), user("task", "u1"), *groups("a", 8, LARGE)]  # ~1,520 tokens per group
    assert spans(1, h, config(last_keep=50)) == []  # every message is in the tail
    capped = config(last_keep=50, max_tokens=16_000, target_ratio=0.5)  # target 8,000 tokens
    start = layout(h, capped, C).tail_start
    budget = tail_budget(h, capped)
    assert sum(C.count(m) for m in h[start:]) <= budget < sum(C.count(m) for m in h[start - 1:])
    assert spans(1, h, capped) == [(2, start)]
    # a larger pinned system prompt leaves less room, so a shorter tail
    heavy = [system("S" * 8000), *h[1:]]
    assert layout(heavy, capped, C).tail_start > start


def test_tool_runs_fire_in_a_long_single_round_without_a_final_answer() -> None:
    h = [system(), user("task", "u1"), *groups("a", 10, LARGE)]
    assert not any(is_final_answer(m) for m in h)
    [(start, end)] = spans(1, h, config())
    assert start == 2 and end <= len(h) - 2


def test_tool_runs_never_include_the_in_flight_group() -> None:
    answered = [system(), user("task", "u1"), *groups("a", 5, LARGE)]
    assert spans(1, answered, config()) == [(2, 10)]  # the last answered group stays
    pending = [*answered, call("z", "z.call")]  # a call whose result has not come back
    assert spans(1, pending, config()) == [(2, 12)]


def test_tool_runs_are_split_by_pinned_ids() -> None:
    h = [system(), user("task", "u1"), *groups("a", 8, LARGE), answer("a", "f1"), user("u", "u2")]
    # pinning a3's result leaves a0-a2 (6 messages: too short) and a4-a7 (8 messages)
    assert spans(1, h, config(pinned_ids={"a3.result"})) == [(10, 18)]


def test_tool_runs_are_split_by_never_compress_tools() -> None:
    h = [system(), user("task", "u1"), *groups("a", 3, LARGE),
         *group("skill", LARGE, name="read_skill"), *groups("b", 4, LARGE), answer("a", "f1"),
         user("u", "u2")]
    cfg = config(never_compress_tools={"read_skill"})
    assert spans(1, h, cfg) == [(10, 18)]
    assert "skill.call" not in ids_of(h, 1, cfg) and "skill.result" not in ids_of(h, 1, cfg)


def test_tool_runs_replace_the_run_with_one_tagged_assistant_summary() -> None:
    h = [system(), user("task", "u1"), *groups("a", 4, LARGE), answer("a", "f1"), user("u", "u2")]
    res, store = only(1, h, config())
    assert [m.id for m in res.messages] == ["sys", "u1", "a0.call", "f1", "u2"]
    summary = res.messages[2]
    assert summary.role == "assistant" and not summary.has_tool_blocks
    m = meta(summary)
    assert m["compressed"] is True and m["strategy"] == 1
    assert summary.text.endswith(sized_tag(summary, str(m["offload_id"])))
    assert "cat a0.py" in summary.text  # the extractive summary keeps exact arguments
    assert dicts(store.load(str(m["offload_id"]))) == dicts(h[2:10])
    assert [e.replaced_ids for e in res.events] == [tuple(x.id for x in h[2:10])]


def test_a_new_tool_run_absorbs_the_earlier_run_summary() -> None:
    h = [system(), user("task", "u1"), *groups("a", 4, LARGE)]
    first, _ = only(1, [*h, *group("z", SMALL)], config())
    assert [m.id for m in first.messages][:3] == ["sys", "u1", "a0.call"]
    later = [*first.messages[:-2], *groups("b", 4, LARGE), *group("z", SMALL)]
    # the summary at index 2 starts the next run, so summaries roll forward
    assert spans(1, later, config()) == [(2, 11)]


def test_tool_runs_do_not_resummarize_a_lone_run_summary() -> None:
    h = [system(), user("task", "u1"), *groups("a", 4, LARGE), *group("z", SMALL)]
    first, _ = only(1, h, config(min_consecutive_tool_messages=1))
    assert spans(1, first.messages, config(min_consecutive_tool_messages=1)) == []


# ================================================================= strategy 2: offload, protected


def test_offload_protected_replaces_a_large_tool_result_by_preview_and_tag_keeping_its_id() -> None:
    big = "E" * 300 + "x" * LARGE
    h = [system(), user("task", "u1"), call("c0", "a0"), result("c0", big, "t0", is_error=True),
         answer("done", "f1"), user("next", "u2")]
    res, store = only(2, h, config())
    new = by_id(res.messages)["t0"]
    [block] = new.tool_results
    assert new.role == "tool"
    assert block.tool_use_id == "c0" and block.is_error is True
    offload_id = str(meta(new)["offload_id"])
    assert block.content == "E" * 200 + "...\n" + sized_tag(block, offload_id)
    assert meta(new)["strategy"] == 2 and is_compressed(new)
    assert message_to_dict(by_id(res.messages)["a0"]) == message_to_dict(h[2])
    assert dicts(store.load(offload_id)) == dicts([h[3]])


def test_offload_protected_keeps_the_tool_name_of_an_openai_result() -> None:
    raw = [
        {"role": "system", "content": "policy"},
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c0", "type": "function",
             "function": {"name": "get_user_details", "arguments": "{\"user_id\": \"u\"}"}}]},
        {"role": "tool", "tool_call_id": "c0", "name": "get_user_details",
         "content": "y" * LARGE},
        {"role": "assistant", "content": "found you"},
        {"role": "user", "content": "thanks"},
    ]
    res, _ = only(2, from_openai(raw), config())
    out = to_openai(res.messages)
    assert out[3]["name"] == "get_user_details" and out[3]["tool_call_id"] == "c0"
    assert out[3]["content"].startswith("y" * 200 + "...\n<!-- CONTEXT_OFFLOAD: uuid=")
    assert out[2] == raw[2]


def test_offload_protected_cuts_large_agent_text_to_a_preview_and_leaves_the_user_alone(
) -> None:
    h = [system(), user("task", "u1"), answer("A" * LARGE, "f1"), user("B" * LARGE, "u2"),
         answer("ok", "f2"), user("last", "u3")]
    res, _ = only(2, h, config())
    m = by_id(res.messages)["f1"]
    assert m.role == "assistant"
    assert m.text == "A" * 200 + "...\n" + sized_tag(m, str(meta(m)["offload_id"]))
    assert by_id(res.messages)["u2"] == h[3]  # the user's words go last


def test_offload_preview_length_follows_offload_preview_chars() -> None:
    h = [system(), user("task", "u1"), answer("A" * LARGE, "f1"), user("last", "u2")]
    res, _ = only(2, h, config(offload_preview_chars=50))
    assert by_id(res.messages)["f1"].text.startswith("A" * 50 + "...\n<!--")


def test_offload_protected_never_offloads_tool_use_messages() -> None:
    h = [system(), user("task", "u1"), call("c0", "a0", text="T" * LARGE,
                                             args={"content": "w" * LARGE}),
         result("c0", "ok", "t0"), answer("done", "f1"), user("u", "u2")]
    assert spans(2, h, config()) == []
    assert spans(3, h, config()) == []


def test_offload_threshold_is_more_than_large_payload_threshold_characters() -> None:
    h = [system(), user("task", "u1"), answer("a" * 5120, "at"), answer("b" * 5121, "over"),
         user("last", "u2")]
    assert ids_of(h, 2, config()) == ["over"]
    assert ids_of(h, 2, config(large_payload_threshold=100)) == ["at", "over"]


def test_offload_protected_keeps_the_last_last_keep_messages() -> None:
    h = [system(), user("task", "u1"), *groups("a", 4, LARGE), answer("a", "f1"), user("u", "u2")]
    # the last 4 messages are a3.call, a3.result, f1, u2 -> a3's result stays
    assert ids_of(h, 2, config(last_keep=4)) == ["a0.result", "a1.result", "a2.result"]
    assert ids_of(h, 2, config(last_keep=5)) == ["a0.result", "a1.result"]


def test_offload_protected_never_touches_pinned_messages() -> None:
    h = [system("S" * LARGE, id="s1"), user("T" * LARGE, "u1"), system("R" * LARGE, id="s2"),
         *group("skill", LARGE, name="read_skill"), answer("P" * LARGE, "pinned"),
         answer("X" * LARGE, "free"), user("L" * LARGE, "u2")]
    cfg = config(never_compress_tools={"read_skill"}, pinned_ids={"pinned"})
    assert ids_of(h, 2, cfg) == ["free"]
    assert ids_of(h, 3, cfg) == ["free"]


def test_offload_protected_skips_messages_it_already_offloaded() -> None:
    h = [system(), user("task", "u1"), answer("A" * LARGE, "f1"), user("last", "u2")]
    res, _ = only(2, h, config())
    assert spans(2, res.messages, config()) == []


def test_offload_protected_spares_the_in_flight_group_even_without_a_tail() -> None:
    h = [system(), user("task", "u1"), *group("a0", LARGE), *group("a1", LARGE)]
    assert ids_of(h, 2, config(last_keep=0)) == ["a0.result"]


def test_offload_protected_works_before_any_final_answer() -> None:
    h = [system(), user("task", "u1"), *groups("a", 3, LARGE)]
    assert not any(is_final_answer(m) for m in h)
    assert ids_of(h, 2, config()) == ["a0.result", "a1.result"]


# ================================================================= strategy 3: offload, no tail


def test_offload_all_reaches_into_the_tail_but_stops_at_the_latest_final_answer() -> None:
    h = [system(), user("task", "u1"), *group("a0", LARGE), answer("F" * LARGE, "f1"),
         user("next", "u2"), *group("b0", LARGE), *group("b1", LARGE)]
    cfg = config(last_keep=50)
    assert ids_of(h, 2, cfg) == []  # everything is in the protected tail
    # b0 is not in flight but belongs to the current round: strategy 3 spares it
    assert ids_of(h, 3, cfg) == ["a0.result", "f1"]


def test_offload_all_does_nothing_without_a_final_answer() -> None:
    h = [system(), user("task", "u1"), *groups("a", 4, LARGE)]
    assert spans(3, h, config(last_keep=50)) == []
    assert spans(3, h, config(last_keep=0)) == []


def test_offload_all_never_offloads_tool_use_or_pinned_messages() -> None:
    h = [system("S" * LARGE), user("T" * LARGE, "u1"),
         call("c0", "a0", text="t" * LARGE), result("c0", "ok", "t0"),
         answer("F" * LARGE, "f1"), user("L" * LARGE, "u2")]
    assert ids_of(h, 3, config(last_keep=50)) == ["f1"]


# ================================================================= strategy 4: previous rounds


def rounds_history(chars: int = LARGE) -> list[Message]:
    """Two finished rounds (~3,000 tokens each), then the latest user message."""
    return [system(), user("task", "u1"), *groups("a", 2, chars), answer("answer one", "f1"),
            user("second", "u2"), *groups("b", 2, chars), answer("answer two", "f2"),
            user("third", "u3")]


def test_previous_rounds_summarize_the_oldest_finished_round_keeping_its_user_message() -> None:
    h = rounds_history()
    assert spans(4, h, config()) == [(2, 7), (8, 13)]  # each round, oldest first
    res, store = only(4, h[:8], config())  # one finished round, then the latest user
    assert [m.id for m in res.messages] == ["sys", "u1", "a0.call", "u2"]
    summary = res.messages[2]
    assert summary.role == "assistant" and meta(summary)["strategy"] == 4
    assert summary.text.endswith(sized_tag(summary, str(meta(summary)["offload_id"])))
    assert dicts(store.load(str(meta(summary)["offload_id"]))) == dicts(h[2:7])
    assert dicts(res.messages[:2]) == dicts(h[:2]) and dicts(res.messages[3:]) == dicts(h[7:8])
    assert [e.replaced_ids for e in res.events] == [tuple(m.id for m in h[2:7])]


def test_previous_rounds_keep_the_user_message_of_every_summarized_round() -> None:
    h = rounds_history()
    res, _ = only(4, h, config(min_compression_tokens=2000))
    assert [m.id for m in res.messages] == ["sys", "u1", "a0.call", "u2", "b0.call", "u3"]
    assert message_to_dict(res.messages[3]) == message_to_dict(h[7])


def test_previous_rounds_never_take_a_user_turn_into_a_summary() -> None:
    h = [system(), user("task", "u1"), *groups("a", 2, 400), answer("one", "f1"),
         user("second", "u2"), *groups("b", 2, 400), answer("two", "f2"),
         user("third", "u3"), *groups("c", 2, 400), answer("three", "f3"), user("now", "u4")]
    # each round alone (~230 tokens) is too small, and rounds are not joined across the
    # user's turns (AgentScope joined them, user messages and all)
    assert spans(4, h, config(min_compression_tokens=300)) == []
    res, store = only(4, h, config(min_compression_tokens=0))
    assert [m.id for m in res.messages] == ["sys", "u1", "a0.call", "u2", "b0.call", "u3",
                                            "c0.call", "u4"]
    assert [m.text for m in res.messages if m.role == "user"] == [
        m.text for m in h if m.role == "user"]
    assert [e.strategy for e in res.events if e.status == "applied"] == [4, 4, 4]
    assert dicts(expand_one(store, res.messages[2])) == dicts(h[2:7])


def test_previous_rounds_skip_the_latest_round() -> None:
    h = rounds_history()[:-1]  # ends on f2: u2's round is the latest one
    assert spans(4, h, config()) == [(2, 7)]
    res, _ = only(4, h, config())
    assert [m.id for m in res.messages][-6:] == ["u2", "b0.call", "b0.result", "b1.call",
                                                 "b1.result", "f2"]


def test_previous_rounds_summarize_each_round_once_it_is_worth_a_summary() -> None:
    h = [system(), user("task", "u1"), *groups("a", 2, SMALL), answer("one", "f1"),
         user("second", "u2"), *groups("b", 2, LARGE), answer("two", "f2"), user("third", "u3")]
    assert spans(4, h, config(min_compression_tokens=0)) == [(2, 7), (8, 13)]
    # round two (~3,050 tokens) is big enough alone: it keeps its user message
    assert spans(4, h, config(min_compression_tokens=3000)) == [(8, 13)]
    small_first = [system(), user("task", "u1"), *groups("a", 2, SMALL), answer("one", "f1"),
                   user("second", "u2"), *groups("b", 2, SMALL), answer("two", "f2"),
                   user("third", "u3")]
    # two small rounds (~80 tokens each) are not joined across the user's turn u2
    assert spans(4, small_first, config(min_compression_tokens=150)) == []
    assert spans(4, h, config(min_compression_tokens=5000)) == []  # ranges under the minimum


def test_previous_rounds_skip_a_round_that_is_only_its_answer() -> None:
    h = [system(), user("task", "u1"), answer("A" * LARGE, "f1"), user("next", "u2")]
    assert spans(4, h, config()) == []


def test_previous_rounds_skip_rounds_holding_pinned_messages() -> None:
    h = rounds_history()
    assert spans(4, h, config(pinned_ids={"a1.result"})) == [(8, 13)]
    tool_pinned = [system(), user("task", "u1"), *group("s", LARGE, name="read_skill"),
                   answer("one", "f1"), user("second", "u2"), answer("two", "f2"),
                   user("third", "u3")]
    assert spans(4, tool_pinned, config(never_compress_tools={"read_skill"})) == []


def test_a_previous_round_summary_is_never_taken_for_a_final_answer() -> None:
    res, _ = only(4, rounds_history(), config())
    summaries = [m for m in res.messages if is_compressed(m)]
    assert summaries and not any(is_final_answer(m) for m in summaries)
    assert layout(res.messages, config(), C).latest_final == -1
    assert spans(4, res.messages, config()) == []  # a lone summary is not summarized again


def test_an_offloaded_final_answer_still_ends_its_round() -> None:
    h = [system(), user("task", "u1")]
    for k in range(6):  # tool calls with long reasoning (never offloaded) and 5,000-char results
        h += [call(f"c{k}", f"a{k}", text="a" * LARGE), result(f"c{k}", "r" * 5000, f"t{k}")]
    h += [answer("F" * 10_000, "f1"), user("next", "u2"), answer("ok", "f2"), user("third", "u3")]
    # trigger 14,400 and target 3,600 tokens on a window that keeps "large" at 5 KiB
    cfg = config(max_tokens=48_000, token_ratio=0.3, target_ratio=0.075,
                 last_keep=2, min_compression_tokens=1000, disabled_strategies={1})
    assert C.count_messages(h) >= cfg.trigger_tokens and cfg.large_chars == 5 * 1024
    store = OffloadStore(InMemoryStore())
    res = compress(h, config=cfg, counter=C, offload=store, summarizer=ExtractiveSummarizer())
    # strategy 2 offloads f1 (10,000 chars); the prompt is still over the 12,000 target, and
    # round one, whose answer is now a preview, is summarized next
    assert [e.strategy for e in res.events if e.status == "applied"] == [2, 4]
    assert res.events[1].replaced_ids[-1] == "f1"
    assert res.tokens <= cfg.target_tokens


# ================================================================= strategy 5: current large


def test_current_large_summarizes_large_messages_of_the_current_round_keeping_tool_blocks() -> None:
    h = [system(), user("task", "u1"),
         call("c0", "a0", text="T" * LARGE, args={"path": "src/app.py"}),
         result("c0", "R" * LARGE, "t0", is_error=True), *group("z", LARGE)]
    assert ids_of(h, 5, config()) == ["a0", "t0"]  # z is in flight
    res, store = only(5, h, config())
    a0, t0 = by_id(res.messages)["a0"], by_id(res.messages)["t0"]
    assert a0.tool_uses == h[2].tool_uses  # id, name and exact arguments
    assert a0.text.endswith(sized_tag(a0, str(meta(a0)["offload_id"])))
    assert "T" * 300 not in a0.text
    [block] = t0.tool_results
    assert block.tool_use_id == "c0" and block.is_error is True
    assert block.text.endswith(sized_tag(block, str(meta(t0)["offload_id"])))
    assert dicts(res.messages[-2:]) == dicts(h[-2:])
    assert dicts(store.load(str(meta(a0)["offload_id"]))) == dicts([h[2]])
    assert [m.id for m in res.messages] == [m.id for m in h]


def test_current_large_ignores_messages_before_the_latest_user_turn() -> None:
    h = [system(), user("task", "u1"), *group("a", LARGE), answer("done", "f1"),
         user("next", "u2"), *group("b", LARGE), *group("z", SMALL)]
    assert ids_of(h, 5, config()) == ["b.result"]


def test_current_large_skips_small_pinned_and_compressed_messages() -> None:
    h = [system(), user("task", "u1"), *group("small", SMALL),
         *group("skill", LARGE, name="read_skill"), *group("b", LARGE), *group("z", SMALL)]
    cfg = config(never_compress_tools={"read_skill"})
    assert ids_of(h, 5, cfg) == ["b.result"]
    res, _ = only(5, h, cfg)
    assert spans(5, res.messages, cfg) == []


# ================================================================= strategy 6: current round


def test_current_round_compresses_the_round_but_keeps_the_latest_tool_group_verbatim() -> None:
    h = [system(), user("task", "u1"), *groups("a", 3, LARGE)]
    assert spans(6, h, config()) == [(2, 6)]
    res, store = only(6, h, config())
    assert [m.id for m in res.messages] == ["sys", "u1", "a0.call", "a2.call", "a2.result"]
    summary = res.messages[2]
    assert meta(summary)["strategy"] == 6 and meta(summary)["current_round"] is True
    assert dicts(res.messages[3:]) == dicts(h[6:])  # the in-flight group, untouched
    assert dicts(store.load(str(meta(summary)["offload_id"]))) == dicts(h[2:6])
    assert "cat a0.py" in summary.text and "cat a1.py" in summary.text


def test_current_round_keeps_an_unanswered_tool_call_verbatim() -> None:
    h = [system(), user("task", "u1"), *groups("a", 3, LARGE), call("z", "z.call")]
    res, _ = only(6, h, config())
    assert [m.id for m in res.messages] == ["sys", "u1", "a0.call", "z.call"]
    assert message_to_dict(res.messages[-1]) == message_to_dict(h[-1])


def test_current_round_starts_after_the_latest_user_turn() -> None:
    h = [system(), user("task", "u1"), *group("a", LARGE), answer("done", "f1"),
         user("next", "u2"), *groups("b", 2, LARGE), *group("z", SMALL)]
    assert spans(6, h, config()) == [(6, 10)]


def test_current_round_instruction_asks_for_the_configured_share() -> None:
    h = [system(), user("task", "u1"), *groups("a", 3, LARGE)]
    [plan] = plans(6, h, config())
    assert plan.instruction is not None and "30%" in plan.instruction
    [plan] = plans(6, h, config(current_round_compression_ratio=0.25))
    assert plan.instruction is not None and "25%" in plan.instruction and "{ratio}" not in \
        plan.instruction


def test_current_round_stops_before_a_pinned_message() -> None:
    h = [system(), user("task", "u1"), *group("a", LARGE), *group("skill", SMALL,
                                                                  name="read_skill"),
         *group("b", LARGE), *group("z", SMALL)]
    assert spans(6, h, config(never_compress_tools={"read_skill"})) == [(2, 4)]


def test_current_round_does_not_recompress_its_own_lone_summary() -> None:
    h = [system(), user("task", "u1"), *groups("a", 3, LARGE)]
    res, _ = only(6, h, config())
    assert spans(6, res.messages, config()) == []


def test_current_round_leaves_a_small_round_alone_while_the_prompt_fits_the_window() -> None:
    h = [system(), user("task", "u1"), *groups("a", 3, SMALL)]  # ~90 tokens before z
    cfg = config(max_tokens=1000, min_compression_tokens=5000)  # min_range_tokens: 200
    assert spans(6, h, cfg) == []
    over = [system("S" * 5000), *h[1:]]  # a 1,250-token system prompt: over the window
    assert spans(6, over, cfg) == [(2, 6)]


def test_current_round_has_nothing_to_do_with_only_the_in_flight_group() -> None:
    h = [system(), user("task", "u1"), *group("z", LARGE)]
    assert spans(6, h, config()) == []
    assert spans(5, h, config()) == []


# ================================================================= no bare stand-in

TRACEBACK = (
    "<returncode>1</returncode>\n<output>\n"
    "Traceback (most recent call last):\n"
    '  File "/testbed/repro.py", line 3, in <module>\n'
    "    settings['missing']\n"
    "KeyError: 'missing'\n</output>"
)
RECORD = [
    "str_replace_editor:",
    "src/app/settings.py",
    "bash:",
    "python repro.py → exit 1: KeyError: 'missing'",
    "grep -rn missing src/",
    "cat README.md",
    "Files named: docs/guide.md",
]


def work(p: str) -> list[Message]:
    """Four tool calls: an edit that names a second file, a failing run, a search, a read."""
    return [
        call(f"{p}0", f"{p}0.call", name="str_replace_editor",
             args={"command": "str_replace", "path": "src/app/settings.py",
                   "new_str": "# see docs/guide.md"}),
        result(f"{p}0", "edited", f"{p}0.result"),
        call(f"{p}1", f"{p}1.call", args={"command": "python repro.py"}),
        result(f"{p}1", TRACEBACK + "x" * LARGE, f"{p}1.result"),
        call(f"{p}2", f"{p}2.call", args={"command": "grep -rn missing src/"}),
        result(f"{p}2", "src/app/settings.py:1: missing", f"{p}2.result"),
        call(f"{p}3", f"{p}3.call", args={"command": "cat README.md"}),
        result(f"{p}3", "# readme\n" + "r" * LARGE, f"{p}3.result"),
    ]


class Fixed:
    """A summarizer whose summary says nothing about the range."""

    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        return "Some work was done."


def run_alone(n: int, h: Sequence[Message], **kw: object) -> CompressionResult:
    """Strategy ``n`` alone, over the trigger (and over the budget when ``max_tokens`` is
    given), with room for a full record, the fixed summarizer."""
    cfg = config(token_ratio=1e-9, target_ratio=1e-9, record_chars=2000,
                 disabled_strategies=set(STRATEGY_NAMES) - {n}, **kw)
    res = compress(h, config=cfg, counter=C, offload=OffloadStore(InMemoryStore()),
                   summarizer=Fixed(), force=True)
    assert validate_pairing(res.messages) == []
    return res


def stand_in_histories() -> dict[int, tuple[list[Message], dict[str, object]]]:
    tail = [answer("Fixed it.", "f1"), user("Thanks. Keep going.", "u2")]
    return {
        1: ([system(), user("task", "u1"), *work("w"), *tail], {}),
        4: ([system(), user("task", "u1"), *work("w"), *tail], {}),
        6: ([system(), user("task", "u1"), *work("w"), *group("z", SMALL)], {}),
        7: ([system(), user("task", "u1"), *work("w"), *tail, answer("ok", "f2"),
             user("latest", "u3")], {"max_tokens": 1000}),
        9: ([system(), user("task", "u1"), user("Never touch prod.", "u2"), *work("w"),
             answer("Fixed it.", "f1"), user("Thanks. Keep going.", "u3"),
             answer("ok", "f2"), user("latest", "u4")], {"max_tokens": 1000}),
    }


@pytest.mark.parametrize("n", [1, 4, 6, 7, 9])
def test_every_range_stand_in_names_the_calls_their_failures_and_the_files_it_replaced(
        n: int) -> None:
    h, kw = stand_in_histories()[n]
    res = run_alone(n, h, **kw)
    [stand_in] = [m for m in res.messages if is_compressed(m)]
    assert meta(stand_in)["strategy"] == n
    # what the stand-in says itself tells nothing of the calls; its record does
    own = {1: "Some work was done.", 4: "Some work was done.", 6: "Some work was done.",
           7: "[", 9: USER_NOTE_HEADER}[n]
    assert stand_in.text.startswith(own)
    record = stand_in.text.split(CALLS_HEADER, 1)[1].splitlines()[1:len(RECORD) + 1]
    assert record == RECORD
    assert "Traceback" not in stand_in.text


@pytest.mark.parametrize("n", range(1, 10))
def test_a_stand_ins_marker_says_what_its_strategy_declares(n: int) -> None:
    strategy = STRATEGIES[n - 1]
    histories = {**stand_in_histories(),
                 2: ([system(), user("task", "u1"), *work("w"), answer("Fixed.", "f1"),
                      user("next", "u2")], {}),
                 3: ([system(), user("task", "u1"), *work("w"), answer("Fixed.", "f1"),
                      user("next", "u2")], {"last_keep": 50}),
                 5: ([system(), user("task", "u1"), *work("w"), *group("z", SMALL)], {}),
                 8: ([system(), user("task", "u1"), *work("w")],
                     {"max_tokens": 1500, "keep_tool_results": 3})}
    h, kw = histories[n]
    res = run_alone(n, h, **kw)
    stand_ins = [m for m in res.messages if is_compressed(m)]
    assert stand_ins
    for m in stand_ins:
        marker = meta(m)
        assert marker["strategy"] == n
        assert marker["range"] is strategy.writes_summary
        assert bool(marker.get("closes_round")) is strategy.closes_round


def test_strategies_declare_what_the_pipeline_reads() -> None:
    assert [s.number for s in STRATEGIES] == list(range(1, 10))
    assert len({s.name for s in STRATEGIES}) == 9
    for s in STRATEGIES:
        assert s.last_resort is (s.runs_when == "over_budget"), s.name
        assert not (s.uses_llm and s.last_resort), s.name  # a last resort needs no model
    assert [s.name for s in STRATEGIES if s.last_resort] == [
        "offload_history", "offload_working_set", "user_turns"]
    assert STRATEGIES[-1].name == "user_turns"  # the user's words go last


def test_a_marker_from_an_older_checkpoint_is_read_by_its_strategy_number() -> None:
    def stand_in(strategy: int) -> Message:
        old = {"ctxmgr": {"compressed": True, "strategy": strategy, "offload_id": "0" * 32}}
        return Message(role="assistant", content=answer("summary", "x").content, id=f"s{strategy}",
                       metadata=old)

    ranges = {n for n in range(1, 9) if CompressedMarker.of(stand_in(n)).range}  # type: ignore[union-attr]
    assert ranges == {1, 4, 6, 7}  # the strategies that then wrote one message for a range
    assert [n for n in range(1, 9) if closes_round(stand_in(n))] == [4]
    # an old round summary still ends its round and is never taken for the agent's answer
    h = [system(), user("task", "u1"), stand_in(4), user("next", "u2"), answer("done", "f2"),
         user("last", "u3")]
    assert not is_final_answer(h[2])
    assert layout(h, config(), C).rounds == ((1, 2), (3, 4))


def _reservations(n: int) -> list[Message]:
    h = [system(), user("change my flight", id="u0")]
    for k in range(n):
        details = {"reservation_id": f"XEHM{k}B", "flights": [
            {"flight_number": f"HAT0{k}5", "date": f"2024-05-2{k}"}],
            "payment_history": [{"payment_id": f"gift_card_68478{k}0", "amount": 120 + k}]}
        h += [call(f"c{k}", id=f"a{k}", name="get_reservation_details",
                   args={"reservation_id": f"XEHM{k}B"}),
              result(f"c{k}", json.dumps(details), id=f"t{k}")]
    return [*h, answer("Here are your reservations.", id="z")]


def test_a_history_note_names_the_values_it_replaced_only_in_room_it_leaves() -> None:
    # on a 4k window strategy 7's bare note dropped every id the earlier stand-ins held
    h = _reservations(4)
    total = C.count_messages(h)
    roomy = config(max_tokens=total - 5, identifiers_chars=400)  # the note frees plenty
    (plan,) = plans(7, h, roomy)
    note = plan.build(None, "0" * 16)[0].text
    assert "offloaded to make room" in note
    assert all(f"gift_card_68478{k}0" in note and f"HAT0{k}5" in note for k in range(4))
    assert "payment_history" not in note  # a key, not a value
    tight = config(max_tokens=60, identifiers_chars=400)  # still over once it is written
    (plan,) = plans(7, h, tight)
    assert "Identifiers" not in plan.build(None, "0" * 16)[0].text
