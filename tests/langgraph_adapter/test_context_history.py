"""The history is converted once per message, and converted back to the very same objects."""

from __future__ import annotations

import copy

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from ctxmgr import Message, ToolResultBlock, default_counter
from ctxmgr_langgraph.convert import to_langchain
from ctxmgr_langgraph.history import MessageCache


def history(n: int) -> list:
    out: list = [HumanMessage(content="fix the bug", id="u0")]
    for i in range(n):
        out.append(AIMessage(content="", id=f"a{i}", tool_calls=[
            {"name": "bash", "args": {"command": f"ls {i}"}, "id": f"c{i}", "type": "tool_call"}]))
        out.append(ToolMessage(content=f"output {i} " * 20, tool_call_id=f"c{i}", id=f"t{i}"))
    return out


def test_a_message_seen_before_is_not_converted_again() -> None:
    cache = MessageCache()
    messages = history(5)
    first = cache.to_neutral(messages)
    again = cache.to_neutral([*messages, HumanMessage(content="more", id="u1")])
    assert all(a is b for a, b in zip(first, again, strict=False))
    assert again[-1].id == "u1"


def test_an_equal_history_restored_from_a_checkpoint_reuses_the_conversions() -> None:
    cache = MessageCache()
    counter = default_counter()
    messages = history(5)
    first = cache.to_neutral(messages)
    total = counter.count_messages(first)
    restored = copy.deepcopy(messages)  # new objects, equal content
    again = cache.to_neutral(restored)
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert all(counter.cache_key in m._token_cache for m in again)  # counts stay cached
    assert counter.count_messages(again) == total


def test_an_edited_message_is_converted_anew() -> None:
    cache = MessageCache()
    messages = history(2)
    first = cache.to_neutral(messages)
    edited = [*messages[:2], ToolMessage(content="shorter", tool_call_id="c0", id="t0"),
              *messages[3:]]
    again = cache.to_neutral(edited)
    assert again[2] is not first[2] and again[2].tool_results[0].text == "shorter"
    assert again[1] is first[1]


def test_converting_back_gives_the_original_langchain_objects() -> None:
    cache = MessageCache()
    messages = history(3)
    back = cache.to_langchain(cache.to_neutral(messages))
    assert all(a is b for a, b in zip(back, messages, strict=True))


def test_a_message_written_as_several_tool_messages_is_kept_together() -> None:
    two = Message(role="tool", id="r", content=(
        ToolResultBlock(tool_use_id="c1", content="one"),
        ToolResultBlock(tool_use_id="c2", content="two")))
    parts = to_langchain([two])
    assert len(parts) == 2
    cache = MessageCache()
    [again] = cache.to_neutral(parts)
    assert again == two
    assert cache.langchain_ids("r") == [p.id for p in parts]
    assert cache.to_langchain([again]) == parts


def test_a_message_without_an_id_gets_the_same_derived_id_every_time() -> None:
    cache = MessageCache()
    first = cache.to_neutral([HumanMessage(content="hi")])
    again = cache.to_neutral([HumanMessage(content="hi")])
    assert first == again and first[0].id
    assert len(cache) == 0  # nothing to remember it by
