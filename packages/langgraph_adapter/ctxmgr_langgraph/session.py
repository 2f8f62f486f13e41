"""ctxmgr's session engine in LangGraph's types, shared by the middleware, the hook and the node.

Everything a model call needs is decided by :class:`~ctxmgr.session.SessionEngine`
in the core. What is left here is translation:

* the graph's thread id is the session, and the graph's store (or the one given)
  holds its offloads and memos (:mod:`ctxmgr_langgraph.store`); an agent running
  inside another graph's run (a deep agent's subagent, a supervisor's specialist, a
  swarm member) is named to the engine, which gives it its own session under the
  thread's (:func:`agent_of` says which name);
* the ``messages`` channel is converted to ctxmgr's messages and the prompt back,
  each message once (:mod:`ctxmgr_langgraph.history`);
* a request's system prompt and tools are handed to the engine as text and
  OpenAI schemas;
* the compressions come back as an update of ``messages`` for ``add_messages``
  (:mod:`ctxmgr_langgraph.persist`), and the engine's state changes as an update of
  ctxmgr's channel (:mod:`ctxmgr_langgraph.state`); an agent inside another graph's
  run keeps them view-only (a subgraph hands its ``messages`` back to its parent by
  value, so a removal would not reach it: the parent would keep the originals beside
  the stand-in);
* the model's ``usage_metadata`` feeds the calibration;
* each compression goes to the run's callback handlers as a custom event
  (:mod:`ctxmgr_langgraph.tracing`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from ctxmgr import (
    AutoContextConfig,
    ConfigError,
    ContextOverflowError,
    FileStore,
    Message,
    Store,
    TokenCounter,
)
from ctxmgr.session import (
    UNSET,
    Scope,
    SessionEngine,
    SessionState,
    Turn,
    Unset,
    choose_store,
    in_process_store,
    overflow_events,
    refuse_moved,
    session_label,
)
from ctxmgr.session.kit import ContextProcessor, EventCallback, delete_session
from ctxmgr_langgraph.convert import model_info
from ctxmgr_langgraph.history import MessageCache
from ctxmgr_langgraph.persist import messages_update, persistable
from ctxmgr_langgraph.state import CONTEXT_KEY
from ctxmgr_langgraph.store import (
    LangGraphStore,
    resolve_store,
    run_keeps_history_in_memory,
)
from ctxmgr_langgraph.summarizer import LangChainSummarizer
from ctxmgr_langgraph.tracing import adispatch_compressions, dispatch_compressions

try:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.store.base import BaseStore
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangGraph: pip install ".[langgraph]"') from exc

__all__ = ["GraphSessions", "PreparedCall", "SessionOptions", "agent_of", "thread_id_of"]


def thread_id_of(config: Mapping[str, Any] | None = None, runtime: Any = None) -> str | None:
    """The graph's thread id from a runtime's execution info or a runnable config."""
    info = getattr(runtime, "execution_info", None)
    thread = getattr(info, "thread_id", None)
    if thread is None and config:
        thread = (config.get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)


def _checkpoint_ns(config: Mapping[str, Any] | None, runtime: Any) -> str:
    info = getattr(runtime, "execution_info", None)
    ns = getattr(info, "checkpoint_ns", None)
    if not ns and config:
        ns = ((config.get("configurable") or {}).get("checkpoint_ns")
              or (config.get("metadata") or {}).get("langgraph_checkpoint_ns"))
    return ns if isinstance(ns, str) else ""


def agent_of(config: Mapping[str, Any] | None = None, runtime: Any = None) -> str | None:
    """The name of the agent making a call, when it runs inside another graph's run;
    ``None`` for the run's outermost graph.

    LangGraph's checkpoint namespace (``parent_node:task|...|node:task``) says whether
    the call's graph is nested; the name is the one ``create_agent(name=...)`` puts in
    the run's metadata (``lc_agent_name``: a deep agent's subagent, a swarm member, a
    supervisor's specialist), else the nodes the graph runs under (``researcher``
    for a graph added as the node ``researcher``; a ``create_react_agent`` supervisor).
    """
    parts = [p for p in _checkpoint_ns(config, runtime).split("|") if p]
    if len(parts) < 2:
        return None
    name = ((config or {}).get("metadata") or {}).get("lc_agent_name")
    if isinstance(name, str) and name:
        return name
    return "/".join(p.split(":", 1)[0] for p in parts[:-1])


@dataclass(frozen=True, slots=True, kw_only=True)
class PreparedCall:
    """One model call: the prompt, and the state update that persists its compressions."""

    prompt: list[BaseMessage]
    """The messages to send (the request's system prompt, if held apart, not included)."""
    messages: list[BaseMessage]
    """Update of the ``messages`` channel: ``RemoveMessage`` s and same-id stand-ins."""
    turn: Turn
    """The engine's answer (its ``update`` goes to ctxmgr's channel)."""
    session: str

    def update(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The state update to return from a node (only the keys that changed)."""
        update: dict[str, Any] = {}
        if self.messages:
            update["messages"] = list(self.messages)
        context = {**self.turn.update, **(extra or {})}
        if context:
            update[CONTEXT_KEY] = context
        return update


class SessionOptions(TypedDict, total=False):
    """The keyword options of ``ContextMiddleware``, ``ContextHook`` and ``ContextNode``
    beside the config (defaults and meaning: see
    :class:`~ctxmgr_langgraph.ContextMiddleware`). Every other setting is a field of the
    config (``AutoContextConfig``)."""

    max_tokens: int | Unset
    summarizer: Any
    counter: TokenCounter | Unset
    store: Store | BaseStore | None
    session: str | None
    on_event: EventCallback | None
    model: Any


class ThreadDeletion:
    """``delete_thread`` / ``adelete_thread`` for an integration that holds its
    :class:`GraphSessions` as ``sessions`` (the middleware, the hook and the node)."""

    sessions: GraphSessions

    def delete_thread(self, thread_id: Any, *, store: Store | BaseStore | None = None) -> int:
        """Remove a thread's offloads and memos when you delete the thread (beside
        ``checkpointer.delete_thread(thread_id)``); the number of blobs removed.

        Args:
            store: where they are; default the ``store`` option, else both defaults (the
                files under ``CTXMGR_HOME`` and the in-memory store of graphs without a
                durable checkpointer). Pass the graph's own store when it has one.

        Raises:
            ConfigError: ``session=`` was given, so every thread shares one session.
            StoreError: the store failed.
        """
        return self.sessions.delete_thread(thread_id, store)

    async def adelete_thread(self, thread_id: Any, *,
                             store: Store | BaseStore | None = None) -> int:
        """Async twin of :meth:`delete_thread`."""
        return await self.sessions.adelete_thread(thread_id, store)


class GraphSessions:
    """The sessions (graph threads) of one integration: the core engine, LangGraph's types.

    See :class:`~ctxmgr_langgraph.ContextMiddleware` for the arguments.
    """

    def __init__(self, config: AutoContextConfig | None = None, *, owner: str,
                 max_tokens: int | Unset = UNSET, summarizer: Any = UNSET,
                 counter: TokenCounter | Unset = UNSET, store: Store | BaseStore | None = None,
                 session: str | None = None, on_event: EventCallback | None = None,
                 model: Any = None, **moved: Any) -> None:
        refuse_moved(owner, moved)
        if config is None:
            config = AutoContextConfig()
        if max_tokens is not UNSET and isinstance(config, AutoContextConfig):
            config = dataclasses.replace(config, max_tokens=max_tokens)  # validated there
        self.engine = SessionEngine(
            config, summarizer=_summarizer(summarizer), counter=counter, on_event=on_event,
            model=model_info(model) if model is not None else None)
        self.cache = MessageCache()
        if isinstance(store, BaseStore):
            store = LangGraphStore(store)
        if store is not None and not isinstance(store, Store):
            raise ConfigError("store must be a ctxmgr Store or a LangGraph BaseStore, got "
                              f"{type(store).__name__}")
        self.store = store
        self.fixed_session = session_label(session) if session is not None else None
        self._graph_stores: dict[int, tuple[BaseStore | None, Store]] = {}
        self._schemas: dict[int, tuple[Any, Mapping[str, Any]]] = {}
        self._files: Store | None = None  # the default files, once resolved
        self._run_default: Store | None = None  # the default store the last run used
        self._lock = threading.Lock()

    @property
    def config(self) -> AutoContextConfig:
        return self.engine.config

    # -- where a call's session lives ------------------------------------------------------

    def session_of(self, config: Mapping[str, Any] | None = None, runtime: Any = None
                   ) -> Scope:
        """The session of a call: the fixed one, else the graph's thread id; for an agent
        inside another graph's run (:func:`agent_of`), the engine's scope of that agent
        under it."""
        thread = (self.fixed_session if self.fixed_session is not None
                  else session_label(thread_id_of(config, runtime)))
        return self.engine.scope(thread, agent_of(config, runtime))

    def store_for(self, graph_store: BaseStore | None) -> Store:
        """The store given to the constructor, else the graph's, else the default one
        (:func:`~ctxmgr_langgraph.resolve_store`: in memory while the run's checkpointer
        keeps its history in memory, else files under ``CTXMGR_HOME``)."""
        if self.store is not None:
            return self.store
        if graph_store is None:
            return self._default_store()
        hit = self._graph_stores.get(id(graph_store))
        if hit is None or hit[0] is not graph_store:
            hit = (graph_store, resolve_store(graph_store))
            with self._lock:
                self._graph_stores[id(graph_store)] = hit  # the object is held: its id stays
        return hit[1]

    def _default_store(self) -> Store:
        """The store of a graph without one, by the core's rule (as long-lived as the
        history: :func:`~ctxmgr.session.choose_store`): the run's checkpointer says whether
        the history outlives the process; outside a run (``processor``), the store the
        last run used."""
        in_memory = run_keeps_history_in_memory()
        with self._lock:
            if in_memory is None and self._run_default is not None:
                return self._run_default
            if in_memory:
                chosen = choose_store(None, durable=False, home=self.config.home)
            else:
                if self._files is None:  # one file store (and its locks) per integration
                    self._files = choose_store(None, durable=True, home=self.config.home)
                chosen = self._files
            if in_memory is not None:
                self._run_default = chosen
            return chosen

    def processor(self, thread_id: str | None, graph_store: BaseStore | None = None, *,
                  agent: str | None = None) -> ContextProcessor:
        """The compressor of a thread, or of one of its agents (its ``reload`` gives back
        any original)."""
        config = {"configurable": {"thread_id": thread_id}}
        thread = self.session_of(config).session
        return self.engine.processor(self.store_for(graph_store),
                                     self.engine.scope(thread, agent))

    # -- retention ---------------------------------------------------------------------

    def delete_thread(self, thread_id: Any, store: Store | BaseStore | None = None) -> int:
        """Remove a thread's offloads and memos; the number of blobs removed.

        Args:
            thread_id: the thread whose checkpoints you delete (``checkpointer.delete_thread``).
            store: where they are: the store given to the constructor by default, else
                both defaults (the files under ``CTXMGR_HOME`` and the in-memory store of
                graphs without a durable checkpointer); give the graph's own store when it
                was compiled with one.

        Raises:
            ConfigError: the integration keeps every thread in one fixed ``session``.
            StoreError: the store failed.
        """
        if self.fixed_session is not None:
            raise ConfigError(
                f"every thread shares the session {self.fixed_session!r} (session= was "
                "given), so deleting one thread's offloads would delete them all; delete "
                "that session with ctxmgr.delete_session if that is what you want")
        session = session_label(thread_id)
        if isinstance(store, BaseStore):
            store = LangGraphStore(store)
        targets = ([store] if store is not None else [self.store] if self.store is not None
                   else [FileStore(self.config.home), in_process_store()])
        removed = sum(delete_session(t, project=self.engine.project, session=session)
                      for t in targets)
        self.engine.forget(session)
        return removed

    async def adelete_thread(self, thread_id: Any,
                             store: Store | BaseStore | None = None) -> int:
        """Async twin of :meth:`delete_thread` (it runs in a worker thread, as an
        async-only store serves sync calls from any thread but its loop's)."""
        return await asyncio.to_thread(self.delete_thread, thread_id, store)

    # -- what a request sends beside the history ---------------------------------------

    def overhead(self, system: BaseMessage | str | None = None, tools: Iterable[Any] = ()) -> int:
        """Tokens of a system prompt and the tools' schemas (each tool converted once)."""
        texts = [] if system is None else [system if isinstance(system, str)
                                           else _text_of(system)]
        return self.engine.overhead(system=texts, tools=[self._schema(t) for t in tools])

    def _schema(self, tool: Any) -> Mapping[str, Any]:
        hit = self._schemas.get(id(tool))
        if hit is None or hit[0] is not tool:
            try:
                schema: Mapping[str, Any] = convert_to_openai_tool(tool)
            except Exception:  # a provider-specific dict: count what would be sent
                schema = tool if isinstance(tool, Mapping) else {"name": str(tool)}
            hit = (tool, schema)
            with self._lock:
                if len(self._schemas) > 4096:
                    self._schemas.clear()
                self._schemas[id(tool)] = hit  # the tool is held: its id stays
        return hit[1]

    # -- one call ----------------------------------------------------------------------

    def prepare(self, messages: Sequence[BaseMessage], context: Mapping[str, Any] | None, *,
                session: str | Scope, store: Store, overhead: int,
                state_messages: Sequence[BaseMessage] | None = None,
                run_config: RunnableConfig | None = None,
                view_only: bool = False) -> PreparedCall:
        """Compress if needed; the prompt and the state update.

        Args:
            messages: the history as the graph holds it (system prompt may be apart).
            context: ctxmgr's channel from the state (``None`` at first).
            session, store: from :meth:`session_of` and :meth:`store_for`.
            overhead: :meth:`overhead` of what the request sends besides ``messages``.
            state_messages: the state's ``messages`` when ``messages`` may differ from
                them (a request an outer middleware rewrote); a compression naming
                messages the state lacks then stays view-only.
            run_config: the config of the run preparing the call: its callback handlers
                get each compression as a custom event (``None``: no one does).
            view_only: persist no compression in ``messages`` (the engine keeps each
                stand-in in ctxmgr's channel and applies it again on every call): for a
                graph inside another's run, whose ``messages`` reach the parent by value.

        Raises:
            ContextOverflowError: the pinned messages alone exceed the budget.
        """
        history, persisted = self._begin(messages, state_messages, view_only)
        try:
            turn = self.engine.prepare(history, context, store=store, session=session,
                                       overhead=overhead, persisted=persisted)
        except ContextOverflowError as exc:
            dispatch_compressions(overflow_events(exc), run_config, session=str(session))
            raise
        dispatch_compressions(turn.events, run_config, session=str(session))
        return self._finish(turn, session, state_messages, view_only)

    async def aprepare(self, messages: Sequence[BaseMessage], context: Mapping[str, Any] | None,
                       *, session: str | Scope, store: Store, overhead: int,
                       state_messages: Sequence[BaseMessage] | None = None,
                       run_config: RunnableConfig | None = None,
                       view_only: bool = False) -> PreparedCall:
        """Async twin of :meth:`prepare` (the summarizer is awaited)."""
        history, persisted = self._begin(messages, state_messages, view_only)
        try:
            turn = await self.engine.aprepare(history, context, store=store, session=session,
                                              overhead=overhead, persisted=persisted)
        except ContextOverflowError as exc:
            await adispatch_compressions(overflow_events(exc), run_config,
                                         session=str(session))
            raise
        await adispatch_compressions(turn.events, run_config, session=str(session))
        return self._finish(turn, session, state_messages, view_only)

    def _begin(self, messages: Sequence[BaseMessage],
               state_messages: Sequence[BaseMessage] | None, view_only: bool
               ) -> tuple[list[Message], Any]:
        if view_only:
            return self.cache.to_neutral(messages), _never
        allowed = _ids(state_messages)
        return self.cache.to_neutral(messages), lambda e: persistable(e, self.cache, allowed)

    def _finish(self, turn: Turn, session: str | Scope,
                state_messages: Sequence[BaseMessage] | None, view_only: bool
                ) -> PreparedCall:
        update = [] if view_only else messages_update(turn.edits, self.cache,
                                                      _ids(state_messages))
        return PreparedCall(prompt=self.cache.to_langchain(turn.prompt), messages=update,
                            turn=turn, session=str(session))

    # -- the model's answer ------------------------------------------------------------

    def usage(self, context: Mapping[str, Any] | None, answer: Any,
              sent_tokens: int | None = None, *,
              received: Callable[[], int] | None = None) -> dict[str, Any]:
        """The calibration change an answer's ``usage_metadata`` brings ({} if none).

        Args:
            sent_tokens: what the call sent as ctxmgr prepared it; ``None``: the call was
                prepared by a hook, which kept it in the state (``{"sent_tokens": ...}``).
            received: counts what the model received (:meth:`received`), when that is
                known: the report is calibrated against it, not against ``sent_tokens``.
        """
        if not isinstance(answer, AIMessage) or not answer.usage_metadata:
            return {}
        if received is not None and self.engine.calibrate:
            sent_tokens = received()
        return self.engine.usage(context, answer.usage_metadata.get("input_tokens"),
                                 sent_tokens)

    def sent_to_model(self, context: Mapping[str, Any] | None, *, expected: Sequence[BaseMessage],
                      sent: Sequence[BaseMessage], session: str | Scope,
                      store: Store) -> dict[str, Any]:
        """The state change once the request the model received is known (what middleware
        inside ``ContextMiddleware`` added to it is counted from the next call on)."""
        return self.engine.observe(context, expected=self.cache.to_neutral(expected),
                                   sent=self.cache.to_neutral(sent), store=store,
                                   session=session)

    def answer_to_last_call(self, context: Mapping[str, Any] | None,
                            messages: Sequence[BaseMessage]) -> AIMessage | None:
        """The model's answer to the call a hook prepared last: the first answer after the
        last message that call was sent with (``sent_after`` in the state), whatever
        came after it since (tool results, or a user's next turn)."""
        after = SessionState.from_json(context).sent_after
        if after is None:
            return None
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].id == after:
                return next((m for m in messages[i + 1:] if isinstance(m, AIMessage)), None)
        return None

    def use_model(self, model: Any) -> None:
        """Read the window and tokenizer from the chat model a request goes to, where the
        user gave none (the engine keeps the first)."""
        self.engine.use_model(model_info(model))

    def received(self, context: Mapping[str, Any] | None, sent: Sequence[BaseMessage], *,
                 tools: Iterable[Any], session: str | Scope, store: Store) -> int:
        """What a request the model received counts (its messages, recorded at the model,
        and its tools' schemas): what the model's usage report is calibrated against."""
        return self.engine.received_tokens(self.cache.to_neutral(sent), context, store=store,
                                           session=session, overhead=self.overhead(None, tools))


def _summarizer(value: Any) -> Any:
    """A LangChain chat model as a summarizer; anything else as given (the core's rule,
    :func:`~ctxmgr.session.choose_summarizer`, takes it from there)."""
    return LangChainSummarizer(value) if isinstance(value, BaseChatModel) else value


def _never(edit: Any) -> bool:
    """No compression is persisted in ``messages`` (see :meth:`GraphSessions.prepare`)."""
    return False


def _ids(messages: Sequence[BaseMessage] | None) -> set[str] | None:
    return None if messages is None else {m.id for m in messages if m.id}


def _text_of(message: BaseMessage) -> str:
    text = message.text
    return text if isinstance(text, str) else str(message.content)
