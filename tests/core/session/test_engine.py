"""SessionEngine: one model call of a session, its state, and the bound on sessions kept."""

from __future__ import annotations

import asyncio

import pytest
from builders import C, call, group, result, system, user

from ctxmgr import (
    AutoContextConfig,
    ConfigError,
    InMemoryStore,
    Message,
    Tuning,
    validate_pairing,
)
from ctxmgr.autocontext import apply_edits
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.prompts import RELOAD_HINT_ID
from ctxmgr.session import GUIDANCE_ID, SessionEngine, Turn, merge_session_state
from ctxmgr.session.state import SessionState


def config() -> AutoContextConfig:
    return AutoContextConfig(max_tokens=8000,
                             tuning=Tuning(min_compression_tokens=500, cached_token_price=None))


def history(n: int = 30) -> list[Message]:
    h = [system(), user("fix the bug in module.py", id="u0")]
    for k in range(n):
        h += group(f"c{k}", 1500)
    return h


def engine(**settings: object) -> SessionEngine:
    return SessionEngine(config().evolve(project="p", **settings), counter=C)


def prepare(e: SessionEngine, h: list[Message], state: dict | None, store: InMemoryStore,
            **kw: object) -> Turn:
    return e.prepare(h, state, store=store, session="s", **kw)  # type: ignore[arg-type]


def test_a_call_compresses_and_returns_the_prompt_the_edits_and_the_state_change() -> None:
    e, store = engine(), InMemoryStore()
    turn = prepare(e, history(), None, store)
    assert turn.edits and turn.events and "compression" in turn.update
    assert turn.messages == apply_edits(history(), turn.edits)
    assert turn.tokens <= e.config.budget_tokens
    assert validate_pairing(turn.prompt) == []
    assert [m.id for m in turn.prompt[:2]] == ["sys", RELOAD_HINT_ID]
    again = prepare(e, turn.messages, turn.state, store)  # the framework persisted the edits
    assert again.edits == [] and again.prompt == turn.prompt


def test_a_stand_in_the_framework_persists_is_never_kept_in_the_state_too() -> None:
    e, store = engine(), InMemoryStore()
    turn = prepare(e, history(), None, store, persisted=lambda edit: True)
    records = turn.state["compression"]["stand_ins"]
    assert records and all("message" not in r for r in records)
    # one it could not persist stays in the state until a history holds it
    kept = prepare(engine(), history(), None, InMemoryStore())
    assert all("message" in r for r in kept.state["compression"]["stand_ins"])
    later = prepare(e, turn.messages, turn.state, store)
    assert later.update == {} and later.prompt == turn.prompt


def test_the_guidance_and_the_hint_go_after_the_leading_system_messages() -> None:
    e = engine(message_archiving=True, memo=True)
    turn = prepare(e, history(), None, InMemoryStore())
    assert [m.id for m in turn.prompt[:4]] == ["sys", GUIDANCE_ID, RELOAD_HINT_ID, "u0"]
    small = prepare(e, history(1), None, InMemoryStore())
    assert [m.id for m in small.prompt[:3]] == ["sys", GUIDANCE_ID, "u0"]  # nothing compressed


def test_archived_results_and_memo_writes_are_shown_as_placeholders_the_history_keeps_them(
        ) -> None:
    e, store = engine(message_archiving=True, memo=True), InMemoryStore()
    h = [system(), user("task", id="u0"), *group("c0", 400),
         call("m1", "a1", name="memo", args={"action": "write", "key": "plan",
                                             "summary": "the plan", "content": "step " * 50})]
    archived = e.archive({"action": "archive", "tool_use_ids": ["c0"]}, h, None)
    assert archived.text == "Archived 1 tool result(s)"
    wrote = e.memo({"action": "write", "key": "plan", "summary": "the plan",
                    "content": "step " * 50}, h, store=store, session="s")
    assert wrote.update["memos_add"][0]["tool_use_id"] == "m1"  # found by its arguments
    state = merge_session_state(merge_session_state(None, archived.update), wrote.update)
    h.append(result("m1", wrote.text, "t1"))
    turn = prepare(e, h, state, store)
    shown = {m.id: m for m in turn.prompt}
    assert "has been archived" in shown["c0.result"].tool_results[0].text
    assert shown["a1"].tool_uses[0].input["content"].startswith("[PLACEHOLDER")
    assert turn.messages == h  # the history is never edited for either
    assert turn.sent_tokens < turn.tokens  # what is sent is counted as sent


