"""What the agent uses next stays verbatim; the last resort cuts it only to fit the budget."""

from __future__ import annotations

import json

import pytest
from builders import C, answer, call, result, system, user
from trajectory_dirs import FIXTURES

from ctxmgr import (
    AutoContextConfig,
    AutoContextMemory,
    ContextOverflowError,
    ExtractiveSummarizer,
    Tuning,
    validate_pairing,
)
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.strategies.offload_working_set import head_and_tail
from ctxmgr.messages import Message
from ctxmgr.pairing import tool_groups
from ctxmgr.replay import load_trajectories


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
    cfg = AutoContextConfig(max_tokens=16_000, tuning=Tuning(keep_tool_results=6))
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


def test_a_preview_names_the_values_of_what_it_cut_in_the_same_room() -> None:
    # JSON output: head and tail are mostly keys, the ids the agent copies lie between
    rows = [{"reservation_id": f"RES{k:04d}X", "flight_number": f"HAT{k:03d}",
             "status": "confirmed"} for k in range(40)]
    text = json.dumps(rows)
    cut = head_and_tail(text, 600)
    named = [f"RES{k:04d}X" for k in range(40) if f"RES{k:04d}X" in cut]
    assert len(named) >= 10 and "naming:" in cut
    assert cut.startswith(text[:50]) and cut.endswith(text[-50:])
    names = cut.split("naming:")[1].split(" ...]")[0]
    assert "reservation_id" not in names and "flight_number" not in names  # keys
    plain = head_and_tail(text.replace("RES", "res").replace("HAT", "hat"), 600)
    assert len(cut) <= len(plain) + 40  # about the room head and tail alone take


def test_a_preview_never_names_the_piece_of_a_string_its_cut_split() -> None:
    # head and tail take (150 - 100) // 2 = 25 characters each: the cut falls inside the id
    text = "x" * 20 + " omar_davis_123456 RES0001X RES0002X" + " plain words" * 20
    cut = head_and_tail(text, 150)
    named = cut.split("naming: ")[1].split(" ...]")[0].split(", ")
    assert named == ["RES0002X", "RES0001X"]  # not "_davis_123456", which no one wrote


def support_chat(turns: int) -> list[Message]:
    """A 4k-window support conversation: a ~1,250-token policy, short question-and-answer
    turns that no strategy 1-6 takes (none large, no LLM), then three ~300-token lookups."""
    h = [system("Policy line. " * 420), user("I need to change my booking.", id="u0")]
    for k in range(turns):
        h += [answer(f"Could you tell me detail number {k} of your booking, please? " * 3,
                     id=f"f{k}"),
              user(f"Detail {k} is booking_ref_{k}, as on my confirmation email.", id=f"u{k + 1}")]
    for k in range(3):
        h += [call(f"c{k}", id=f"a{k}"),
              result(f"c{k}", f"record_{k}: " + "seat 12A, fare Y, " * 60, id=f"t{k}")]
    return h


def test_over_the_budget_the_user_turns_are_the_last_thing_cut() -> None:
    cfg = AutoContextConfig(max_tokens=4000, disabled_strategies={1, 4, 5, 6})  # no LLM
    mem = AutoContextMemory(cfg, counter=C)
    h = support_chat(turns=20)
    assert C.count_messages(h) > cfg.budget_tokens
    mem.add(h)
    events = [e for e in mem.compress_if_needed() if e.status == "applied"]
    assert events and {e.name for e in events} <= {"offload_history", "offload_working_set"}
    assert mem.tokens <= cfg.budget_tokens
    assert validate_pairing(mem.messages) == []
    # every turn the user wrote is still there, word for word
    assert [m for m in mem.messages if m.role == "user"] == [m for m in h if m.role == "user"]
    for e in events:  # what went is reloadable, byte for byte
        assert mem.reload(e.offload_id or "") == [m for m in h if m.id in set(e.replaced_ids)]


def test_under_the_budget_the_turns_stay() -> None:
    cfg = AutoContextConfig(max_tokens=8000, disabled_strategies={1, 4, 5, 6})
    mem = AutoContextMemory(cfg, counter=C)
    h = support_chat(turns=20)
    mem.add(h)
    mem.compress_if_needed()
    assert not any(e.name == "offload_history" for e in mem.events)
    assert all(m in mem.messages for m in h if m.role == "user")


