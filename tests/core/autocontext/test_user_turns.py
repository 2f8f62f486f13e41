"""Strategy 9, the very last resort: the user's oldest turns become one note of what they
said that still stands.

What a user relies on: it runs only when the prompt is still over the budget once every
other strategy has done what it can; the task and the latest message stay verbatim;
the note sits right after the pinned prefix as a user message, holds the standing
sentences word for word, once each and at their latest value, within its cap, and
counts what it left in the reloadable original; one note rolls forward, and its lines
are still read as the user's words after a round trip that loses ctxmgr's markers.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

import pytest
from builders import C, answer, dicts, expand, groups, plain_window, system, user
from planted import KINDS, SessionSpec, generate_session, run_protocol

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.marker import OFFLOAD_ID_DIGITS, OFFLOAD_TAG_RE, CompressedMarker
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.pins import is_user_turn
from ctxmgr.autocontext.pipeline import CompressionResult, compress
from ctxmgr.autocontext.record import CALLS_HEADER, is_record_line
from ctxmgr.autocontext.rounds import layout
from ctxmgr.autocontext.standing import (
    USER_NOTE_HEADER,
    Statement,
    latest,
    statements_of,
)
from ctxmgr.autocontext.strategies import StrategyContext
from ctxmgr.autocontext.strategies.user_turns import UserTurns
from ctxmgr.convert import from_openai, to_openai
from ctxmgr.errors import ContextOverflowError
from ctxmgr.messages import Message, message_to_dict
from ctxmgr.pairing import validate_pairing
from ctxmgr.store.memory import InMemoryStore


@pytest.fixture(autouse=True)
def _strategies_in_their_own_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise the strategies in their own order (summaries before the
    history notes of strategy 7): ``Tuning.history_notes_first`` is off here."""
    monkeypatch.setenv("CTXMGR_HISTORY_NOTES_FIRST", "false")

SAID = ("Never touch the prod database.", "ok thanks", "The refund cap is $450.",
        "Please answer in Czech.", "what's next?", "The refund cap is $650 now.",
        "Keep replies under 120 words.", "Use the staging server 10.0.4.17 for tests.")


def chat(said: Sequence[str] = SAID) -> list[Message]:
    """The task, then an acknowledgement and a user turn for each of ``said`` (ids
    ``u1`` ..), then a last answer and the latest user message."""
    h = [system(), user("Help me with the support queue today.", "u0")]
    for k, text in enumerate(said, 1):
        h += [answer(f"Acknowledged. Continuing with the plan ({k}).", f"f{k}"),
              user(text, f"u{k}")]
    return [*h, answer("Here is the next ticket.", "fz"), user("Next ticket please.", "ulast")]


def run(h: Sequence[Message], max_tokens: int, **kw: Any
        ) -> tuple[CompressionResult, OffloadStore]:
    """Compress ``h`` into a window of ``max_tokens`` (no reserve, no margin, no working
    set), without a summarizer; a prompt over the budget still gives its result."""
    store = OffloadStore(InMemoryStore())
    cfg = plain_window(max_tokens=max_tokens, **kw)
    try:
        res = compress(h, config=cfg, counter=C, offload=store, summarizer=None)
    except ContextOverflowError as err:
        assert err.partial is not None
        res = err.partial
    assert validate_pairing(res.messages) == []
    assert validate_pairing(res.messages, rules="anthropic") == []
    return res, store


def notes(messages: Sequence[Message]) -> list[Message]:
    return [m for m in messages if USER_NOTE_HEADER in m.text]


def the_note(messages: Sequence[Message]) -> Message:
    [note] = notes(messages)
    return note


def note_lines(note: Message) -> list[str]:
    """The user's lines of a note, one a line, between its header and its count line,
    its record or its tag, without the mark a pasted line ("> ") or an item of the user's
    list ("- ") carries."""
    out = []
    for line in note.text.split(USER_NOTE_HEADER, 1)[1].splitlines()[1:]:
        if line.startswith(("(+", "(nothing")) or OFFLOAD_TAG_RE.search(line) or \
                is_record_line(line):
            break
        out.append(line[2:] if line.startswith(("> ", "- ")) else line)
    return out


def offload_id(m: Message) -> str:
    marker = CompressedMarker.of(m)
    if marker is not None:
        return marker.offload_id
    [found] = OFFLOAD_TAG_RE.findall(m.text)
    return found


def user_words(h: Sequence[Message]) -> list[str]:
    return [m.text for m in h if is_user_turn(m)]


# ================================================================= when it runs


