"""LangChain messages <-> neutral messages: lossless both ways, stable ids, real counts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from strategies import (
    anthropic_conversations,
    langchain_message_fields,
    openai_conversations,
)

from ctxmgr import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    from_anthropic,
    from_openai,
    to_openai,
)
from ctxmgr.errors import InvalidMessageError
from ctxmgr.messages import text_message
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.tokens import TiktokenCounter, TokenCounter, default_counter
from ctxmgr_langgraph import from_langchain, to_langchain

COUNTER = default_counter()
_CLASSES: dict[str, type[BaseMessage]] = {
    "human": HumanMessage, "ai": AIMessage, "system": SystemMessage, "tool": ToolMessage,
    "chat": ChatMessage}
_PROPERTY = settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


def _assert_neutral_round_trip(messages: list[Message], counter: TokenCounter = COUNTER
                               ) -> list[BaseMessage]:
    lc = to_langchain(messages)
    back = from_langchain(lc)
    assert back == messages
    assert [m.id for m in back] == [m.id for m in messages]
    assert [counter.count_uncached(m) for m in back] == [
        counter.count_uncached(m) for m in messages]
    return lc


# ------------------------------------------------------------------ recorded runs


def test_every_fixture_run_round_trips_through_langchain_with_nothing_lost(
        fixture_trajectories: list[Trajectory]) -> None:
    for t in fixture_trajectories:
        lc = _assert_neutral_round_trip(list(t.messages))
        assert to_openai(from_langchain(lc)) == list(t.raw), t.id
        assert to_langchain(from_langchain(lc)) == lc, t.id


@pytest.mark.slow
def test_every_shared_run_round_trips_through_langchain_with_nothing_lost(
        shared_trajectories: list[Trajectory]) -> None:
    o200k = TiktokenCounter(encoding="o200k_base")
    for t in shared_trajectories:
        lc = _assert_neutral_round_trip(list(t.messages), o200k)
        assert to_openai(from_langchain(lc)) == list(t.raw), t.id
        assert to_langchain(from_langchain(lc)) == lc, t.id


def test_recorded_tool_calls_become_native_langchain_tool_calls(
        swe_trajectories: list[Trajectory]) -> None:
    run = list(swe_trajectories[0].messages)
    lc = to_langchain(run)
    call_msg = next(m for m in run if m.tool_uses)
    ai = next(m for m in lc if m.id == call_msg.id)
    assert isinstance(ai, AIMessage)
    assert [(c["id"], c["name"], c["args"]) for c in ai.tool_calls] == [
        (b.id, b.name, dict(b.input)) for b in call_msg.tool_uses]
    result = next(m for m in lc if isinstance(m, ToolMessage))
    assert result.tool_call_id == ai.tool_calls[0]["id"]


def test_tau_tool_results_keep_their_name_as_the_langchain_name(
        fixture_trajectories: list[Trajectory]) -> None:
    tau = next(t for t in fixture_trajectories if t.id.startswith("tau"))
    named = [(m, raw) for m, raw in zip(tau.messages, tau.raw, strict=True) if "name" in raw]
    assert named
    lc = {m.id: m for m in to_langchain(list(tau.messages))}
    for m, raw in named:
        assert lc[m.id].name == raw["name"]


# ------------------------------------------------------------------ properties


@_PROPERTY
@given(raw=openai_conversations(in_flight=None))
def test_generated_openai_histories_round_trip_through_langchain(raw: list[Any]) -> None:
    messages = from_openai(raw)
    lc = _assert_neutral_round_trip(messages)
    assert json.dumps(to_openai(from_langchain(lc))) == json.dumps(raw)


@_PROPERTY
@given(body=anthropic_conversations())
def test_generated_anthropic_histories_round_trip_through_langchain(body: Any) -> None:
    _assert_neutral_round_trip(from_anthropic(body["messages"], system=body.get("system")))


@_PROPERTY
@given(specs=st.lists(langchain_message_fields(), max_size=5))
def test_generated_langchain_messages_round_trip_through_neutral_form(
        specs: list[tuple[str, dict[str, Any]]]) -> None:
    lc = [_CLASSES[kind](**fields) for kind, fields in specs]
    neutral = from_langchain(lc)
    assert to_langchain(neutral) == lc
    assert from_langchain(lc) == neutral, "the same history twice gives the same ids"
    assert from_langchain(to_langchain(neutral)) == neutral


# ------------------------------------------------------------------ fields kept


def test_every_langchain_field_survives_a_trip_through_neutral_form() -> None:
    ai = AIMessage(
        content=[{"type": "text", "text": "let me look", "id": "t1"}, "bare part",
                 {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}],
        id="run-1", name="planner",
        additional_kwargs={"refusal": None, "x_vendor": {"k": [1, 2]}},
        response_metadata={"model_name": "gpt-4o", "finish_reason": "tool_calls"},
        usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        tool_calls=[{"name": "bash", "args": {"command": "ls"}, "id": "call_1",
                     "type": "tool_call"}],
        invalid_tool_calls=[{"name": "grep", "args": '{"pattern": ', "id": "call_2",
                             "error": "bad JSON", "type": "invalid_tool_call"}])
    tool = ToolMessage(content=[{"type": "text", "text": "a.py"}], tool_call_id="call_1",
                       status="error", artifact={"files": ["a.py"]}, id="t-1", name="bash")
    history = [SystemMessage(content="be brief", id="s"), HumanMessage(content="hi"), ai, tool,
               ChatMessage(role="critic", content="looks fine", id="c"),
               FunctionMessage(name="legacy", content="42", id="f")]
    neutral = from_langchain(history)
    assert to_langchain(neutral) == history
    [_, human, assistant, result, critic, function] = neutral
    assert human.id.startswith("lc_")
    assert [b.type for b in assistant.content] == ["text", "text", "opaque", "tool_use",
                                                   "opaque"]
    assert result.content == (ToolResultBlock(tool_use_id="call_1", content=(
        TextBlock(text="a.py"),), is_error=True),)
    assert (critic.role, function.role) == ("user", "user")


def test_invalid_tool_calls_are_counted_never_zero() -> None:
    plain = AIMessage(content="ok", id="a")
    broken = AIMessage(content="ok", id="a", invalid_tool_calls=[
        {"name": "grep", "args": '{"pattern": "needle", "path": ', "id": "call_9",
         "error": None, "type": "invalid_tool_call"}])
    [m_plain], [m_broken] = from_langchain([plain]), from_langchain([broken])
    assert COUNTER.count(m_broken) > COUNTER.count(m_plain) + 5


def test_tool_calls_cost_the_same_as_in_openai_form(swe_trajectories: list[Trajectory]) -> None:
    run = list(swe_trajectories[0].messages)
    calls = [m for m in run if m.tool_uses]
    back = from_langchain(to_langchain(calls))
    for original, again in zip(calls, back, strict=True):
        assert COUNTER.count_uncached(again) == COUNTER.count_uncached(original) > 20


def test_metadata_and_exact_argument_text_come_back() -> None:
    m = Message(role="assistant", id="m1", metadata={"ctxmgr": {"compressed": True}},
                content=(ToolUseBlock(id="c1", name="f", input={"a": 1},
                                      raw_input='{"a":1}'),))
    [back] = from_langchain(to_langchain([m]))
    assert back == m
    assert back.tool_uses[0].raw_input == '{"a":1}'
    assert back.metadata == {"ctxmgr": {"compressed": True}}


def test_a_chunk_round_trips_as_a_chunk() -> None:
    chunk = AIMessageChunk(content="partial", id="ch", tool_call_chunks=[
        {"name": "bash", "args": '{"command": "ls"}', "id": "c1", "index": 0,
         "type": "tool_call_chunk"}])
    [neutral] = from_langchain([chunk])
    assert neutral.tool_uses[0].input == {"command": "ls"}
    assert to_langchain([neutral]) == [chunk]


# ------------------------------------------------------------------ several results in one


def _anthropic_turn() -> list[Message]:
    return from_anthropic([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "a", "input": {}},
            {"type": "tool_use", "id": "t2", "name": "b", "input": {"x": 1}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "one"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "two", "is_error": True},
            {"type": "text", "text": "and then?"}]},
    ])


def test_several_results_in_one_message_become_one_tool_message_each_and_join_back() -> None:
    messages = _anthropic_turn()
    lc = to_langchain(messages)
    assert [type(m).__name__ for m in lc[2:]] == ["ToolMessage", "ToolMessage", "HumanMessage"]
    assert [m.id for m in lc[2:]] == [messages[2].id, f"{messages[2].id}#1",
                                      f"{messages[2].id}#2"]
    assert lc[3].status == "error"
    assert from_langchain(lc) == messages


def test_a_split_message_with_a_part_removed_reads_as_separate_messages() -> None:
    lc = to_langchain(_anthropic_turn())
    del lc[3]
    back = from_langchain(lc)
    assert [m.role for m in back[2:]] == ["tool", "user"]
    assert back[2].tool_results[0].tool_use_id == "t1"


# ------------------------------------------------------------------ ids


def test_messages_without_ids_get_the_same_content_derived_ids_every_time() -> None:
    history = [HumanMessage(content="hi"), AIMessage(content="hello"), HumanMessage(content="hi")]
    first, second = from_langchain(history), from_langchain(history)
    assert [m.id for m in first] == [m.id for m in second]
    assert len({m.id for m in first}) == 3, "repeated identical messages get distinct ids"
    assert all(m.id.startswith("lc_") for m in first)
    assert to_langchain(first) == history, "the id stays absent on the way back"


# ------------------------------------------------------------------ what providers receive


def test_the_stash_never_reaches_openai_or_anthropic(swe_trajectories: list[Trajectory]) -> None:
    from langchain_anthropic.chat_models import _format_messages
    from langchain_openai.chat_models.base import _convert_message_to_dict

    m = Message(role="user", id="u1", metadata={"private": "note"},
                content=(TextBlock(text="hello", extra={"openai": {"x": 1}}),))
    lc = [*to_langchain([m, *swe_trajectories[0].messages[1:6]])]
    assert "ctxmgr" in lc[0].additional_kwargs
    bare = [x.model_copy(update={"additional_kwargs": {
        k: v for k, v in x.additional_kwargs.items() if k != "ctxmgr"}}) for x in lc]
    assert [_convert_message_to_dict(x) for x in lc] == [
        _convert_message_to_dict(x) for x in bare]
    assert _format_messages(lc, model="claude") == _format_messages(bare, model="claude")
    assert "private" not in json.dumps([_convert_message_to_dict(x) for x in lc])


def test_a_langgraph_checkpoint_keeps_everything(fixture_trajectories: list[Trajectory]
                                                 ) -> None:
    serde = JsonPlusSerializer()
    for t in fixture_trajectories:
        lc = to_langchain(list(t.messages))
        restored = serde.loads_typed(serde.dumps_typed(lc))
        assert from_langchain(restored) == list(t.messages), t.id


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize("bad", [[RemoveMessage(id="x")], [{"role": "user"}], "hello"])
def test_what_is_not_a_langchain_message_is_refused_clearly(bad: Any) -> None:
    with pytest.raises(InvalidMessageError, match="LangChain message"):
        from_langchain(bad)


def test_tool_calls_on_a_user_message_are_refused_clearly() -> None:
    m = Message(role="user", id="u", content=(ToolUseBlock(id="c", name="f", input={}),))
    with pytest.raises(InvalidMessageError, match="no LangChain form"):
        to_langchain([m])


def test_plain_neutral_messages_make_plain_langchain_messages() -> None:
    [system, user] = to_langchain([text_message("system", "rules", id="s"),
                                   text_message("user", "task", id="u")])
    assert system == SystemMessage(content="rules", id="s")
    assert user == HumanMessage(content="task", id="u")
