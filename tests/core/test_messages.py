"""The neutral message model: immutable values, read-only nested data, stable ids."""

from __future__ import annotations

import dataclasses
import json
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from strategies import json_values, neutral_conversations

from ctxmgr.messages import (
    Message,
    OpaqueBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    freeze,
    text_message,
    thaw,
)


def _message() -> Message:
    return Message(
        role="assistant",
        content=[
            TextBlock(text="looking", extra={"cache_control": {"type": "ephemeral"}}),
            ToolUseBlock(id="call_1", name="bash", input={"command": "ls", "opts": ["-l", "-a"]}),
            OpaqueBlock(data={"type": "thinking", "thinking": "hm", "meta": {"k": [1]}}),
        ],
        id="m1",
        metadata={"usage": {"input_tokens": 10, "details": [1, 2]}},
        extra={"openai": {"fields": {"name": "bob"}}},
    )


# --- immutability -------------------------------------------------------------------


@pytest.mark.parametrize("field", ["role", "content", "id", "metadata", "extra"])
def test_assigning_a_message_field_raises_frozen_instance_error(field: str) -> None:
    m = _message()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(m, field, getattr(m, field))


def test_assigning_an_unknown_attribute_on_a_message_raises() -> None:
    # Python 3.11's frozen+slots dataclasses raise TypeError here instead of
    # FrozenInstanceError (a CPython quirk); either way the message is unchanged.
    m = _message()
    with pytest.raises((AttributeError, TypeError)):
        m.note = "x"  # type: ignore[attr-defined]
    assert not hasattr(m, "note")


@pytest.mark.parametrize(
    ("block", "field"),
    [
        (TextBlock(text="t"), "text"),
        (ToolUseBlock(id="a", name="f", input={}), "input"),
        (ToolResultBlock(tool_use_id="a", content="r"), "content"),
        (ToolResultBlock(tool_use_id="a", content="r"), "is_error"),
        (OpaqueBlock(data={"type": "image"}), "data"),
    ],
)
def test_assigning_a_block_field_raises_frozen_instance_error(block: object, field: str) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(block, field, None)


def test_message_content_given_as_a_list_is_stored_as_a_tuple() -> None:
    m = _message()
    assert isinstance(m.content, tuple)
    result = ToolResultBlock(tool_use_id="a", content=[TextBlock(text="x")])
    assert isinstance(result.content, tuple)


def test_metadata_is_read_only_at_every_depth() -> None:
    m = _message()
    with pytest.raises(TypeError):
        m.metadata["usage"] = {}  # type: ignore[index]
    with pytest.raises(TypeError):
        m.metadata["usage"]["input_tokens"] = 0  # type: ignore[index]
    assert m.metadata["usage"]["details"] == (1, 2)
    assert isinstance(m.metadata["usage"]["details"], tuple)


def test_extra_is_read_only_at_every_depth() -> None:
    m = _message()
    with pytest.raises(TypeError):
        m.extra["openai"]["fields"]["name"] = "eve"  # type: ignore[index]


def test_tool_use_input_is_read_only_at_every_depth() -> None:
    use = _message().tool_uses[0]
    with pytest.raises(TypeError):
        use.input["command"] = "rm -rf /"  # type: ignore[index]
    assert isinstance(use.input["opts"], tuple)


def test_opaque_block_data_is_read_only_at_every_depth() -> None:
    opaque = _message().content[2]
    assert isinstance(opaque, OpaqueBlock)
    with pytest.raises(TypeError):
        opaque.data["meta"]["k"] = []  # type: ignore[index]


def test_block_extra_is_read_only() -> None:
    text = _message().content[0]
    with pytest.raises(TypeError):
        text.extra["cache_control"] = None  # type: ignore[index]


def test_mutating_the_caller_dicts_after_construction_does_not_change_the_message() -> None:
    metadata = {"usage": {"input_tokens": 10}, "tags": ["a"]}
    args = {"command": "ls", "nested": {"x": [1]}}
    data = {"type": "image", "source": {"data": "AAA"}}
    m = Message(role="assistant", content=(ToolUseBlock(id="c", name="f", input=args),
                                           OpaqueBlock(data=data)), metadata=metadata)
    metadata["usage"]["input_tokens"] = 99
    metadata["tags"].append("b")
    args["nested"]["x"].append(2)
    data["source"]["data"] = "BBB"
    assert thaw(m.metadata) == {"usage": {"input_tokens": 10}, "tags": ["a"]}
    assert thaw(m.tool_uses[0].input) == {"command": "ls", "nested": {"x": [1]}}
    assert thaw(m.content[1].data) == {"type": "image", "source": {"data": "AAA"}}


