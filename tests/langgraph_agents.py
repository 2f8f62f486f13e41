"""Real LangGraph agents replaying a recorded run, and the checks made on every model call.

Three ways in (``create_agent`` + ``ContextMiddleware``, ``create_react_agent`` +
``ContextHook``, a hand-built ``StateGraph`` + ``ContextNode``), each built around
the same ``ScriptedChatModel``. A :class:`CallChecker` is the model's ``on_call``:
it sees every prompt exactly as the provider would, and checks it there.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from builders import split_settings
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import ToolNode, create_react_agent, tools_condition
from langgraph.warnings import LangGraphDeprecatedSinceV10

from ctxmgr import AutoContextConfig, CompressionEvent, Message, TokenCounter, validate_pairing
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.messages import message_to_dict
from ctxmgr.session import GUIDANCE_ID
from ctxmgr_langgraph import (
    ContextAgentState,
    ContextHook,
    ContextMiddleware,
    ContextNode,
    ContextState,
)
from ctxmgr_langgraph.convert import from_langchain
from ctxmgr_langgraph.session import GraphSessions
from ctxmgr_langgraph.testing import RecordedRun, ScriptedChatModel

STYLES = ["create_agent", "react_hook", "state_graph"]
RECURSION = {"recursion_limit": 10_000}


def neutral(prompt: Sequence[BaseMessage]) -> list[Message]:
    """The prompt in ctxmgr's model (a system prompt without an id gets a derived one)."""
    return from_langchain(list(prompt))


def blob(messages: Sequence[BaseMessage]) -> list[str]:
    """Each message exactly as serialised: equal blobs mean byte-identical messages."""
    return [json.dumps(m.model_dump(), sort_keys=True, default=str) for m in messages]


def tool_tokens(counter: TokenCounter, tools: Sequence[Any]) -> int:
    return sum(counter.count_text(json.dumps(convert_to_openai_tool(t), ensure_ascii=False,
                                             default=str)) for t in tools)


@dataclass
class CallChecker:
    """Checks one prompt per model call (pass as the model's ``on_call``).

    * pairing is valid under OpenAI and Anthropic rules;
    * the prompt, its tool schemas and the answer's reserve fit in ``max_tokens``;
    * with no compression since the previous call, the previous prompt is a
      byte-identical prefix of this one;
    * every message of the previous prompt that is gone or changed is reloadable,
      exactly, through the offload ids of this prompt (a stand-in that is gone, through
      its own offload id: its original is what counts).
    """

    counter: TokenCounter
    max_tokens: int
    reserve: int
    reload: Callable[[str], list[Message]] | None = None
    model: ScriptedChatModel | None = None
    events: list[CompressionEvent] = field(default_factory=list)
    calls: int = 0
    peak: int = 0
    stable_calls: int = 0
    """Calls whose previous prompt was checked as a byte-identical prefix."""
    recovered: int = 0
    """Messages that left the prompt and were found again behind an offload id."""
    last: list[Message] = field(default_factory=list)
    """The latest prompt, in ctxmgr's model."""
    _previous: list[str] | None = None
    """The previous prompt, each message as :func:`blob`."""
    _events_at_previous: int = 0
    _reloaded: dict[str, list[Message]] = field(default_factory=dict)
    """What each offload id reloaded (an id always stands for the same originals)."""
    _dumped: dict[int, str] = field(default_factory=dict)
    """Each reloaded message as :func:`_dump` (by object id; they are kept above)."""

    compression_calls: list[int] = field(default_factory=list)
    """For each applied compression, the number of model calls made before it."""

    def on_event(self, event: CompressionEvent) -> None:
        self.events.append(event)
        if event.status == "applied":
            self.compression_calls.append(self.calls)

    def applied(self) -> list[CompressionEvent]:
        return [e for e in self.events if e.status == "applied"]

    def __call__(self, prompt: list[BaseMessage]) -> None:
        self.calls += 1
        messages = neutral(prompt)
        for rules in ("openai", "anthropic"):
            assert validate_pairing(messages, rules=rules) == [], f"call {self.calls}: {rules}"
        tools = self.model.bound_tools if self.model is not None else []
        tokens = (self.counter.count_messages(messages) + tool_tokens(self.counter, tools)
                  + self.reserve)
        self.peak = max(self.peak, tokens)
        assert tokens <= self.max_tokens, f"call {self.calls}: {tokens} > {self.max_tokens}"
        previous, blobs = self._previous, blob(prompt)
        if previous is not None:
            compressed = len(self.applied()) > self._events_at_previous
            if not compressed:
                assert blobs[:len(previous)] == previous, (
                    f"call {self.calls}: the prefix changed without a compression")
                self.stable_calls += 1
            self._check_nothing_lost(self.last, messages)
        self._previous, self.last = blobs, messages
        self._events_at_previous = len(self.applied())

    def _reload(self, offload_id: str) -> list[Message]:
        assert self.reload is not None
        if offload_id not in self._reloaded:
            originals = self.reload(offload_id)
            self._reloaded[offload_id] = originals
            self._dumped.update((id(m), _dump(m)) for m in originals)
        return self._reloaded[offload_id]

    def _check_nothing_lost(self, before: list[Message], now: list[Message]) -> None:
        kept = {json.dumps(message_to_dict(m), sort_keys=True) for m in now}
        gone = [m for m in before if json.dumps(message_to_dict(m), sort_keys=True) not in kept
                and m.role != "system"]
        if not gone:
            return
        assert self.reload is not None, "messages left the prompt but nothing can reload them"
        originals = reachable_originals(now, self._reload)
        reachable = {self._dumped[id(m)] if id(m) in self._dumped else _dump(m)
                     for m in originals}
        # a stand-in that gave way to a smaller one of the same original (a preview cut
        # again) is reachable as that original
        ids = {marker.offload_id for marker in map(CompressedMarker.of, [*now, *originals])
               if marker is not None}
        for m in gone:
            marker = CompressedMarker.of(m)
            assert json.dumps(message_to_dict(m), sort_keys=True) in reachable or (
                marker is not None and marker.offload_id in ids), (
                f"call {self.calls}: message {m.id} left the prompt and is not reloadable")
            self.recovered += 1


