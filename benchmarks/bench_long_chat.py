"""Long chats of short user turns through both adapters: ctxmgr's own time per model
call, and whether every prompt fits (the note is built in time linear in what it reads,
and within budget).

One seeded chat (:mod:`short_turns`: rules, values, questions and courtesies in seven
languages, a short scripted answer after each) is driven, one model call per user turn,
through

* ``langgraph``: a real ``langchain.agents.create_agent`` with ``ContextMiddleware``, a
  scripted chat model, ``InMemorySaver`` and one thread. ctxmgr's time is the
  middleware's ``wrap_model_call`` less the model call inside it (measured between two
  timing middlewares around it, as ``bench_middleware.py`` does);
* ``llamaindex``: a real ``SimpleChatEngine`` with ``ContextMemory`` and a scripted
  ``MockFunctionCallingLLM``. ctxmgr's time is the memory's ``put`` and ``get`` and its
  observer of the model call (LlamaIndex's instrumentation handler);
* ``core``: the session engine alone (``SessionEngine.prepare``, the history kept as
  the working view it returns).

Each path runs once to the largest ``--turns``; the chat is seeded, so its first N
turns are the chat of N turns, and each row reports them. Per row: model calls; calls
whose prompt was over the budget (the messages the model received and the tool schemas
bound, counted as ``tests/langgraph_agents.py``'s ``CallChecker`` counts them, over the
window less the answer's reserve and the safety margin); calls that ended in
``ContextOverflowError``; ctxmgr's mean, p99 and largest CPU time per call and its
largest wall time; its total CPU time, and CPU seconds per 1,000 turns over the whole
chat so far and over the turns since the previous row (flat when the time grows
linearly); and the run's wall time so far (ctxmgr, the framework, the scripted model).

CPU time is the process's (``time.process_time``): on a shared machine wall time also
counts the waits for a core, which come and go with the neighbours' load. Once the first
call is made (the framework loaded, the agent built) the heap is frozen (``gc.freeze``):
a full collection then pauses for what the run adds, not for every module loaded,
wherever it falls. The scripted models' records of every prompt are cleared after each
turn for the same reason.

Usage::

    python benchmarks/bench_long_chat.py [--turns 1000 2000 5000 10000] [--window 4000]
        [--paths core langgraph llamaindex] [--seed 7] [--json OUT]
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from short_turns import Turn, chat

from ctxmgr import AutoContextConfig, ContextOverflowError, InMemoryStore, Message, TokenCounter
from ctxmgr.messages import text_message

PATHS = ("core", "langgraph", "llamaindex")
SYSTEM = "You are a helpful travel and support assistant. Answer briefly."


class Stopwatch:
    """Adds up the CPU and wall time of what runs inside :meth:`run`."""

    def __init__(self) -> None:
        self.cpu = self.wall = 0.0

    def reset(self) -> None:
        self.cpu = self.wall = 0.0

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.cpu += time.process_time() - cpu
            self.wall += time.perf_counter() - wall


@dataclass(frozen=True, slots=True)
class Call:
    """One model call: ctxmgr's own time and what the model received."""

    cpu: float
    wall: float
    tokens: int
    """The prompt the model received, tool schemas included (0 when none was sent)."""
    over: bool
    """Over the budget (or not sent: the call ended in ``ContextOverflowError``)."""
    overflow: bool


@dataclass(frozen=True, slots=True)
class Row:
    path: str
    turns: int
    calls: int
    over_budget: int
    overflow_errors: int
    mean_ms: float
    """CPU milliseconds per call (so are ``p99_ms`` and ``max_ms``)."""
    p99_ms: float
    max_ms: float
    max_wall_ms: float
    total_s: float
    """CPU seconds over the first ``turns``."""
    s_per_1k: float
    """CPU seconds per 1,000 turns over the first ``turns``."""
    s_per_1k_since: float
    """CPU seconds per 1,000 turns since the previous row (the marginal cost)."""
    peak_tokens: int
    wall_s: float
    """The run's wall time so far: ctxmgr, the framework and the scripted model."""


def config_for(window: int) -> AutoContextConfig:
    return AutoContextConfig(max_tokens=window, project="bench-long-chat")


def tool_tokens(counter: TokenCounter, schemas: Sequence[dict[str, Any]]) -> int:
    """Tool schemas as a request carries them (``CallChecker``'s count)."""
    return sum(counter.count_text(json.dumps(s, ensure_ascii=False, default=str))
               for s in schemas)