# --- replace and ids ----------------------------------------------------------------


def test_replace_keeps_the_id_and_leaves_the_original_unchanged() -> None:
    m = _message()
    edited = dataclasses.replace(m, content=(TextBlock(text="summary"),))
    assert edited.id == m.id == "m1"
    assert edited.text == "summary"
    assert m.text == "looking"
    assert edited.metadata == m.metadata


def test_replace_freezes_new_metadata() -> None:
    edited = dataclasses.replace(_message(), metadata={"compressed": {"by": [1]}})
    assert isinstance(edited.metadata, MappingProxyType)
    assert edited.metadata["compressed"]["by"] == (1,)


def test_messages_built_without_an_id_get_distinct_ids() -> None:
    ids = {Message(role="user", content=(TextBlock(text="same"),)).id for _ in range(100)}
    assert len(ids) == 100
    assert all(i.startswith("msg_") for i in ids)


def test_unknown_role_is_rejected_at_construction() -> None:
    with pytest.raises(ValueError, match="'robot'"):
        Message(role="robot", content=())  # type: ignore[arg-type]


# --- equality -----------------------------------------------------------------------


def test_messages_with_the_same_fields_are_equal() -> None:
    assert _message() == _message()
    assert _message() != dataclasses.replace(_message(), id="m2")


def test_tool_use_equality_ignores_the_raw_argument_text() -> None:
    a = ToolUseBlock(id="c", name="f", input={"x": 1}, raw_input='{"x": 1}')
    b = ToolUseBlock(id="c", name="f", input={"x": 1}, raw_input='{"x":1}')
    assert a == b


def test_a_filled_token_cache_does_not_affect_equality() -> None:
    a, b = _message(), _message()
    a._token_cache["cl100k_base"] = 42
    assert a == b


# --- convenience accessors ------------------------------------------------------------


def test_text_joins_text_blocks_and_skips_other_blocks() -> None:
    m = Message(role="user", content=(TextBlock(text="a"), OpaqueBlock(data={"type": "image"}),
                                      TextBlock(text="b")))
    assert m.text == "a\nb"


def test_tool_uses_and_tool_results_select_their_blocks_in_order() -> None:
    m = _message()
    assert [u.id for u in m.tool_uses] == ["call_1"]
    assert m.tool_results == ()
    assert m.has_tool_blocks
    r = Message(role="tool", content=(ToolResultBlock(tool_use_id="x", content="ok"),
                                      ToolResultBlock(tool_use_id="y", content="ok")))
    assert [b.tool_use_id for b in r.tool_results] == ["x", "y"]
    assert r.has_tool_blocks
    assert not text_message("user", "hi").has_tool_blocks


def test_tool_result_text_joins_text_parts_and_skips_images() -> None:
    r = ToolResultBlock(tool_use_id="a", content=(TextBlock(text="one "),
                                                  OpaqueBlock(data={"type": "image"}),
                                                  TextBlock(text="two")))
    assert r.text == "one two"
    assert ToolResultBlock(tool_use_id="a", content="plain").text == "plain"


def test_tool_result_is_not_an_error_by_default() -> None:
    assert ToolResultBlock(tool_use_id="a", content="").is_error is False


def test_text_message_builds_one_text_block_plus_tool_calls() -> None:
    use = ToolUseBlock(id="c", name="f", input={})
    m = text_message("assistant", "", id="x", metadata={"k": 1}, tool_uses=[use])
    assert m.content == (use,)
    assert m.id == "x"
    assert m.metadata == {"k": 1}
    assert text_message("user", "").content == (TextBlock(text=""),)


# --- freeze / thaw ----------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(json_values())
def test_thaw_of_freeze_gives_back_equal_json(value: object) -> None:
    frozen = freeze(value)
    assert thaw(frozen) == value
    assert json.dumps(thaw(frozen)) == json.dumps(value)


@settings(max_examples=25, deadline=None)
@given(neutral_conversations())
def test_generated_neutral_messages_are_frozen_all_the_way_down(messages: list[Message]) -> None:
    def walk(value: object) -> None:
        assert not isinstance(value, dict | list | set), value
        if isinstance(value, MappingProxyType):
            for v in value.values():
                walk(v)
        elif isinstance(value, tuple):
            for v in value:
                walk(v)

    for m in messages:
        assert isinstance(m.content, tuple)
        walk(m.metadata)
        walk(m.extra)
        for b in m.content:
            for f in dataclasses.fields(b):
                walk(getattr(b, f.name))
