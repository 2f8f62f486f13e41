"""LlamaIndex ChatMessage <-> neutral messages: what the model sees survives, ids are
stable (never random), counts are the same, and known originals come back whole."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llama_index.core.base.llms.generic_utils import messages_to_prompt
from llama_index.core.base.llms.types import (
    ChatMessage,
    ImageBlock,
    MessageRole,
    TextBlock,
    ToolCallBlock,
)
from llama_index.core.memory import Memory
from strategies import llamaindex_message_fields, openai_conversations

from ctxmgr import (
    Message,
    OpaqueBlock,
    ToolUseBlock,
    from_anthropic,
    from_openai,
    to_openai,
    validate_pairing,
)
from ctxmgr.errors import InvalidMessageError
from ctxmgr.messages import text_message
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.tokens import TiktokenCounter, TokenCounter, default_counter
from ctxmgr_llamaindex import LlamaIndexConverter, from_llamaindex, to_llamaindex

COUNTER = default_counter()
_PROPERTY = settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


def _assert_model_view_round_trip(messages: list[Message], counter: TokenCounter = COUNTER
                                  ) -> list[ChatMessage]:
    """Without ``known``: ids, the OpenAI form and every count come back; with it, all."""
    li = to_llamaindex(messages)
    back = from_llamaindex(li)
    assert [m.id for m in back] == [m.id for m in messages]
    assert to_openai(back) == to_openai(messages)
    assert [counter.count_uncached(m) for m in back] == [
        counter.count_uncached(m) for m in messages]
    assert from_llamaindex(li, known=messages) == messages
    assert to_llamaindex(back) == li
    return li


# ------------------------------------------------------------------ recorded runs


def test_every_fixture_run_round_trips_through_llamaindex_with_nothing_lost(
        fixture_trajectories: list[Trajectory]) -> None:
    for t in fixture_trajectories:
        _assert_model_view_round_trip(list(t.messages))


@pytest.mark.slow
def test_every_shared_run_round_trips_through_llamaindex_with_nothing_lost(
        shared_trajectories: list[Trajectory]) -> None:
    o200k = TiktokenCounter(encoding="o200k_base")
    for t in shared_trajectories:
        _assert_model_view_round_trip(list(t.messages), o200k)


def test_recorded_tool_calls_and_results_take_the_form_function_agent_writes(
        swe_trajectories: list[Trajectory]) -> None:
    run = list(swe_trajectories[0].messages)
    li = to_llamaindex(run)
    k = next(i for i, m in enumerate(run) if m.tool_uses)
    calls = [b for b in li[k].blocks if isinstance(b, ToolCallBlock)]
    assert [(c.tool_call_id, c.tool_name) for c in calls] == [
        (b.id, b.name) for b in run[k].tool_uses]
    result = li[k + 1]
    assert result.role is MessageRole.TOOL
    assert result.additional_kwargs == {"tool_call_id": calls[0].tool_call_id}
    assert result.content == run[k + 1].tool_results[0].text


def test_ids_match_what_from_openai_gives_the_same_conversation(
        fixture_trajectories: list[Trajectory]) -> None:
    for t in fixture_trajectories:
        ids = [m.id for m in from_llamaindex(to_llamaindex(from_openai(list(t.raw))))]
        assert ids == [m.id for m in from_openai(list(t.raw))], t.id


# ------------------------------------------------------------------ properties


@_PROPERTY
@given(raw=openai_conversations(odd=False, in_flight=None))
def test_recorded_shaped_histories_round_trip_exactly_even_without_known(
        raw: list[Any]) -> None:
    messages = from_openai(raw)
    li = _assert_model_view_round_trip(messages)
    assert from_llamaindex(li) == messages


@_PROPERTY
@given(raw=openai_conversations(in_flight=None, audio_and_files=False))
def test_odd_histories_keep_counts_and_tool_calls_and_come_back_whole_when_known(
        raw: list[Any]) -> None:
    messages = from_openai(raw)
    li = to_llamaindex(messages)
    back = from_llamaindex(li)
    assert [COUNTER.count_uncached(m) for m in back] == [
        COUNTER.count_uncached(m) for m in messages]
    assert [[(b.id, b.name, b.input) for b in m.tool_uses] for m in back] == [
        [(b.id, b.name, b.input) for b in m.tool_uses] for m in messages]
    assert [m.text for m in back] == [m.text for m in messages]
    assert from_llamaindex(li, known=messages) == messages


@_PROPERTY
@given(specs=st.lists(llamaindex_message_fields(), max_size=5))
def test_generated_llamaindex_messages_round_trip_through_neutral_form(
        specs: list[dict[str, Any]]) -> None:
    li = [ChatMessage.model_validate(spec) for spec in specs]
    neutral = from_llamaindex(li)
    assert to_llamaindex(neutral) == li
    assert from_llamaindex(li) == neutral, "the same history twice gives the same ids"


# ------------------------------------------------------------------ what is kept where


def test_nothing_of_ctxmgr_reaches_additional_kwargs_or_the_prompt() -> None:
    """LlamaIndex's OpenAI integration copies additional_kwargs into the request and
    completion models get them printed into the prompt: ctxmgr puts nothing there."""
    m = Message(role="user", id="u1", metadata={"secret": "do not send"},
                content=(text_message("user", "hello").content[0],))
    [cm] = to_llamaindex([m])
    assert cm.additional_kwargs == {}
    assert "secret" not in messages_to_prompt([cm])
    assert from_llamaindex([cm], known=[m]) == [m]


def test_openai_fields_become_additional_kwargs_as_llamaindex_reads_them() -> None:
    [m] = from_openai([{"role": "tool", "content": "ok", "tool_call_id": "c1",
                        "name": "get_reservation_details"}])
    [cm] = to_llamaindex([m])
    assert cm.additional_kwargs == {"tool_call_id": "c1", "name": "get_reservation_details"}
    assert from_llamaindex([cm]) == [m]


def test_developer_role_and_images_are_native() -> None:
    url = {"type": "image_url", "image_url": {"url": "https://example.com/cat.png",
                                              "detail": "low"}}
    messages = from_openai([{"role": "developer", "content": "be brief"},
                            {"role": "user", "content": [{"type": "text", "text": "see"}, url]}])
    [dev, user] = to_llamaindex(messages)
    assert dev.role is MessageRole.DEVELOPER
    assert isinstance(user.blocks[1], ImageBlock) and str(user.blocks[1].url).endswith("cat.png")
    assert from_llamaindex([dev, user])[1].content[1] == OpaqueBlock(data=url)


def test_provider_argument_text_is_kept_so_counts_match() -> None:
    m = Message(role="assistant", id="a",
                content=(ToolUseBlock(id="c1", name="f", input={"x": "é"},
                                      raw_input='{"x":"\\u00e9"}'),))
    [cm] = to_llamaindex([m])
    assert cm.blocks[0].tool_kwargs == '{"x":"\\u00e9"}'
    [back] = from_llamaindex([cm])
    assert back.tool_uses[0].raw_input == '{"x":"\\u00e9"}'
    assert COUNTER.count_uncached(back) == COUNTER.count_uncached(m)


def test_tool_calls_are_counted_never_zero() -> None:
    plain = ChatMessage(role="assistant", content="ok")
    calling = ChatMessage(role="assistant", blocks=[
        TextBlock(text="ok"), ToolCallBlock(tool_call_id="call_1", tool_name="search_flights",
                                            tool_kwargs={"origin": "SFO", "dest": "JFK"})])
    [p], [c] = from_llamaindex([plain]), from_llamaindex([calling])
    assert COUNTER.count(c) > COUNTER.count(p) + 10


def test_a_function_agent_turn_pairs_up() -> None:
    turn = [ChatMessage(role="user", content="add 2 and 3"),
            ChatMessage(role="assistant", blocks=[ToolCallBlock(
                tool_call_id="call_1", tool_name="add", tool_kwargs={"a": 2, "b": 3})]),
            ChatMessage(role="tool", content="5", additional_kwargs={"tool_call_id": "call_1"}),
            ChatMessage(role="assistant", content="5")]
    neutral = from_llamaindex(turn)
    assert validate_pairing(neutral) == []
    assert neutral[2].tool_results[0].tool_use_id == "call_1"


def test_legacy_tool_calls_in_additional_kwargs_are_read_and_kept() -> None:
    legacy = ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "add", "arguments": '{"a": 2}'}}]})
    [m] = from_llamaindex([legacy])
    assert [(b.id, b.name, dict(b.input)) for b in m.tool_uses] == [("call_1", "add", {"a": 2})]
    assert to_llamaindex([m]) == [legacy]


# ------------------------------------------------------------------ several results in one


def test_several_results_in_one_message_become_one_tool_message_each() -> None:
    messages = from_anthropic([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "a", "input": {}},
            {"type": "tool_use", "id": "t2", "name": "b", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "one"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "two"}]}])
    li = to_llamaindex(messages)
    assert [(m.role, m.additional_kwargs.get("tool_call_id")) for m in li[2:]] == [
        (MessageRole.TOOL, "t1"), (MessageRole.TOOL, "t2")]
    assert validate_pairing(from_llamaindex(li)) == []


# ------------------------------------------------------------------ ids and memory


def test_ids_are_derived_from_content_never_random() -> None:
    history = [ChatMessage(role="user", content="hi"), ChatMessage(role="assistant",
                                                                   content="hello"),
               ChatMessage(role="user", content="hi")]
    first, second = from_llamaindex(history), from_llamaindex(history)
    assert [m.id for m in first] == [m.id for m in second]
    assert len({m.id for m in first}) == 3


def test_a_real_memory_gives_back_the_original_messages(
        fixture_trajectories: list[Trajectory]) -> None:
    """Memory stores ChatMessages in SQLite and rebuilds them: the converter still maps
    them back to the originals (ids, OpenAI key order and all)."""
    tau = next(t for t in fixture_trajectories if t.id.startswith("tau"))
    converter = LlamaIndexConverter()
    memory = Memory.from_defaults(session_id="convert-test", token_limit=1_000_000)
    memory.put_messages(converter.to_llamaindex(list(tau.messages)))
    back = converter.from_llamaindex(memory.get())
    assert back == list(tau.messages)
    assert all(a is b for a, b in zip(back, tau.messages, strict=True))


def test_repeated_identical_messages_map_back_to_distinct_originals() -> None:
    a, b = text_message("user", "ok", id="first"), text_message("user", "ok", id="second")
    converter = LlamaIndexConverter([a, b])
    assert [m.id for m in converter.from_llamaindex(to_llamaindex([a, b, a]))] == [
        "first", "second", from_openai([{"role": "user", "content": "ok"}])[0].id]


# ------------------------------------------------------------------ errors


def test_a_block_llamaindex_cannot_hold_is_refused_naming_it() -> None:
    [m] = from_openai([{"role": "user", "content": [
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]}])
    with pytest.raises(InvalidMessageError, match="'input_audio' block has no LlamaIndex form"):
        to_llamaindex([m])


@pytest.mark.parametrize("bad", [[{"role": "user", "content": "hi"}], "hello"])
def test_what_is_not_a_chat_message_is_refused_clearly(bad: Any) -> None:
    with pytest.raises(InvalidMessageError, match="ChatMessage"):
        from_llamaindex(bad)
