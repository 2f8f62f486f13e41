"""Long scripted runs of multi-agent graphs, measured the same way in each framework.

Each runner builds the framework's real graph (deepagents, langgraph-supervisor,
langgraph-swarm, LlamaIndex ``AgentWorkflow``) around scripted models; only the models
are fake. Every agent reads files (about 2,000 characters each) and hands off, and the
run returns an :class:`Outcome` holding what the multi-agent targets measure:

* on every model call, the prompt as the model received it is counted (its tool schemas
  too) against the budget, and its tool pairing is checked (:class:`RunLog`);
* the compressions, and the compression passes per model call (:func:`counted_passes`);
* how many offloads of one agent's session another agent's ``context_reload`` gives back
  (:func:`cross_reads`: 0 unless shared on purpose);
* whether routing that reads names off the prompt (:func:`least_recent`, as a supervisor
  or a swarm member deciding whom to hand to) went round-robin as it should.

``bench_multi_agent.py`` prints them for 300-call runs at an 8k window; the tests run
the same runners (``tests/*/test_multi_agent_*.py``, ``test_agent_workflow.py``).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ctxmgr import (
    AutoContextConfig,
    CompressionEvent,
    Message,
    Store,
    TokenCounter,
    validate_pairing,
)
from ctxmgr.autocontext import ContextProcessor
from ctxmgr.session import Scope, SessionEngine
from ctxmgr.store import Namespace

WINDOW = 8000
"""The window every long run is held to."""


def file_text(path: str, lines: int = 40) -> str:
    """What the scripted ``read`` tool returns: about 2,000 characters naming ``path``."""
    return f"contents of {path}\n" + "".join(f"{path}:{k}: line of text about {path}\n"
                                             for k in range(lines))


@dataclass
class RunLog:
    """What the model calls of one run showed."""

    counter: TokenCounter
    budget: int
    calls: int = 0
    over_budget: int = 0
    pairing_violations: int = 0
    peak: int = 0
    events: list[CompressionEvent] = field(default_factory=list)

    def check(self, messages: Sequence[Message], tool_tokens: int = 0) -> None:
        """One model call: ``messages`` as the model received them, and its tool schemas."""
        self.calls += 1
        for rules in ("openai", "anthropic"):
            self.pairing_violations += len(validate_pairing(messages, rules=rules))
        tokens = self.counter.count_messages(messages) + tool_tokens
        self.peak = max(self.peak, tokens)
        self.over_budget += tokens > self.budget

    def on_event(self, event: CompressionEvent) -> None:
        self.events.append(event)

    @property
    def compressions(self) -> int:
        return sum(e.status == "applied" for e in self.events)


@dataclass
class Outcome:
    """One run's figures."""

    framework: str
    log: RunLog
    route: list[str] | None
    """The agents handed to, in order (``None``: the framework routes by no name)."""
    expected: list[str] | None
    offloads: int
    leaks: int
    passes: int
    seconds: float
    final: Any = field(repr=False)
    """What the graph or workflow returned."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def routed(self) -> bool | None:
        return None if self.route is None else self.route == self.expected

    def row(self) -> list[str]:
        log = self.log
        return [self.framework, f"{log.calls}", f"{log.over_budget}",
                f"{log.pairing_violations}", f"{log.compressions}",
                "n/a" if self.routed is None else ("yes" if self.routed else "NO"),
                f"{self.leaks} of {self.offloads}", f"{self.passes / max(log.calls, 1):.2f}",
                f"{log.peak:,} / {log.budget:,}", f"{self.seconds:.1f}"]


HEADER = ["framework", "model calls", "over budget", "pairing violations", "compressions",
          "routed by name", "offloads read across agents", "passes / call", "peak / budget",
          "seconds"]


def tool_tokens(counter: TokenCounter, schemas: Iterable[dict[str, Any]]) -> int:
    return sum(counter.count_text(json.dumps(s, ensure_ascii=False, default=str))
               for s in schemas)


@contextmanager
def counted_passes() -> Iterator[list[int]]:
    """Count the compression passes (``ContextProcessor.process`` / ``aprocess`` calls)
    made while the block runs: one per model call is the target."""
    passes: list[int] = []
    originals = {name: getattr(ContextProcessor, name) for name in ("process", "aprocess")}

    def counting(name: str) -> Any:
        original = originals[name]

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            passes.append(1)
            return original(self, *args, **kwargs)

        return counted

    for name in originals:
        setattr(ContextProcessor, name, counting(name))
    try:
        yield passes
    finally:
        for name, original in originals.items():
            setattr(ContextProcessor, name, original)


def cross_reads(engine: SessionEngine, store: Store, scopes: Sequence[Scope]) -> tuple[int, int]:
    """(offloads of the scopes' sessions, reloads of one of them through another scope's
    ``context_reload`` that gave it back). A session shared on purpose counts as one. An
    id both sessions hold is each one's own: offload ids are derived from content, and
    two agents that compressed the same messages (a swarm's shared list) wrote the same
    range each into its own session."""
    owned = {s.session: {k.removesuffix(".json")
                         for k in store.keys(Namespace(engine.project, s.session, "offload"))
                         if k.endswith(".json")} for s in scopes}
    leaks = 0
    for owner, ids in owned.items():
        for other in {s.session: s for s in scopes if s.session != owner}.values():
            for offload_id in ids - owned[other.session]:
                answer = engine.reload({"uuid": offload_id}, [], None, store=store,
                                       session=other)
                leaks += not answer.text.startswith("No messages found")
    return sum(len(ids) for ids in owned.values()), leaks


def least_recent(team: Sequence[str], handed_by: Callable[[Any], str | None],
                 prompt: Sequence[Any], *, exclude: str | None = None) -> str:
    """The member of ``team`` (not ``exclude``) whose latest handoff in ``prompt`` is the
    oldest (``handed_by`` names the agent behind a message that hands off, or gives
    ``None``; one that made none comes first, in ``team`` order): round-robin, as long as
    the latest handoffs are still in the prompt under their agents' names."""
    seen = dict.fromkeys(team, -1)
    for k, m in enumerate(prompt):
        name = handed_by(m)
        if name in seen:
            seen[name] = k
    return min((a for a in team if a != exclude), key=lambda a: (seen[a], team.index(a)))


def round_robin(team: Sequence[str], n: int, start: int = 0) -> list[str]:
    return [team[(start + k) % len(team)] for k in range(n)]


# --- LangChain / LangGraph ------------------------------------------------------------


def _read_tool() -> Any:
    from langchain_core.tools import tool

    @tool
    def read(path: str) -> str:
        """Read a file."""
        return file_text(path)

    return read


def _checked(log: RunLog, model: Any) -> Callable[[list[Any]], None]:
    """The scripted model's ``on_call``: its prompt checked as the provider receives it."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from ctxmgr_langgraph.convert import from_langchain

    def check(prompt: list[Any]) -> None:
        neutral = from_langchain([m if m.id else m.model_copy(update={"id": f"p{i}"})
                                  for i, m in enumerate(prompt)])
        schemas = [convert_to_openai_tool(t) for t in model.bound_tools]
        log.check(neutral, tool_tokens(log.counter, schemas))

    return check


def _scripted(log: RunLog, answers: Iterator[Any], **kwargs: Any) -> Any:
    from ctxmgr_langgraph.testing import ScriptedChatModel

    model = ScriptedChatModel(messages=answers, **kwargs)
    model.on_call = _checked(log, model)
    return model


def _reads(who: str, ids: Iterator[int]) -> Callable[[list[Any]], Any]:
    from langchain_core.messages import AIMessage

    def read_next(prompt: list[Any]) -> Any:
        k = next(ids)
        return AIMessage(content="", id=f"{who}-{k}", tool_calls=[
            {"name": "read", "args": {"path": f"{who}/file_{k}.py"}, "id": f"{who}-read-{k}"}])

    return read_next


def _log_for(middleware: Any) -> RunLog:
    engine = middleware.sessions.engine
    log = RunLog(counter=engine.counter, budget=middleware.config.budget_tokens)
    engine.on_event = log.on_event
    return log


SWARM = ("alice", "bob", "carol")


def run_swarm(config: AutoContextConfig | None = None, *, per_turn: int = 10,
              turns: int = 28) -> Outcome:
    """Three ``create_agent`` members of a langgraph-swarm, one ``ContextMiddleware``
    between them: ``per_turn`` reads, then a handoff to the member whose latest handoff in
    the prompt is the oldest, ``turns`` handoffs in all."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore
    from langgraph_swarm import create_handoff_tool, create_swarm

    from ctxmgr_langgraph import ContextMiddleware

    middleware = ContextMiddleware(config or AutoContextConfig(max_tokens=WINDOW))
    log = _log_for(middleware)
    route: list[str] = [SWARM[0]]

    def handed_by(m: Any) -> str | None:
        if isinstance(m, AIMessage) and any(c["name"].startswith("transfer_to_")
                                            for c in m.tool_calls):
            return m.name
        return None

    def member(name: str) -> Iterator[Any]:
        ids = itertools.count()
        read = _reads(name, ids)

        def hand_off(prompt: list[Any]) -> Any:
            k = next(ids)
            if len(route) >= turns:
                return AIMessage(content="The team is done.", id=f"{name}-{k}")
            to = least_recent(SWARM, handed_by, prompt, exclude=name)
            route.append(to)
            return AIMessage(content="", id=f"{name}-{k}", tool_calls=[
                {"name": f"transfer_to_{to}", "args": {}, "id": f"{name}-handoff-{k}"}])

        while True:
            yield from [read] * per_turn
            yield hand_off

    tools = _read_tool()
    agents = [create_agent(_scripted(log, member(n)),
                           [tools, *(create_handoff_tool(agent_name=o) for o in SWARM if o != n)],
                           name=n, middleware=[middleware]) for n in SWARM]
    store = InMemoryStore()
    app = create_swarm(agents, default_active_agent=SWARM[0]).compile(
        checkpointer=InMemorySaver(), store=store)
    started = time.perf_counter()
    with counted_passes() as passes:
        final = app.invoke({"messages": [{"role": "user", "content": "Read the code base."}]},
                           {"configurable": {"thread_id": "swarm-1"},
                            "recursion_limit": 100_000})
    seconds = time.perf_counter() - started
    engine = middleware.sessions.engine
    offloads, leaks = cross_reads(engine, middleware.sessions.store_for(store),
                                  [engine.scope("swarm-1", n) for n in SWARM])
    return Outcome(framework="langgraph-swarm", log=log, route=route,
                   expected=round_robin(SWARM, len(route)), offloads=offloads, leaks=leaks,
                   passes=len(passes), seconds=seconds, final=final)


SPECIALISTS = ("researcher", "analyst")


def run_supervisor(output_mode: str, *, per_task: int = 10, tasks: int = 27,
                   config: AutoContextConfig | None = None) -> Outcome:
    """A langgraph-supervisor over two ``create_agent`` specialists (``ContextMiddleware``)
    and its own ``ContextHook``: it hands each task to the specialist whose latest report
    in its prompt is the oldest; each specialist reads ``per_task`` files and reports."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore
    from langgraph_supervisor import create_supervisor
    from langgraph_supervisor.handoff import create_handoff_tool

    from ctxmgr_langgraph import ContextAgentState, ContextHook, ContextMiddleware

    config = config or AutoContextConfig(max_tokens=WINDOW)
    middleware = ContextMiddleware(config)
    log = _log_for(middleware)
    route: list[str] = []

    def reported_by(m: Any) -> str | None:
        if isinstance(m, AIMessage) and any(c["name"] == "transfer_back_to_supervisor"
                                            for c in m.tool_calls):
            return m.name
        return None

    def specialist(name: str) -> Iterator[Any]:
        ids = itertools.count()
        read = _reads(name, ids)
        while True:
            yield from [read] * per_task
            yield lambda prompt: AIMessage(content=f"{name} finished task {next(ids)}.")

    def supervisor() -> Iterator[Any]:
        def decide(prompt: list[Any]) -> Any:
            if len(route) >= tasks:
                return AIMessage(content="Everything is done.")
            to = least_recent(SPECIALISTS, reported_by, prompt)
            route.append(to)
            return AIMessage(content="", tool_calls=[
                {"name": f"transfer_to_{to}", "args": {}, "id": f"route-{len(route)}"}])
        while True:
            yield decide

    tools = _read_tool()
    specialists = [create_agent(_scripted(log, specialist(n)), [tools], name=n,
                                middleware=[middleware], system_prompt=f"You are the {n}.")
                   for n in SPECIALISTS]
    hook = ContextHook(config, on_event=log.on_event,
                       tools=[create_handoff_tool(agent_name=n) for n in SPECIALISTS])
    store = InMemoryStore()
    with warnings.catch_warnings():  # langgraph-supervisor builds on create_react_agent
        warnings.simplefilter("ignore", DeprecationWarning)
        app = create_supervisor(specialists, model=_scripted(log, supervisor()),
                                output_mode=output_mode, pre_model_hook=hook,
                                state_schema=ContextAgentState,
                                prompt="Hand each task to the specialist who reported least "
                                       "recently.").compile(checkpointer=InMemorySaver(),
                                                            store=store)
    started = time.perf_counter()
    with counted_passes() as passes:
        final = app.invoke({"messages": [{"role": "user", "content": "Study the code base."}]},
                           {"configurable": {"thread_id": "sup-1"}, "recursion_limit": 100_000})
    seconds = time.perf_counter() - started
    engine = middleware.sessions.engine
    offloads, leaks = cross_reads(engine, middleware.sessions.store_for(store),
                                  [engine.scope("sup-1", n) for n in [*SPECIALISTS,
                                                                       "supervisor"]])
    return Outcome(framework=f"langgraph-supervisor ({output_mode})", log=log, route=route,
                   expected=round_robin(SPECIALISTS, len(route)), offloads=offloads,
                   leaks=leaks, passes=len(passes), seconds=seconds, final=final)


SUBAGENTS = ("researcher", "writer")


def run_deep_agent(middleware: Any = None, *, tasks: int = 10, per_task: int = 10,
                   sub_steps: int = 18, window: int | None = None) -> Outcome:
    """A deepagents ``create_deep_agent`` with two subagents, ``middleware`` (default: a
    ``ContextMiddleware`` in place of deepagents' summarization) in the main agent and in
    each subagent: ``per_task`` reads, then a task for the next subagent, ``tasks`` times;
    each subagent reads ``sub_steps`` files and reports. ``window``: the models' profile
    (``max_input_tokens``), which deepagents sizes its own summarization by."""
    from deepagents import create_deep_agent
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from ctxmgr_langgraph import ContextMiddleware

    if middleware is None:
        middleware = ContextMiddleware(AutoContextConfig(max_tokens=WINDOW),
                                       name="SummarizationMiddleware")
    log = _log_for(middleware)
    profile = {"max_input_tokens": window} if window else None

    def main_script() -> Iterator[Any]:
        ids = itertools.count()
        read = _reads("main", ids)
        for t in range(tasks):
            yield from [read] * per_task
            yield AIMessage(content="", id=f"main-task-{t}", tool_calls=[
                {"name": "task", "id": f"task-{t}",
                 "args": {"description": f"task {t}", "subagent_type": SUBAGENTS[t % 2]}}])
        yield "All tasks are done."

    def sub_script(name: str) -> Iterator[Any]:
        read = _reads(name, itertools.count())
        for t in itertools.count():
            yield from [read] * sub_steps
            yield f"{name} result {t}: all {sub_steps} files read, nothing is missing."

    tools = _read_tool()
    subagents = [{"name": n, "description": f"The {n}.", "system_prompt": f"You are the {n}.",
                  "model": _scripted(log, sub_script(n), profile=profile), "tools": [tools],
                  "middleware": [middleware]} for n in SUBAGENTS]
    store = InMemoryStore()
    agent = create_deep_agent(_scripted(log, main_script(), profile=profile), [tools],
                              subagents=subagents, middleware=[middleware],
                              checkpointer=InMemorySaver(), store=store)
    started = time.perf_counter()
    with counted_passes() as passes:
        final = agent.invoke({"messages": [{"role": "user", "content": "Study the code."}]},
                             {"configurable": {"thread_id": "deep-1"},
                              "recursion_limit": 100_000})
    seconds = time.perf_counter() - started
    engine = middleware.sessions.engine
    ctxmgr_store = middleware.sessions.store_for(store)
    offloads, leaks = cross_reads(engine, ctxmgr_store, [
        engine.scope("deep-1"), *(engine.scope("deep-1", n) for n in SUBAGENTS)])
    return Outcome(framework="deepagents", log=log, route=None, expected=None,
                   offloads=offloads, leaks=leaks, passes=len(passes), seconds=seconds,
                   final=final, extra={"store": ctxmgr_store, "engine": engine})


# --- LlamaIndex -------------------------------------------------------------------------


WORKFLOW = ("researcher", "writer", "reviewer")


def run_workflow(config: AutoContextConfig | None = None, *, per_turn: int = 10,
                 turns: int = 28) -> Outcome:
    """Three ``ContextFunctionAgent`` s of a LlamaIndex ``AgentWorkflow`` sharing one
    ``ContextMemory``: ``per_turn`` reads, then a handoff to the agent the prompt shows
    was handed the run least recently, ``turns`` handoffs in all. The researcher first
    writes a memo, which the writer then tries to read (``extra["memo_read"]``)."""
    from llama_index.core.agent.workflow import AgentWorkflow
    from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
    from llama_index.core.tools import FunctionTool

    from ctxmgr import InMemoryStore
    from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory, from_llamaindex
    from ctxmgr_llamaindex.testing import ScriptedLLM

    config = config or AutoContextConfig(max_tokens=WINDOW, memo=True)
    memory = ContextMemory.from_defaults(config=config, store=InMemoryStore(),
                                         session_id="workflow-1")
    log = RunLog(counter=memory.counter, budget=memory.config.budget_tokens)
    memory.engine.on_event = log.on_event
    route: list[str] = [WORKFLOW[0]]

    def handed_to(m: ChatMessage) -> str | None:
        if m.role == MessageRole.USER:
            return WORKFLOW[0]  # the user's task goes to the root agent
        for b in m.blocks:
            if isinstance(b, ToolCallBlock) and b.tool_name == "handoff":
                kwargs = b.tool_kwargs if isinstance(b.tool_kwargs, dict) else {}
                return str(kwargs.get("to_agent"))
        return None

    def call(name: str, kwargs: dict[str, Any], cid: str) -> ChatMessage:
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[
            ToolCallBlock(tool_call_id=cid, tool_name=name, tool_kwargs=kwargs)])

    def script(name: str, first: list[Any]) -> list[Any]:
        ids = itertools.count()

        def read_next(prompt: list[ChatMessage]) -> ChatMessage:
            k = next(ids)
            return call("read", {"path": f"{name}/file_{k}.py"}, f"{name}-read-{k}")

        def hand_off(prompt: list[ChatMessage]) -> ChatMessage:
            k = next(ids)
            if len(route) >= turns:
                return ChatMessage(role=MessageRole.ASSISTANT, content="The team is done.")
            to = least_recent(WORKFLOW, handed_to, prompt, exclude=name)
            route.append(to)
            return call("handoff", {"to_agent": to, "reason": "your turn"},
                        f"{name}-handoff-{k}")

        return [*first, *([read_next] * per_turn + [hand_off]) * (turns // 3 + 2)]

    def check(prompt: list[ChatMessage], tools: Any) -> None:
        log.check(from_llamaindex(prompt), memory.tool_overhead(tools))

    memo = {"researcher": [call("memo", {"action": "write", "key": "plan", "summary": "plan",
                                         "content": "ship on friday"}, "memo-write")],
            "writer": [call("memo", {"action": "read", "key": "plan"}, "memo-read")]}
    llms = {n: ScriptedLLM(script(n, memo.get(n, [])), on_call=check) for n in WORKFLOW}
    read = FunctionTool.from_defaults(fn=file_text, name="read",
                                      description="Read a file.")
    agents = [ContextFunctionAgent(name=n, description=f"The {n}.", llm=llms[n],
                                   tools=[read, *memory.as_tools()],
                                   system_prompt=f"You are the {n}.") for n in WORKFLOW]
    workflow = AgentWorkflow(agents=agents, root_agent=WORKFLOW[0])

    async def main() -> Any:
        return await workflow.run(user_msg="Study the code base.", memory=memory,
                                  max_iterations=100_000)

    started = time.perf_counter()
    with counted_passes() as passes:
        final = asyncio.run(main())
    seconds = time.perf_counter() - started
    memo_read = next((c.content or "" for p in llms["writer"].received for c in p
                      if c.additional_kwargs.get("tool_call_id") == "memo-read"), "")
    scopes = [memory.engine.scope(memory.session, n, shared_history=True) for n in WORKFLOW]
    offloads, leaks = cross_reads(memory.engine, memory.store, scopes)
    return Outcome(framework="LlamaIndex AgentWorkflow", log=log, route=route,
                   expected=round_robin(WORKFLOW, len(route)), offloads=offloads, leaks=leaks,
                   passes=len(passes), seconds=seconds, final=final,
                   extra={"memory": memory, "memo_read": memo_read})