def context(h: Sequence[Message], cfg: AutoContextConfig) -> StrategyContext:
    return StrategyContext(messages=h, layout=layout(h, cfg, C), config=cfg, counter=C,
                           tokens=C.count_messages(h))


def test_it_plans_nothing_while_the_prompt_fits_the_budget() -> None:
    h = chat()
    fits = plain_window(max_tokens=C.count_messages(h))
    assert UserTurns().plan(context(h, fits)) == []
    over = plain_window(max_tokens=C.count_messages(h) - 1)
    [plan] = UserTurns().plan(context(h, over))
    assert plan.instruction is None  # no summarizer: it is deterministic


def test_it_runs_only_after_every_other_strategy_left_the_prompt_over_the_budget() -> None:
    session = generate_session(1, SessionSpec(kind="tools"))
    h = list(session.messages)
    window = C.count_messages(h) // 5
    res, _ = run(h, window, keep_tool_results=3)
    applied = [(e.strategy, e.replaced_ids) for e in res.events if e.status == "applied"]
    assert 9 in {s for s, _ in applied} and res.tokens <= window
    first = next(k for k, (s, _) in enumerate(applied) if s == 9)
    without, _ = run(h, window, keep_tool_results=3, disabled_strategies={9})
    assert without.tokens > window  # strategies 1-8 alone could not make it fit
    # and until then, strategy 9 changed nothing: the same edits, in the same order
    assert applied[:first] == [(e.strategy, e.replaced_ids) for e in without.events
                               if e.status == "applied"]
    assert all(s == 9 for s, _ in applied[first:])


def test_the_task_and_the_latest_user_message_are_never_moved() -> None:
    h = chat()
    for window in (250, 200, 150, 120, 100):
        res, _ = run(h, window)
        assert message_to_dict(h[1]) in dicts(res.messages)  # the task
        assert message_to_dict(h[-1]) == message_to_dict(res.messages[-1])  # the latest


# ================================================================= what it moves


def test_the_oldest_turns_go_first_and_no_more_than_the_budget_needs() -> None:
    res, store = run(chat(), 250)
    [event] = [e for e in res.events if e.status == "applied"]
    assert event.strategy == 9
    assert event.replaced_ids == ("f1", "u1", "f2", "u2", "f3")  # up to u3
    assert [m.id for m in res.messages] == ["sys", "u0", "f1", "u3", "f4", "u4", "f5", "u5",
                                            "f6", "u6", "f7", "u7", "f8", "u8", "fz",
                                            "ulast"]
    note = res.messages[2]
    assert note.role == "user" and CompressedMarker.of(note).strategy == 9  # type: ignore[union-attr]
    assert note_lines(note) == ["Never touch the prod database."]
    assert res.tokens <= 250 < res.events[0].tokens_before


def test_the_note_is_a_user_message_right_after_the_pinned_prefix() -> None:
    h = [system(id="s1"), system("Also: be polite.", id="s2"), *chat()[1:]]
    res, _ = run(h, 160)
    assert [m.id for m in res.messages[:3]] == ["s1", "s2", "u0"]
    assert res.messages[3] is the_note(res.messages) and res.messages[3].role == "user"


def test_the_note_holds_the_standing_sentences_verbatim_once_each_at_their_latest_value(
        ) -> None:
    said = [*SAID[:3], "Never touch the prod database.", *SAID[3:]]  # said again, u4
    res, _ = run(chat(said), 150)
    lines = note_lines(the_note(res.messages))
    assert lines[:3] == ["Never touch the prod database.", "Please answer in Czech.",
                         "The refund cap is $650 now."]
    assert set(lines[3:]) <= {"Keep replies under 120 words."}
    # the courtesies are gone, and so is the replaced cap, from the whole prompt
    text = "\n".join(m.text for m in res.messages)
    assert "$450" not in text and "ok thanks" not in text and "what's next?" not in text


def test_a_value_replaced_by_a_turn_still_in_the_prompt_is_not_in_the_note() -> None:
    res, _ = run(chat(), 200)
    lines = note_lines(the_note(res.messages))
    assert "The refund cap is $450." not in lines
    assert "The refund cap is $650 now." in user_words(res.messages)  # verbatim, later


