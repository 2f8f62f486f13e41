"""ContextMemory: ctxmgr's compression as a drop-in LlamaIndex memory.

It holds the conversation as ctxmgr's working view (compressions persisted in
place, originals in the offload store) and, before every model call it serves,
compresses that view progressively and reversibly. Everything it needs to carry
on lives in plain-JSON fields (the view as message dicts, the compressor's
state, the archive), so a ``Context`` serialised with ``to_dict()`` and rebuilt
with ``from_dict()`` brings the memory back whole, where a memory keeping its
messages in a private attribute comes back empty.

What cannot be serialised (the offload store, the summarizer, the token counter,
the event callback) is remembered per session in this process: a memory rebuilt
from its dict takes the runtime parts of the memory last built for its session
id. The default store is a :class:`~ctxmgr.FileStore` under ``CTXMGR_HOME``,
rebuilt from its path anywhere.

During a ``FunctionAgent`` run, tool calls and results live in the agent's
scratchpad and never pass through the memory; :class:`~ctxmgr_llamaindex.agent.
ContextFunctionAgent` compresses memory and scratchpad together before every
call (see :meth:`ContextMemory.aprepare_step`).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any
from uuid import uuid4

from ctxmgr import (
    ArchiveState,
    AutoContextConfig,
    ConfigError,
    ContextProcessor,
    ExtractiveSummarizer,
    FileStore,
    Message,
    ProcessResult,
    Settings,
    Store,
    TokenCounter,
    default_counter,
    elide_memo_content,
    message_from_dict,
    message_to_dict,
    project_dir_name,
    render_archived,
)
from ctxmgr.prompts import RELOAD_HINT_ID
from ctxmgr_llamaindex.convert import to_llamaindex
from ctxmgr_llamaindex.history import admit, persist

try:
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.bridge.pydantic import Field, PrivateAttr
    from llama_index.core.llms.llm import LLM
    from llama_index.core.memory.types import BaseMemory
    from llama_index.core.storage.kvstore.types import BaseKVStore
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["ContextMemory", "StepPlan"]

_DEFAULT: Any = object()
_MAX_PENDING_MEMOS = 20


@dataclass(frozen=True, slots=True, kw_only=True)
class _Parts:
    """The parts of a memory that cannot be serialised."""

    store: Store
    summarizer: object | None
    counter: TokenCounter
    on_event: Any


@dataclass(slots=True, kw_only=True)
class _Runtime:
    """A memory's parts and the compressor built on them.

    A memory holds it in an excluded field: the workflow's state store copies a memory
    on some edits, sharing excluded fields by reference, so every copy of one memory
    writes to the same store through the same compressor.
    """

    parts: _Parts
    processor: ContextProcessor | None = None


_PARTS: dict[tuple[str, str], _Parts] = {}
"""The parts each session was last built with in this process (a memory rebuilt from its
dict finds them here; they are usually shared by every session, so this stays small)."""
_PARTS_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True, kw_only=True)
class StepPlan:
    """What :meth:`ContextMemory.aprepare_step` decided for one agent step."""

    prompt: list[ChatMessage]
    """Everything to send the model, in order (system prompt, memory, scratchpad),
    archived results shown as placeholders, the reload hint once anything is compressed."""
    scratchpad: list[ChatMessage]
    """The scratchpad to keep: compressions persisted, archived results still whole."""
    result: ProcessResult
    """The compressor's answer for this step (events, edits, prompt tokens)."""


