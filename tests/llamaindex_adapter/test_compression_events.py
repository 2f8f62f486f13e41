"""Compressions in LlamaIndex's instrumentation: a real event handler on the root dispatcher.

A ``BaseEventHandler`` added to the root dispatcher (where LlamaIndex's observability
integrations add theirs) must see one ``ContextCompressionEvent`` for each
``CompressionEvent`` the memory's ``on_event`` saw, with the same figures: from
``ContextMemory.get`` / ``aget`` and from a ``ContextFunctionAgent`` run.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent

from ctxmgr import CompressionEvent, InMemoryStore, from_openai
from ctxmgr.tokens import ApproximateCounter
from ctxmgr_llamaindex import ContextCompressionEvent, ContextFunctionAgent, ContextMemory
from ctxmgr_llamaindex.testing import RecordedRun


class Compressions(BaseEventHandler):
    """Keeps the compression events it is handed."""

    seen: list[ContextCompressionEvent] = []

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        if isinstance(event, ContextCompressionEvent):
            self.seen.append(event)


@pytest.fixture
def handler() -> Iterator[Compressions]:
    root = get_dispatcher()
    handler = Compressions(seen=[])
    root.add_event_handler(handler)
    yield handler
    root.event_handlers.remove(handler)


def memory(seen: list[CompressionEvent]) -> ContextMemory:
    return ContextMemory.from_defaults(max_tokens=4000, store=InMemoryStore(),
                                       counter=ApproximateCounter(), on_event=seen.append)


def output(path: str) -> str:
    return "\n".join(f"{path} line {j}: " + "x" * 60 for j in range(40))


def same(handled: list[ContextCompressionEvent], seen: list[CompressionEvent],
         session: str) -> None:
    assert len(seen) >= 2 and len(handled) == len(seen)
    for got, event in zip(handled, seen, strict=True):
        assert got.class_name() == "ContextCompressionEvent"
        assert (got.strategy, got.strategy_name, got.status) == (
            event.strategy, event.name, event.status)
        assert (got.tokens_before, got.tokens_after) == (event.tokens_before, event.tokens_after)
        assert got.replaced_ids == list(event.replaced_ids)
        assert got.offload_id == event.offload_id
        assert got.cache_invalidated_tokens == event.cache_invalidated_tokens
        assert got.session == session


@pytest.mark.parametrize("mode", ["get", "aget"])
def test_a_root_event_handler_sees_each_compression_of_a_memory(
        handler: Compressions, mode: str) -> None:
    seen: list[CompressionEvent] = []
    mem = memory(seen)
    mem.put(ChatMessage(role="user", content="fix the bug"))
    for i in range(10):
        mem.put(ChatMessage(role="assistant", content=output(f"notes/{i}.md")))
        mem.put(ChatMessage(role="user", content=f"and then {i}?"))
        asyncio.run(mem.aget()) if mode == "aget" else mem.get()
    same(handler.seen, seen, mem.session)


def test_a_root_event_handler_sees_each_compression_of_a_function_agent_run(
        handler: Compressions) -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a coder."},
                                      {"role": "user", "content": "fix the bug"}]
    for i in range(10):
        args = json.dumps({"path": f"src/f{i}.py"})
        messages.append({"role": "assistant", "content": f"reading {i}", "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": "read_file", "arguments": args}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}",
                         "content": output(f"src/f{i}.py")})
    messages.append({"role": "assistant", "content": "fixed"})
    run = RecordedRun.from_messages(from_openai(messages))
    seen: list[CompressionEvent] = []
    mem = memory(seen)
    tools: list[Any] = run.tools()
    agent = ContextFunctionAgent(tools=tools, llm=run.llm(),
                                 system_prompt=run.system_prompt)

    async def main() -> Any:
        return await agent.run(user_msg=run.user_message(), memory=mem, max_iterations=100)

    assert "fixed" in str(asyncio.run(main()))
    same(handler.seen, seen, mem.session)
    assert all(e.span_id for e in handler.seen), "each is tied to the agent step's span"


def test_the_compressions_made_before_an_overflow_reach_the_handler_too(
        handler: Compressions) -> None:
    """Regression: only LangGraph reported the compressions a pass made before it found
    the pinned messages too large; they are written, so they are reported everywhere."""
    from ctxmgr import ContextOverflowError

    seen: list[CompressionEvent] = []
    mem = memory(seen)
    for i in range(6):
        mem.put(ChatMessage(role="user", content=f"question {i}"))
        mem.put(ChatMessage(role="assistant", content=output(f"notes/{i}.md")))
    mem.put(ChatMessage(role="user", content="the task, pasted whole: " + "y " * 20_000))
    with pytest.raises(ContextOverflowError):
        mem.get()
    assert any(e.status == "applied" for e in seen)
    same(handler.seen, seen, mem.session)