UPDATES = [
    ("The refund cap is $450.", "The refund cap is $650 now."),
    ("Keep the planned downtime under 222 minutes.", "The planned downtime is now 125 minutes."),
    ("The deadline is 2024-05-17.", "The deadline moved to 2024-06-01."),
    ("max 188 seconds for the API timeout pls", "the API timeout is now capped at 210 seconds."),
    ("Do not exceed 25 workers on the number of parallel workers.",
     "Please treat 4 workers as the limit for the number of parallel workers from here."),
    ("Send the weekly report to ana.ruiz@example.com.",
     "Send the weekly report to li.wei@example.com instead."),
    ("Our staging server is 10.0.4.17.", "Our staging server is now 10.0.9.3."),
    ("Please answer in Czech.", "Please answer in Turkish from now on."),
    ("The maintenance window starts at 02:40 UTC.", "Move the maintenance window to 07:50 UTC."),
    ("Sign the replies as Jovan Ravensworth.", "Sign the replies as Lucien Nakamura from now on."),
    ("Keep the discount we give at 12%.", "The discount we give goes to 17% as of today."),
    ("The import batch size must never be more than 2,334 rows.",
     "From now on the import batch size is at most 23,583 rows."),
]


@pytest.mark.parametrize(("earlier", "later"), UPDATES)
def test_when_the_user_changes_a_value_only_the_latest_one_stands(earlier: str,
                                                                    later: str) -> None:
    said = ["Never touch the prod database.", earlier, "ok", later, "Fine.", "Go on."]
    res, _ = run(chat(said), 100)  # every turn with a value is moved into the note
    ids = [m.id for m in res.messages]
    assert ids[:2] == ["sys", "u0"] and ids[-1] == "ulast"
    assert not {"u1", "u2", "u3", "u4"} & set(ids)
    assert note_lines(the_note(res.messages)) == ["Never touch the prod database.", later]
    assert not any(earlier in m.text for m in res.messages)


def test_a_new_value_for_one_thing_keeps_a_sentence_that_also_set_another() -> None:
    both = "The refund cap is $450 and refunds close after 30 days."
    said = ["Never touch the prod database.", both, "ok", "The refund cap is $650 now.",
            "Fine.", "Go on."]
    res, _ = run(chat(said), 110, user_note_chars=400)
    assert note_lines(the_note(res.messages)) == [
        "Never touch the prod database.", both, "The refund cap is $650 now."]


@pytest.mark.parametrize(("earlier", "later"), [
    ("Keep the attachment size under 89 MB.",
     "Update on the attachment size: the new limit is 46 MB."),
    ("My account number is AC-832595.", "My account number has changed, it's now AC-990192."),
])
def test_an_update_that_opens_with_its_subject_replaces_the_earlier_value(
        earlier: str, later: str) -> None:
    said = ["Never touch the prod database.", earlier, "ok", later, "Fine.", "Go on."]
    res, _ = run(chat(said), 100)
    assert note_lines(the_note(res.messages)) == ["Never touch the prod database.", later]


# ================================================================= its size and what it left out


def test_what_does_not_fit_the_note_is_counted_and_reloads_byte_for_byte() -> None:
    h = chat()
    res, store = run(h, 110, user_note_chars=70)
    note = the_note(res.messages)
    lines = note_lines(note)
    assert sum(len(line) + 1 for line in lines) <= 70
    originals = store.load(offload_id(note))
    assert dicts(originals) == dicts(h[2:2 + len(originals)]) and len(originals) >= 10
    # what stands in the turns it took (not the courtesies, nor a replaced cap) is in the
    # note or counted
    standing = latest(Statement(x.text, (i, *x.order)) for i, m in enumerate(originals)
                      if m.role == "user" for x in statements_of(m))
    assert "The refund cap is $450." not in [x.text for x in standing]
    assert f"(+{len(standing) - len(lines)} more)" in note.text and len(lines) < len(standing)
    assert dicts(expand(res.messages, store)) == dicts(h)


@pytest.mark.parametrize("user_note_chars", [0, 40, 120, 400, "auto"])
@pytest.mark.parametrize("window", [110, 150, 220])
def test_the_note_stays_within_user_note_chars_and_the_prompt_within_the_budget(
        user_note_chars: int | str, window: int) -> None:
    h = chat()
    res, _ = run(h, window, user_note_chars=user_note_chars)
    cfg = plain_window(max_tokens=window, user_note_chars=user_note_chars)
    assert res.tokens <= cfg.budget_tokens
    for note in notes(res.messages):
        assert sum(len(line) + 1 for line in note_lines(note)) <= cfg.user_note_limit


def test_a_note_with_no_room_for_any_sentence_says_how_many_it_left_out() -> None:
    res, _ = run(chat(), 110, user_note_chars=0)
    note = the_note(res.messages)
    assert note_lines(note) == [] and re.search(r"^\(\+\d+ more\)$", note.text, re.M)


