"""Every ctxmgr tool reads its input one way: an object or its JSON text, same errors."""

from __future__ import annotations

import json

import pytest
from builders import C, call, result, system, user

from ctxmgr import AutoContextConfig, AutoContextMemory, Tuning, handle_archive_call
from ctxmgr.archive import ArchiveState
from ctxmgr.tool_input import parse_tool_input


def test_json_text_and_objects_read_the_same() -> None:
    assert parse_tool_input('{"uuid": "x"}', "u") == {"uuid": "x"}
    assert parse_tool_input(b'{"uuid": "x"}', "u") == {"uuid": "x"}
    assert parse_tool_input({"uuid": "x"}, "u") == {"uuid": "x"}


@pytest.mark.parametrize("bad", ["not json", "[1, 2]", "[" * 100_000, None, 3, b"\xff"])
def test_bad_input_is_one_error_line_quoting_the_usage(bad: object) -> None:
    text = parse_tool_input(bad, "expected {...}")
    assert isinstance(text, str) and text.startswith("Error: ")
    assert text.endswith("expected {...}") and "\n" not in text


def test_context_reload_takes_json_text_like_the_other_tools() -> None:
    mem = AutoContextMemory(AutoContextConfig(max_tokens=8000,
                                              tuning=Tuning(min_compression_tokens=500)),
                            counter=C)
    h = [system(), user("task", id="u0")]
    for k in range(40):
        h += [call(f"c{k}", id=f"a{k}"), result(f"c{k}", "x" * 1500, id=f"t{k}")]
    mem.add(h)
    event = next(e for e in mem.compress_if_needed() if e.status == "applied")
    as_text = mem.handle_reload_call(json.dumps({"uuid": event.offload_id}))
    assert as_text == mem.handle_reload_call({"uuid": event.offload_id})
    assert as_text.startswith("Reloaded ")


def test_archive_and_reload_word_a_non_object_input_the_same_way() -> None:
    mem = AutoContextMemory(counter=C)
    _, archive_text = handle_archive_call([], ArchiveState(), "[1]")
    reload_text = mem.handle_reload_call("[1]")
    assert archive_text.split(";")[0] == reload_text.split(";")[0] == (
        "Error: the input must be an object, got list")


def test_the_three_tools_word_a_non_object_input_the_same_way() -> None:
    from ctxmgr import MemoStore

    mem = AutoContextMemory(counter=C)
    _, archive_text = handle_archive_call([], ArchiveState(), "[1]")
    memo_text = MemoStore(session="s").handle_memo_call("[1]")
    first = "Error: the input must be an object, got list"
    assert {archive_text.split(";")[0], mem.handle_reload_call("[1]").split(";")[0],
            memo_text.split(";")[0]} == {first}
