"""The archive, memo and context_reload tools, round trip through a real create_agent.

A scripted model calls each tool, and what it is sent on its next call shows the
effect: the archived result as its placeholder, the memo write with its content
elided, the original of a compressed range (in pages when it is long).
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from builders import split_settings
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore as GraphStore

from ctxmgr import AutoContextConfig, validate_pairing
from ctxmgr.archive import archive_placeholder
from ctxmgr.autocontext.marker import OFFLOAD_TAG_RE
from ctxmgr.autocontext.reload import render_reloaded
from ctxmgr.memo import memo_placeholder
from ctxmgr_langgraph import CONTEXT_KEY, ContextMiddleware
from ctxmgr_langgraph.convert import from_langchain
from ctxmgr_langgraph.testing import ScriptedChatModel

LINES = [f"line {i:04d}: def function_{i}(value): return value * {i}  # padding text"
         for i in range(400)]
BIG_FILE = "\n".join(LINES)


@tool
def read_file(path: str) -> str:
    """Read a file of the project."""
    return BIG_FILE if path == "big.py" else f"contents of {path}"


def call(name: str, args: dict[str, Any], call_id: str, n: int) -> AIMessage:
    return AIMessage(content="", id=f"ai-{n}",
                     tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def tool_message(prompt: list[BaseMessage], call_id: str) -> ToolMessage:
    return next(m for m in prompt if isinstance(m, ToolMessage) and m.tool_call_id == call_id)


def agent_for(answers: list[Any], *, config: AutoContextConfig | None = None,
              store: Any = None, **options: Any) -> tuple[Any, ScriptedChatModel, Any]:
    model = ScriptedChatModel(messages=iter(answers))
    settings, options = split_settings({"reserve_output_tokens": 500, **options})
    middleware = ContextMiddleware(
        (config or AutoContextConfig(max_tokens=64_000)).evolve(**settings), **options)
    graph = create_agent(model, [read_file], system_prompt="You are a coding agent.",
                         middleware=[middleware], checkpointer=InMemorySaver(), store=store)
    return graph, model, middleware


def run(graph: Any, text: str = "Fix the bug.", thread: str = "t") -> dict[str, Any]:
    return graph.invoke({"messages": [("user", text)]},
                        {"configurable": {"thread_id": thread}, "recursion_limit": 200})


# --- which tools, and when ----------------------------------------------------------


def tool_names(middleware: ContextMiddleware) -> list[str]:
    return sorted(t.name for t in middleware.tools)


def test_only_the_recovery_tools_are_offered_by_default() -> None:
    assert tool_names(ContextMiddleware()) == ["context_reload", "context_search"]


def test_the_archive_and_memo_tools_are_switched_on_by_option_or_environment(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    recovery = ["context_reload", "context_search"]
    assert tool_names(ContextMiddleware(AutoContextConfig(message_archiving=True, memo=True))) == [
        *recovery, "memo", "message_archiving"]
    monkeypatch.setenv("CTXMGR_MEMO", "true")
    assert tool_names(ContextMiddleware()) == [*recovery, "memo"]
    Path(".env").write_text("CTXMGR_MESSAGE_ARCHIVING=yes\n", encoding="utf-8")
    assert tool_names(ContextMiddleware()) == [*recovery, "memo", "message_archiving"]
    off = AutoContextConfig(memo=False, message_archiving=False)  # code wins
    assert tool_names(ContextMiddleware(off)) == recovery


def test_the_model_sees_the_tool_schemas_without_the_injected_runtime() -> None:
    middleware = ContextMiddleware(AutoContextConfig(message_archiving=True, memo=True))
    schemas = {t.name: convert_to_openai_tool(t)["function"]["parameters"]
               for t in middleware.tools}
    assert set(schemas["context_reload"]["properties"]) == {"uuid", "page"}
    assert schemas["context_reload"]["required"] == ["uuid"]
    assert set(schemas["context_search"]["properties"]) == {"query", "regex", "max_results",
                                                             "page"}
    assert schemas["context_search"]["required"] == ["query"]
    assert set(schemas["message_archiving"]["properties"]) == {"action", "tool_use_ids",
                                                                 "summary"}
    assert set(schemas["memo"]["properties"]) == {"action", "key", "summary", "content"}
    assert all("runtime" not in s["properties"] for s in schemas.values())


# --- archive ------------------------------------------------------------------------


def test_an_archived_result_reaches_the_model_as_its_placeholder_until_unarchived(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ctxmgr")
    answers = [
        call("read_file", {"path": "big.py"}, "c1", 0),
        call("message_archiving", {"action": "archive", "tool_use_ids": ["c1"],
                                   "summary": "400 one-line functions"}, "c2", 1),
        call("message_archiving", {"action": "unarchive", "tool_use_ids": ["c1"]}, "c3", 2),
        "done",
    ]
    graph, model, _ = agent_for(answers, message_archiving=True)
    result = run(graph)

    after_read, after_archive, after_unarchive = model.received[1:4]
    assert tool_message(after_read, "c1").content == BIG_FILE
    assert tool_message(after_archive, "c1").content == archive_placeholder(
        "c1", "400 one-line functions")
    assert tool_message(after_archive, "c2").content == "Archived 1 tool result(s)"
    assert tool_message(after_unarchive, "c1").content == BIG_FILE
    assert tool_message(after_unarchive, "c3").content == "Unarchived 1 tool result(s)"
    assert "Archived 1 tool result(s)" in caplog.text
    assert "Unarchived 1 tool result(s)" in caplog.text
    # the state keeps the original: archiving is a view, never an edit of the history
    state = graph.get_state({"configurable": {"thread_id": "t"}}).values
    assert tool_message(state["messages"], "c1").content == BIG_FILE
    assert state[CONTEXT_KEY].get("archive", {}).get("archived", []) == []
    assert result["messages"][-1].content == "done"


def test_two_archive_calls_in_one_answer_both_take_effect() -> None:
    both = AIMessage(content="", id="ai-2", tool_calls=[
        {"name": "message_archiving", "args": {"action": "archive", "tool_use_ids": ["c1"]},
         "id": "a1", "type": "tool_call"},
        {"name": "message_archiving", "args": {"action": "archive", "tool_use_ids": ["c2"]},
         "id": "a2", "type": "tool_call"}])
    answers = [call("read_file", {"path": "big.py"}, "c1", 0),
               call("read_file", {"path": "big.py"}, "c2", 1), both, "done"]
    graph, model, _ = agent_for(answers, message_archiving=True)
    run(graph)
    last = model.received[3]
    assert tool_message(last, "c1").content == archive_placeholder("c1")
    assert tool_message(last, "c2").content == archive_placeholder("c2")


# --- memo ---------------------------------------------------------------------------


def test_a_written_memo_reaches_the_model_with_its_content_elided_and_reads_back(
        tmp_path: Path) -> None:
    plan = "1. reproduce the bug\n2. fix the regex\n" + "details " * 200
    answers = [
        call("memo", {"action": "write", "key": "plan", "summary": "the fix plan",
                      "content": plan}, "m1", 0),
        call("memo", {"action": "read", "key": "plan"}, "m2", 1),
        "done",
    ]
    graph, model, _ = agent_for(answers, memo=True, store=GraphStore())
    run(graph)

    after_write, after_read = model.received[1:3]
    [write] = [m for m in after_write if isinstance(m, AIMessage)]
    assert write.tool_calls[0]["args"]["content"] == memo_placeholder("plan", "the fix plan",
                                                                      len(plan))
    assert "plan" in tool_message(after_write, "m1").content
    assert tool_message(after_read, "m2").content.endswith(plan)
    # the elision is stable: the next prompt carries the same bytes for that message
    assert [m for m in after_read if m.id == write.id] == [write]
    state = graph.get_state({"configurable": {"thread_id": "t"}}).values
    stored = next(m for m in state["messages"] if m.id == write.id)
    assert stored.tool_calls[0]["args"]["content"] == plan  # the state keeps the original


def test_memos_live_in_the_graph_store_by_project_and_thread() -> None:
    store = GraphStore()
    answers = [call("memo", {"action": "write", "key": "plan", "summary": "s",
                             "content": "the plan"}, "m1", 0), "done"]
    graph, _, _ = agent_for(answers, memo=True, store=store, project="proj")
    run(graph, thread="thread-7")
    namespaces = store.list_namespaces(prefix=("ctxmgr",))
    assert ("ctxmgr", "proj", "notes", "thread-7") in namespaces


def test_a_thread_never_reads_the_memos_of_a_thread_whose_id_escapes_alike() -> None:
    store = GraphStore()
    alice = "alice@example.com/chat 1"
    lookalike = "thread-" + hashlib.sha256(alice.encode()).hexdigest()[:32]
    answers = [call("memo", {"action": "write", "key": "plan", "summary": "alice's plan",
                             "content": "alice's secret plan"}, "m1", 0), "done",
               call("memo", {"action": "read", "key": "plan"}, "m2", 1), "done"]
    graph, model, _ = agent_for(answers, memo=True, store=store, project="proj")

    run(graph, thread=alice)
    run(graph, thread=lookalike)

    answer = tool_message(model.received[-1], "m2").content
    assert "secret" not in answer and "no memo" in answer.lower()


# --- context_reload -------------------------------------------------------------------


def test_a_long_reload_id_is_refused_in_one_line_and_never_reaches_the_checkpoint() -> None:
    bogus = "f" * 100_000  # the call itself stays in the prompt: a 1 MB one would overflow
    answers = [call("context_reload", {"uuid": bogus}, "r1", 0), "done"]
    graph, model, _ = agent_for(answers)

    run(graph)

    answer = tool_message(model.received[-1], "r1").content
    assert answer == ("Error: uuid is 100000 characters long; an offload id is the hex "
                      "digits of a <!-- CONTEXT_OFFLOAD: uuid=ID --> tag (at most 32).")
    state = graph.get_state({"configurable": {"thread_id": "t"}}).values
    assert "reload_pages" not in (state.get(CONTEXT_KEY) or {})


def offload_ids(prompt: list[BaseMessage]) -> list[str]:
    return [i for m in prompt for i in OFFLOAD_TAG_RE.findall(str(m.content))]


def reload_pages(first: Callable[[list[BaseMessage]], str | None]) -> list[Any]:
    """Answers that reload the first offload id they see, then follow its pages."""
    state: dict[str, Any] = {"n": 0}

    def step(prompt: list[BaseMessage]) -> AIMessage:
        state["n"] += 1
        last = prompt[-1]
        if isinstance(last, ToolMessage) and last.name == "context_reload":
            more = re.search(r'\{"uuid": "([0-9a-f]{16})", "page": (\d+)\}', str(last.content))
            if more:
                return call("context_reload", {"uuid": more[1], "page": int(more[2])},
                            f"r{state['n']}", 100 + state["n"])
            return AIMessage(content="done", id="ai-final")
        uuid = first(prompt)
        if uuid is None:
            return AIMessage(content="no offload seen", id="ai-final")
        return call("context_reload", {"uuid": uuid}, f"r{state['n']}", 100 + state["n"])

    return [step] * 20


def page_body(text: str) -> str:
    return text.split("\n\n", 1)[1]


def test_context_reload_brings_back_a_compressed_original_in_pages_sized_to_the_room() -> None:
    reads = [call("read_file", {"path": "big.py"}, f"c{n}", n) for n in range(3)]
    config = AutoContextConfig(max_tokens=12_000)
    graph, model, middleware = agent_for(
        [*reads, *reload_pages(lambda p: (offload_ids(p) or [None])[0])], config=config)
    run(graph)

    pages = [tool_message(p, p[-1].tool_call_id).content for p in model.received
             if isinstance(p[-1], ToolMessage) and p[-1].name == "context_reload"]
    assert len(pages) >= 2, "a range larger than the room comes back in parts"
    first_uuid = next(i for p in model.received for i in offload_ids(p))
    processor = middleware.sessions.processor("t")
    whole = render_reloaded(processor.reload(first_uuid))
    assert "".join(page_body(p) for p in pages) == whole
    assert BIG_FILE in whole
    assert pages[0].startswith(
        f"Reloaded 1 original message(s) for uuid {first_uuid} ({len(whole):,} characters, "
        f"{processor.counter.count_text(whole):,} tokens), page 1 of")
    for prompt in model.received:
        assert validate_pairing(from_langchain(prompt)) == []
        assert processor.counter.count_messages(from_langchain(prompt)) <= config.max_tokens


def test_context_search_finds_one_line_of_a_compressed_read_and_the_page_that_holds_it(
        ) -> None:
    reads = [call("read_file", {"path": "big.py"}, f"c{n}", n) for n in range(3)]
    wanted = LINES[257]

    def search(prompt: list[BaseMessage]) -> AIMessage:
        if not offload_ids(prompt):
            return AIMessage(content="nothing compressed", id="ai-final")
        return call("context_search", {"query": "def function_257("}, "s1", 50)

    def reload_named_page(prompt: list[BaseMessage]) -> AIMessage:
        found = re.search(r"uuid=([0-9a-f]{16}) page (\d+) of", str(prompt[-1].content))
        assert found, prompt[-1].content
        return call("context_reload", {"uuid": found[1], "page": int(found[2])}, "r1", 51)

    config = AutoContextConfig(max_tokens=12_000)
    graph, model, middleware = agent_for([*reads, search, reload_named_page, "done"],
                                         config=config)
    run(graph)
    answer = tool_message(model.received[4], "s1").content
    assert f"> {wanted}" in answer  # the line itself, whole
    assert processor_tokens(middleware, answer) <= 1000
    assert wanted in tool_message(model.received[5], "r1").content  # on the page it named
    run(graph, "Go on.", thread="other")  # another thread never finds this one's lines
    other = middleware.sessions.engine.search(
        {"query": "def function_257("}, [], None, store=middleware.sessions.store_for(None),
        session=middleware.sessions.session_of({"configurable": {"thread_id": "other"}}, None))
    assert other.text.startswith("No match for")


def processor_tokens(middleware: ContextMiddleware, text: str) -> int:
    return middleware.sessions.processor("t").counter.count_text(text)


def test_context_reload_answers_an_unknown_id_with_a_clear_message() -> None:
    answers = [call("context_reload", {"uuid": "0" * 32}, "r1", 0), "done"]
    graph, model, _ = agent_for(answers)
    run(graph)
    assert "No messages found" in tool_message(model.received[1], "r1").content


# --- options refused at construction -------------------------------------------------


@pytest.mark.parametrize(("options", "message"), [
    ({"reserve_output_tokens": -1}, "reserve_output_tokens"),
    ({"reserve_output_tokens": 64_000}, "reserve_output_tokens"),
    ({"project": "my project"}, "project"),
    ({"summarizer": 42}, "summarizer"),
    ({"store": object()}, "store"),
    ({"memo": "maybe"}, "memo"),
    ({"max_tokens": 8000.5}, "max_tokens must be an int > 0, got 8000.5"),
])
def test_a_bad_option_is_refused_when_the_middleware_is_built(options: dict[str, Any],
                                                              message: str) -> None:
    from ctxmgr import ConfigError

    settings, options = split_settings(options)
    with pytest.raises(ConfigError, match=message):
        ContextMiddleware(AutoContextConfig(max_tokens=64_000).evolve(**settings), **options)


def test_a_setting_given_to_the_middleware_says_where_it_lives_now() -> None:
    with pytest.raises(TypeError, match=r"ContextMiddleware\(AutoContextConfig\(memo=...\)\)"):
        ContextMiddleware(memo=True)  # type: ignore[call-arg]


# --- the same round trip through the hook and the node ---------------------------------


@pytest.mark.parametrize("style", ["create_agent", "react_hook", "state_graph"])
def test_archive_and_memo_reach_state_and_store_in_every_integration(
        style: str, swe_trajectories: list[Any]) -> None:
    from langgraph_agents import build

    from ctxmgr_langgraph.testing import RecordedRun

    trajectory = next(t for t in swe_trajectories if "django-11099" in t.id)
    run_ = RecordedRun.from_messages(trajectory.messages)
    first = run_.answer_messages()[0]
    call_id = first.tool_calls[0]["id"]
    answers = [first,
               call("message_archiving", {"action": "archive", "tool_use_ids": [call_id]},
                    "arch", 1),
               call("memo", {"action": "write", "key": "plan", "summary": "the plan",
                             "content": "reproduce, then fix the regex"}, "memo", 2),
               "done"]
    agent = build(style, run_, config=AutoContextConfig(max_tokens=64_000), answers=answers,
                  checkpointer=InMemorySaver(), message_archiving=True, memo=True)
    agent.graph.invoke(agent.inputs(run_), {"configurable": {"thread_id": "t"}})
    after_archive, after_memo = agent.model.received[2:4]
    assert tool_message(after_archive, call_id).content == archive_placeholder(call_id)
    [write] = [m for m in after_memo if isinstance(m, AIMessage) and m.id == "ai-2"]
    assert write.tool_calls[0]["args"]["content"].startswith("[PLACEHOLDER")
    assert "memo" in {t["function"]["name"] for t in map(convert_to_openai_tool,
                                                           agent.model.bound_tools)}
