"""A damaged saved ContextMemory: one documented error naming the field, or a warning.

A ``Context`` serialised with ``to_dict()`` carries the memory's fields; rebuilt from a
damaged dict, the memory raises :class:`~ctxmgr.InvalidStateError` naming the field when
the damage is in what cannot be rebuilt (the conversation, the scratchpad), a
``ConfigError`` naming the setting for a damaged setting (as the constructor does), and
leaves out with a warning a damaged part of its session state (see
``docs/guarantees.md`` §7). Never a ``KeyError``, ``TypeError`` or ``RecursionError``.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable
from typing import Any

import pytest
from builders import group, user

from ctxmgr import ConfigError, Message
from ctxmgr.errors import InvalidStateError
from ctxmgr_llamaindex import ContextMemory, to_llamaindex


def long_history(n: int = 30, chars: int = 1500) -> list[Message]:
    h = [user("fix the bug in module.py", id="u0")]
    for k in range(n):
        h += group(f"c{k}", chars)
    return h


@pytest.fixture
def saved() -> dict[str, Any]:
    mem = ContextMemory.from_defaults(max_tokens=8000, session_id="damaged")  # files: rebuilt
    mem.put_messages(to_llamaindex(long_history()))
    mem.get()
    data: dict[str, Any] = json.loads(json.dumps(mem.to_dict()))
    assert data["messages"] and data["session_state"]
    return data


def _deep(levels: int) -> dict[str, Any]:
    top = inner = {}
    for _ in range(levels):
        inner["a"] = {}
        inner = inner["a"]
    return top


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def damage(data: dict[str, Any]) -> None:
        holder = data
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = value
    return damage


def _drop(path: tuple[Any, ...]) -> Callable[[dict[str, Any]], None]:
    def damage(data: dict[str, Any]) -> None:
        holder = data
        for key in path[:-1]:
            holder = holder[key]
        del holder[path[-1]]
    return damage


RAISES = {
    "a message without role": (_drop(("messages", 1, "role")), r"messages\[1\]"),
    "a text of 5": (_set(("messages", 0, "content", 0, "text"), 5), r"messages\[0\]"),
    "a block that is not an object": (_set(("messages", 2, "content", 0), 5),
                                      r"messages\[2\]"),
    "metadata nested 30,000 deep": (_set(("messages", 0, "metadata"), _deep(30_000)),
                                    r"messages\[0\]"),
}


@pytest.mark.parametrize("case", list(RAISES))
def test_a_damaged_memory_field_raises_invalid_state_error_naming_it(
        case: str, saved: dict[str, Any]) -> None:
    damage, field = RAISES[case]
    data = copy.deepcopy(saved) if case != "metadata nested 30,000 deep" else saved
    damage(data)
    with pytest.raises(InvalidStateError, match=field) as raised:
        ContextMemory.from_dict(data).get()
    assert raised.value.field.startswith("ContextMemory.")


@pytest.mark.parametrize(("key", "value", "named"), [
    ("no_such_setting", 1, r"config_fields: 'no_such_setting' is not a setting"),
    ("token_ratio", 7, r"config_fields: token_ratio must be in"),
])
def test_a_damaged_setting_raises_config_error_naming_it(
        key: str, value: Any, named: str, saved: dict[str, Any]) -> None:
    saved["config_fields"][key] = value
    with pytest.raises(ConfigError, match=named):
        ContextMemory.from_dict(saved)


@pytest.mark.parametrize("part", ["compression", "archive", "calibration", "reload_pages"])
def test_a_damaged_session_state_part_is_a_warning_and_the_memory_goes_on(
        part: str, saved: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    saved["session_state"][part] = ["damaged"]
    memory = ContextMemory.from_dict(saved)

    prompt = memory.get()

    assert prompt and f"{part} is damaged" in caplog.text
