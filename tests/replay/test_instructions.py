"""The instruction-survival suite: sessions are deterministic and valid measuring
instruments, scoring sees what a model reads, the protocol hands prompts on as it says,
the benchmark's bad input is one line and exit 2, and (until the user-turn compression
lands) ctxmgr's distance from issue 16's targets."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest
from planted import (
    FAMILIES,
    ITEM_TYPES,
    KINDS,
    POSITIONS,
    Compressed,
    PlantedItem,
    RoundSummary,
    Session,
    SessionSpec,
    ceiling_compressor,
    check_session,
    checklist_compressor,
    generate_session,
    generate_sessions,
    missed_targets,
    run_protocol,
    run_protocols,
    score_prompt,
    summarize,
)
from planted.phrasings import SUBJECTS, TEMPLATES, UPDATABLE, UPDATES

from ctxmgr import Message, ToolResultBlock, ToolUseBlock, validate_pairing
from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.marker import OFFLOAD_TAG_RE
from ctxmgr.autocontext.standing import USER_NOTE_HEADER
from ctxmgr.messages import message_to_dict, text_message
from ctxmgr.replay.fidelity import visible_text
from ctxmgr.tokens import default_counter

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_instructions.py"
SPECS = [SessionSpec(kind=k, family=f) for k in KINDS for f in FAMILIES]


@pytest.fixture(scope="module")
def sample() -> list[Session]:
    """Six sessions of every kind and family."""
    return [s for spec in SPECS for s in generate_sessions(6, spec)]


def _user_ids(session: Session) -> list[str]:
    return [m.id for m in session.messages if m.role == "user"]


# ---------------------------------------------------------------- the generator


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.kind}-{s.family}")
def test_a_seed_gives_the_same_session_every_time(spec: SessionSpec) -> None:
    a, b = generate_session(11, spec), generate_session(11, spec)
    assert [message_to_dict(m) for m in a.messages] == [message_to_dict(m) for m in b.messages]
    assert a.items == b.items
    other = generate_session(12, spec)
    assert [m.text for m in other.messages] != [m.text for m in a.messages]


def test_every_session_is_a_valid_instrument(sample: list[Session]) -> None:
    for s in sample:
        assert check_session(s) == [], s.id
        assert validate_pairing(s.messages, allow_in_flight=False) == []
        assert validate_pairing(s.messages, rules="anthropic", allow_in_flight=False) == []


def test_every_planted_value_is_in_its_own_messages_and_nowhere_else(
        sample: list[Session]) -> None:
    for s in sample:
        text = {m.id: visible_text(m) for m in s.messages}
        for item in s.items:
            for value in (*item.values, *item.replaced):
                where = {i for i, t in text.items() if value in t}
                assert where and where <= set(item.message_ids), (s.id, item.key, value)


def test_a_replaced_value_occurs_only_before_its_update(sample: list[Session]) -> None:
    for s in sample:
        order = {m.id: k for k, m in enumerate(s.messages)}
        for item in (i for i in s.items if i.updated):
            update = order[item.message_ids[-1]]
            assert item.latest is not None and item.latest in item.said[-1]
            for m in s.messages:
                holds_old = any(old in visible_text(m) for old in item.replaced)
                assert not holds_old or order[m.id] < update, (s.id, item.key)
                assert item.latest not in visible_text(m) or order[m.id] >= update


def test_neither_the_task_nor_the_latest_user_message_carries_an_item(
        sample: list[Session]) -> None:
    for s in sample:
        users = _user_ids(s)
        planted = {i for item in s.items for i in item.message_ids}
        assert users[0] not in planted and users[-1] not in planted


def test_sessions_have_the_requested_shape(sample: list[Session]) -> None:
    counter = default_counter()
    for s in sample:
        types = Counter(i.type for i in s.items)
        assert len(s.items) == 20 and set(types) == set(ITEM_TYPES)
        assert {i.position for i in s.items} == set(POSITIONS)
        assert sum(i.updated for i in s.items) == 5
        assert all(i.type in UPDATABLE for i in s.items if i.updated)
        assert s.messages[0].role == "system" and s.messages[-1].role == "assistant"
        if s.spec.kind == "chat":
            assert 120 <= len(s.messages) <= 140
            assert not any(m.has_tool_blocks for m in s.messages)
            assert 2000 <= counter.count_messages(s.messages) <= 4500
        else:
            calls = [b for m in s.messages for b in m.tool_uses]
            results = [b for m in s.messages for b in m.tool_results]
            assert len(calls) == len(results) >= 30
            assert {c.name for c in calls} >= {"bash", "read_file", "http_get"}
            assert any(r.is_error for r in results)


def test_the_families_share_no_phrasing_and_each_has_ten_forms_per_type() -> None:
    for type_ in ITEM_TYPES:
        by_family = {f: [t for t in TEMPLATES[type_] if t.family == f] for f in FAMILIES}
        texts = [{t.text for t in by_family[f]} for f in FAMILIES]
        assert all(not a & b for k, a in enumerate(texts) for b in texts[k + 1:])
        for templates in by_family.values():
            assert len({t.form for t in templates}) >= 10
    for type_ in UPDATABLE:
        for family in FAMILIES:
            updates = [t for t in UPDATES[type_] if t.family == family]
            assert {t.form for t in updates} == {"same", "rephrased"}
        texts = [{t.text for t in UPDATES[type_] if t.family == f} for f in FAMILIES]
        assert all(not a & b for k, a in enumerate(texts) for b in texts[k + 1:])


def test_a_session_uses_many_forms_subjects_and_value_kinds(sample: list[Session]) -> None:
    for family in FAMILIES:
        mine = [s for s in sample if s.spec.family == family]
        forms = {(i.type, i.form) for s in mine for i in s.items}
        for type_ in ITEM_TYPES:
            assert len({f for t, f in forms if t == type_}) >= 8, (family, type_)
        assert {i.update_form for s in mine for i in s.items if i.updated} == {
            "same", "rephrased"}
    kinds = {sub.value for subs in SUBJECTS.values() for sub in subs}
    assert len(kinds) >= 25


def test_sizes_are_configurable_and_checked() -> None:
    s = generate_session(3, SessionSpec(items=8, updates=2, restatements=0, user_turns=24))
    assert len(s.items) == 8 and sum(i.updated for i in s.items) == 2
    assert len(_user_ids(s)) == 24 and check_session(s) == []
    with pytest.raises(ValueError, match="updates must be in"):
        SessionSpec(items=5, updates=5)
    with pytest.raises(ValueError, match="user_turns=6 is too few"):
        SessionSpec(user_turns=6)
    with pytest.raises(ValueError, match="kind must be one of"):
        SessionSpec(kind="voice")  # type: ignore[arg-type]


def test_check_session_names_a_value_that_leaks_into_another_message() -> None:
    s = generate_session(0)
    item = s.items[0]
    leak = text_message("assistant", f"As you said: {item.values[0]}.", id="leak")
    broken = dataclasses.replace(s, messages=(*s.messages, leak))
    assert any("also occurs in ['leak']" in p for p in check_session(broken))
    updated = next(i for i in s.items if i.updated)
    late = text_message("user", f"old one: {updated.replaced[0]}", id="late")
    broken = dataclasses.replace(s, messages=(*s.messages, late))
    assert any("after the update" in p for p in check_session(broken))


# ---------------------------------------------------------------- scoring


def _item(values: tuple[str, ...], replaced: tuple[str, ...] = (),
          said: tuple[str, ...] = ("Keep the hotel rate under $455.",)) -> PlantedItem:
    return PlantedItem(key="i00", type="constraint", position="early", values=values,
                       replaced=replaced, latest=values[0] if replaced else None, said=said,
                       message_ids=("m",) * len(said), form="imperative",
                       update_form="same" if replaced else None)


def test_an_item_is_kept_when_its_values_are_anywhere_the_model_reads() -> None:
    item = _item(("$455",))
    prompt = [text_message("user", "Keep the hotel rate under $455.")]
    assert score_prompt([item], prompt)[0].kept
    call = Message(role="assistant", content=(ToolUseBlock(id="c", name="book",
                                                           input={"max": "$455"}),))
    result = Message(role="tool", content=(ToolResultBlock(tool_use_id="c",
                                                           content="cap $455 applied"),))
    assert score_prompt([item], [call, result])[0].kept
    assert not score_prompt([item], [text_message("user", "Keep the hotel rate low.")])[0].kept


def test_an_updated_item_needs_its_latest_value_to_have_the_last_word() -> None:
    item = _item(("$650",), replaced=("$455",), said=(
        "Keep the hotel rate under $455.", "The hotel rate is now capped at $650."))
    in_order = [text_message("user", "Keep the hotel rate under $455."),
                text_message("user", "The hotel rate is now capped at $650.")]
    reversed_ = in_order[::-1]
    latest = [text_message("user", "The hotel rate is now capped at $650.")]
    old = [text_message("user", "Keep the hotel rate under $455.")]
    # read in order, the update comes last: it stands (stale: the old value still shows)
    assert [(s.kept, s.stale) for s in score_prompt([item], in_order)] == [(True, True)]
    assert [(s.kept, s.stale) for s in score_prompt([item], reversed_)] == [(False, True)]
    assert [(s.kept, s.stale) for s in score_prompt([item], latest)] == [(True, False)]
    assert [(s.kept, s.stale) for s in score_prompt([item], old)] == [(False, True)]


def test_a_bare_list_of_values_is_kept_but_not_with_its_words() -> None:
    item = _item(("ORD-48213",), said=("Never refund order ORD-48213.",))
    bare = [text_message("assistant", "[summary]\nidentifiers: ORD-48213, src/app.py")]
    sentence = [text_message("user", "note: never refund order ORD-48213, ok")]
    assert [(s.kept, s.with_words) for s in score_prompt([item], bare)] == [(True, False)]
    assert [(s.kept, s.with_words) for s in score_prompt([item], sentence)] == [(True, True)]


def test_every_item_is_kept_with_its_words_by_the_message_that_last_said_it(
        sample: list[Session]) -> None:
    for s in sample:
        by_id = {m.id: m for m in s.messages}
        for item in s.items:
            score = score_prompt([item], [by_id[item.message_ids[-1]]])[0]
            assert score.kept and score.with_words, (s.id, item.said[-1])


# ---------------------------------------------------------------- the protocol


def _keep_nothing(messages: Sequence[Message], window: int) -> Compressed:
    return Compressed([m for m in messages if m.role == "system"][:1], overflow=True)


def test_each_round_compresses_the_previous_rounds_prompt() -> None:
    session = generate_session(1, SessionSpec(items=6, updates=2, restatements=0,
                                              user_turns=20))
    seen: list[tuple[int, int]] = []

    def spy(messages: Sequence[Message], window: int) -> Compressed:
        seen.append((len(messages), window))
        return Compressed(list(messages[: len(messages) - 2]))

    run = run_protocol(session, share=0.5, compressor=spy, name="spy", rounds=3)
    n = len(session.messages)
    assert seen == [(n, run.window), (n - 2, run.window), (n - 4, run.window)]
    assert run.window == int(0.5 * default_counter().count_messages(session.messages))
    assert [r.number for r in run.rounds] == [1, 2, 3]


def test_wire_mode_hands_on_what_openai_messages_can_carry() -> None:
    session = generate_session(2, SessionSpec(items=6, updates=2, restatements=0,
                                              user_turns=20))
    marked: list[bool] = []

    def marker(messages: Sequence[Message], window: int) -> Compressed:
        marked.append(any(m.metadata for m in messages))
        return Compressed([dataclasses.replace(m, metadata={"ctxmgr": 1}) for m in messages])

    run_protocol(session, share=0.5, compressor=marker, mode="objects", rounds=2)
    run_protocol(session, share=0.5, compressor=marker, mode="wire", rounds=2)
    assert marked == [False, True, False, False]


def test_overflowing_rounds_are_counted_and_still_scored() -> None:
    session = generate_session(4)
    run = run_protocol(session, share=0.3, compressor=_keep_nothing, name="nothing")
    (first, *_), *_ = [summarize([run])]
    assert all(r.overflow for r in run.rounds)
    assert first.overflow_rounds == 1 and first.survival == 0.0
    assert first.to_json()["overflow_prompt_to_window_max"] is not None
    assert missed_targets([first]) == [
        "nothing chat design objects at 30%, round 1: survival 0.000 < 0.95",
        "nothing chat design objects at 30%, round 1: latest value stands for 0 of 5 "
        "updated items"]


def test_the_ceiling_keeps_everything_when_there_is_room_and_meets_the_targets() -> None:
    sessions = [generate_session(5, SessionSpec(kind=k, family="heldout")) for k in KINDS]
    runs = [run_protocol(s, share=share, compressor=ceiling_compressor(s), name="ceiling")
            for s in sessions for share in (1.0, 0.3)]
    summaries = summarize(runs)
    assert all(s.survival == 1.0 for s in summaries if s.share == 1.0)
    assert missed_targets(summaries) == []
    for run in runs:
        for r in run.rounds:
            assert validate_pairing(r.prompt) == []
            assert r.tokens <= run.window


def test_the_ceiling_pays_for_the_markup_ctxmgr_must_carry() -> None:
    """Measured on the same room: its note has ctxmgr's header, a line each, the count
    left out and an offload tag (SPEC §5), so what it keeps is what a note of whole
    sentences can keep, not more."""
    session = generate_session(3, SessionSpec(family="probe"))
    run = run_protocol(session, share=0.1, compressor=ceiling_compressor(session),
                       name="ceiling")
    for r in run.rounds:
        notes = [m.text for m in r.prompt if m.text.startswith(USER_NOTE_HEADER)]
        assert len(notes) == 1
        lines = notes[0].splitlines()
        assert OFFLOAD_TAG_RE.fullmatch(lines[-1])
        assert re.fullmatch(r"\(\+\d+ more\)", lines[-2])  # a tenth holds few of 20
        kept = lines[1:-2]
        assert kept and all(any(line in s for i in session.items for s in i.said)
                            for line in kept)
        assert r.tokens <= AutoContextConfig(max_tokens=run.window).budget_tokens


def test_the_checklist_keeps_value_sentences_within_the_budget() -> None:
    session = generate_session(6, SessionSpec(kind="tools"))
    run = run_protocol(session, share=0.3, compressor=checklist_compressor,
                       name="checklist", rounds=2)
    first = run.rounds[0]
    assert validate_pairing(first.prompt) == []
    assert first.tokens <= run.window and not first.overflow
    assert sum(s.kept for s in first.scores) >= 10
    assert first.prompt[1].text == session.messages[1].text  # the task


# ---------------------------------------------------------------- the benchmark


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_instructions", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("args", "message"), [
    (["--sessions", "0"], "--sessions must be at least 1, got 0"),
    (["--rounds", "0"], "--rounds must be at least 1, got 0"),
    (["--kinds", "voice"], "unknown kind 'voice' (known: chat, tools)"),
    (["--families", "test"], "unknown family 'test' (known: design, heldout, probe, fresh)"),
    (["--modes", "json"], "unknown mode 'json' (known: objects, wire)"),
    (["--shares", "1.5"], "--shares must be in (0, 1], got 1.5"),
    (["--markdown", "/nonexistent/dir/RESULTS.md"], "--markdown: folder /nonexistent/dir "
                                                    "does not exist"),
])
def test_bad_input_is_one_line_and_exit_2(bench: ModuleType, capsys: pytest.CaptureFixture[str],
                                         args: list[str], message: str) -> None:
    assert bench.main(args) == 2
    err = capsys.readouterr().err
    assert err == f"bench_instructions: {message}\n"


def test_a_malformed_argument_is_one_line_and_exit_2(
        bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--sessions", "x"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        "bench_instructions: argument --sessions: invalid int value: 'x'\n")


def test_the_benchmark_writes_its_section_and_leaves_the_others(
        bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Results\n\n<!-- other -->\nkeep me\n<!-- /other -->\n")
    out = tmp_path / "out.json"
    assert bench.main(["--sessions", "1", "--kinds", "chat", "--families", "heldout",
                       "--modes", "wire", "--shares", "0.3", "--rounds", "2",
                       "--json", str(out), "--markdown", str(results)]) == 0
    text = results.read_text()
    assert "<!-- other -->\nkeep me\n<!-- /other -->" in text
    section = text.split("<!-- bench_instructions -->")[1]
    assert "| chat | heldout | wire | 30 % | ctxmgr |" in section
    assert "| chat | heldout | wire | 30 % | ceiling | 1.000 | 1.000 |" in section
    assert '"compressor": "checklist"' in out.read_text()
    assert "Targets (ctxmgr)" in capsys.readouterr().out


# ---------------------------------------------------------------- the targets


@pytest.fixture(scope="module")
def held_out() -> list[RoundSummary]:
    """Six held-out sessions of each kind at 30, 20 and 10 %, both hand-on modes, five
    rounds each."""
    sessions = [s for k in KINDS
                for s in generate_sessions(6, SessionSpec(kind=k, family="heldout"))]
    return summarize([run for s in sessions for share in (0.3, 0.2, 0.1)
                      for run in run_protocols(s, share=share, modes=("objects", "wire"))])


def test_ctxmgr_meets_the_survival_targets_at_30_percent_and_on_tool_sessions(
        held_out: list[RoundSummary]) -> None:
    """At least 0.95 of the planted items every round at 30 %, and on tool sessions 0.90 at
    20 % and 0.40 at 10 %."""
    met = [s for s in held_out if s.share == 0.3 or s.kind == "tools"]
    assert [m for m in missed_targets(met) if "survival" in m] == []


def test_on_chat_sessions_at_20_and_10_percent_the_language_neutral_note_holds_its_ground(
        held_out: list[RoundSummary]) -> None:
    """Issue 41 replaced the English grammar of the note (its rules for "here", "now",
    elapsed time, opening asides, run-on lines and more, each fitted to one template of
    this generator) by a reader that works in every language from closed word classes:
    a one-off request ("please draft a short reply") now ranks with the rules, as a
    request in any language must, and takes room the planted values had. On these six
    sessions chat keeps 0.89 at 20 % (0.95 before) and 0.35 at 10 % (0.43 before), the
    same every round and in both modes; benchmarks/RESULTS.md has the four families over
    100 sessions. Since a sentence that says something changed ranks as a request (the
    latest value in Chinese, Japanese, Korean and Arabic: +0.035 to +0.09 at 30 %), these
    six keep 0.325 at 10 %; over 150 sessions per family that cost at most 0.007. These
    sessions guard against a regression of that reader."""
    chat20 = [s for s in held_out if s.kind == "chat" and s.share == 0.2]
    chat10 = [s for s in held_out if s.kind == "chat" and s.share == 0.1]
    assert chat20 and min(s.survival for s in chat20) >= 0.80
    assert chat10 and min(s.survival for s in chat10) >= 0.32


def test_the_latest_value_of_nearly_every_updated_item_stands_at_20_and_30_percent(
        held_out: list[RoundSummary]) -> None:
    """At least 0.95 of the updated items at 30 % and 0.90 at 20 %, every round: 30 of 30
    (chat) and 29 of 30 (tools) at 30 %, 28 and 29 of 30 at 20 %. The misses are
    updates in other words that no rare word of the subject links ("the export lands in
    X every night" ... "Y gets the nightly export")."""
    for share, floor in ((0.3, 0.95), (0.2, 0.90)):
        at = [s for s in held_out if s.share == share]
        assert at and all(s.latest.kept >= floor * s.latest.total for s in at)
