"""Long chats of short user turns through both adapters: ctxmgr's own time per model
call, and whether every prompt fits (issue 41: "linear, and within budget").

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
  the working view it returns), which runs to 10,000 turns quickly.

Each path runs once to the largest ``--turns``; the chat is seeded, so its first N
turns are the chat of N turns, and each row reports them. Per row: model calls,
calls whose prompt was over the budget (the messages the model received and the tool
schemas bound, counted as ``tests/langgraph_agents.py``'s ``CallChecker`` counts them,
over the window less the answer's reserve and the safety margin) and calls that ended
in ``ContextOverflowError``; ctxmgr's mean, p99 and largest time per call; its total
time; and seconds per 1,000 turns, over the whole chat so far and over the turns since
the previous row (flat when the time grows linearly).

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


@dataclass(frozen=True, slots=True)
class Call:
    """One model call: ctxmgr's own time and what the model received."""

    seconds: float
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
    p99_ms: float
    max_ms: float
    total_s: float
    s_per_1k: float
    """Seconds per 1,000 turns over the first ``turns``."""
    s_per_1k_since: float
    """Seconds per 1,000 turns since the previous row (the marginal cost)."""
    peak_tokens: int


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

    def check(self, messages: Sequence[Message], schemas: Sequence[dict[str, Any]]
              ) -> tuple[int, bool]:
        tokens = self.counter.count_messages(messages) + tool_tokens(self.counter, schemas)
        return tokens, tokens > self.limit


# --- the three paths --------------------------------------------------------------------