class Budget:
    """Counts each prompt as the model receives it, and whether it fits."""

    def __init__(self, config: AutoContextConfig, counter: TokenCounter) -> None:
        self.limit = config.budget_tokens
        self.counter = counter
        self.seen: list[tuple[int, bool]] = []
        """Each prompt of the current turn: its tokens, and whether it is over."""

    def check(self, messages: Sequence[Message], schemas: Sequence[dict[str, Any]]) -> None:
        tokens = self.counter.count_messages(messages) + tool_tokens(self.counter, schemas)
        self.seen.append((tokens, tokens > self.limit))

    def call(self, clock: Stopwatch, overflow: bool) -> Call:
        """The turn's call, once it is over (its prompts are forgotten)."""
        seen, self.seen = self.seen, []
        return Call(clock.cpu, clock.wall, max((t for t, _ in seen), default=0),
                    overflow or not seen or any(o for _, o in seen), overflow)


# --- the three paths --------------------------------------------------------------------


def run_core(turns: Iterator[Turn], window: int) -> Iterator[Call]:
    """The session engine alone: one ``prepare`` per user turn."""
    from ctxmgr.session import SessionEngine

    engine = SessionEngine(config_for(window))
    budget = Budget(engine.config, engine.counter)
    store = InMemoryStore()
    history: list[Message] = []
    state: dict[str, Any] = {}
    overhead = engine.overhead(system=[SYSTEM])
    clock = Stopwatch()
    for turn in turns:
        history.append(text_message("user", turn.user, id=turn.user_id))
        clock.reset()
        try:
            prepared = clock.run(engine.prepare, history, state, store=store, session="chat",
                                 overhead=overhead, persisted=lambda _: True)
        except ContextOverflowError:
            yield budget.call(clock, overflow=True)
        else:
            budget.check([text_message("system", SYSTEM), *prepared.prompt], [])
            yield budget.call(clock, overflow=False)
            state, history = prepared.state, prepared.messages
        history = [*history, text_message("assistant", turn.answer, id=turn.answer_id)]


def run_langgraph(turns: Iterator[Turn], window: int) -> Iterator[Call]:
    """``create_agent`` + ``ContextMiddleware``, ``InMemorySaver``, one thread."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.checkpoint.memory import InMemorySaver

    from ctxmgr_langgraph import ContextMiddleware
    from ctxmgr_langgraph.convert import from_langchain
    from ctxmgr_langgraph.testing import ScriptedChatModel

    class Clock(AgentMiddleware):
        """Times its ``wrap_model_call`` (one outside ContextMiddleware, one inside: the
        difference is the middleware's own time)."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self._name = name
            self.watch = Stopwatch()

        @property
        def name(self) -> str:
            return self._name

        def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            return self.watch.run(handler, request)

    middleware = ContextMiddleware(config_for(window))
    budgets: list[Budget] = []
    answers: list[AIMessage] = []

    def answer(prompt: list[BaseMessage]) -> AIMessage:
        if not budgets:
            budgets.append(Budget(middleware.config, middleware.sessions.engine.counter))
        budgets[0].check(from_langchain(prompt),
                         [convert_to_openai_tool(t) for t in model.bound_tools])
        return answers[-1]

    model = ScriptedChatModel(messages=_forever(answer))
    outer, inner = Clock("clock_outer"), Clock("clock_inner")
    chain: list[Any] = [outer, middleware, inner]
    agent = create_agent(model, [], system_prompt=SYSTEM, middleware=chain,
                         checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "chat"}, "recursion_limit": 100}
    for turn in turns:
        answers[:] = [AIMessage(content=turn.answer, id=turn.answer_id)]
        model.received.clear()  # the scripted model keeps every prompt: not the agent's heap
        outer.watch.reset()
        inner.watch.reset()
        try:
            agent.invoke({"messages": [HumanMessage(turn.user, id=turn.user_id)]}, thread)
            overflow = False
        except ContextOverflowError:
            overflow = True
        own = Stopwatch()
        own.cpu = outer.watch.cpu - inner.watch.cpu
        own.wall = outer.watch.wall - inner.watch.wall
        budget = budgets[0] if budgets else Budget(middleware.config,
                                                   middleware.sessions.engine.counter)
        yield budget.call(own, overflow)


def _forever(answer: Callable[[Any], Any]) -> Iterator[Callable[[Any], Any]]:
    while True:
        yield answer


