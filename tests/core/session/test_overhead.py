"""What a request sends beside the history: system prompt and tool schemas, as sent."""

from __future__ import annotations

from builders import C

from ctxmgr import AutoContextConfig, InMemoryStore
from ctxmgr.messages import text_message
from ctxmgr.session import SessionEngine
from ctxmgr.session.overhead import OverheadCounter

TOOL = {"type": "function", "function": {
    "name": "bash", "description": "Run a command.",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                   "required": ["command"]}}}


def test_a_tool_counts_as_its_schema_whatever_the_order_of_its_keys() -> None:
    overhead = OverheadCounter(C)
    reordered = {"function": dict(reversed(list(TOOL["function"].items()))),
                 # type: ignore[call-overload]
                 "type": "function"}
    assert overhead.tool(TOOL) == overhead.tool(reordered) > 10


def test_a_system_prompt_counts_as_the_system_message_it_is_sent_as() -> None:
    overhead = OverheadCounter(C)
    text = "You are a careful coding agent. " * 20
    assert overhead.system(text) == C.count(text_message("system", text))
    assert overhead.total(system=[text], tools=[TOOL]) == (
        overhead.system(text) + overhead.tool(TOOL))


def test_the_tool_guidance_is_counted_when_the_tools_it_explains_are_on() -> None:
    history = [text_message("user", "hello", id="u")]
    plain = SessionEngine(AutoContextConfig(project="p"), counter=C).prepare(
        history, None, store=InMemoryStore(), session="s", overhead=50)
    engine = SessionEngine(AutoContextConfig(project="p", memo=True), counter=C)
    turn = engine.prepare(history, None, store=InMemoryStore(), session="s", overhead=50)
    assert engine.guidance is not None and engine.guidance in turn.prompt
    assert turn.tokens == plain.tokens + C.count(engine.guidance)
    assert engine.overhead(tools=[TOOL]) == OverheadCounter(C).tool(TOOL)
