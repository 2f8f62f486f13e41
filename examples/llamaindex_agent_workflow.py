"""ctxmgr in a LlamaIndex AgentWorkflow: two ContextFunctionAgents share one memory, each
step compressed once, each agent's memos its own. Runs offline.

A ``triage`` agent hands a bug report to a ``coder`` agent, which replays a real recorded
coding run (bundled with ctxmgr: 116 model calls in one step after another, the tools
returning the recorded outputs); only the LLMs are scripted (``MockFunctionCallingLLM``).

    python examples/llamaindex_agent_workflow.py
"""

from __future__ import annotations

import asyncio

from llama_index.core.agent.workflow import AgentWorkflow
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock

from ctxmgr import AutoContextConfig, CompressionEvent, InMemoryStore
from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory, from_llamaindex
from ctxmgr_llamaindex.testing import RecordedRun, ScriptedLLM

WINDOW = 16_000


async def main() -> None:
    run = RecordedRun.from_messages(RecordedRun.bundled_messages())
    events: list[CompressionEvent] = []
    memory = ContextMemory.from_defaults(config=AutoContextConfig(max_tokens=WINDOW, memo=True),
                                         store=InMemoryStore(), session_id="ticket-3",
                                         on_event=events.append)
    sizes: list[int] = []

    def measured(prompt: list[ChatMessage], tools: object) -> None:
        sizes.append(memory.counter.count_messages(from_llamaindex(prompt)))

    handoff = ChatMessage(role=MessageRole.ASSISTANT, blocks=[ToolCallBlock(
        tool_call_id="handoff-1", tool_name="handoff",
        tool_kwargs={"to_agent": "coder", "reason": "a code change is needed"})])
    triage = ContextFunctionAgent(name="triage", description="Routes bug reports.",
                                  llm=ScriptedLLM([handoff], on_call=measured),
                                  tools=memory.as_tools(), can_handoff_to=["coder"],
                                  system_prompt="Hand code changes to the coder.")
    coder = ContextFunctionAgent(name="coder", description="Fixes bugs.",
                                 llm=run.llm(on_call=measured),
                                 tools=[*run.tools(), *memory.as_tools()],
                                 system_prompt=run.system_prompt)
    workflow = AgentWorkflow(agents=[triage, coder], root_agent="triage")
    answer = await workflow.run(user_msg=run.user_message(), memory=memory,
                                max_iterations=1_000)

    print(f"{len(sizes)} model calls, largest prompt {max(sizes):,} tokens "
          f"(budget {memory.config.budget_tokens:,} of a {WINDOW:,}-token window)")
    print(f"compressions: {sum(e.status == 'applied' for e in events)}, in the memory's "
          f"session {memory.session!r}, shared by both agents")
    memos = [memory.engine.scope(memory.session, n, shared_history=True).memos
             for n in ("triage", "coder")]
    print(f"each agent's memos: {memos}")
    print(f"final answer: {answer}")


if __name__ == "__main__":
    asyncio.run(main())
