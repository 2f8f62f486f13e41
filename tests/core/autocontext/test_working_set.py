"""What the agent uses next stays verbatim; the last resort cuts it only to fit the budget."""

from __future__ import annotations

import pytest
from builders import C, call, result, system, user

from ctxmgr import (
    AutoContextConfig,
    AutoContextMemory,
    ContextOverflowError,
    ExtractiveSummarizer,
    validate_pairing,
)
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.strategies.offload_working_set import head_and_tail


def run_of(n: int, chars: int) -> list:
    h = [system(), user("fix the bug", id="u0")]
    for k in range(n):
        body = f"head {k}\n" + "x" * chars + f"\ntail {k}"
        h += [call(f"c{k}", id=f"a{k}"), result(f"c{k}", body, id=f"t{k}")]
    return h


def test_the_last_three_tool_results_stay_verbatim_through_every_compression() -> None:
    cfg = AutoContextConfig(max_tokens=16_000)
    mem = AutoContextMemory(cfg, counter=C, summarizer=ExtractiveSummarizer())
    h = run_of(60, 1500)
    for k, m in enumerate(h):
        mem.add(m)
        mem.compress_if_needed()
        results = [x for x in h[:k + 1] if x.tool_results]
        kept = {x.id: x for x in mem.messages}
        for original in results[-3:]:
            assert kept.get(original.id) == original, f"step {k}: {original.id} not verbatim"
    assert any(CompressedMarker.of(m) for m in mem.messages)  # it did compress the rest


def test_working_set_size_is_a_knob() -> None:
    cfg = AutoContextConfig(max_tokens=16_000, keep_tool_results=6)
    mem = AutoContextMemory(cfg, counter=C)
    h = run_of(60, 1500)
    mem.add(h)
    mem.compress_if_needed()
    tail = [m for m in mem.messages if m.tool_results][-6:]
    assert tail == [m for m in h if m.tool_results][-6:]


def test_an_oversized_in_flight_result_is_previewed_head_and_tail_not_refused() -> None:
    cfg = AutoContextConfig(max_tokens=16_000)
    mem = AutoContextMemory(cfg, counter=C)
    huge = "BEGIN\n" + "z" * 5_000_000 + "\nEND of the 5 MB output"
    mem.add([system(), user("task", id="u0"), call("c0", id="a0"), result("c0", huge, id="t0")])
    events = mem.compress_if_needed()
    assert [e.name for e in events if e.status == "applied"] == ["offload_working_set"]
    assert mem.tokens <= cfg.budget_tokens
    preview = mem.messages[-1].tool_results[0].text
    assert preview.startswith("BEGIN") and "END of the 5 MB output" in preview
    assert "characters offloaded" in preview
    assert validate_pairing(mem.messages) == []
    oid = CompressedMarker.of(mem.messages[-1]).offload_id  # type: ignore[union-attr]
    assert mem.reload(oid)[0].tool_results[0].text == huge  # every byte back


def test_the_oldest_of_the_working_set_goes_first_and_only_as_far_as_needed() -> None:
    cfg = AutoContextConfig(max_tokens=16_000)
    mem = AutoContextMemory(cfg, counter=C)
    h = run_of(3, 20_000)  # three results of ~5,000 tokens each: over the 13,300 budget
    mem.add(h)
    events = [e for e in mem.compress_if_needed() if e.status == "applied"]
    assert [e.replaced_ids for e in events] == [("t0",)]
    assert mem.messages[-1] == h[-1] and mem.messages[-3] == h[-3]  # the newest two verbatim
    assert mem.tokens <= cfg.budget_tokens


def test_overflow_is_left_for_pinned_messages_that_alone_exceed_the_budget() -> None:
    cfg = AutoContextConfig(max_tokens=4000)
    mem = AutoContextMemory(cfg, counter=C)
    mem.add([system(), user("t" * 40_000, id="u0")])
    with pytest.raises(ContextOverflowError) as info:
        mem.compress_if_needed()
    assert info.value.limit == cfg.budget_tokens


def test_head_and_tail_keeps_both_ends() -> None:
    text = "A" * 100 + "B" * 1000 + "C" * 100
    cut = head_and_tail(text, 200)
    assert cut.startswith("A" * 100) and cut.endswith("C" * 100) and "1000 characters" in cut
    assert head_and_tail("short", 200) == "short"
