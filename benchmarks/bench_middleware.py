"""``ContextMiddleware`` overhead in a real ``create_agent`` agent.

Two tables:

1. **Per step.** A 1,000-step scripted run (each step: one model call that calls the
   recorded ``bash`` tool, one recorded tool output, cycled from the bundled run)
   through the same agent with and without ``ContextMiddleware``. A step's time is
   the wall time between consecutive model calls (middleware, tool, graph, reducer);
   the table gives median and p95 of both and their ratio, and the middleware's own
   time per call (measured between two timing middlewares around it, so the model
   call is excluded).
2. **Per call against history length.** The agent starts from a history of 100 /
   1,000 / 10,000 messages with a window large enough that nothing compresses, and
   makes ``--calls`` more model calls; the middleware's own time per call is shown
   for the first call (every message converted and counted once) and the later
   ones (conversion cached by message id, so they should stay flat).

Usage::

    python benchmarks/bench_middleware.py [--steps 1000] [--sizes 100 1000 10000]
        [--calls 20] [--budget 32000]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from importlib.resources import files
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.store.memory import InMemoryStore

from ctxmgr import AutoContextConfig, ToolResultBlock, from_openai
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.testing import ScriptedChatModel


class Clock(AgentMiddleware):  # type: ignore[type-arg]
    """Records the time its ``wrap_model_call`` starts and ends (one sits outside
    ``ContextMiddleware``, one inside: the difference is the middleware's own time)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name
        self.spans: list[tuple[float, float]] = []

    @property
    def name(self) -> str:
        return self._name

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        start = time.perf_counter()
        try:
            return handler(request)
        finally:
            self.spans.append((start, time.perf_counter()))


def recorded_outputs() -> list[str]:
    data = json.loads((files("ctxmgr.data") / "demo_trajectory.json").read_text())
    return [b.text for m in from_openai(data["messages"]) for b in m.content
            if isinstance(b, ToolResultBlock) and b.text]


def script(steps: int) -> Iterator[AIMessage]:
    for i in range(steps):
        yield AIMessage(content=f"step {i}: run the next command", id=f"ai-{i}", tool_calls=[
            {"name": "bash", "args": {"command": f"step {i}"}, "id": f"call-{i}"}])


def bash_tool(outputs: list[str]) -> Any:
    state = {"n": 0}

    @tool
    def bash(command: str) -> str:
        """Run a shell command (returns a recorded output)."""
        state["n"] += 1
        return outputs[state["n"] % len(outputs)]

    return bash


def own_times(outer: Clock, inner: Clock) -> list[float]:
    """Per call: outer span minus inner span (the middleware between them)."""
    return [(o1 - o0) - (i1 - i0) for (o0, o1), (i0, i1) in
            zip(outer.spans, inner.spans, strict=True)]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def per_step(steps: int, budget: int, outputs: list[str]) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for label, with_ctx in (("without ctxmgr", False), ("with ContextMiddleware", True)):
        stamps: list[float] = []
        model = ScriptedChatModel(messages=script(steps),
                                  on_call=lambda _p, s=stamps: s.append(time.perf_counter()))
        outer, inner = Clock("clock_outer"), Clock("clock_inner")
        middleware: list[Any] = [outer]
        if with_ctx:
            middleware.append(ContextMiddleware(AutoContextConfig(max_tokens=budget,
                                                                  project="bench")))
        middleware.append(inner)
        agent = create_agent(model, [bash_tool(outputs)], system_prompt="You fix bugs.",
                             middleware=middleware, store=InMemoryStore())
        agent.invoke({"messages": [HumanMessage("Fix the failing test.", id="task")]},
                     {"recursion_limit": 4 * steps + 10})
        step = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
        rows[label] = {"steps": step, "own": own_times(outer, inner)}
    return rows


def history(n: int, outputs: list[str]) -> list[BaseMessage]:
    out: list[BaseMessage] = [HumanMessage("Fix the failing test.", id="task")]
    i = 0
    while len(out) < n:
        out.append(AIMessage(content=f"step {i}", id=f"h-ai-{i}", tool_calls=[
            {"name": "bash", "args": {"command": f"h {i}"}, "id": f"h-call-{i}"}]))
        out.append(ToolMessage(outputs[i % len(outputs)], tool_call_id=f"h-call-{i}",
                               id=f"h-tool-{i}"))
        i += 1
    return out


def per_history(sizes: list[int], calls: int, outputs: list[str]) -> dict[int, list[float]]:
    rows: dict[int, list[float]] = {}
    for n in sizes:
        model = ScriptedChatModel(messages=script(calls))
        outer, inner = Clock("clock_outer"), Clock("clock_inner")
        context = ContextMiddleware(AutoContextConfig(max_tokens=1_000_000_000, project="bench"))
        agent = create_agent(model, [bash_tool(outputs)], system_prompt="You fix bugs.",
                             middleware=[outer, context, inner], store=InMemoryStore())
        agent.invoke({"messages": history(n, outputs)}, {"recursion_limit": 4 * calls + 10})
        rows[n] = own_times(outer, inner)
    return rows


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10_000])
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--budget", type=int, default=32_000)
    args = p.parse_args(argv)
    outputs = recorded_outputs()
    print(f"Python {platform.python_version()}, {platform.machine()}; "
          f"{args.steps}-step scripted run, window {args.budget:,} tokens\n")

    rows = per_step(args.steps, args.budget, outputs)
    base = rows["without ctxmgr"]["steps"]
    print("| agent | step median | step p95 | ratio (median) | middleware's own time "
          "per call: median | p95 |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, r in rows.items():
        ratio = statistics.median(r["steps"]) / statistics.median(base)
        own = r["own"]
        print(f"| {label} | {ms(statistics.median(r['steps']))} | {ms(p95(r['steps']))} | "
              f"{ratio:.2f}x | {ms(statistics.median(own))} | {ms(p95(own))} |")

    print(f"\nPer call against history length (nothing compresses; {args.calls} calls):\n")
    print("| history | first call (converts all) | later calls: median | p95 |")
    print("|---:|---:|---:|---:|")
    for n, own in per_history(args.sizes, args.calls, outputs).items():
        later = own[1:]
        print(f"| {n:,} | {ms(own[0])} | {ms(statistics.median(later))} | {ms(p95(later))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
