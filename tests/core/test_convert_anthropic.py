"""Anthropic messages format <-> neutral messages: lossless, and faithful from OpenAI."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from strategies import anthropic_conversations, openai_conversations

from ctxmgr.convert import from_anthropic, from_openai, to_anthropic, to_openai
from ctxmgr.errors import InvalidMessageError
from ctxmgr.messages import (
    Message,
    OpaqueBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    thaw,
)
from ctxmgr.pairing import validate_pairing
from ctxmgr.replay.trajectories import Trajectory

JSON = dict[str, Any]


def _call(call_id: str, name: str = "bash", arguments: str = '{"command": "ls"}') -> JSON:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _read(body: JSON) -> list[Message]:
    return from_anthropic(body["messages"], system=body.get("system"))


def _semantics(messages: list[Message]) -> tuple[list[str], list[tuple[Any, ...]]]:
    """What a model reads: system texts, and the ordered stream of non-system blocks.

    Roles are folded to who speaks (tool results count as the user side), empty
    text blocks are ignored (Anthropic rejects them), and merging consecutive
    tool messages into one turn does not change the stream.
    """
    system: list[str] = []
    stream: list[tuple[Any, ...]] = []
    for m in messages:
        if m.role == "system":
            system.extend(b.text for b in m.content if isinstance(b, TextBlock) and b.text)
            continue
        side = "assistant" if m.role == "assistant" else "user"
        for b in m.content:
            match b:
                case TextBlock(text=""):
                    pass
                case TextBlock():
                    stream.append((side, "text", b.text))
                case ToolUseBlock():
                    stream.append((side, "tool_use", b.id, b.name, thaw(b.input)))
                case ToolResultBlock():
                    stream.append((side, "tool_result", b.tool_use_id, b.text, b.is_error))
                case OpaqueBlock():
                    stream.append((side, "opaque", thaw(b.data)))
    return system, stream


def _assert_faithful_from_openai(raw: list[JSON]) -> JSON:
    neutral = from_openai(raw)
    body = to_anthropic(neutral)
    # lossless once in Anthropic form
    again = to_anthropic(_read(body))
    assert again == body
    assert json.dumps(again) == json.dumps(body)
    # and nothing the model reads was lost on the way from OpenAI
    system, stream = _semantics(neutral)
    got_system, got_stream = _semantics(_read(body))
    assert "\n\n".join(got_system) == "\n\n".join(system)
    assert got_stream == stream
    return body


def _assert_alternation_of_tool_turns(body: JSON) -> None:
    """Every assistant tool_use turn is answered in the very next user turn, results first."""
    msgs = body["messages"]
    for i, m in enumerate(msgs):
        if m["role"] != "assistant" or isinstance(m["content"], str):
            continue
        ids = [b["id"] for b in m["content"] if b.get("type") == "tool_use"]
        if not ids or i + 1 == len(msgs):
            continue
        nxt = msgs[i + 1]
        assert nxt["role"] == "user"
        kinds = [b.get("type") for b in nxt["content"]]
        n = len(ids)
        assert kinds[:n] == ["tool_result"] * n
        assert sorted(b["tool_use_id"] for b in nxt["content"][:n]) == sorted(ids)


# --- recorded runs ------------------------------------------------------------------------


def test_fixture_runs_convert_to_anthropic_losslessly_and_faithfully(
    fixture_trajectories: list[Trajectory],
) -> None:
    for t in fixture_trajectories:
        body = _assert_faithful_from_openai(list(t.raw))
        _assert_alternation_of_tool_turns(body)


@pytest.mark.slow
def test_shared_runs_convert_to_anthropic_losslessly_and_faithfully(
    shared_trajectories: list[Trajectory],
) -> None:
    for t in shared_trajectories:
        body = _assert_faithful_from_openai(list(t.raw))
        _assert_alternation_of_tool_turns(body)
        assert validate_pairing(_read(body), rules="anthropic") == [], t.id


@settings(max_examples=30, deadline=None)
@given(openai_conversations(in_flight=None))
def test_generated_openai_histories_convert_to_anthropic_losslessly_and_faithfully(
    raw: list[JSON],
) -> None:
    body = _assert_faithful_from_openai(raw)
    _assert_alternation_of_tool_turns(body)
    assert validate_pairing(_read(body), rules="anthropic") == []


# --- the OpenAI -> Anthropic mapping, by example -----------------------------------------


def test_consecutive_openai_tool_messages_merge_into_one_user_turn() -> None:
    raw = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [_call("a"), _call("b", "edit")]},
        {"role": "tool", "content": "A", "tool_call_id": "a"},
        {"role": "tool", "content": "B", "tool_call_id": "b", "name": "edit"},
        {"role": "user", "content": "thanks"},
    ]
    assert to_anthropic(from_openai(raw)) == {"messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "a", "name": "bash", "input": {"command": "ls"}},
            {"type": "tool_use", "id": "b", "name": "edit", "input": {"command": "ls"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "A"},
            {"type": "tool_result", "tool_use_id": "b", "content": "B"}]},
        {"role": "user", "content": "thanks"},
    ]}


def test_tool_messages_of_two_assistant_turns_are_not_merged_together() -> None:
    raw = [
        {"role": "assistant", "content": None, "tool_calls": [_call("a")]},
        {"role": "tool", "content": "A", "tool_call_id": "a"},
        {"role": "assistant", "content": None, "tool_calls": [_call("a")]},  # id reused
        {"role": "tool", "content": "A2", "tool_call_id": "a"},
    ]
    turns = to_anthropic(from_openai(raw))["messages"]
    assert [t["role"] for t in turns] == ["assistant", "user", "assistant", "user"]
    assert [len(t["content"]) for t in turns] == [1, 1, 1, 1]


def test_system_messages_are_hoisted_into_the_system_parameter() -> None:
    raw = [
        {"role": "system", "content": "first"},
        {"role": "user", "content": "hi"},
        {"role": "developer", "content": "second"},
        {"role": "assistant", "content": "hello"},
    ]
    assert to_anthropic(from_openai(raw)) == {
        "system": "first\n\nsecond",
        "messages": [{"role": "user", "content": "hi"},
                     {"role": "assistant", "content": "hello"}],
    }


def test_empty_assistant_text_next_to_tool_calls_is_dropped() -> None:
    body = to_anthropic(from_openai([
        {"role": "assistant", "content": "", "tool_calls": [_call("c")]}]))
    assert body["messages"][0]["content"] == [
        {"type": "tool_use", "id": "c", "name": "bash", "input": {"command": "ls"}}]


def test_system_blocks_with_cache_control_stay_a_block_list() -> None:
    [m] = from_openai([{"role": "system", "content": [
        {"type": "text", "text": "policy", "cache_control": {"type": "ephemeral"}}]}])
    assert to_anthropic([m]) == {
        "system": [{"type": "text", "text": "policy", "cache_control": {"type": "ephemeral"}}],
        "messages": []}


def test_anthropic_output_carries_no_private_bookkeeping_keys() -> None:
    body = to_anthropic(from_openai([{"role": "user", "content": [
        {"text": "hi", "type": "text"}, {"type": "text", "text": "there"}]}]))
    for block in body["messages"][0]["content"]:
        assert not any(k.startswith("_") for k in block), block


# --- Anthropic-native input ---------------------------------------------------------------


_NATIVE: JSON = {
    "system": [{"type": "text", "text": "You are a coding agent.",
                "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "What is in this screenshot?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "iVBORw0KGgo="}}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "I should run ls.", "signature": "EqQBCgYI"},
            {"type": "redacted_thinking", "data": "EmwKAhgB"},
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {"command": "ls"}},
            {"type": "tool_use", "id": "toolu_02", "name": "bash", "input": {"command": "pwd"},
             "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01",
             "content": [{"type": "text", "text": "a.py"},
                         {"type": "image", "source": {"type": "base64",
                                                      "media_type": "image/png", "data": "AA"}}]},
            {"type": "tool_result", "tool_use_id": "toolu_02", "content": "permission denied",
             "is_error": True, "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Also, hurry."}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_03", "name": "bash", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_03", "content": "", "is_error": False}]},
        {"role": "assistant", "content": "Done."},
    ],
}


def test_native_anthropic_history_round_trips_exactly() -> None:
    body = copy.deepcopy(_NATIVE)
    messages = _read(body)
    assert body == _NATIVE  # input untouched
    out = to_anthropic(messages)
    assert out == _NATIVE
    assert json.dumps(out) == json.dumps(_NATIVE)


def test_native_anthropic_history_reads_into_the_expected_blocks() -> None:
    m = _read(_NATIVE)
    assert [x.role for x in m] == ["system", "user", "assistant", "user", "assistant", "tool",
                                   "assistant", "tool", "assistant"]
    assert isinstance(m[1].content[1], OpaqueBlock)
    assert [type(b) for b in m[2].content] == [OpaqueBlock, OpaqueBlock, TextBlock,
                                               ToolUseBlock, ToolUseBlock]
    results = m[3].tool_results
    assert [(r.tool_use_id, r.is_error) for r in results] == [("toolu_01", False),
                                                              ("toolu_02", True)]
    assert results[0].text == "a.py"
    assert isinstance(results[0].content[1], OpaqueBlock)
    assert thaw(results[1].extra["anthropic"]["cache_control"]) == {"type": "ephemeral"}
    assert m[3].role == "user"  # results followed by text stay a user turn
    assert m[5].role == "tool"  # a turn of results only reads as a tool message
    assert validate_pairing(m, rules="anthropic") == []


def test_is_error_and_cache_control_survive_a_trip_through_neutral_form() -> None:
    block = {"type": "tool_result", "tool_use_id": "t", "content": "boom", "is_error": True,
             "cache_control": {"type": "ephemeral"}}
    [m] = from_anthropic([{"role": "user", "content": [block]}])
    [r] = m.tool_results
    assert r.is_error is True
    assert to_anthropic([m])["messages"][0]["content"] == [block]


def test_a_plain_string_system_prompt_round_trips() -> None:
    body = {"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}
    assert to_anthropic(_read(body)) == body


def test_neutral_messages_built_by_hand_write_plain_anthropic() -> None:
    messages = [
        Message(role="system", content=(TextBlock(text="sys"),)),
        Message(role="user", content=(TextBlock(text="hi"),)),
        Message(role="assistant", content=(ToolUseBlock(id="c", name="f", input={"a": 1}),)),
        Message(role="tool", content=(ToolResultBlock(tool_use_id="c", content="r",
                                                      is_error=True),)),
    ]
    assert to_anthropic(messages) == {"system": "sys", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "f",
                                           "input": {"a": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "r",
                                      "is_error": True}]},
    ]}


def test_native_anthropic_history_writes_to_openai_with_the_same_tool_calls() -> None:
    out = to_openai(_read(_NATIVE))
    calls = [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
             for m in out for c in m.get("tool_calls") or []]
    assert calls == [("toolu_01", "bash", {"command": "ls"}),
                     ("toolu_02", "bash", {"command": "pwd"}),
                     ("toolu_01", "bash", {}), ("toolu_03", "bash", {})]
    results = [m["tool_call_id"] for m in out if m["role"] == "tool"]
    assert results == ["toolu_01", "toolu_02", "toolu_01", "toolu_03"]
    assert validate_pairing(from_openai(out)) == []


@settings(max_examples=30, deadline=None)
@given(anthropic_conversations())
def test_generated_anthropic_histories_round_trip_exactly(body: JSON) -> None:
    messages = _read(body)
    out = to_anthropic(messages)
    assert out == body
    assert json.dumps(out) == json.dumps(body)
    assert validate_pairing(messages, rules="anthropic") == []
    assert validate_pairing(messages, rules="openai") == []


# --- ids ----------------------------------------------------------------------------------


def test_converting_the_same_anthropic_history_twice_gives_the_same_ids() -> None:
    first = [m.id for m in _read(_NATIVE)]
    assert first == [m.id for m in _read(copy.deepcopy(_NATIVE))]
    assert len(set(first)) == len(first)


def test_duplicate_identical_anthropic_messages_get_distinct_ids() -> None:
    same = {"role": "user", "content": "again"}
    ids = [m.id for m in from_anthropic([same, dict(same), dict(same)])]
    assert len(set(ids)) == 3


# --- bad input ----------------------------------------------------------------------------

_OK: list[JSON] = [{"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}]


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ({"role": "system", "content": "x"}, "unknown role 'system'"),
        ({"role": "tool", "content": "x"}, "unknown role 'tool'"),
        ({"content": "x"}, "unknown role None"),
        ({"role": "user", "content": 3}, "content must be"),
        ({"role": "user", "content": None}, "content must be"),
        ({"role": "user"}, "content must be"),
        ({"role": "user", "content": ["text"]}, "blocks must be objects"),
        ({"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]},
         "without an id"),
        ({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}}]},
         "has no name"),
        ({"role": "assistant", "content": [
            {"type": "tool_use", "id": "t", "name": "f", "input": "ls"}]}, "must be an object"),
        ({"role": "user", "content": [{"type": "tool_result", "content": "r"}]},
         "without a tool_use_id"),
        ({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": 5}]}, "string or a list"),
        ({"role": "user", "content": [
            {"type": "tool_use", "id": "t", "name": "f", "input": {}}]}, "in a user message"),
        ({"role": "assistant", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": "r"}]},
         "in an assistant message"),
        (["user", "hi"], "expected an object"),
    ],
)
def test_bad_anthropic_message_raises_invalid_message_error_naming_its_index(
    bad: Any, words: str
) -> None:
    with pytest.raises(InvalidMessageError) as info:
        from_anthropic([*_OK, bad])
    err = info.value
    assert type(err) is InvalidMessageError
    assert isinstance(err, ValueError)
    assert err.index == 2
    assert str(err).startswith("message 2: ")
    assert words in str(err)


@pytest.mark.parametrize("bad", [{"messages": []}, "[]", b"[]"])
def test_anthropic_input_that_is_not_a_list_raises_invalid_message_error(bad: Any) -> None:
    with pytest.raises(InvalidMessageError, match="expected a list") as info:
        from_anthropic(bad)
    assert type(info.value) is InvalidMessageError


@pytest.mark.parametrize("bad", [None, 42])
def test_anthropic_none_or_a_number_instead_of_a_list_raises_invalid_message_error(
    bad: Any,
) -> None:
    with pytest.raises(InvalidMessageError, match="expected a list"):
        from_anthropic(bad)
