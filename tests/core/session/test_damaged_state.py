"""Every field of a real saved session state, damaged into every wrong type: no entry point
of the engine raises, none hangs, and the merge (LangGraph's reducer) never raises.

The state comes from a real session (a compression, an archived result, a memo write, a
calibration, a reload in pages); each of its fields, containers included, is replaced in
turn by values of the wrong type or range, the way a hand-edited or migrated checkpoint
holds them. The documented outcome (``docs/guarantees.md`` §6 and §7): the damaged part
is left out with a warning, and the call goes on.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from builders import C, call, group, result, system, user

from ctxmgr import AutoContextConfig, InMemoryStore, Message, ToolUseBlock, Tuning
from ctxmgr.session import SessionEngine, merge_session_state

WRONG: tuple[Any, ...] = (None, True, -1, 0, 1.5, float("inf"), "x", [], {}, [5], {"k": 5})
"""What a damaged field may hold instead."""


def config() -> AutoContextConfig:
    return AutoContextConfig(max_tokens=8000,
                             tuning=Tuning(min_compression_tokens=500, cached_token_price=None))


def engine() -> SessionEngine:
    return SessionEngine(config().evolve(project="p", memo=True, message_archiving=True), counter=C)


def history() -> list[Message]:
    h = [system(), user("fix the bug in module.py", id="u0")]
    for k in range(30):
        h += group(f"c{k}", 1500)
    memo_call = Message(role="assistant", id="m.call", content=(ToolUseBlock(
        id="m", name="memo", input={"action": "write", "key": "plan", "summary": "the plan",
                                    "content": "step one, then step two"}),))
    return [*h, memo_call, result("m", "saved", "m.result"),
            call("k", "k.call"), result("k", "x" * 400, "k.result")]


def saved_state(e: SessionEngine, store: InMemoryStore) -> tuple[list[Message], dict[str, Any]]:
    """A state with every part filled in, as a real session leaves it."""
    turn = e.prepare(history(), None, store=store, session="s", persisted=lambda edit: True)
    view, state = turn.messages, turn.state
    memo = e.memo({"action": "write", "key": "plan", "summary": "the plan",
                   "content": "step one, then step two"}, view, store=store, session="s",
                   tool_use_id="m")
    state = merge_session_state(state, memo.update)
    archived = e.archive({"action": "archive", "tool_use_ids": ["k"]}, view, state)
    state = merge_session_state(state, archived.update)
    state = merge_session_state(state, e.usage(state, 5000, 4000))
    offload_id = next(ev.offload_id for ev in turn.events if ev.offload_id)
    reloaded = e.reload({"uuid": offload_id}, view, state, store=store, session="s")
    state = merge_session_state(state, {**reloaded.update, "sent_tokens": 10,
                                        "unseen_overhead": 5})
    for part in ("compression", "archive", "memos", "calibration", "overhead",
                 "unseen_overhead", "sent_tokens", "reload_pages"):
        assert state.get(part), part
    return view, json.loads(json.dumps(state))


def paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every field of a JSON value, containers first."""
    if at:
        yield at
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from paths(inner, (*at, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from paths(inner, (*at, i))


def damaged(state: dict[str, Any], at: tuple[Any, ...], wrong: Any) -> dict[str, Any]:
    out = copy.deepcopy(state)
    holder: Any = out
    for key in at[:-1]:
        holder = holder[key]
    holder[at[-1]] = copy.deepcopy(wrong)
    return out


def every_call(e: SessionEngine, view: list[Message], state: dict[str, Any],
               store: InMemoryStore) -> None:
    """Each entry point that reads a state, and the reducer with every change list."""
    turn = e.prepare(view, state, store=store, session="s")
    asyncio.run(e.aprepare(view, state, store=store, session="s"))
    e.prompt(view, state)
    e.usage(state, 5000, turn.sent_tokens)
    e.observe(state, expected=view, sent=view, store=store, session="s")
    for answer in (e.reload({"uuid": "0" * 32}, view, state, store=store, session="s"),
                   e.archive({"action": "archive", "tool_use_ids": ["c29"]}, view, state)):
        merge_session_state(state, answer.update)
    merge_session_state(state, {"archive_remove": [{"tool_use_id": "k", "message_id": "k.result"}],
                                "memos_add": [{"message_id": "a", "tool_use_id": "b",
                                               "placeholder": "p"}],
                                "reload_pages": {"1" * 32: 300}})


@pytest.fixture(scope="module")
def session() -> tuple[SessionEngine, list[Message], dict[str, Any], InMemoryStore]:
    e, store = engine(), InMemoryStore()
    view, state = saved_state(e, store)
    return e, view, state, store


def test_every_field_damaged_into_every_wrong_type_is_a_warning_never_an_error(
        session: tuple[SessionEngine, list[Message], dict[str, Any], InMemoryStore],
        caplog: pytest.LogCaptureFixture) -> None:
    e, view, state, store = session
    fields = list(paths(state))
    assert len(fields) > 20
    failures = []
    for at in fields:
        for wrong in WRONG:
            try:
                every_call(e, view, damaged(state, at, wrong), store)
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                failures.append(f"{'.'.join(map(str, at))} = {wrong!r}: "
                                f"{type(exc).__name__}: {exc}"[:200])
    assert failures == [], f"{len(failures)} damaged states raised:\n" + "\n".join(failures[:20])