def test_a_note_over_a_range_with_nothing_standing_says_so() -> None:
    res, _ = run(chat(["ok thanks", "great", "ok", "sure", "cool"]), 60)
    note = the_note(res.messages)
    assert note_lines(note) == [] and "(nothing that still stands)" in note.text


def test_the_note_carries_the_record_of_the_tool_calls_it_replaced_after_the_users_words(
        ) -> None:
    h = [system(), user("Clean up the export job.", "u0"), *groups("a", 2, 40),
         answer("Found two stale exports.", "f1"), user("Never delete anything under /srv/keep.",
                                                       "u1"),
         *groups("b", 2, 40), answer("Removed them.", "f2"),
         user("Retry at most 3 times per file.", "u2"), *groups("c", 1, 40),
         answer("Done.", "f3"), user("Thanks, what else?", "ulast")]
    res, _ = run(h, 120, record_chars=400)
    # the tool results go first, then the agent's turns, then the user's words: the note
    # takes the earlier notes in as well
    assert [e.strategy for e in res.events] == [2, 2, 2, 2, 2, 7, 7, 9]
    assert [m.id for m in res.messages] == ["sys", "u0", "a0.call", "ulast"]
    text = the_note(res.messages).text
    assert text.index("\nRetry at most 3 times per file.\n") < text.index(CALLS_HEADER)
    assert text.split(CALLS_HEADER)[1].split("<!--")[0].strip().splitlines() == [
        "bash:", "cat a0.py", "cat a1.py", "cat b0.py", "cat b1.py", "cat c0.py"]


# ================================================================= rolling forward


def test_one_note_rolls_forward_as_the_conversation_grows() -> None:
    h = chat([*SAID, "Escalate anything over $1,000 to Dana.", "fine",
              "The refund cap is $800 from today."])
    cfg = plain_window(max_tokens=150)
    mem = AutoContextMemory(cfg, counter=C)
    seen: set[str] = set()
    for m in h:
        mem.add(m)
        mem.compress_if_needed()
        assert len(notes(mem.messages)) <= 1
        seen.update(offload_id(n) for n in notes(mem.messages))
    assert len(seen) > 1  # the note was rewritten, not joined by a second one
    assert dicts(expand(mem.messages, mem.reload)) == dicts(h)
    lines = note_lines(the_note(mem.messages))
    assert "The refund cap is $800 from today." in "\n".join([*lines, *user_words(mem.messages)])
    assert not any("$450" in line or "$650" in line for line in lines)


def test_after_a_round_trip_without_markers_the_note_is_still_the_users_words() -> None:
    res, _ = run(chat(), 150)
    lines = note_lines(the_note(res.messages))
    back = from_openai(to_openai(res.messages))
    note = the_note(back)
    assert CompressedMarker.of(note) is None and is_user_turn(note)
    assert [s.text for s in statements_of(note)] == lines
    # a later pass takes the plain note in as the user's words, not its count or tag
    more = [*back, answer("Ticket done.", "g1"), user("Escalate anything over $1,000 to Dana.",
                                                      "v1"),
            answer("Noted.", "g2"), user("Next one.", "vlast")]
    again, store = run(more, 160)
    [new] = notes(again.messages)
    new_lines = note_lines(new)
    assert set(lines) <= set(new_lines)
    assert not any(is_record_line(x) or x.startswith("(") or "uuid" in x for x in new_lines)
    assert dicts(expand(again.messages, store)) == dicts(more)


def test_the_same_history_gives_the_same_note() -> None:
    one, _ = run(chat(), 150)
    two, _ = run(list(chat()), 150)
    assert dicts(one.messages) == dicts(two.messages)


# ================================================================= generated sessions


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("share", [0.3, 0.2, 0.1])
def test_on_generated_sessions_the_note_keeps_the_users_words_within_its_limits(
        kind: str, share: float) -> None:
    session = generate_session(5,
                               SessionSpec(kind=kind, family="heldout"))  # type: ignore[arg-type]
    h = list(session.messages)
    window = int(share * C.count_messages(h))
    cfg = AutoContextConfig(max_tokens=window)
    store = OffloadStore(InMemoryStore())
    res = compress(h, config=cfg, counter=C, offload=store, summarizer=None)
    assert res.tokens <= cfg.budget_tokens
    note = the_note(res.messages)
    users = [m for m in h if is_user_turn(m)]
    assert res.messages[2] is note and dicts(res.messages[:2]) == dicts(h[:2])
    assert message_to_dict(users[-1]) in dicts(res.messages)
    lines = note_lines(note)
    assert lines and len(lines) == len(set(lines))
    for line in lines:  # the user's words, verbatim
        assert any(line in m.text for m in users), line
    assert sum(len(line) + 1 for line in lines) <= cfg.user_note_limit
    left = re.search(r"^\(\+(\d+) more\)$", note.text, re.M)
    if left:  # what did not fit is in the reloadable original
        assert len(store.load(offload_id(note))) > 0
    assert dicts(expand(res.messages, store)) == dicts(h)
    # a replaced value never has the last word over the latest one
    text = "\n".join(m.text for m in res.messages)
    for item in session.items:
        if item.updated and item.latest in text:
            assert all(text.rfind(old) < text.rfind(item.latest) for old in item.replaced)


