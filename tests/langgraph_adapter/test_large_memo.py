"""A memo whose content alone is larger than the budget does not abort the run.

The model writes its notes with the memo tool; from then on the call's ``content`` is
shown as a short placeholder (the memo is on disk). The budget is checked on what the
model is sent, so the placeholder is applied before the check: a real ``create_agent``
with ``ContextMiddleware`` goes on after a memo of 40,000 characters in an 8,000-token
window (before, every later call raised ``ContextOverflowError``).
"""

from __future__ import annotations

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from ctxmgr import AutoContextConfig, InMemoryStore, default_counter
from ctxmgr.memo import MemoStore
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.convert import from_langchain
from ctxmgr_langgraph.testing import ScriptedChatModel

NOTES = "\n".join(f"finding {i}: the parser drops field {i} when it is empty" for i in
                  range(800))  # about 40,000 characters, 12,000 tokens


def test_a_memo_larger_than_the_budget_is_counted_as_its_placeholder() -> None:
    write = AIMessage("", id="a1", tool_calls=[{
        "id": "m1", "name": "memo", "args": {"action": "write", "key": "findings",
                                              "summary": "what the parser drops",
                                              "content": NOTES}}])
    prompts: list[int] = []
    counter = default_counter()
    model = ScriptedChatModel(messages=iter([write, AIMessage("noted", id="a2"),
                                             AIMessage("still here", id="a3")]))
    model.on_call = lambda prompt: prompts.append(counter.count_messages(
        from_langchain(prompt)))
    store = InMemoryStore()
    middleware = ContextMiddleware(AutoContextConfig(max_tokens=8000, memo=True, project="p"),
                                   store=store,
                                   counter=counter)
    graph = create_agent(model, [], middleware=[middleware], checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t1"}}

    graph.invoke({"messages": [HumanMessage("read the parser and note what it drops",
                                            id="u1")]}, thread)
    result = graph.invoke({"messages": [HumanMessage("go on", id="u2")]}, thread)

    assert result["messages"][-1].content == "still here"
    assert len(prompts) == 3 and max(prompts) < 8000
    assert MemoStore(store, session="t1", project="p").read("findings") == NOTES
