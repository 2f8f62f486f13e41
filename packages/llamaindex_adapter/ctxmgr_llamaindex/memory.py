"""ContextMemory: ctxmgr's session engine as a drop-in LlamaIndex memory.

It holds the conversation as ctxmgr's working view (compressions persisted in
place, originals in the offload store) and the session state, both in plain-JSON
fields, so a ``Context`` serialised with ``to_dict()`` and rebuilt with
``from_dict()`` brings the memory back whole (a memory keeping its messages in a
private attribute comes back empty). Every decision is the core
:class:`~ctxmgr.session.SessionEngine`'s; this module converts messages, keeps
the view and the state in the memory's fields, and finds the runtime parts again.

What cannot be serialised (the store, the summarizer, the token counter, the
event callback) belongs to the memory object and to no one else: two memories with
the same session id never share or override each other's. A memory rebuilt from its
dict takes the parts given to ``from_dict``, else rebuilds them by the core's rules
(the default :class:`~ctxmgr.FileStore` under ``CTXMGR_HOME`` from its path, the
default summarizer, the tokenizer of the model it was built for); a
:class:`~ctxmgr_llamaindex.ContextFunctionAgent` hands a memory rebuilt inside its
``Context`` the parts of the memory whose tools it carries (its very original).

One compression per model call: a chat engine or a plain agent calls
:meth:`ContextMemory.get` before each model call, and that compresses. During a
:class:`~ctxmgr_llamaindex.ContextFunctionAgent` run the agent compresses memory and
scratchpad together before every call (:meth:`ContextMemory.aprepare_step`), and
``get`` only serves the view. A plain ``FunctionAgent`` keeps a run's tool calls
in its scratchpad, where no memory sees them, so no memory can keep its run within the
window: at its first tool round (before its second model call) the memory refuses it
with one :class:`~ctxmgr.ConfigError` naming ``ContextFunctionAgent``. What a chat
engine sends beside the memory (its system prompt, retrieved context, the question) is
measured at the model (:mod:`ctxmgr_llamaindex.observer`) and counted from the next
call on. Each compression goes to LlamaIndex's instrumentation as a ``ContextCompressionEvent``
(:mod:`ctxmgr_llamaindex.tracing`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import uuid4

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
    ModelInfo,
    Scope,
    SessionEngine,
    SessionState,
    Turn,
    Unset,
    choose_counter,
    choose_store,
    choose_summarizer,
    choose_window,
    merge_session_state,
    overflow_events,
    refuse_moved,
    session_label,
)
from ctxmgr.session.kit import (
    ContextProcessor,
    InvalidMessageError,
    InvalidStateError,
    delete_session,
    home,
    message_from_dict,
    message_to_dict,
    project_dir_name,
    text_message,
)
from ctxmgr_llamaindex.convert import model_info, to_llamaindex
from ctxmgr_llamaindex.history import admit, persist
from ctxmgr_llamaindex.observer import Served, serving
from ctxmgr_llamaindex.tracing import adispatch_compressions, dispatch_compressions

try:
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.bridge.pydantic import Field, PrivateAttr, model_validator
    from llama_index.core.llms.llm import LLM
    from llama_index.core.memory.types import BaseMemory
    from llama_index.core.response_synthesizers.refine import DEFAULT_RESPONSE_PADDING_SIZE
    from llama_index.core.storage.kvstore.types import BaseKVStore
    from llama_index.core.workflow import Context
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["ContextMemory", "StepPlan"]

SYNTHESIZER_PADDING = DEFAULT_RESPONSE_PADDING_SIZE
"""Tokens a retrieval chat engine keeps free beside its prompt and the answer: the
engines that ask the memory with their question (``ContextChatEngine``,
``CondensePlusContextChatEngine``) pack the retrieved text with a response synthesizer
that leaves this much padding, and raise ``Chunk size -N is not positive`` when the
history leaves less (LlamaIndex's ``DEFAULT_RESPONSE_PADDING_SIZE``, 500)."""

PLAIN_AGENT_ERROR = (
    "ContextMemory cannot keep a plain FunctionAgent (or ReActAgent) run within its "
    "window: the run's tool calls and results stay in the agent's scratchpad until it "
    "ends, where no memory sees them, so its next prompts would outgrow the budget. Use "
    "ContextFunctionAgent (or ContextReActAgent), which compresses memory and scratchpad "
    "together before every call (in an AgentWorkflow too).")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Parts:
    """The parts of a memory that cannot be serialised."""

    store: Store | None
    """``None``: the memory was rebuilt from a dict whose store cannot be rebuilt."""
    summarizer: object | None
    counter: TokenCounter | Unset
    on_event: Any
    given: bool = True
    """The parts were given in code (``False``: rebuilt from a dict, by the defaults)."""


@dataclass(slots=True, kw_only=True)
class _Runtime:
    """A memory's parts, its engine, and what a run in flight needs.

    A memory holds it in an excluded field: the workflow's state store copies a memory
    on some edits, sharing excluded fields by reference, so every copy of one memory
    writes to the same store through the same engine and sees the same run.
    """

    parts: _Parts
    engine: SessionEngine | None = None
    agent_run: str | None = None
    """``"run"`` while a ContextFunctionAgent / ContextReActAgent run is in flight (it
    prepares each step), ``"ending"`` from its ``finalize`` to the ``aget`` LlamaIndex
    makes right after it (which serves, not compresses: no model call follows)."""
    served: tuple[list[ChatMessage], list[Message]] = field(default=([], []))
    """The prompt ``get`` last served, as sent and as ctxmgr's messages."""
    agent: str | None = None
    """The ``AgentWorkflow`` agent whose step runs now (its memos are its own)."""
    step_agents: set[str] = field(default_factory=set)
    """Names of the Context*Agents carrying this memory's tools: an ``AgentWorkflow``
    step of one of them compresses itself, so the ``aget`` that starts it only serves."""
    schemas: dict[int, tuple[Any, dict[str, Any]]] = field(default_factory=dict)
    """Each tool's OpenAI schema, made once (by the tool's id; the tool is held)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StepPlan:
    """What :meth:`ContextMemory.aprepare_step` decided for one agent step."""

    prompt: list[ChatMessage]
    """Everything to send the model, in order: the agent's system prompt, then the
    memory and the scratchpad as the engine built them."""
    scratchpad: list[ChatMessage]
    """The scratchpad to keep: compressions persisted, archived results still whole."""
    turn: Turn
    """The engine's answer for this step (events, edits, prompt tokens)."""


class ContextMemory(BaseMemory):
    """A LlamaIndex memory that keeps the prompt in budget, losing nothing.

    Example::

        memory = ContextMemory.from_defaults(max_tokens=32_000, session_id="ticket-42")
        agent = ContextFunctionAgent(tools=[*my_tools, *memory.as_tools()], llm=llm)
        await agent.run("fix the failing test", memory=memory, max_iterations=500)

    Build it with :meth:`from_defaults`; the fields below are its serialised state.
    """

    session_id: str = Field(default_factory=lambda: f"llamaindex-{uuid4().hex[:12]}")
    """Names this conversation: its offload and memo namespace in the store."""
    config_fields: dict[str, Any] = Field(default_factory=dict)
    """The settings it was built with (:meth:`ctxmgr.AutoContextConfig.to_json`, complete:
    rebuilt from this dict anywhere, it has the same settings whatever the environment
    says there); the config itself is :attr:`config`."""
    overhead_tokens: int = 0
    """Prompt tokens a chat engine sends beside the memory, a floor until ctxmgr has
    measured them at the model (it does after the first call; an agent's it counts)."""
    model_window: int | None = None
    """The window of the llm the memory was built for (the window when none is given)."""
    model_name: str | None = None
    """The name of that llm (it picks the tokenizer when no counter is given)."""
    agent_steps: bool = False
    """A ContextFunctionAgent or ContextReActAgent prepares this memory's model calls (set
    at its first step): a copy rebuilt from this dict leaves compressing to that agent,
    which hands it the parts of the memory whose tools it carries."""
    store_path: str | None = Field(default_factory=lambda: str(home()))
    """The folder of the default :class:`~ctxmgr.FileStore` (``CTXMGR_HOME``); ``None``
    when another store was given, which cannot be rebuilt from this dict. A memory
    rebuilt from its dict in another process uses it only when it is ``CTXMGR_HOME`` or a
    folder inside it (else :class:`~ctxmgr.ConfigError`)."""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    """The working view, as message dicts (``ctxmgr.messages.message_to_dict``): the
    conversation with every compression applied."""
    session_state: dict[str, Any] = Field(default_factory=dict)
    """The session state (:class:`~ctxmgr.session.SessionState` as JSON): the
    compression record, the archive, memo elisions, calibration, reload page sizes."""
    scratch: list[dict[str, Any]] = Field(default_factory=list)
    """The agent's scratchpad as ctxmgr last wrote it, while a run is in flight."""

    runtime: Any = Field(default=None, exclude=True, repr=False)
    """The store, summarizer, counter and engine (not serialised; see the module doc)."""

    _view: list[Message] | None = PrivateAttr(default=None)
    _dicts: _DictCache = PrivateAttr(default_factory=lambda: _DictCache())
    _scratch_dicts: _DictCache = PrivateAttr(default_factory=lambda: _DictCache())

    def __init__(self, *, max_tokens: int | None = None,
                 store: Store | BaseKVStore | None = None,
                 summarizer: object | None = UNSET, counter: TokenCounter | Unset = UNSET,
                 on_event: Any = None, **data: Any) -> None:
        if max_tokens is not None:  # the window, as from_defaults takes it
            fields = data.get("config_fields", data.get("config")) or {}
            data["config_fields"] = {**fields, "max_tokens": max_tokens}
            data.pop("config", None)
        super().__init__(**data)
        config = _saved_config(self.config_fields)  # raises ConfigError on a bad setting
        if "project" not in self.config_fields:  # fixed now: the dict is read elsewhere
            project = config.project if config.project is not UNSET else project_dir_name()
            self.config_fields = {**self.config_fields, "project": project}
        if isinstance(self.overhead_tokens, bool) or self.overhead_tokens < 0:
            raise ConfigError(f"overhead_tokens must be an int >= 0, "
                              f"got {self.overhead_tokens!r}")
        if not isinstance(self.runtime, _Runtime):
            self.runtime = self._build_runtime(store, summarizer, counter, on_event)

    @model_validator(mode="before")
    @classmethod
    def _renamed_fields(cls, data: Any) -> Any:
        """Read dicts saved before the fields were renamed (``config``) or moved into the
        config (``project``, the tool switches, ``calibrate``...)."""
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        if "config" in data and "config_fields" not in data:
            data["config_fields"] = data.pop("config")
        moved = {k: data.pop(k) for k in _MOVED_INTO_CONFIG if k in data}
        if moved:
            fields = data.get("config_fields")
            data["config_fields"] = {**moved, **(fields if isinstance(fields, Mapping)
                                                 else {})}
        return data

    @classmethod
    def class_name(cls) -> str:
        return "CtxmgrContextMemory"

    @classmethod
    def from_defaults(
        cls,
        chat_history: list[ChatMessage] | None = None,
        llm: LLM | None = None,
        *,
        config: AutoContextConfig | None = None,
        max_tokens: int | None = None,
        token_limit: int | None = None,
        session_id: str | None = None,
        store: Store | BaseKVStore | None = None,
        summarizer: object | None = UNSET,
        counter: TokenCounter | Unset = UNSET,
        on_event: Any = None,
        overhead_tokens: int = 0,
        **moved: Any,
    ) -> ContextMemory:
        """A memory for one conversation.

        Example::

            ContextMemory.from_defaults(max_tokens=32_000, session_id="ticket-42")
            ContextMemory.from_defaults(config=AutoContextConfig(max_tokens=32_000, memo=True))

        Args:
            chat_history: messages to start from.
            llm: its window (``context_window``) is the memory's when neither
                ``max_tokens`` nor ``config`` gives one (neither may exceed it), and its
                name picks the tokenizer (:mod:`ctxmgr.session.defaults`); summaries use
                it only when given as ``summarizer=llm``.
            config: every setting (``AutoContextConfig``: the window, when and how far to
                compress, the tools offered, calibration, the project...); each field left
                out is read from ``CTXMGR_<FIELD>`` (environment, then ``.env``).
            max_tokens: the model's context window (overrides the config's; ``token_limit``
                is an alias, the name LlamaIndex's memories use).
            session_id: names the conversation (offload and memo namespace); default a
                fresh id.
            store: where originals and memos go: a ctxmgr :class:`~ctxmgr.Store` or any
                LlamaIndex ``BaseKVStore``; default a :class:`~ctxmgr.FileStore` under
                the config's ``home`` (``CTXMGR_HOME``, else ``~/.ctxmgr``).
            summarizer: a LlamaIndex LLM, or a ``summarize`` / ``asummarize`` object; left
                out, the deterministic extractive summarizer; ``None`` runs only the
                strategies needing no LLM.
            counter: token counter; left out, exact tiktoken for the llm's name.
            on_event: called with every :class:`~ctxmgr.CompressionEvent`.
            overhead_tokens: prompt tokens a chat engine sends beside the memory, a
                floor until measured at the model (rarely needed: see the module doc).

        Raises:
            ConfigError: a bad setting, or a window larger than ``llm``'s.
            TypeError: a setting given as a keyword that lives in the config (the message
                says how to give it).
        """
        refuse_moved("ContextMemory.from_defaults", moved)
        cfg = config if config is not None else AutoContextConfig()
        if not isinstance(cfg, AutoContextConfig):
            raise ConfigError(f"config must be an AutoContextConfig, got {cfg!r:.80}")
        window = max_tokens if max_tokens is not None else token_limit
        if window is not None:
            cfg = dataclasses.replace(cfg, max_tokens=window)  # validated there
        model = model_info(llm) if llm is not None else None
        if model is not None and model.window is not None:
            choose_window(cfg.max_tokens, model)  # refuses a window larger than the llm's
        data: dict[str, Any] = {"config_fields": cfg.to_json(complete=True),
                                "overhead_tokens": overhead_tokens}
        if model is not None:
            data.update(model_window=model.window, model_name=model.name)
        if session_id is not None:
            data["session_id"] = session_id
        memory = cls(store=store, summarizer=summarizer, counter=counter, on_event=on_event,
                     **data)
        if chat_history:
            memory.set(chat_history)
        return memory

    def _build_runtime(self, store: Store | BaseKVStore | None, summarizer: object | None,
                       counter: TokenCounter | Unset, on_event: Any) -> _Runtime:
        """This memory's own parts: those given here, else the defaults rebuilt from its
        fields (see the module doc); never another memory's."""
        if isinstance(store, BaseKVStore):
            from ctxmgr_llamaindex.store import LlamaIndexKVStore

            store = LlamaIndexKVStore(store)
        given = store is not None
        if store is not None:
            self.store_path = str(store.root) if isinstance(store, FileStore) else None
        elif self.store_path is not None:
            store = choose_store(None, durable=True, home=_inside_home(self.store_path))
        if counter is not UNSET:
            choose_counter(counter)  # a clear error now, not at the first call
        parts = _Parts(store=store, summarizer=choose_summarizer(_summarizer(summarizer)),
                       counter=counter, on_event=on_event,
                       given=given or summarizer is not UNSET or counter is not UNSET
                       or on_event is not None)
        return _Runtime(parts=parts)

    def _live_runtime(self) -> _Runtime:
        """The runtime, built now if the memory was built without ``__init__`` (pydantic's
        ``model_validate`` skips it)."""
        if not isinstance(self.runtime, _Runtime):
            self.runtime = self._build_runtime(None, UNSET, UNSET, None)
        runtime: _Runtime = self.runtime
        return runtime

    def adopt(self, original: ContextMemory) -> None:
        """Take the parts of ``original``, the memory this one is a rebuilt copy of (same
        project and session id), when this one was rebuilt from its dict: a
        ``Context`` rebuilt with ``from_dict`` holds such a copy, and the agent whose
        tools are bound to the original hands its parts over. Parts given in code are
        kept, and a memory of another session is left alone."""
        runtime = self._live_runtime()
        if (original is self or runtime.parts.given
                or (original.project, original.session_id) != (self.project, self.session_id)):
            return
        self.runtime = original._live_runtime()

    # --- what the rest of the adapter uses --------------------------------------------

    @property
    def config(self) -> AutoContextConfig:
        """Every setting of this memory (the window resolved)."""
        return self.engine.config

    @property
    def project(self) -> str:
        """The project namespace in the store (the config's)."""
        return self.engine.project

    @property
    def store(self) -> Store:
        """Where originals and memos go.

        Raises:
            ConfigError: the memory was rebuilt from a dict whose store cannot be rebuilt,
                and no store was given again.
        """
        store = self._live_runtime().parts.store
        if store is None:
            raise ConfigError(
                f"ContextMemory session {self.session_id!r} was saved with a store that "
                "cannot be rebuilt from its dict: pass it again (ContextMemory.from_dict("
                "data, store=...)), or run the memory with the ContextFunctionAgent whose "
                "tools are bound to the original (it hands the store over)")
        return store

    @property
    def counter(self) -> TokenCounter:
        """The token counter the engine counts with."""
        return self.engine.counter

    @property
    def session(self) -> str:
        """The session's label in the store (its ``session_id``, made safe)."""
        return session_label(self.session_id)

    @property
    def scope(self) -> Scope:
        """Where the agent now running keeps its context: the memory's session for what
        it compresses (every agent of a workflow shares the memory), and, in an
        ``AgentWorkflow``, its own memos (see :meth:`ctxmgr.session.SessionEngine.scope`)."""
        return self.engine.scope(self.session, self._live_runtime().agent,
                                 shared_history=True)

    def use_agent(self, name: str | None) -> None:
        """The ``AgentWorkflow`` agent whose step runs now (``None``: a lone agent)."""
        self._live_runtime().agent = name

    def register_step_agent(self, name: str) -> None:
        """``name`` is a Context*Agent that prepares its own steps with this memory: in an
        ``AgentWorkflow`` the ``aget`` that starts its step only serves (one compression
        per model call, the step's)."""
        self._live_runtime().step_agents.add(name)

    @property
    def engine(self) -> SessionEngine:
        """The session engine (built once, from the settings and runtime parts)."""
        runtime = self._live_runtime()
        if runtime.engine is None:
            parts = runtime.parts
            runtime.engine = SessionEngine(
                _saved_config(self.config_fields), counter=parts.counter,
                summarizer=parts.summarizer, on_event=parts.on_event,
                model=ModelInfo(window=self.model_window, name=self.model_name))
        return runtime.engine

    def reload(self, offload_id: str) -> list[Message]:
        """The original messages behind an offload tag, exactly as they were.

        Raises:
            OffloadNotFoundError: unknown id.
            StoreError: the store failed, or the blob is damaged (the message names it).
        """
        return self.processor.reload(offload_id)

    @property
    def processor(self) -> ContextProcessor:
        """The session's compressor (its ``reload`` gives back any original)."""
        return self.engine.processor(self.store, self.session)

    @property
    def view(self) -> list[Message]:
        """The working view as neutral messages."""
        if self._view is None:
            self._view = self._dicts.read(self.messages, "messages")
        return list(self._view)

    def _set_view(self, view: Sequence[Message]) -> None:
        self._view = list(view)
        self.messages = self._dicts.write(self._view)

    def _mirror(self) -> list[Message]:
        """The scratchpad as ctxmgr last wrote it (empty when no run is in flight)."""
        return self._scratch_dicts.read(self.scratch, "scratch")

    def _set_mirror(self, messages: Sequence[Message]) -> None:
        self.scratch = self._scratch_dicts.write(messages)

    def tool_overhead(self, tools: Sequence[Any]) -> int:
        """Prompt tokens of the tools' schemas as an OpenAI-style request carries them, each
        tool's schema made once and counted once by the engine."""
        cache = self._live_runtime().schemas
        schemas = []
        for tool in tools:
            hit = cache.get(id(tool))
            if hit is None or hit[0] is not tool:
                if len(cache) > 4096:
                    cache.clear()
                hit = cache[id(tool)] = (tool, tool.metadata.to_openai_tool())
            schemas.append(hit[1])
        return self.engine.overhead(tools=schemas)

    def as_tools(self) -> list[Any]:
        """``context_reload``, and the archiving and memo tools when switched on, as
        LlamaIndex ``FunctionTool`` s bound to this memory."""
        from ctxmgr_llamaindex.tools import context_tools

        return context_tools(self)

    def history(self) -> list[Message]:
        """The memory and the run's scratchpad as ctxmgr last wrote them."""
        return [*self.view, *self._mirror()]

    def run_history(self, scratchpad: Sequence[ChatMessage]) -> list[Message]:
        """The memory and ``scratchpad`` as one neutral history, with the ids the next
        :meth:`aprepare_step` gives them (for tools that name messages by id)."""
        view = self.view
        return [*view, *admit(scratchpad, self._mirror(), {m.id for m in view})]

    def apply(self, update: Mapping[str, Any]) -> None:
        """Merge a session-state change (a tool's, the observer's) into :attr:`session_state`."""
        if update:
            self.session_state = merge_session_state(self.session_state, update)

    # --- BaseMemory -------------------------------------------------------------------

    def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        """The conversation to send, compressed to fit (the reload hint once anything is).

        ``input``, a chat engine's question that is not in the memory yet, is counted;
        so is ``initial_token_count`` (LlamaIndex's name for tokens sent beside it).
        During an agent run that prepares its own steps, the view is served as it is.
        """
        if self._agent_serves():
            return self._serve(self.engine.prompt(self.view, self.session_state))
        question = self._question(input)
        try:
            turn = self.engine.prepare(self.view, self.session_state, store=self.store,
                                       session=self.session, persisted=_always,
                                       overhead=self._overhead(question, kwargs))
        except ContextOverflowError as exc:
            dispatch_compressions(overflow_events(exc), session=self.session)
            raise
        dispatch_compressions(turn.events, session=self.session)
        return self._accept(turn, question)

    async def aget(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        """Async twin of :meth:`get` (the summarizer is awaited). In an ``AgentWorkflow``
        whose current agent is a Context*Agent carrying this memory's tools, the view is
        served as it is: that agent's step compresses (once)."""
        if self._agent_serves() or (input is None and await self._step_agent_next()):
            return self._serve(self.engine.prompt(self.view, self.session_state))
        question = self._question(input)
        try:
            turn = await self.engine.aprepare(self.view, self.session_state, store=self.store,
                                              session=self.session, persisted=_always,
                                              overhead=self._overhead(question, kwargs))
        except ContextOverflowError as exc:
            await adispatch_compressions(overflow_events(exc), session=self.session)
            raise
        await adispatch_compressions(turn.events, session=self.session)
        return self._accept(turn, question)

    def get_all(self) -> list[ChatMessage]:
        """The whole working view: compressed ranges as their stand-ins (reload them by
        their offload id), archived results and memo writes whole."""
        return to_llamaindex(self.view)

    async def aget_all(self) -> list[ChatMessage]:
        return self.get_all()

    def put(self, message: ChatMessage) -> None:
        self.put_messages([message])

    async def aput(self, message: ChatMessage) -> None:
        self.put_messages([message])

    def put_messages(self, messages: list[ChatMessage]) -> None:
        """Append ``messages``: a run's scratchpad at its end (as ctxmgr compressed it),
        or new turns."""
        if not messages:
            return
        view = self.view
        new = admit(messages, self._mirror(), {m.id for m in view})
        self._set_mirror([])
        self._set_view([*view, *new])

    async def aput_messages(self, messages: list[ChatMessage]) -> None:
        self.put_messages(messages)

    def set(self, messages: list[ChatMessage]) -> None:
        """Replace the conversation. Messages ctxmgr knows keep their ids, so compressions
        of a history handed back uncompressed are recognised and applied again."""
        view = self.view
        self._set_mirror([])
        self._set_view(admit(messages, view, set()))

    async def aset(self, messages: list[ChatMessage]) -> None:
        self.set(messages)

    def reset(self) -> None:
        """Forget the conversation (originals already offloaded stay in the store)."""
        self._set_view([])
        self.session_state = {}
        self._set_mirror([])
        self._live_runtime().agent_run = None

    async def areset(self) -> None:
        self.reset()

    def delete_session(self) -> int:
        """Forget the conversation and remove its offloads and memos from the store (what
        ``reset`` keeps); the number of blobs removed. Call it when the conversation is
        over for good: its stand-ins could no longer be reloaded.

        Raises:
            StoreError: the store failed (the memory is reset all the same).
        """
        self.reset()
        removed = delete_session(self.store, project=self.project, session=self.session)
        self.engine.forget(self.session)
        return removed

    async def adelete_session(self) -> int:
        """Async twin of :meth:`delete_session` (the store's calls run in a worker thread)."""
        return await asyncio.to_thread(self.delete_session)

    # --- one agent step ---------------------------------------------------------------

    def start_agent_run(self) -> None:
        """A Context*Agent run starts: it prepares every step, ``get`` only serves."""
        self._live_runtime().agent_run = "run"

    def end_agent_run(self) -> None:
        """The run ends (its ``finalize``): after the ``aget`` that follows, ``get``
        compresses again (for a chat engine, a plain agent)."""
        self._live_runtime().agent_run = "ending"

    async def _step_agent_next(self) -> bool:
        """Whether the workflow step calling this runs for a Context*Agent that prepares
        its own steps with this memory (:meth:`register_step_agent`)."""
        agents = self._live_runtime().step_agents
        if not agents:
            return False
        try:
            ctx = Context.get_step_context()
            current = await ctx.store.get("current_agent_name", default=None)
        except Exception:  # outside a workflow step, or a store without the key
            return False
        return isinstance(current, str) and current in agents

    def _agent_serves(self) -> bool:
        runtime = self._live_runtime()
        if runtime.parts.store is None and self.agent_steps:
            return True  # a copy rebuilt from its dict: its agent compresses, with the store
        serving = runtime.agent_run is not None
        if runtime.agent_run == "ending":
            runtime.agent_run = None
        return serving

    async def aprepare_step(self, llm_input: Sequence[ChatMessage],
                            scratchpad: Sequence[ChatMessage], *, overhead_tokens: int = 0
                            ) -> StepPlan:
        """Compress what the next model call of an agent run sends: the only compression
        of that call.

        ``llm_input`` is what the agent built: its system prompt, then what :meth:`aget`
        served; ``scratchpad`` this run's tool calls and results. Memory and scratchpad
        are compressed as one history, the agent's system prompt counted beside it;
        compressions of memory messages are persisted in the memory, those of scratchpad
        messages in the returned :attr:`StepPlan.scratchpad`.

        Args:
            overhead_tokens: tokens sent beside the messages (tool schemas).

        Raises:
            ContextOverflowError: the pinned messages alone exceed the window.
        """
        view = self.view
        beside, given = self._agent_prefix(llm_input, view)
        scratch = admit(scratchpad, self._mirror(), {m.id for m in given})
        history = [*given, *scratch]
        engine = self.engine
        self.agent_steps = True
        overhead = overhead_tokens + engine.overhead(system=[_text(c) for c in beside])
        try:
            turn = await engine.aprepare(history, self.session_state, store=self.store,
                                         session=self.session, overhead=overhead,
                                         persisted=_always)
        except ContextOverflowError as exc:
            await adispatch_compressions(overflow_events(exc), session=self.session)
            raise
        await adispatch_compressions(turn.events, session=self.session)
        holders = {**{m.id: "memory" for m in view}, **{m.id: "scratch" for m in scratch}}
        self._set_view(persist(view, turn.edits, holders.get, "memory"))
        new_scratch = persist(scratch, turn.edits, holders.get, "scratch")
        self._set_mirror(new_scratch)
        self.session_state = turn.state
        prompt = [*beside, *to_llamaindex(turn.prompt)]
        serving(Served(memory=self, expected=turn.prompt, prefix=len(beside),
                       overhead=overhead_tokens))
        return StepPlan(prompt=prompt, turn=turn,
                        scratchpad=_reuse(scratchpad, scratch, new_scratch))

    def _agent_prefix(self, llm_input: Sequence[ChatMessage], view: list[Message]
                      ) -> tuple[list[ChatMessage], list[Message]]:
        """The agent's own leading messages (its system prompt, sent beside the history),
        and the history the rest of ``llm_input`` stands for.

        The rest is normally what :meth:`aget` served for the view, unchanged: then it is
        the view. Anything else (a workflow that rewrote a message) is read anew; what
        ctxmgr added when serving (hint, placeholders) maps back to the view by id.
        """
        served_chats, served = self._live_runtime().served
        n = len(llm_input) - len(served_chats)
        if n >= 0 and all(a is b for a, b in zip(llm_input[n:], served_chats, strict=True)) \
                and to_llamaindex(served[-1:]) == list(served_chats[-1:]):
            return list(llm_input[:n]), view
        by_id = {m.id: m for m in view}
        given = admit(llm_input, [*served, *view], set())
        lead = 0
        while lead < len(given) and given[lead].role == "system" and given[lead].id not in by_id:
            lead += 1
        shown = {m.id for m in served} - set(by_id)  # ctxmgr's own: the hint, the guidance
        rest = [by_id.get(m.id, m) for m in given[lead:] if m.id not in shown]
        return list(llm_input[:lead]), rest

    # --- plumbing ---------------------------------------------------------------------

    def _question(self, input: str | None) -> Message | None:
        """``input`` as the user message a chat engine is about to send, or ``None`` when
        there is none.

        Raises:
            ConfigError: ``input`` is the memory's latest message already: a plain
                agent's tool round, whose run no memory can keep in budget.
        """
        if not input:
            return None
        view = self.view
        if view and view[-1].role == "user" and view[-1].text == input:
            raise ConfigError(PLAIN_AGENT_ERROR)
        return text_message("user", input)

    def _overhead(self, question: Message | None, kwargs: Mapping[str, Any]) -> int:
        """What a chat engine sends beside the memory, as far as it is not measured yet:
        the hand-set floor (or LlamaIndex's ``initial_token_count``) less what the engine
        measured and adds itself, plus the question and, for an engine that asks with
        one, the room its response synthesizer keeps free (:data:`SYNTHESIZER_PADDING`)."""
        extra = kwargs.get("initial_token_count")
        given = extra if isinstance(extra, int) and not isinstance(extra, bool) else 0
        measured = SessionState.from_json(self.session_state).unseen_overhead
        asked = (self.counter.count(question) + SYNTHESIZER_PADDING
                 if question is not None else 0)
        return max(0, max(self.overhead_tokens, given) - measured) + asked

    def _accept(self, turn: Turn, question: Message | None) -> list[ChatMessage]:
        self._set_view(turn.messages)
        self.session_state = turn.state
        chats = self._serve(turn.prompt)
        serving(Served(memory=self, expected=turn.prompt, question=question, prefix=None))
        return chats

    def _serve(self, prompt: list[Message]) -> list[ChatMessage]:
        chats = to_llamaindex(prompt)
        self._live_runtime().served = (chats, prompt)
        return chats


def _inside_home(store_path: object) -> Path:
    """The folder a serialised ``store_path`` names, refused unless it is ``CTXMGR_HOME``
    or inside it: a memory rebuilt from a dict someone else wrote must not send offload
    writes anywhere on disk."""
    root_folder = home().absolute()
    if isinstance(store_path, str) and store_path:
        path = Path(store_path).expanduser().absolute()
        inside = os.path.realpath(path)
        root = os.path.realpath(root_folder)
        if inside == root or inside.startswith(root.rstrip(os.sep) + os.sep):
            return path
    raise ConfigError(
        f"ContextMemory store_path {store_path!r:.200} is not inside CTXMGR_HOME "
        f"({root_folder}); "
        "a memory rebuilt from its dict only uses a FileStore there: pass store= to use "
        "another one")


def _summarizer(value: object) -> object:
    """A LlamaIndex LLM as a summarizer; anything else as given (the core's rule,
    :func:`~ctxmgr.session.choose_summarizer`, takes it from there)."""
    if isinstance(value, LLM):
        from ctxmgr_llamaindex.summarizer import LlamaIndexSummarizer

        return LlamaIndexSummarizer(value)
    return value


def _always(edit: Any) -> bool:
    """The memory persists every compression in its own view and scratchpad."""
    return True


def _text(chat: ChatMessage) -> str:
    return chat.content if isinstance(chat.content, str) else str(chat.content or "")


class _DictCache:
    """Neutral messages <-> their dicts, converting only messages not seen before (a
    long view changes by a few messages per call)."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Message, dict[str, Any]]] = {}

    def read(self, dicts: Sequence[dict[str, Any]], field: str) -> list[Message]:
        """The messages of the memory's ``field``.

        Raises:
            InvalidStateError: a dict is not a message (a saved memory edited or damaged).
        """
        by_dict = {id(d): (m, d) for m, d in self._by_id.values()}
        out = []
        for i, d in enumerate(dicts):
            hit = by_dict.get(id(d))
            if hit is not None and hit[1] is d:
                out.append(hit[0])
                continue
            try:
                out.append(message_from_dict(d))
            except InvalidMessageError as exc:
                raise InvalidStateError(f"ContextMemory.{field}[{i}]", str(exc)) from exc
        self._by_id = {id(m): (m, d) for m, d in zip(out, dicts, strict=True)}
        return out

    def write(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        entries = {}
        for m in messages:
            entry = self._by_id.get(id(m))
            entries[id(m)] = entry if entry is not None and entry[0] is m else (
                m, message_to_dict(m))
        self._by_id = entries
        return [entries[id(m)][1] for m in messages]


def _reuse(chats: Sequence[ChatMessage], neutral: Sequence[Message],
           kept: Sequence[Message]) -> list[ChatMessage]:
    """``kept`` as LlamaIndex messages, reusing the given ``ChatMessage`` of each
    unchanged one (so what the framework holds changes only where ctxmgr changed it)."""
    original = ({id(n): c for n, c in zip(neutral, chats, strict=True)}
                if len(neutral) == len(chats) else {})
    out: list[ChatMessage] = []
    for m in kept:
        chat = original.get(id(m))
        out.extend([chat] if chat is not None else to_llamaindex([m]))
    return out


_MOVED_INTO_CONFIG = ("project", "message_archiving", "memo", "calibrate", "context_reload",
                      "guidance", "max_memos")
"""Fields of memories saved by earlier versions that are settings of the config now."""


def _saved_config(saved: Mapping[str, Any]) -> AutoContextConfig:
    """The config a memory's ``config_fields`` name (given, or read back from a dict).

    Raises:
        ConfigError: a key that is no setting, or a value out of range; the message
            names the field.
    """
    try:
        return AutoContextConfig.from_json(saved)
    except ConfigError as exc:
        raise ConfigError(f"ContextMemory.config_fields: {exc}") from exc
