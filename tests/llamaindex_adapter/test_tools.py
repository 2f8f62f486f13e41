"""memory.as_tools(): context_reload, message_archiving and memo as FunctionTools bound to
the memory, used by a real ContextFunctionAgent in a run."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from builders import group, user
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.storage.kvstore import SimpleKVStore
from llama_index.core.tools import FunctionTool
from llama_index.core.workflow import Context
from llamaindex_agents import message_text

from ctxmgr import AutoContextConfig, InMemoryStore, MemoStore
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr.autocontext.reload import render_reloaded
from ctxmgr.memo import memo_placeholder
from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory, from_llamaindex, to_llamaindex
from ctxmgr_llamaindex.testing import ScriptedLLM

BIG = "".join(f"line {i}: " + "z" * 60 + "\n" for i in range(300))


def texts(messages: Sequence[ChatMessage]) -> list[str]:
    return [str(m.content) for m in messages]


def names(memory: ContextMemory) -> list[str]:
    return [t.metadata.name for t in memory.as_tools()]


RECOVERY = ["context_reload", "context_search"]


def test_only_the_recovery_tools_are_offered_unless_switched_on() -> None:
    assert names(ContextMemory.from_defaults(store=InMemoryStore())) == RECOVERY
    assert names(ContextMemory.from_defaults(store=InMemoryStore(),
                                             config=AutoContextConfig(message_archiving=True,
                                                                      memo=True))) == [
        *RECOVERY, "message_archiving", "memo"]


def test_the_switches_follow_the_environment_and_dot_env(
        monkeypatch: pytest.MonkeyPatch, _isolated_home: Path) -> None:
    monkeypatch.setenv("CTXMGR_MEMO", "true")
    assert names(ContextMemory.from_defaults(store=InMemoryStore())) == [*RECOVERY, "memo"]
    Path(".env").write_text("CTXMGR_MESSAGE_ARCHIVING=yes\n")
    assert names(ContextMemory.from_defaults(store=InMemoryStore())) == [
        *RECOVERY, "message_archiving", "memo"]
    off = AutoContextConfig(memo=False, message_archiving=False)  # code wins
    assert names(ContextMemory.from_defaults(store=InMemoryStore(), config=off)) == RECOVERY


def test_the_switches_survive_the_memory_s_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    memory = ContextMemory.from_defaults(store=InMemoryStore(), config=AutoContextConfig(memo=True))
    monkeypatch.setenv("CTXMGR_MEMO", "false")
    assert names(ContextMemory.from_dict(memory.to_dict())) == [*RECOVERY, "memo"]


def tool(memory: ContextMemory, name: str) -> FunctionTool:
    return next(t for t in memory.as_tools() if t.metadata.name == name)


def reload_then_follow_pages(prompt: list[ChatMessage]) -> ChatMessage:
    """The model's move: follow the pages of the last reload, or reload the first id."""
    last = prompt[-1]
    if last.role == MessageRole.TOOL and "Reloaded" in str(last.content):
        more = re.search(r'\{"uuid": "([0-9a-f]{16})", "page": (\d+)\}', str(last.content))
        if more is None:
            return ChatMessage(role=MessageRole.ASSISTANT, content="done")
        return calls("context_reload", {"uuid": more[1], "page": int(more[2])},
                     f"r{more[2]}")
    ids = [oid for m in from_llamaindex(prompt) for oid in find_offload_ids(message_text(m))]
    return calls("context_reload", {"uuid": ids[0]}, "r1")


def test_following_the_reload_pages_in_a_run_gives_back_the_whole_range() -> None:
    """Each page lands in the prompt, so the room shrinks as the model reads: the pages
    keep the size the first one had, so they line up and give back 100 % of the range
    (they were cut to the room left at each call: "page 1 of 42", then "has 2 page(s)")."""
    memory = ContextMemory.from_defaults(max_tokens=16_000, store=InMemoryStore())
    history = [user("read the logs", id="u0")]
    for k in range(8):
        history += group(f"c{k}", 8000)
    memory.put_messages(to_llamaindex(history))
    first = [oid for m in from_llamaindex(memory.get()) for oid in find_offload_ids(
        message_text(m))][0]
    llm, _ = run_agent(memory, [reload_then_follow_pages] * 30)
    pages = [str(p[-1].content) for p in llm.received[1:] if p[-1].role == MessageRole.TOOL]
    heads = [p.partition("\n\n")[0] for p in pages]
    assert len(pages) > 2 and all(first in h and "Error" not in h for h in heads)
    totals = {int(re.search(r"page \d+ of (\d+)", h)[1]) for h in heads}  # type: ignore[index]
    assert totals == {len(pages)}
    whole = render_reloaded(memory.processor.reload(first))
    assert "".join(p.partition("\n\n")[2] for p in pages) == whole
    assert all(memory.counter.count_text(p) <= memory.config.trigger_tokens for p in pages)