class ContextMemory(BaseMemory):
    """A LlamaIndex memory that keeps the prompt in budget, losing nothing.

    Example::

        memory = ContextMemory.from_defaults(max_tokens=32_000, session_id="ticket-42")
        agent = ContextFunctionAgent(tools=[*my_tools, *memory.as_tools()], llm=llm)
        await agent.run("fix the failing test", memory=memory, max_iterations=500)

    Build it with :meth:`from_defaults`; the fields below are its serialised state.
    """

    session_id: str = Field(default_factory=lambda: f"llamaindex-{uuid4().hex[:12]}")
    """Names this conversation: the offload and memo namespace, and the key its
    runtime parts (store, summarizer) are found under when rebuilt from its dict."""
    project: str = Field(default_factory=project_dir_name)
    """The project namespace in the store (default: derived from the working directory)."""
    config: dict[str, Any] = Field(default_factory=dict)
    """:class:`~ctxmgr.AutoContextConfig` fields that differ from the defaults."""
    overhead_tokens: int = 0
    """Prompt tokens a chat engine sends beside the memory (its system prompt, retrieved
    context); the agents count theirs themselves."""
    message_archiving: bool = False
    """Offer the message-archiving tool in :meth:`as_tools`."""
    memo: bool = False
    """Offer the memo tool in :meth:`as_tools`."""
    store_path: str | None = Field(default_factory=lambda: str(Settings.resolve().home))
    """The folder of the default :class:`~ctxmgr.FileStore` (``CTXMGR_HOME``); ``None``
    when another store was given, which cannot be rebuilt from this dict."""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    """The working view, as :func:`~ctxmgr.message_to_dict` dicts: the conversation
    with every compression applied."""
    state: dict[str, Any] | None = None
    """The compressor's state (:attr:`~ctxmgr.ProcessResult.state`)."""
    archive: dict[str, Any] = Field(default_factory=dict)
    """Which tool results the model archived (:class:`~ctxmgr.ArchiveState` dict)."""
    scratch: list[dict[str, Any]] = Field(default_factory=list)
    """The agent's scratchpad as ctxmgr last wrote it, while a run is in flight."""
    pending_memos: list[dict[str, str]] = Field(default_factory=list)
    """Memo writes whose ``content`` argument is still to be replaced by its placeholder."""
    last_tokens: int = 0
    """Prompt tokens of the latest model call this memory prepared."""

    runtime: Any = Field(default=None, exclude=True, repr=False)
    """The store, summarizer, counter and compressor (not serialised; see the module doc)."""

    _view: list[Message] | None = PrivateAttr(default=None)
    _dicts: _DictCache = PrivateAttr(default_factory=lambda: _DictCache())
    _scratch_dicts: _DictCache = PrivateAttr(default_factory=lambda: _DictCache())
    _served: list[Message] = PrivateAttr(default_factory=list)

    def __init__(self, *, store: Store | BaseKVStore | None = None,
                 summarizer: object | None = _DEFAULT, counter: TokenCounter | None = None,
                 on_event: Any = None, **data: Any) -> None:
        super().__init__(**data)
        AutoContextConfig(**self.config)  # raises ConfigError on a bad field, now
        if not isinstance(self.runtime, _Runtime):
            self.runtime = self._resolve_runtime(store, summarizer, counter, on_event)

    # --- construction -----------------------------------------------------------------

    @classmethod
    def class_name(cls) -> str:
        return "CtxmgrContextMemory"

    @classmethod
    def from_defaults(  # type: ignore[override]
        cls,
        chat_history: list[ChatMessage] | None = None,
        llm: LLM | None = None,
        *,
        max_tokens: int | None = None,
        token_limit: int | None = None,
        config: AutoContextConfig | None = None,
        session_id: str | None = None,
        project: str | None = None,
        store: Store | BaseKVStore | None = None,
        summarizer: object | None = _DEFAULT,
        counter: TokenCounter | None = None,
        on_event: Any = None,
        message_archiving: bool | str | None = None,
        memo: bool | str | None = None,
        overhead_tokens: int = 0,
        reserve_output_tokens: int | None = None,
    ) -> ContextMemory:
        """A memory for one conversation.

        Args:
            chat_history: messages to start from.
            llm: sizes the window (``context_window``) when neither ``max_tokens`` nor
                ``config`` does, and names the tokenizer; summaries use it only when
                given as ``summarizer=LlamaIndexSummarizer(llm)``.
            max_tokens: the model's context window (``token_limit`` is an alias, the
                name LlamaIndex's memories use).
            config: every other compression setting (``max_tokens`` overrides its own).
            session_id: names the conversation (offload and memo namespace); default a
                fresh id.
            project: the project namespace; default derived from the working directory.
            store: where originals and memos go: a ctxmgr :class:`~ctxmgr.Store` or any
                LlamaIndex ``BaseKVStore``; default a :class:`~ctxmgr.FileStore` under
                ``CTXMGR_HOME`` (or ``~/.ctxmgr``).
            summarizer: ``summarize`` / ``asummarize`` object; default the deterministic
                extractive summarizer; ``None`` runs only the strategies needing no LLM.
            counter: token counter; default exact tiktoken (tool calls counted).
            on_event: called with every :class:`~ctxmgr.CompressionEvent`.
            message_archiving, memo: offer these tools in :meth:`as_tools`; default
                ``CTXMGR_MESSAGE_ARCHIVING`` / ``CTXMGR_MEMO`` (environment or ``.env``).
            overhead_tokens: prompt tokens a chat engine sends beside the memory.
            reserve_output_tokens: room kept for the model's answer (overrides the
                config's; default 1/8 of the window, at most 4,096).

        Raises:
            ConfigError: a bad setting or switch value.
        """
        cfg = config or AutoContextConfig()
        window = max_tokens if max_tokens is not None else token_limit
        if window is None and config is None and llm is not None:
            window = llm.metadata.context_window
        if window is not None:
            cfg = AutoContextConfig(**{**_config_fields(cfg), "max_tokens": window})
        if reserve_output_tokens is not None:
            cfg = AutoContextConfig(**{**_config_fields(cfg),
                                       "reserve_output_tokens": reserve_output_tokens})
        if counter is None and llm is not None:
            counter = default_counter(getattr(llm.metadata, "model_name", None))
        settings = Settings.resolve(message_archiving=message_archiving, memo=memo)
        data: dict[str, Any] = {
            "config": _changed_fields(cfg), "message_archiving": settings.message_archiving,
            "memo": settings.memo, "overhead_tokens": overhead_tokens}
        if session_id is not None:
            data["session_id"] = session_id
        if project is not None:
            data["project"] = project
        memory = cls(store=store, summarizer=summarizer, counter=counter, on_event=on_event,
                     **data)
        if chat_history:
            memory.set(chat_history)
        return memory

    def _resolve_runtime(self, store: Store | BaseKVStore | None, summarizer: object | None,
                         counter: TokenCounter | None, on_event: Any) -> _Runtime:
        """The parts given here, else those this session was built with in this process,
        else the defaults; remembered for the next memory rebuilt for this session."""
        key = (self.project, self.session_id)
        with _PARTS_LOCK:
            known = _PARTS.get(key)
            if isinstance(store, BaseKVStore):
                from ctxmgr_llamaindex.store import LlamaIndexKVStore

                store = LlamaIndexKVStore(store)
            if store is not None:
                self.store_path = str(store.root) if isinstance(store, FileStore) else None
            elif known is not None:
                store = known.store
            elif self.store_path is not None:
                store = FileStore(Path(self.store_path))
            else:
                raise ConfigError(
                    f"ContextMemory session {self.session_id!r} was saved with a store that "
                    "cannot be rebuilt from its dict; in this process, first build "
                    "ContextMemory.from_defaults(session_id=..., store=<that store>) (or "
                    "pass store= here)")
            if summarizer is _DEFAULT:
                summarizer = known.summarizer if known is not None else ExtractiveSummarizer()
            parts = _Parts(
                store=store, summarizer=summarizer,
                counter=counter or (known.counter if known is not None else default_counter()),
                on_event=on_event if on_event is not None or known is None else known.on_event)
            _PARTS[key] = parts
            return _Runtime(parts=parts)

    def _live_runtime(self) -> _Runtime:
        """The runtime, resolved now if the memory was built without ``__init__`` (pydantic's
        ``model_validate`` skips it)."""
        if not isinstance(self.runtime, _Runtime):
            self.runtime = self._resolve_runtime(None, _DEFAULT, None, None)
        runtime: _Runtime = self.runtime
        return runtime

    # --- what the rest of the adapter uses --------------------------------------------

    @property
    def auto_config(self) -> AutoContextConfig:
        """The compression settings, as an :class:`~ctxmgr.AutoContextConfig`."""
        return self.processor.config

    @property
    def store(self) -> Store:
        """Where originals and memos go."""
        return self._live_runtime().parts.store

    @property
    def counter(self) -> TokenCounter:
        return self._live_runtime().parts.counter

    @property
    def processor(self) -> ContextProcessor:
        """The compressor (built once, from the settings and runtime parts)."""
        runtime = self._live_runtime()
        if runtime.processor is None:
            parts = runtime.parts
            runtime.processor = ContextProcessor(
                AutoContextConfig(**self.config), counter=parts.counter,
                summarizer=parts.summarizer, store=parts.store, project=self.project,
                session=self.session_id, on_event=parts.on_event)
        return runtime.processor

    @property
    def view(self) -> list[Message]:
        """The working view as neutral messages."""
        if self._view is None:
            self._view = self._dicts.read(self.messages)
        return list(self._view)

    def _set_view(self, view: Sequence[Message]) -> None:
        self._view = list(view)
        self.messages = self._dicts.write(self._view)

    def _mirror(self) -> list[Message]:
        """The scratchpad as ctxmgr last wrote it (empty when no run is in flight)."""
        return self._scratch_dicts.read(self.scratch)

    def _set_mirror(self, messages: Sequence[Message]) -> None:
        self.scratch = self._scratch_dicts.write(messages)

    @property
    def archive_state(self) -> ArchiveState:
        return ArchiveState.from_dict(self.archive)

    def reload_room(self) -> int:
        """Tokens a ``context_reload`` answer may take: what the prompt budget (the window
        less the room kept for the answer) has left beside the prompt as last sent."""
        return max(0, self.auto_config.budget_tokens - self.last_tokens)

    def as_tools(self) -> list[Any]:
        """``context_reload``, and the archiving and memo tools when switched on, as
        LlamaIndex ``FunctionTool`` s bound to this memory."""
        from ctxmgr_llamaindex.tools import context_tools

        return context_tools(self)

    # --- BaseMemory -------------------------------------------------------------------

    def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        """The conversation to send, compressed to fit (the reload hint once anything is)."""
        if self.scratch:  # a ContextFunctionAgent run is in flight: it compresses
            return self._serve(self.processor.prompt_for(self.view))
        view = self.view
        result = self.processor.process(view, self.state, overhead_tokens=self.overhead_tokens)
        return self._serve(self._accept(view, result))

    async def aget(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        """Async twin of :meth:`get` (the summarizer is awaited)."""
        if self.scratch:
            return self._serve(self.processor.prompt_for(self.view))
        view = self.view
        result = await self.processor.aprocess(view, self.state,
                                               overhead_tokens=self.overhead_tokens)
        return self._serve(self._accept(view, result))

    def get_all(self) -> list[ChatMessage]:
        """The whole working view: compressed ranges as their stand-ins (reload them by
        their offload id), archived results whole."""
        return to_llamaindex(self.view)

    async def aget_all(self) -> list[ChatMessage]:
        return self.get_all()

    def put(self, message: ChatMessage) -> None:
        self.put_messages([message])

    async def aput(self, message: ChatMessage) -> None:
        self.put_messages([message])

    def put_messages(self, messages: list[ChatMessage]) -> None:
        """Append ``messages``: a run's scratchpad at its end (as ctxmgr compressed it),
        or new turns. A user message starts a new turn and ends any run left unfinished."""
        if not messages:
            return
        view = self.view
        taken = {m.id for m in view}
        mirror = self._mirror()  # a run's scratchpad, as ctxmgr compressed it
        new = self._elide_memos(admit(messages, mirror, taken))
        if any(m.role == "user" and not m.tool_results for m in new) or mirror:
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
        self.state = None
        self.archive = {}
        self._set_mirror([])
        self.pending_memos = []
        self.last_tokens = 0

    async def areset(self) -> None:
        self.reset()

    # --- one agent step ---------------------------------------------------------------

    async def aprepare_step(self, llm_input: Sequence[ChatMessage],
                            scratchpad: Sequence[ChatMessage], *, overhead_tokens: int = 0
                            ) -> StepPlan:
        """Compress what the next model call of an agent run sends.

        ``llm_input`` is what the agent built (its system prompt and :meth:`aget`'s
        messages), ``scratchpad`` this run's tool calls and results. They are compressed
        as one history; compressions of memory messages are persisted in the memory,
        those of scratchpad messages in the returned :attr:`StepPlan.scratchpad`.

        Args:
            overhead_tokens: tokens sent beside the messages (tool schemas).

        Raises:
            ContextOverflowError: the pinned messages alone exceed the window.
        """
        view = self.view
        by_id = {m.id: m for m in view}
        taken = set(by_id)
        given = [m for m in admit(llm_input, [*self._served, *view], taken)
                 if m.id != RELOAD_HINT_ID]
        given = [by_id.get(m.id, m) for m in given]  # archived placeholders: the originals
        scratch = self._elide_memos(admit(scratchpad, self._mirror(), taken))
        history = [*given, *scratch]
        result = await self.processor.aprocess(history, self.state,
                                               overhead_tokens=overhead_tokens)
        holders = {**{m.id: "memory" for m in view}, **{m.id: "scratch" for m in scratch}}
        new_view = persist(view, result.edits, holders.get, "memory")
        new_scratch = persist(scratch, result.edits, holders.get, "scratch")
        self._set_view(new_view)
        self.state = result.state
        self.last_tokens = result.tokens
        self._set_mirror(new_scratch)
        prompt = render_archived(result.prompt, self.archive_state)
        return StepPlan(prompt=to_llamaindex(prompt),
                        scratchpad=_reuse(scratchpad, scratch, new_scratch), result=result)

    def run_history(self, scratchpad: Sequence[ChatMessage]) -> list[Message]:
        """The memory and ``scratchpad`` as one neutral history, with the ids the next
        :meth:`aprepare_step` gives them (for tools that name messages by id)."""
        view = self.view
        taken = {m.id for m in view}
        return [*view, *admit(scratchpad, self._mirror(), taken)]

    def add_memo_elision(self, key: str, content: str, placeholder: str) -> None:
        """After a memo write: the call's ``content`` argument is to become ``placeholder``
        wherever the call is met next (the scratchpad, or the memory at the run's end)."""
        entry = {"key": key, "content": _digest(content), "placeholder": placeholder}
        self.pending_memos = [*self.pending_memos, entry][-_MAX_PENDING_MEMOS:]

    # --- plumbing ---------------------------------------------------------------------

    def _accept(self, view: list[Message], result: ProcessResult) -> list[Message]:
        self._set_view(result.messages)
        self.state = result.state
        self.last_tokens = result.tokens
        return result.prompt

    def _serve(self, prompt: Sequence[Message]) -> list[ChatMessage]:
        shown = render_archived(prompt, self.archive_state)
        self._served = shown
        return to_llamaindex(shown)

    def _elide_memos(self, messages: list[Message]) -> list[Message]:
        """Replace the ``content`` argument of memo writes that succeeded by its
        placeholder (the memo is on disk; the history keeps only its summary)."""
        if not self.pending_memos:
            return messages
        pending = list(self.pending_memos)
        for m in messages:
            for use in m.tool_uses:
                entry = next((e for e in pending if use.name == "memo"
                              and use.input.get("action") == "write"
                              and use.input.get("key") == e["key"]
                              and isinstance(use.input.get("content"), str)
                              and _digest(use.input["content"]) == e["content"]), None)
                if entry is not None:
                    messages = elide_memo_content(messages, use.id, entry["placeholder"])
                    pending.remove(entry)
        self.pending_memos = pending
        return messages


class _DictCache:
    """Neutral messages <-> their dicts, converting only messages not seen before (a
    long view changes by a few messages per call)."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Message, dict[str, Any]]] = {}

    def read(self, dicts: Sequence[dict[str, Any]]) -> list[Message]:
        by_dict = {id(d): (m, d) for m, d in self._by_id.values()}
        out = []
        for d in dicts:
            hit = by_dict.get(id(d))
            out.append(hit[0] if hit is not None and hit[1] is d else message_from_dict(d))
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


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _config_fields(cfg: AutoContextConfig) -> dict[str, Any]:
    return {f.name: getattr(cfg, f.name) for f in fields(cfg)}


def _changed_fields(cfg: AutoContextConfig) -> dict[str, Any]:
    """The fields of ``cfg`` that differ from the defaults, as plain JSON."""
    default = AutoContextConfig()
    out: dict[str, Any] = {}
    for name, value in _config_fields(cfg).items():
        if value != getattr(default, name):
            out[name] = sorted(value) if isinstance(value, frozenset) else value
    return out