def test_entries_of_messages_that_left_the_view_are_dropped() -> None:
    e, store = engine(message_archiving=True), InMemoryStore()
    h = history()
    archived = e.archive({"action": "archive", "tool_use_ids": ["c0"]}, h, None)
    turn = prepare(e, h, merge_session_state(None, archived.update), store)
    assert "c0.result" not in {m.id for m in turn.messages}
    assert turn.update["archive_remove"][0]["tool_use_id"] == "c0"
    assert "archive" not in turn.state or turn.state["archive"]["archived"] == []


def test_the_processors_kept_are_bounded_by_max_sessions() -> None:
    e, store = engine(max_sessions=2), InMemoryStore()
    first = e.processor(store, "a")
    assert e.processor(store, "a") is first
    for name in ("b", "c"):
        e.processor(store, name)
    assert len(e._processors) == 2 and e.processor(store, "a") is not first


def test_a_reported_usage_scales_the_next_counts() -> None:
    e, store = engine(), InMemoryStore()
    turn = prepare(e, history(3), None, store)
    change = e.usage(turn.state, reported=2 * turn.sent_tokens, sent_tokens=turn.sent_tokens)
    assert change["calibration"]["ratio"] == 2.0
    state = merge_session_state(turn.state, change)
    again = prepare(e, history(3), state, store)
    assert again.tokens > 1.9 * turn.tokens
    # an integration that sees the answer only at its next call keeps what it sent
    pending = merge_session_state(None, {"sent_tokens": turn.sent_tokens})
    assert e.usage(pending, reported=2 * turn.sent_tokens)["sent_tokens"] is None
    assert engine(calibrate=False).usage(turn.state, 5000, turn.sent_tokens) == {}


def test_a_new_calibration_keeps_the_ranges_the_session_already_read() -> None:
    """A reported usage changes the counting ratio, and so the processor; the ranges a
    search decoded stay decoded (they do not depend on the counter), so the next search
    does not read the store again."""
    e, store = engine(), InMemoryStore()
    turn = prepare(e, history(), None, store)
    first = e.processor(store, "s", SessionState.from_json(turn.state))
    assert first.hidden.passages(turn.prompt)  # read once
    change = e.usage(turn.state, reported=2 * turn.sent_tokens, sent_tokens=turn.sent_tokens)
    state = merge_session_state(turn.state, change)
    again = e.processor(store, "s", SessionState.from_json(state))
    assert again is not first and again.counter is not first.counter
    assert again.hidden is first.hidden
    other = e.processor(InMemoryStore(), "s", SessionState.from_json(state))
    assert other.hidden is not first.hidden  # another store: other ranges


def test_the_async_twin_decides_the_same() -> None:
    sync = prepare(engine(), history(), None, InMemoryStore())
    turn = asyncio.run(engine().aprepare(history(), None, store=InMemoryStore(), session="s"))
    assert turn.prompt == sync.prompt and turn.update == sync.update


def test_a_damaged_state_is_a_warning_not_an_error(caplog: pytest.LogCaptureFixture) -> None:
    turn = prepare(engine(), history(), {"compression": {"stand_ins": 3}, "memos": 7},
                   InMemoryStore())
    assert turn.events and "compression is damaged" in caplog.text
    assert any(CompressedMarker.of(m) for m in turn.prompt)


@pytest.mark.parametrize(("options", "message"), [
    ({"config": {"max_tokens": 10}}, "config must be an AutoContextConfig"),
    ({"summarizer": 42}, "summarizer"),
    ({"config": AutoContextConfig(project="my project")}, "project"),
    ({"model": "gpt-4o"}, "model must be a ModelInfo"),
    ({"on_event": 3}, "on_event must be callable"),
])
def test_a_bad_option_is_refused_when_the_engine_is_built(options: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        SessionEngine(**options)


@pytest.mark.parametrize(("setting", "where"), [
    ("memo", r"SessionEngine\(AutoContextConfig\(memo=...\)\)"),
    ("max_sessions", r"SessionEngine\(AutoContextConfig\(tuning=Tuning\(max_sessions=...\)\)\)"),
])
def test_a_setting_given_as_a_keyword_says_where_it_lives_now(setting: str, where: str) -> None:
    with pytest.raises(TypeError, match=where):
        SessionEngine(**{setting: 1})


@pytest.mark.parametrize("overhead", [-10**9, -1, 1.5, True, "100"])
def test_an_impossible_overhead_is_refused_not_counted(overhead: object) -> None:
    """Regression: an overhead of -10**9 was taken, and the prompt reported as
    -999,996,100 tokens."""
    from ctxmgr.autocontext import ContextProcessor

    with pytest.raises(ConfigError, match=rf"overhead must be an int >= 0, got {overhead!r}"):
        prepare(engine(), history(), None, InMemoryStore(), overhead=overhead)
    with pytest.raises(ConfigError, match=r"overhead_tokens must be an int >= 0"):
        ContextProcessor(config(), counter=C).process(history(), overhead_tokens=overhead)