def run_llamaindex(turns: Iterator[Turn], window: int) -> Iterator[Call]:
    """``SimpleChatEngine`` + ``ContextMemory``."""
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.chat_engine import SimpleChatEngine

    from ctxmgr_llamaindex import ContextMemory, from_llamaindex, observer
    from ctxmgr_llamaindex.testing import ScriptedLLM

    clock = Stopwatch()

    class TimedMemory(ContextMemory):
        """``ContextMemory`` whose ``put`` and ``get`` run on the clock."""

        def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
            chats: list[ChatMessage] = clock.run(super().get, input, **kwargs)
            return chats

        def put(self, message: ChatMessage) -> None:
            clock.run(super().put, message)

    handle = observer._Observer.handle
    observer._Observer.handle = (  # type: ignore[method-assign]
        lambda self, event, **kwargs: clock.run(handle, self, event, **kwargs))

    memory = TimedMemory.from_defaults(config=config_for(window), store=InMemoryStore(),
                                       session_id="chat")
    budget = Budget(memory.config, memory.counter)
    answers: list[ChatMessage] = []

    def answer(prompt: list[ChatMessage]) -> ChatMessage:
        budget.check(from_llamaindex(prompt), [])
        return answers[-1]

    llm = ScriptedLLM()
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory, system_prompt=SYSTEM)
    try:
        for turn in turns:
            answers[:] = [ChatMessage(role=MessageRole.ASSISTANT, content=turn.answer)]
            llm.received.clear()  # the scripted model keeps every prompt: not the heap's
            llm.load([answer])
            clock.reset()
            try:
                engine.chat(turn.user)
                overflow = False
            except ContextOverflowError:
                overflow = True
            yield budget.call(clock, overflow)
    finally:
        observer._Observer.handle = handle  # type: ignore[method-assign]


RUNNERS: dict[str, Callable[[Iterator[Turn], int], Iterator[Call]]] = {
    "core": run_core, "langgraph": run_langgraph, "llamaindex": run_llamaindex}


# --- the table --------------------------------------------------------------------------


def p99(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def measure(path: str, marks: Sequence[int], window: int, seed: int,
            progress: Callable[[str], None] = lambda _: None) -> list[Row]:
    """Run ``path`` to the largest of ``marks`` turns; a row per mark."""
    calls: list[Call] = []
    rows: list[Row] = []
    marks = sorted(set(marks))
    gc.collect()
    started = time.perf_counter()
    for call in RUNNERS[path](chat(marks[-1], seed=seed), window):
        calls.append(call)
        n = len(calls)
        if n == 1:  # the framework is loaded and the agent built: a full collection of
            gc.freeze()  # the heap then scans what the run adds, not every module
        if n % 500 == 0:
            progress(f"{path}: {n} turns, {sum(c.cpu for c in calls):.1f} CPU s of ctxmgr, "
                     f"{time.perf_counter() - started:.0f} s wall")
        if n in marks:
            previous = rows[-1] if rows else None
            total = sum(c.cpu for c in calls)
            since = total - (previous.total_s if previous else 0.0)
            ms = [c.cpu * 1000 for c in calls]
            rows.append(Row(
                path=path, turns=n, calls=n, over_budget=sum(c.over for c in calls),
                overflow_errors=sum(c.overflow for c in calls),
                mean_ms=statistics.fmean(ms), p99_ms=p99(ms), max_ms=max(ms),
                max_wall_ms=max(c.wall for c in calls) * 1000, total_s=total,
                s_per_1k=total / n * 1000,
                s_per_1k_since=since / (n - (previous.turns if previous else 0)) * 1000,
                peak_tokens=max(c.tokens for c in calls),
                wall_s=time.perf_counter() - started))
    gc.unfreeze()
    return rows


def table(rows: Sequence[Row], budget: int) -> str:
    out = [f"| path | turns | over budget ({budget:,}) | overflow errors | CPU ms per call: "
           "mean | p99 | max | max wall ms | CPU s | CPU s per 1k turns | since previous "
           "row | wall s |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r.path} | {r.turns:,} | {r.over_budget} | {r.overflow_errors} | "
                   f"{r.mean_ms:.1f} | {r.p99_ms:.1f} | {r.max_ms:.1f} | {r.max_wall_ms:.0f} | "
                   f"{r.total_s:.1f} | {r.s_per_1k:.2f} | {r.s_per_1k_since:.2f} | "
                   f"{r.wall_s:.0f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--turns", type=int, nargs="+", default=[1000, 2000, 5000, 10_000])
    p.add_argument("--window", type=int, default=4000)
    p.add_argument("--paths", nargs="+", choices=PATHS, default=list(PATHS))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--json", type=Path, help="also write the rows to this file")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = p.parse_args(argv)
    if any(n <= 0 for n in args.turns):
        p.error("--turns must be positive")
    budget = config_for(args.window).budget_tokens

    def progress(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    print(f"Python {platform.python_version()}, {platform.machine()}; window "
          f"{args.window:,} tokens (budget {budget:,}), seed {args.seed}\n")
    rows: list[Row] = []
    for path in args.paths:
        rows.extend(measure(path, args.turns, args.window, args.seed, progress))
    print(table(rows, budget))
    if args.json is not None:
        args.json.write_text(json.dumps({"window": args.window, "budget": budget,
                                         "seed": args.seed,
                                         "rows": [asdict(r) for r in rows]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