def run_core(turns: Iterator[Turn], window: int) -> Iterator[Call]:
    """The session engine alone: one ``prepare`` per user turn."""
    from ctxmgr.session import SessionEngine

    config = config_for(window)
    engine = SessionEngine(config)
    budget = Budget(engine.config, engine.counter)
    store = InMemoryStore()
    history: list[Message] = []
    state: dict[str, Any] = {}
    overhead = engine.overhead(system=[SYSTEM])
    for turn in turns:
        history.append(text_message("user", turn.user, id=turn.user_id))
        started = time.perf_counter()
        try:
            prepared = engine.prepare(history, state, store=store, session="chat",
                                      overhead=overhead, persisted=lambda _: True)
        except ContextOverflowError:
            yield Call(time.perf_counter() - started, 0, True, True)
            history.append(text_message("assistant", turn.answer, id=turn.answer_id))
            continue
        spent = time.perf_counter() - started
        prompt = [text_message("system", SYSTEM), *prepared.prompt]
        tokens, over = budget.check(prompt, [])
        yield Call(spent, tokens, over, False)
        state = prepared.state
        history = [*prepared.messages,
                   text_message("assistant", turn.answer, id=turn.answer_id)]


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

    class Clock(AgentMiddleware):  # type: ignore[type-arg]
        """Sums the time its ``wrap_model_call`` runs (one outside ContextMiddleware,
        one inside: the difference is the middleware's own time)."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self._name = name
            self.spent = 0.0

        @property
        def name(self) -> str:
            return self._name

        def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            start = time.perf_counter()
            try:
                return handler(request)
            finally:
                self.spent += time.perf_counter() - start

    pending: list[Turn] = []
    seen: list[tuple[int, bool]] = []
    middleware = ContextMiddleware(config_for(window))
    budget: Budget | None = None

    def answer(prompt: list[BaseMessage]) -> AIMessage:
        nonlocal budget
        if budget is None:
            budget = Budget(middleware.config, middleware.sessions.engine.counter)
        schemas = [convert_to_openai_tool(t) for t in model.bound_tools]
        seen.append(budget.check(from_langchain(prompt), schemas))
        turn = pending[-1]
        return AIMessage(content=turn.answer, id=turn.answer_id)

    model = ScriptedChatModel(messages=_forever(answer))
    outer, inner = Clock("clock_outer"), Clock("clock_inner")
    agent = create_agent(model, [], system_prompt=SYSTEM,
                         middleware=[outer, middleware, inner], checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "chat"}, "recursion_limit": 100}
    for turn in turns:
        pending.append(turn)
        outer.spent = inner.spent = 0.0
        sent = len(seen)
        try:
            agent.invoke({"messages": [HumanMessage(turn.user, id=turn.user_id)]}, thread)
            overflow = False
        except ContextOverflowError:
            overflow = True
        tokens, over = seen[-1] if len(seen) > sent else (0, True)
        yield Call(outer.spent - inner.spent, tokens, over or overflow, overflow)


def _forever(answer: Callable[[Any], Any]) -> Iterator[Callable[[Any], Any]]:
    while True:
        yield answer


def run_llamaindex(turns: Iterator[Turn], window: int) -> Iterator[Call]:
    """``SimpleChatEngine`` + ``ContextMemory``."""
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.chat_engine import SimpleChatEngine

    from ctxmgr_llamaindex import ContextMemory, from_llamaindex, observer
    from ctxmgr_llamaindex.testing import ScriptedLLM

    clock = {"spent": 0.0}

    def timed(method: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                clock["spent"] += time.perf_counter() - start
        return run

    class TimedMemory(ContextMemory):
        """``ContextMemory`` whose ``put`` and ``get`` add to the clock."""

        def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
            return timed(super().get)(input, **kwargs)

        def put(self, message: ChatMessage) -> None:
            timed(super().put)(message)

    observer._Observer.handle = timed(observer._Observer.handle)  # type: ignore[method-assign]

    memory = TimedMemory.from_defaults(config=config_for(window), store=InMemoryStore(),
                                       session_id="chat")
    budget = Budget(memory.config, memory.counter)
    pending: list[Turn] = []
    seen: list[tuple[int, bool]] = []

    def answer(prompt: list[ChatMessage]) -> ChatMessage:
        seen.append(budget.check(from_llamaindex(prompt), []))
        turn = pending[-1]
        return ChatMessage(role=MessageRole.ASSISTANT, content=turn.answer)

    llm = ScriptedLLM()
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory, system_prompt=SYSTEM)
    for turn in turns:
        pending.append(turn)
        llm.load([answer])
        clock["spent"] = 0.0
        sent = len(seen)
        try:
            engine.chat(turn.user)
            overflow = False
        except ContextOverflowError:
            overflow = True
        tokens, over = seen[-1] if len(seen) > sent else (0, True)
        yield Call(clock["spent"], tokens, over or overflow, overflow)


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
    for call in RUNNERS[path](chat(marks[-1], seed=seed), window):
        calls.append(call)
        n = len(calls)
        if n % 500 == 0:
            progress(f"{path}: {n} turns, {sum(c.seconds for c in calls):.1f} s of ctxmgr")
        if n in marks:
            previous = rows[-1] if rows else None
            total = sum(c.seconds for c in calls)
            since = total - (previous.total_s if previous else 0.0)
            ms = [c.seconds * 1000 for c in calls]
            rows.append(Row(
                path=path, turns=n, calls=n, over_budget=sum(c.over for c in calls),
                overflow_errors=sum(c.overflow for c in calls),
                mean_ms=statistics.fmean(ms), p99_ms=p99(ms), max_ms=max(ms), total_s=total,
                s_per_1k=total / n * 1000,
                s_per_1k_since=since / (n - (previous.turns if previous else 0)) * 1000,
                peak_tokens=max(c.tokens for c in calls)))
    return rows


def table(rows: Sequence[Row], budget: int) -> str:
    out = [f"| path | turns | calls | over budget ({budget:,}) | overflow errors | "
           "mean ms | p99 ms | max ms | total s | s per 1k turns | s per 1k since previous |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r.path} | {r.turns:,} | {r.calls:,} | {r.over_budget} | "
                   f"{r.overflow_errors} | {r.mean_ms:.1f} | {r.p99_ms:.1f} | {r.max_ms:.1f} | "
                   f"{r.total_s:.1f} | {r.s_per_1k:.2f} | {r.s_per_1k_since:.2f} |")
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