def test_a_cut_preview_is_cut_again_before_a_newer_result_is_touched() -> None:
    cfg = AutoContextConfig(max_tokens=16_000)
    mem = AutoContextMemory(cfg, counter=C)
    h = run_of(3, 20_000)  # ~5,000 tokens each: the oldest is cut, only as far as needed
    mem.add(h)
    mem.compress_if_needed()
    assert [e.replaced_ids for e in mem.events if e.status == "applied"] == [("t0",)]
    mem.add([answer("checked", id="f0"), user("and now? " + "w" * 4_000, id="u1")])
    mem.compress_if_needed()  # over again, and t0 is still in the working set
    cuts = [e.replaced_ids for e in mem.events if e.status == "applied"]
    assert cuts[1:] == [("t0",)]  # the preview again, smaller
    assert mem.tokens <= cfg.budget_tokens
    assert mem.messages[-5] == h[-3] and mem.messages[-3] == h[-1]  # t1 and t2 verbatim
    preview = CompressedMarker.of(mem.messages[3])
    assert preview is not None and mem.reload(preview.offload_id) == [h[3]]  # one hop
    assert preview.offload_id in mem.messages[3].tool_results[0].text  # its only tag


def test_on_recorded_support_runs_at_4k_the_working_set_is_cut_only_when_it_cannot_fit(
        ) -> None:
    """At every model call of the recorded support runs: the prompt fits the budget with
    valid pairing, and whenever the pinned messages and the working set (the last three
    tool calls with their results, the latest assistant message) fit with 150 tokens to
    spare for the notes, the last three tool results are in the prompt verbatim."""
    cfg = AutoContextConfig(max_tokens=4000)
    checked = 0
    for run in load_trajectories([FIXTURES]):
        if not run.id.startswith("tau"):
            continue
        mem = AutoContextMemory(cfg, counter=C, summarizer=ExtractiveSummarizer())
        seen = 0
        for i, m in enumerate(run.messages):
            if m.role != "assistant":
                continue
            history = run.messages[:i]
            mem.add(history[seen:])
            seen = i
            mem.compress_if_needed()
            prompt = mem.prompt
            assert C.count_messages(prompt) <= cfg.budget_tokens
            assert validate_pairing(prompt) == []
            groups = tool_groups(history)[-3:]
            if not groups:
                continue
            users = [j for j, x in enumerate(history) if x.role == "user" and not x.tool_results]
            need = {j for g in groups for j in range(g.start, g.end)}
            need |= {j for j, x in enumerate(history) if x.role == "system"}
            need |= {users[0], users[-1], max(j for j, x in enumerate(history)
                                              if x.role == "assistant")}
            if C.count_messages([history[j] for j in sorted(need)]) + mem.hint_tokens + 150 > (
                    cfg.budget_tokens):
                continue  # the working set alone does not fit: cutting it is allowed
            checked += 1
            kept = {x.id: x for x in prompt}
            for j in sorted(need):
                assert kept.get(history[j].id) == history[j], f"{run.id} call {i}: {j} cut"
    assert checked >= 80  # of 94 calls with a tool result before them


def test_a_file_the_agent_wrote_in_the_working_set_is_cut_to_fit_and_reloads_whole() -> None:
    # a coding agent writes a 40,000-character file in one call, under a task and a latest
    # request that take most of an 8k window: the call's argument is what must give
    cfg = AutoContextConfig(max_tokens=8_000)
    mem = AutoContextMemory(cfg, counter=C)
    written = "cat > fix.py << 'EOF'\n" + "\n".join(
        f"def step_{k}(x):\n    return x + {k}" for k in range(1_400)) + "\nEOF"
    mem.add([system(), user("the task: " + "spec " * 1_000, id="u0"),
             call("c0", id="a0", text="Let me write a cleaner version:",
                  args={"command": written, "cwd": "/repo"}),
             result("c0", "", id="t0"),
             user("and now: " + "detail " * 1_500, id="u1"),
             call("c1", id="a1"), result("c1", "ok", id="t1")])
    mem.compress_if_needed()
    assert mem.tokens <= cfg.budget_tokens
    assert validate_pairing(mem.messages) == []
    cut = next(m for m in mem.messages if m.id == "a0")
    [use] = cut.tool_uses
    assert use.name == "bash" and use.input["cwd"] == "/repo"  # short arguments stay
    assert use.input["command"].startswith("cat > fix.py")
    assert "characters offloaded" in use.input["command"]
    oid = CompressedMarker.of(cut).offload_id  # type: ignore[union-attr]
    assert f"uuid={oid}" in use.input["command"]  # the model can ask for it back
    assert mem.reload(oid)[0].tool_uses[0].input["command"] == written  # every byte back