def _dump(m: Message) -> str:
    return json.dumps(message_to_dict(m), sort_keys=True)


def reachable_originals(messages: Sequence[Message], reload: Callable[[str], list[Message]]
                        ) -> list[Message]:
    """Every message behind the offload markers of ``messages``, nested ones opened."""
    out: list[Message] = []
    todo = list(messages)
    seen: set[str] = set()
    while todo:
        marker = CompressedMarker.of(todo.pop())
        if marker is None or marker.offload_id in seen:
            continue
        seen.add(marker.offload_id)
        originals = reload(marker.offload_id)
        out.extend(originals)
        todo.extend(originals)
    return out


# --- the three ways in --------------------------------------------------------------


@dataclass
class Agent:
    """A compiled graph, its scripted model and the ctxmgr component inside it."""

    graph: Any
    model: ScriptedChatModel
    sessions: GraphSessions
    component: Any
    style: str

    def inputs(self, run: RecordedRun, turn: int = 0) -> dict[str, Any]:
        return {"messages": run.inputs(turn)}


def build(style: str, run: RecordedRun, *, config: AutoContextConfig,
          checker: CallChecker | None = None, checkpointer: Any = None, store: Any = None,
          model: ScriptedChatModel | None = None, answers: Sequence[Any] | None = None,
          **options: Any) -> Agent:
    """One of the three integrations, replaying ``run`` (or ``answers``); ``options`` are
    settings (folded into ``config``) and the integration's own keywords."""
    settings, options = split_settings(options)
    config = config.evolve(**settings)
    if model is None and answers is not None:
        model = ScriptedChatModel(messages=iter(list(answers)))
    model = model or run.model()
    if checker is not None:
        model.on_call = checker
        checker.model = model
        options.setdefault("on_event", checker.on_event)
    tools = run.tools()
    prompt = run.system_prompt
    if style == "create_agent":
        middleware = ContextMiddleware(config, **options)
        graph = create_agent(model, tools, system_prompt=prompt, middleware=[middleware],
                             checkpointer=checkpointer, store=store)
        return Agent(graph, model, middleware.sessions, middleware, style)
    if style == "react_hook":
        hook = ContextHook(config, system_prompt=prompt, tools=tools, **options)
        with warnings.catch_warnings():  # deprecated in LangGraph 1.0, still in wide use
            warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
            graph = create_react_agent(model, [*tools, *hook.tools], prompt=prompt,
                                       pre_model_hook=hook, state_schema=ContextAgentState,
                                       checkpointer=checkpointer, store=store)
        return Agent(graph, model, hook.sessions, hook, style)
    if style == "state_graph":
        node = ContextNode(config, system_prompt=prompt, tools=tools, **options)
        all_tools = [*tools, *node.tools]
        bound = model.bind_tools(all_tools)

        def call_model(state: ContextState) -> dict[str, Any]:
            system = [] if prompt is None else [("system", prompt)]
            return {"messages": [bound.invoke([*system, *state["llm_input_messages"]])]}

        async def acall_model(state: ContextState) -> dict[str, Any]:
            system = [] if prompt is None else [("system", prompt)]
            return {"messages": [await bound.ainvoke([*system, *state["llm_input_messages"]])]}

        builder = StateGraph(ContextState)
        builder.add_node("context", node)
        builder.add_node("model", _both(call_model, acall_model))
        builder.add_node("tools", ToolNode(all_tools))
        builder.add_edge(START, "context")
        builder.add_edge("context", "model")
        builder.add_conditional_edges("model", tools_condition)
        builder.add_edge("tools", "context")
        graph = builder.compile(checkpointer=checkpointer, store=store)
        return Agent(graph, model, node.sessions, node, style)
    raise ValueError(style)


def _both(sync: Callable[..., Any], async_: Callable[..., Any]) -> Any:
    from langchain_core.runnables import RunnableLambda

    return RunnableLambda(sync, afunc=async_)


def reloader(agent: Agent, thread: str, store: Any = None) -> Callable[[str], list[Message]]:
    """Reload an offload id of ``thread`` through the agent's own engine and store."""
    def reload(offload_id: str) -> list[Message]:
        return agent.sessions.processor(thread, store).reload(offload_id)

    return reload


def final_text(result: dict[str, Any]) -> str:
    last = result["messages"][-1]
    assert isinstance(last, AIMessage)
    return str(last.content)


def ctxmgr_system_ids() -> set[str]:
    from ctxmgr.prompts import RELOAD_HINT_ID

    return {RELOAD_HINT_ID, GUIDANCE_ID}
