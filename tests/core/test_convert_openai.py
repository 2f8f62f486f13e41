"""OpenAI chat format <-> neutral messages: lossless, stable ids, clear errors."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import openai_conversations

from ctxmgr.convert import from_openai, to_openai
from ctxmgr.errors import InvalidMessageError
from ctxmgr.messages import (
    Message,
    OpaqueBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    thaw,
)
from ctxmgr.replay.trajectories import Trajectory

JSON = dict[str, Any]


def _call(call_id: str, name: str = "bash", arguments: str = '{"command": "ls"}') -> JSON:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _assert_round_trip(raw: list[JSON]) -> None:
    back = to_openai(from_openai(raw))
    assert back == raw
    assert json.dumps(back) == json.dumps(raw)
    assert json.dumps(back, ensure_ascii=False) == json.dumps(raw, ensure_ascii=False)


def _assert_trajectories_round_trip(trajectories: list[Trajectory]) -> None:
    for t in trajectories:
        raw = list(t.raw)
        back = to_openai(from_openai(raw))
        assert len(back) == len(raw), t.id
        for i, (got, want) in enumerate(zip(back, raw, strict=True)):
            assert got == want, f"{t.id} message {i}"
            assert json.dumps(got) == json.dumps(want), f"{t.id} message {i} (key order)"
        # each message on its own, too (no dependence on its neighbours)
        for i, want in enumerate(raw):
            assert to_openai(from_openai([want])) == [want], f"{t.id} message {i} alone"


# --- round trips on recorded runs -----------------------------------------------------


def test_round_trip_gives_back_every_fixture_message_byte_for_byte(
    fixture_trajectories: list[Trajectory],
) -> None:
    assert len(fixture_trajectories) == 16
    _assert_trajectories_round_trip(fixture_trajectories)


@pytest.mark.slow
def test_round_trip_gives_back_every_shared_trajectory_message_byte_for_byte(
    shared_trajectories: list[Trajectory],
) -> None:
    assert len(shared_trajectories) == 124
    _assert_trajectories_round_trip(shared_trajectories)


def test_loaded_trajectory_messages_equal_a_fresh_conversion(
    fixture_trajectories: list[Trajectory],
) -> None:
    for t in fixture_trajectories:
        assert list(t.messages) == from_openai(list(t.raw))


# --- round trips on hand-picked shapes ------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        {"role": "system", "content": "You are helpful."},
        {"role": "developer", "content": "Be terse."},
        {"role": "user", "content": ""},
        {"role": "user", "content": None},
        {"role": "user"},
        {"role": "user", "content": []},
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {"role": "user", "content": [{"type": "text", "text": "a",
                                      "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": [{"text": "order kept", "type": "text"}]},
        {"role": "user", "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA",
                                                "detail": "low"}},
            {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}},
            {"type": "text", "text": 5},  # not a text part after all: carried opaquely
        ]},
        {"role": "user", "content": "hi", "name": "alice"},
        {"content": "keys in another order", "role": "user"},
        {"role": "assistant", "content": "final answer"},
        {"role": "assistant", "content": "", "tool_calls": [_call("call_1")]},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_1")]},
        {"role": "assistant", "tool_calls": [_call("call_1")]},
        {"role": "assistant", "content": [], "tool_calls": [_call("call_1")]},
        {"role": "assistant", "content": [{"type": "text", "text": "x"}],
         "tool_calls": [_call("a"), _call("b", "edit", '{"path": "/tmp/ü", "n": 1.5}')]},
        {"role": "assistant", "content": "thinking", "tool_calls": [],},
        {"role": "assistant", "content": "x", "tool_calls": None},
        {"role": "assistant", "content": None, "refusal": None, "audio": None,
         "tool_calls": [_call("c")]},
        {"role": "assistant", "content": "", "tool_calls": [_call("c")],
         "reasoning_content": "let me think"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": ""}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "custom", "function": {"name": "f", "arguments": "{}"},
             "index": 0}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function",
             "function": {"name": "f", "arguments": '{\n  "a": [1, 2],\n  "b": "\\u00e9"\n}',
                          "strict": True}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            _call("c", arguments='{"a":1,"a":2}')]},  # duplicate key: raw text kept
        {"role": "tool", "content": "ok", "tool_call_id": "call_1"},
        {"role": "tool", "content": "", "tool_call_id": "call_1"},
        {"role": "tool", "content": "ok", "tool_call_id": "call_1", "name": "bash"},
        {"role": "tool", "tool_call_id": "call_1", "content": "keys in another order"},
        {"role": "tool", "content": [{"type": "text", "text": "part"}], "tool_call_id": "c"},
        {"role": "tool", "content": [], "tool_call_id": "c"},
        {"role": "user", "content": "x" * 200_000},
        {"role": "user", "content": "emoji 🧪 \u200d RTL שלום NUL \x00 CRLF \r\n"},
    ],
)
def test_round_trip_gives_back_each_openai_message_shape(message: JSON) -> None:
    _assert_round_trip([message])


def test_round_trip_keeps_a_tool_message_whose_content_is_null() -> None:
    _assert_round_trip([{"role": "tool", "tool_call_id": "c", "content": None}])


def test_round_trip_keeps_a_tool_message_without_content() -> None:
    _assert_round_trip([{"role": "tool", "tool_call_id": "c"}])


def test_round_trip_keeps_key_order_inside_a_tool_call() -> None:
    _assert_round_trip([{"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "id": "c", "function": {"name": "f", "arguments": "{}"}}]}])


def test_round_trip_keeps_key_order_inside_a_tool_call_function() -> None:
    _assert_round_trip([{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"arguments": "{}", "name": "f"}}]}])


@settings(max_examples=60, deadline=None)
@given(openai_conversations(in_flight=None))
def test_round_trip_gives_back_generated_conversations(raw: list[JSON]) -> None:
    _assert_round_trip(raw)


@settings(max_examples=30, deadline=None)
@given(openai_conversations())
def test_round_trip_through_openai_twice_is_stable(raw: list[JSON]) -> None:
    once = from_openai(raw)
    twice = from_openai(to_openai(once))
    assert twice == once
    assert to_openai(twice) == raw


# --- what the neutral form holds ------------------------------------------------------


def test_tool_calls_become_tool_use_blocks_with_parsed_input() -> None:
    [m] = from_openai([{"role": "assistant", "content": "let me look",
                        "tool_calls": [_call("c1", "bash", '{"command": "ls -la", "n": [1]}')]}])
    assert m.role == "assistant"
    assert m.text == "let me look"
    [use] = m.tool_uses
    assert (use.id, use.name) == ("c1", "bash")
    assert thaw(use.input) == {"command": "ls -la", "n": [1]}


def test_a_tool_message_becomes_one_tool_result_block() -> None:
    [m] = from_openai([{"role": "tool", "content": "out", "tool_call_id": "c1"}])
    assert m.role == "tool"
    assert m.content == (ToolResultBlock(tool_use_id="c1", content="out"),)


def test_developer_role_reads_as_system_and_writes_back_as_developer() -> None:
    [m] = from_openai([{"role": "developer", "content": "rules"}])
    assert m.role == "system"
    assert to_openai([m]) == [{"role": "developer", "content": "rules"}]


def test_image_parts_become_opaque_blocks_carried_untouched() -> None:
    part = {"type": "image_url", "image_url": {"url": "https://x/y.png"}}
    [m] = from_openai([{"role": "user", "content": [part]}])
    assert m.content == (OpaqueBlock(data=part),)


def test_empty_arguments_read_as_an_empty_input() -> None:
    [m] = from_openai([{"role": "assistant", "content": None,
                        "tool_calls": [_call("c", arguments="")]}])
    assert thaw(m.tool_uses[0].input) == {}


def test_edited_tool_input_is_written_as_fresh_json() -> None:
    [m] = from_openai([{"role": "assistant", "content": None,
                        "tool_calls": [_call("c", arguments='{"content":"long text"}')]}])
    use = dataclasses.replace(m.tool_uses[0], input={"content": "[PLACEHOLDER]"})
    out = to_openai([dataclasses.replace(m, content=(use,))])
    assert json.loads(out[0]["tool_calls"][0]["function"]["arguments"]) == {
        "content": "[PLACEHOLDER]"}


def test_a_neutral_message_with_several_results_writes_one_tool_message_each() -> None:
    m = Message(role="tool", content=(ToolResultBlock(tool_use_id="a", content="1"),
                                      ToolResultBlock(tool_use_id="b", content="2")))
    assert to_openai([m]) == [
        {"role": "tool", "content": "1", "tool_call_id": "a"},
        {"role": "tool", "content": "2", "tool_call_id": "b"},
    ]


def test_neutral_messages_built_by_hand_write_plain_openai() -> None:
    messages = [
        Message(role="user", content=(TextBlock(text="hi"),)),
        Message(role="assistant", content=(ToolUseBlock(id="c", name="f", input={"a": 1}),)),
        Message(role="tool", content=(ToolResultBlock(tool_use_id="c", content="r"),)),
    ]
    assert to_openai(messages) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]},
        {"role": "tool", "content": "r", "tool_call_id": "c"},
    ]


def test_from_openai_does_not_modify_its_input() -> None:
    raw = [{"role": "user", "content": [{"text": "x", "type": "text"}], "name": "a"},
           {"role": "assistant", "tool_calls": [_call("c")]},
           {"role": "tool", "tool_call_id": "c", "content": "ok"}]
    before = copy.deepcopy(raw)
    from_openai(raw)
    assert raw == before


def test_editing_the_input_or_output_dicts_does_not_change_the_messages() -> None:
    raw = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}],
            "meta": {"k": [1]}}]
    messages = from_openai(raw)
    raw[0]["content"][0]["image_url"]["url"] = "changed"
    raw[0]["meta"]["k"].append(2)
    out = to_openai(messages)
    out[0]["content"][0]["image_url"]["url"] = "changed again"
    out[0]["meta"]["k"].append(3)
    assert to_openai(messages) == [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}],
         "meta": {"k": [1]}}]


# --- ids ---------------------------------------------------------------------------------


def test_converting_the_same_history_twice_gives_the_same_ids(
    fixture_trajectories: list[Trajectory],
) -> None:
    for t in fixture_trajectories:
        first = [m.id for m in from_openai(list(t.raw))]
        second = [m.id for m in from_openai(list(t.raw))]
        assert first == second, t.id
        assert len(set(first)) == len(first), t.id


def test_duplicate_identical_messages_get_distinct_ids() -> None:
    same = {"role": "tool", "content": "ok", "tool_call_id": "c"}
    ids = [m.id for m in from_openai([same, dict(same), dict(same)])]
    assert len(set(ids)) == 3


def test_ids_of_a_prefix_do_not_change_when_the_history_grows(
    fixture_trajectories: list[Trajectory],
) -> None:
    raw = list(fixture_trajectories[0].raw)
    full = [m.id for m in from_openai(raw)]
    for k in (1, 5, len(raw) // 2):
        assert [m.id for m in from_openai(raw[:k])] == full[:k]


def test_an_id_field_in_the_source_message_becomes_the_message_id() -> None:
    [m] = from_openai([{"role": "user", "content": "x", "id": "lc-run-42"}])
    assert m.id == "lc-run-42"
    assert to_openai([m]) == [{"role": "user", "content": "x", "id": "lc-run-42"}]


def test_ids_survive_an_openai_round_trip(fixture_trajectories: list[Trajectory]) -> None:
    messages = list(fixture_trajectories[-1].messages)
    assert [m.id for m in from_openai(to_openai(messages))] == [m.id for m in messages]


@settings(max_examples=30, deadline=None)
@given(openai_conversations(in_flight=None), st.data())
def test_generated_histories_get_unique_prefix_stable_ids(raw: list[JSON], data: st.DataObject
                                                          ) -> None:
    ids = [m.id for m in from_openai(raw)]
    assert len(set(ids)) == len(ids)
    assert [m.id for m in from_openai(raw)] == ids
    k = data.draw(st.integers(0, len(raw)))
    assert [m.id for m in from_openai(raw[:k])] == ids[:k]


# --- bad input ----------------------------------------------------------------------------

_OK: list[JSON] = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ({"role": "robot", "content": "x"}, "unknown role 'robot'"),
        ({"content": "no role"}, "unknown role None"),
        ({"role": ["user"], "content": "x"}, "unknown role"),
        ({"role": "function", "content": "x", "name": "f"}, "unknown role 'function'"),
        ({"role": "tool", "content": "r"}, "tool_call_id"),
        ({"role": "tool", "content": "r", "tool_call_id": ""}, "tool_call_id"),
        ({"role": "tool", "content": "r", "tool_call_id": 7}, "tool_call_id"),
        ({"role": "assistant", "content": None,
          "tool_calls": [_call("c", arguments='{"command": "ls"')]}, "not valid JSON"),
        ({"role": "assistant", "content": None,
          "tool_calls": [_call("c", arguments="ls -la")]}, "not valid JSON"),
        ({"role": "assistant", "content": None,
          "tool_calls": [_call("c", arguments="[1, 2]")]}, "JSON object"),
        ({"role": "assistant", "content": None,
          "tool_calls": [_call("c", arguments='"ls"')]}, "JSON object"),
        ({"role": "assistant", "content": None,
          "tool_calls": [_call("c", arguments="null")]}, "JSON object"),
        ({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]},
         "JSON string"),
        ({"role": "user", "content": 42}, "content must be"),
        ({"role": "user", "content": {"text": "x"}}, "content must be"),
        ({"role": "assistant", "content": True}, "content must be"),
        ({"role": "user", "content": ["just a string"]}, "parts must be objects"),
        ({"role": "assistant", "content": None, "tool_calls": {"id": "c"}}, "must be a list"),
        ({"role": "assistant", "content": None, "tool_calls": ["c"]}, "must be an object"),
        ({"role": "assistant", "content": None, "tool_calls": [
            {"type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "without an id"),
        ({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"arguments": "{}"}}]}, "no function name"),
        ({"role": "assistant", "content": None, "tool_calls": [{"id": "c"}]}, "no function name"),
        ({"role": "user", "content": "x", "tool_calls": [_call("c")]}, "tool_calls on a user"),
        ({"role": "assistant", "content": "x", "tool_call_id": "c"}, "tool_call_id on a"),
        ("not an object", "expected an object"),
        (None, "expected an object"),
    ],
)
def test_bad_message_raises_invalid_message_error_naming_its_index(bad: Any, words: str
                                                                   ) -> None:
    with pytest.raises(InvalidMessageError) as info:
        from_openai([*_OK, bad])
    err = info.value
    assert type(err) is InvalidMessageError
    assert isinstance(err, ValueError)
    assert err.index == 2
    assert str(err).startswith("message 2: ")
    assert words in str(err)


def test_the_first_bad_message_is_the_one_named() -> None:
    with pytest.raises(InvalidMessageError, match=r"^message 1: "):
        from_openai([{"role": "user", "content": "x"}, {"role": "robot"}, {"role": "alien"}])


@pytest.mark.parametrize("bad", [{"messages": []}, {"role": "user", "content": "x"}, "[]", b"[]"])
def test_input_that_is_not_a_list_raises_invalid_message_error(bad: Any) -> None:
    with pytest.raises(InvalidMessageError, match="expected a list") as info:
        from_openai(bad)
    assert type(info.value) is InvalidMessageError
    assert info.value.index is None


@pytest.mark.parametrize("bad", [None, 42])
def test_none_or_a_number_instead_of_a_list_raises_invalid_message_error(bad: Any) -> None:
    with pytest.raises(InvalidMessageError, match="expected a list"):
        from_openai(bad)


def test_a_lone_surrogate_in_content_is_read_or_rejected_cleanly() -> None:
    raw = json.loads('[{"role": "user", "content": "cut emoji \\ud83d"}]')
    with contextlib.suppress(InvalidMessageError):
        assert to_openai(from_openai(raw)) == raw