def test_context_search_in_a_run_finds_one_line_and_searches_the_memos_too(
        ) -> None:
    memory = ContextMemory.from_defaults(max_tokens=16_000, store=InMemoryStore(),
                                         config=AutoContextConfig(memo=True,
                                                                  message_archiving=True))
    history = [user("read the logs", id="u0")]
    for k in range(8):
        history += group(f"c{k}", 8000, head=f"build {k} finished with code {k * 7}")
    memory.put_messages(to_llamaindex(history))
    memo = {"action": "write", "key": "plan", "summary": "the plan",
            "content": "step one: rerun job-4471 after the cache flush"}
    answers = [calls("memo", memo, "m1"),
               calls("context_search", {"query": "finished with code 14"}, "s1"),
               calls("context_search", {"query": "job-4471"}, "s2"),
               calls("context_search", {"query": "job-\\d{4}", "regex": True}, "s3"), "done"]
    llm, _ = run_agent(memory, answers)
    results = {p[-1].additional_kwargs.get("tool_call_id", n): str(p[-1].content)
               for n, p in enumerate(llm.received) if p[-1].role == MessageRole.TOOL}
    found = [r for r in results.values() if "finished with code 14" in r]
    assert found and "> c2 build 2 finished with code 14" in found[0]
    assert re.search(r"^\[uuid=[0-9a-f]{16} page \d+ of \d+; bash result\]$", found[0], re.M)
    memo_hits = [r for r in results.values() if 'memo "plan"' in r]
    assert len(memo_hits) == 2 and all("> step one: rerun job-4471" in r for r in memo_hits)
    assert all(memory.counter.count_text(r) <= 1000 for r in results.values())


def test_context_reload_answers_a_bad_call_with_a_tool_result() -> None:
    reload = tool(ContextMemory.from_defaults(store=InMemoryStore()), "context_reload")
    assert str(reload.call(uuid="nope")).startswith("No messages found for uuid 'nope'")
    assert "uuid must be the id" in str(reload.call())


# --- in a run ----------------------------------------------------------------------


def calls(name: str, args: dict[str, Any], cid: str) -> ChatMessage:
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=[
        ToolCallBlock(tool_call_id=cid, tool_name=name, tool_kwargs=args)])


def run_agent(memory: ContextMemory, answers: Sequence[Any], extra_tools: Sequence[Any] = ()
              ) -> tuple[ScriptedLLM, list[ChatMessage]]:
    llm = ScriptedLLM(answers)
    agent = ContextFunctionAgent(tools=[*extra_tools, *memory.as_tools()], llm=llm,
                                 system_prompt="You are a coding agent.")

    async def run() -> list[ChatMessage]:
        ctx = Context(agent)
        await agent.run(user_msg="look at the logs", memory=memory, ctx=ctx)
        live: ContextMemory = await ctx.store.get("memory")
        return live.get_all()

    everything = asyncio.run(run())
    return llm, everything


def read_logs() -> str:
    """Read the logs."""
    return BIG


def test_an_archived_result_is_a_placeholder_in_the_next_prompts_and_kept_whole() -> None:
    memory = ContextMemory.from_defaults(store=InMemoryStore(),
                                         config=AutoContextConfig(message_archiving=True))
    answers = [calls("read_logs", {}, "c1"),
               calls("message_archiving", {"action": "archive", "tool_use_ids": ["c1"],
                                           "summary": "300 log lines, no error"}, "c2"),
               "done"]
    llm, everything = run_agent(memory, answers, [FunctionTool.from_defaults(read_logs)])
    assert BIG in texts(llm.received[1])
    last = "\n".join(texts(llm.received[2]))
    assert BIG not in last and "This tool result has been archived" in last
    assert "300 log lines, no error" in last and "Archived 1 tool result(s)" in last
    assert BIG in texts(everything)  # the original stays: it can be unarchived


def test_a_memo_write_leaves_only_its_placeholder_in_the_history() -> None:
    kv = SimpleKVStore()
    memory = ContextMemory.from_defaults(store=kv, session_id="memo-run",
                                         config=AutoContextConfig(memo=True, project="p"))
    plan = "1. reproduce\n2. fix the parser\n" + "details " * 200
    answers = [calls("memo", {"action": "write", "key": "plan", "summary": "the plan",
                              "content": plan}, "m1"), "noted"]
    llm, everything = run_agent(memory, answers)
    placeholder = memo_placeholder("plan", "the plan", len(plan))
    sent = [b for m in llm.received[1] for b in m.blocks if isinstance(b, ToolCallBlock)]
    assert sent[0].tool_kwargs["content"] == placeholder  # type: ignore[index]
    assert not any(plan in t for t in texts(everything))
    assert MemoStore(memory.store, session="memo-run", project="p").read("plan") == plan
    assert any(re.match(r"ctxmgr/p/notes/memo-run", c) for c in kv.to_dict())


HUGE = "0123456789abcdef" * 20_000  # 320,000 characters, far over the 8,000-token window


@pytest.mark.parametrize(("tool_name", "args"), [
    ("context_reload", {"uuid": HUGE}), ("context_search", {"query": HUGE})],
    ids=["reload uuid", "search query"])
def test_an_oversized_argument_of_a_refused_call_is_elided_from_the_next_prompt(
        tool_name: str, args: dict[str, str]) -> None:
    memory = ContextMemory.from_defaults(store=InMemoryStore(), max_tokens=8000)
    llm, everything = run_agent(memory, [calls(tool_name, args, "c1"), "I will ask properly"])
    assert len(llm.received) == 2
    assert max(memory.counter.count_messages(from_llamaindex(p)) for p in llm.received) < 8000
    [shown] = [b for m in llm.received[1] for b in m.blocks if isinstance(b, ToolCallBlock)]
    [argument] = shown.tool_kwargs.values()  # type: ignore[union-attr]
    assert str(argument).startswith("[elided by ctxmgr: 320,000 characters")
