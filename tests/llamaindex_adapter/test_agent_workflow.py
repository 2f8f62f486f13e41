"""LlamaIndex AgentWorkflow: three ContextFunctionAgents hand off round-robin over 300 model
calls at an 8k window, one memory between them; each step is compressed once (the first
too), each agent's memos are its own, and routing reads the handoffs off the prompt."""

from __future__ import annotations

import asyncio
import itertools
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.agent.workflow import AgentWorkflow
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.tools import FunctionTool
from multi_agent_runs import WINDOW, RunLog, file_text, least_recent

from ctxmgr import AutoContextConfig, InMemoryStore, validate_pairing
from ctxmgr.autocontext import ContextProcessor
from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory, from_llamaindex
from ctxmgr_llamaindex.testing import ScriptedLLM

TEAM = ["researcher", "writer", "reviewer"]


def read(path: str) -> str:
    """Read a file."""
    return file_text(path)


def handed_to(root: str) -> Callable[[ChatMessage], str | None]:
    """The member a message hands the run to: the root agent for the user's task, the
    ``to_agent`` of a ``handoff`` call."""
    def named(m: ChatMessage) -> str | None:
        if m.role == MessageRole.USER:
            return root
        for b in m.blocks:
            if isinstance(b, ToolCallBlock) and b.tool_name == "handoff":
                kwargs = b.tool_kwargs if isinstance(b.tool_kwargs, dict) else {}
                return str(kwargs.get("to_agent"))
        return None
    return named


def call(name: str, kwargs: dict[str, Any], cid: str) -> ChatMessage:
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=[
        ToolCallBlock(tool_call_id=cid, tool_name=name, tool_kwargs=kwargs)])


def member_script(name: str, route: list[str], *, per_turn: int, turns: int,
                  first: list[ChatMessage]) -> list[Any]:
    """``first`` answers, then turns of ``per_turn`` reads and a handoff to the member the
    prompt shows was handed the run least recently; a final answer once ``turns`` are
    done."""
    ids = itertools.count()

    def read_next(prompt: list[ChatMessage]) -> ChatMessage:
        k = next(ids)
        return call("read", {"path": f"{name}/file_{k}.py"}, f"{name}-read-{k}")

    def hand_off(prompt: list[ChatMessage]) -> ChatMessage:
        k = next(ids)
        if len(route) >= turns:
            return ChatMessage(role=MessageRole.ASSISTANT, content="The team is done.")
        to = least_recent(TEAM, handed_to(TEAM[0]), prompt, exclude=name)
        route.append(to)
        return call("handoff", {"to_agent": to, "reason": "your turn"}, f"{name}-handoff-{k}")

    turn: list[Any] = [*([read_next] * per_turn), hand_off]
    return [*first, *turn * (turns // len(TEAM) + 2)]


def run_workflow(config: AutoContextConfig, *, per_turn: int = 10, turns: int = 28,
                 monkeypatch: pytest.MonkeyPatch | None = None
                 ) -> tuple[RunLog, list[str], ContextMemory, int, dict[str, ScriptedLLM]]:
    memory = ContextMemory.from_defaults(config=config, store=InMemoryStore(),
                                         session_id="workflow-1")
    log = RunLog(counter=memory.counter, budget=memory.config.budget_tokens)
    memory.engine.on_event = log.on_event
    passes: list[int] = []
    if monkeypatch is not None:
        for method in ("process", "aprocess"):
            original = getattr(ContextProcessor, method)

            def counted(self: Any, *args: Any, _original: Any = original, **kw: Any) -> Any:
                passes.append(1)
                return _original(self, *args, **kw)

            monkeypatch.setattr(ContextProcessor, method, counted)

    def check(prompt: list[ChatMessage], tools: Any) -> None:
        log.check(from_llamaindex(prompt), memory.tool_overhead(tools))

    route: list[str] = [TEAM[0]]
    memo = {"researcher": [call("memo", {"action": "write", "key": "plan", "summary": "plan",
                                         "content": "ship on friday"}, "memo-write")],
            "writer": [call("memo", {"action": "read", "key": "plan"}, "memo-read")]}
    llms = {n: ScriptedLLM(member_script(n, route, per_turn=per_turn, turns=turns,
                                         first=memo.get(n, [])), on_call=check)
            for n in TEAM}
    agents = [ContextFunctionAgent(name=n, description=f"The {n}.", llm=llms[n],
                                   tools=[FunctionTool.from_defaults(read),
                                          *memory.as_tools()],
                                   system_prompt=f"You are the {n}.") for n in TEAM]
    workflow = AgentWorkflow(agents=agents, root_agent=TEAM[0])

    async def main() -> Any:
        return await workflow.run(user_msg="Study the code base.", memory=memory,
                                  max_iterations=10_000)

    asyncio.run(main())
    return log, route, memory, len(passes), llms


def memo_answer(writer: ScriptedLLM) -> str:
    """What the writer's memo read answered (in the prompt of its next call)."""
    return next(c.content or "" for prompt in writer.received for c in prompt
                if c.additional_kwargs.get("tool_call_id") == "memo-read")


def test_a_300_call_agent_workflow_at_8k_stays_in_budget_compressing_once_a_step(
        monkeypatch: pytest.MonkeyPatch) -> None:
    config = AutoContextConfig(max_tokens=WINDOW, memo=True)
    log, route, memory, passes, llms = run_workflow(config, monkeypatch=monkeypatch)

    assert log.calls >= 300 and log.over_budget == 0 and log.pairing_violations == 0
    assert log.compressions >= 20
    assert passes == log.calls  # once per model call, the first step's too
    assert route == [TEAM[k % 3] for k in range(len(route))]  # read off the prompt
    assert validate_pairing(memory.view) == []
    # the researcher's memo is its own: the writer's read finds nothing
    assert memo_answer(llms["writer"]).startswith("No memo")


def test_with_team_memos_every_agent_of_the_workflow_reads_the_same_memos() -> None:
    config = AutoContextConfig(max_tokens=WINDOW, memo=True, team_memos=True)
    *_, llms = run_workflow(config, per_turn=2, turns=3)
    assert "ship on friday" in memo_answer(llms["writer"])


def test_the_agent_workflow_example_keeps_every_step_within_budget() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "llamaindex_agent_workflow.py"
    done = subprocess.run([sys.executable, str(example)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    found = re.search(r"(\d+) model calls, largest prompt ([\d,]+) tokens \(budget ([\d,]+)",
                      done.stdout)
    assert found, done.stdout
    calls, peak, budget = found.groups()
    assert int(calls) == 117  # the triage agent's handoff, then the coder's recorded run
    assert int(peak.replace(",", "")) <= int(budget.replace(",", ""))
    assert "each agent's memos: ['__ticket-3_-triage', '__ticket-3_-coder']" in done.stdout
