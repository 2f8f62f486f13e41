"""A long chat of short user turns through a real ``create_agent``: however many turns
came before, every prompt the model receives fits the budget and keeps tool pairing."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph_agents import neutral, tool_tokens
from short_turns import chat

from ctxmgr import AutoContextConfig, InMemoryStore, default_counter, validate_pairing
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.testing import ScriptedChatModel

WINDOW = 2000
TURNS = 1000
SYSTEM = "You are a helpful travel and support assistant. Answer briefly."


def test_a_thousand_short_turns_keep_every_prompt_in_budget_and_paired() -> None:
    config = AutoContextConfig(max_tokens=WINDOW)
    counter = default_counter()
    turns = list(chat(TURNS, seed=3))
    sizes: list[int] = []

    def check(prompt: list[BaseMessage]) -> None:  # what the model receives, as it is sent
        messages = neutral(prompt)
        for rules in ("openai", "anthropic"):
            assert validate_pairing(messages, rules=rules) == [], f"call {len(sizes)}"
        sizes.append(counter.count_messages(messages) + tool_tokens(counter, model.bound_tools))
        assert sizes[-1] <= config.budget_tokens, f"call {len(sizes)}: {sizes[-1]} tokens"
        model.received.clear()

    model = ScriptedChatModel(messages=iter([AIMessage(t.answer, id=t.answer_id)
                                             for t in turns]), on_call=check)
    middleware = ContextMiddleware(config, counter=counter, store=InMemoryStore())
    agent = create_agent(model, [], system_prompt=SYSTEM, middleware=[middleware],
                         checkpointer=InMemorySaver())
    thread: dict[str, Any] = {"configurable": {"thread_id": "t"}}
    for turn in turns:
        agent.invoke({"messages": [HumanMessage(turn.user, id=turn.user_id)]}, thread)
    assert len(sizes) == TURNS
    assert max(sizes) > config.trigger_tokens  # the window was full all along
    history = agent.get_state(thread).values["messages"]
    notes = [m for m in neutral(history) if (marker := CompressedMarker.of(m)) is not None
             and marker.strategy == 9]
    assert len(notes) == 1  # the user's words roll forward in one note
    assert len(history) < TURNS // 4  # compressions are persisted in the thread
