"""A context-tool call the tools refuse for an oversized argument does not overflow the next
call: the argument is shown elided in the model's own call from then on, as a written
memo's ``content`` is, and counted so (a real ``create_agent`` with ``ContextMiddleware``;
before, a 300,000-character ``uuid`` stayed in the prompt and the next call overflowed)."""

from __future__ import annotations

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from ctxmgr import AutoContextConfig, InMemoryStore, default_counter
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.convert import from_langchain
from ctxmgr_langgraph.testing import ScriptedChatModel

HUGE = "0123456789abcdef" * 20_000  # 320,000 characters, far over the 8,000-token window


@pytest.mark.parametrize(("tool", "args", "refusal"), [
    ("context_reload", {"uuid": HUGE}, "characters long"),
    ("context_search", {"query": HUGE}, "characters; search for at most"),
], ids=["reload uuid", "search query"])
def test_an_oversized_argument_of_a_refused_call_is_elided_from_the_next_prompt(
        tool: str, args: dict[str, str], refusal: str) -> None:
    call = AIMessage("", id="a1", tool_calls=[{"id": "c1", "name": tool, "args": args}])
    counter = default_counter()
    prompts: list[int] = []
    model = ScriptedChatModel(messages=iter([call, AIMessage("I will ask properly", id="a2")]))
    model.on_call = lambda prompt: prompts.append(counter.count_messages(
        from_langchain(prompt)))
    middleware = ContextMiddleware(AutoContextConfig(max_tokens=8000, project="p"),
                                   store=InMemoryStore(), counter=counter)
    graph = create_agent(model, [], middleware=[middleware], checkpointer=InMemorySaver())

    result = graph.invoke({"messages": [HumanMessage("find the parser's note", id="u1")]},
                          {"configurable": {"thread_id": "t1"}})

    answer = next(m for m in result["messages"] if isinstance(m, ToolMessage))
    assert refusal in str(answer.content) and HUGE not in str(answer.content)
    assert result["messages"][-1].content == "I will ask properly"
    assert len(prompts) == 2 and max(prompts) < 8000
    [shown] = [m for m in model.received[1] if isinstance(m, AIMessage) and m.tool_calls]
    [argument] = shown.tool_calls[0]["args"].values()
    assert argument.startswith("[elided by ctxmgr: 320,000 characters")
    # the history keeps the model's call as it was made
    [kept] = [m for m in result["messages"] if isinstance(m, AIMessage) and m.tool_calls]
    assert kept.tool_calls[0]["args"] == args