@pytest.mark.parametrize("kind", KINDS)
def test_compressing_again_and_again_through_the_wire_loses_nothing_more(kind: str) -> None:
    """Issue 16's protocol: each round compresses the previous round's prompt, handed on
    through ``to_openai`` / ``from_openai`` (markers lost). One note each round, and no
    planted item kept by a round is lost by a later one."""
    session = generate_session(2,
                               SessionSpec(kind=kind, family="heldout"))  # type: ignore[arg-type]
    run = run_protocol(session, share=0.2, mode="wire", rounds=5)
    kept = [{s.key for s in r.scores if s.kept} for r in run.rounds]
    for r in run.rounds:
        assert not r.overflow and len(notes(r.prompt)) == 1
    assert kept[0] and all(later >= earlier for earlier, later in zip(kept, kept[1:], strict=False))


@pytest.mark.parametrize("seed", range(8))
def test_the_note_takes_the_room_the_budget_leaves_to_within_a_short_line(seed: int) -> None:
    # a chat compressed to a fifth of its size: the note is the last thing written, and
    # what the budget leaves beside it would not hold one more short line of what the
    # user said (16 tokens: 64 characters); a shrink by ratio alone left 17-26
    session = generate_session(seed, SessionSpec(kind="chat", family="heldout"))
    h = list(session.messages)
    cfg = AutoContextConfig(max_tokens=int(0.2 * C.count_messages(h)))
    res = compress(h, config=cfg, counter=C, offload=OffloadStore(InMemoryStore()),
                   summarizer=None)
    assert re.search(r"^\(\+\d+ more\)$", the_note(res.messages).text, re.M)
    assert 0 <= cfg.budget_tokens - res.tokens <= 16


def test_the_note_is_measured_with_the_id_it_will_carry() -> None:
    # a range's id is the hash of its messages; measured with an id of zeros (14 tokens
    # in its tag, where a real one takes 13 to 23), the note for the range up to "is that
    # normal?" seemed to hold as many lines as the one that also took in that question
    # and the answer after it, so those stayed verbatim, and the note, written with its
    # real id, held one line fewer
    session = generate_session(37, SessionSpec(kind="chat", family="heldout"))
    run = run_protocol(session, share=0.1, rounds=1)
    [r] = run.rounds
    note = the_note(r.prompt)
    after = r.prompt[r.prompt.index(note) + 1:]
    assert [m.text for m in after if is_user_turn(m)] == ["that works"]
    assert len(note_lines(note)) >= 11  # 10 when measured with an id of zeros
    assert r.tokens <= AutoContextConfig(max_tokens=run.window).budget_tokens


def test_the_ids_of_every_candidate_range_are_the_ids_their_offloads_get() -> None:
    h = list(generate_session(5, SessionSpec(kind="tools", family="design")).messages)
    ends = [1, 2, 7, len(h) - 3, len(h) - 2]
    assert OffloadStore.ids_for(h[2:], ends) == {e: OffloadStore.id_for(h[2:2 + e])
                                                for e in ends}
    assert OffloadStore.ids_for(h, []) == {}
    # the id is the hash of the range's JSON less the message ids; with them, as blobs
    # written before were named
    for part in (h[2:9], h[:1], []):
        dicts = [message_to_dict(m) for m in part]
        blob = json.dumps(dicts, sort_keys=True)
        content = json.dumps([{k: v for k, v in d.items() if k != "id"} for d in dicts],
                             sort_keys=True)
        assert OffloadStore.id_for(part, with_ids=True) == hashlib.sha256(
            blob.encode("ascii")).hexdigest()[:OFFLOAD_ID_DIGITS]
        assert OffloadStore.id_for(part) == hashlib.sha256(
            content.encode("ascii")).hexdigest()[:OFFLOAD_ID_DIGITS]
