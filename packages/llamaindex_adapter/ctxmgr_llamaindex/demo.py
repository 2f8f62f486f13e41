"""``ctxmgr demo --framework llamaindex``: the bundled run through a real LlamaIndex agent.

The recorded coding run is replayed, offline, as one ``run()`` of a
:class:`ContextFunctionAgent` whose model is a scripted ``MockFunctionCallingLLM``
answering as the recorded assistant did. The report holds what the model was
really sent on every call (tool schemas included) beside what a plain
``FunctionAgent`` would have sent (the whole run so far: its scratchpad is never
trimmed), the compressions that fired, and a byte-for-byte check of every
offloaded range against the recording.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any

from ctxmgr import (
    CompressionEvent,
    InMemoryStore,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    validate_pairing,
)
from ctxmgr.demo import DemoReport, bundled_trajectory
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.session.kit import thaw
from ctxmgr_llamaindex.agent import ContextFunctionAgent
from ctxmgr_llamaindex.convert import from_llamaindex
from ctxmgr_llamaindex.memory import ContextMemory
from ctxmgr_llamaindex.testing import RecordedRun

__all__ = ["Piece", "message_pieces", "message_text", "run_llamaindex_demo"]

Piece = tuple[str, ...]


def message_pieces(m: Message) -> set[Piece]:
    """What a model reads of a message, independent of ids: texts, calls, results (so a
    prompt can be checked to hold, or reload, every piece of the recorded run)."""
    out: set[Piece] = set()
    for b in m.content:
        if isinstance(b, TextBlock) and b.text:
            out.add(("text", b.text))
        elif isinstance(b, ToolUseBlock):
            out.add(("use", b.id, b.name, json.dumps(thaw(b.input), sort_keys=True)))
        elif isinstance(b, ToolResultBlock):
            out.add(("result", b.tool_use_id, b.text))
    return out


def message_text(m: Message) -> str:
    """Its texts and tool outputs, where offload tags stand."""
    return "\n".join(b.text for b in m.content if isinstance(b, TextBlock | ToolResultBlock))


def run_llamaindex_demo(*, budget: int = 16_000, trajectory: Trajectory | None = None,
                        progress: Callable[[int, int], object] | None = None) -> DemoReport:
    """Replay the bundled run (or ``trajectory``) through a real ``ContextFunctionAgent``.

    Args:
        budget: the model's context window.
        trajectory: a recorded run to replay instead of the bundled one.
        progress: called with ``(calls so far, calls in all)`` after each model call.
    """
    if trajectory is None:
        tid, messages = bundled_trajectory()
    else:
        tid, messages = trajectory.id, list(trajectory.messages)
    run = RecordedRun.from_messages(messages)
    events: list[CompressionEvent] = []
    memory = ContextMemory.from_defaults(max_tokens=budget, store=InMemoryStore(),
                                         session_id="demo", on_event=events.append)
    report = DemoReport(trajectory_id=tid, budget=budget)
    calls = [i for i, m in enumerate(messages) if m.role == "assistant"]

    def on_call(prompt: list[Any], tools: Sequence[Any]) -> None:
        k = len(report.managed)
        sent = from_llamaindex(prompt)
        report.managed.append(memory.counter.count_messages(sent)
                              + memory.tool_overhead(tools))
        end = calls[k] if k < len(calls) else len(messages)
        report.baseline.append(memory.counter.count_messages(messages[:end])
                               + memory.tool_overhead(tools))
        report.pairing_violations += len(validate_pairing(sent))
        applied = [e for e in events if e.status == "applied"]
        events.clear()
        if applied:
            report.fired[k] = [f"{e.name}: {len(e.replaced_ids)} message(s) -> offload "
                               f"{e.offload_id[:8]}" for e in applied if e.offload_id]
            report.strategies.update(e.name for e in applied)
        if progress:
            progress(k + 1, len(calls) + 1)

    agent = ContextFunctionAgent(tools=[*run.tools(), *memory.as_tools()],
                                 llm=run.llm(0, on_call=on_call),
                                 system_prompt=run.system_prompt)

    async def replay() -> ContextMemory:
        from llama_index.core.workflow import Context

        ctx = Context(agent)
        await agent.run(user_msg=run.user_message(0), memory=memory, ctx=ctx,
                        max_iterations=len(calls) + 10)
        live: ContextMemory = await ctx.store.get("memory")
        return live

    live = asyncio.run(replay())
    recorded: set[Piece] = set().union(*(message_pieces(m) for m in messages))
    for oid in live.processor.offload.ids():
        for m in live.processor.reload(oid):
            if not m.metadata.get("ctxmgr"):  # nested stand-ins are not originals
                assert message_pieces(m) <= recorded, "reload must give the original back"
        report.reload_checked += 1
    return report
