"""One model call through ctxmgr, shared by the middleware, the pre-model hook and the node.

Before each model call the integration hands over the ``messages`` channel and
ctxmgr's dict from the graph state. The engine converts the history (once per
message, see :mod:`ctxmgr_langgraph.history`), lets a
:class:`~ctxmgr.ContextProcessor` compress it when it is over budget, and returns

* the compressions as a ``messages`` update for LangGraph's ``add_messages``
  reducer: the stand-in keeps the id of its range's first message (replaced in
  place) and the rest of the range goes by ``RemoveMessage``. Once persisted, the
  compressed prefix is the state itself, byte-identical on every later call
  until the next compression, so the provider's prompt cache stays warm;
* the prompt to send: the working view with archived tool results shown as
  placeholders and written memos' ``content`` elided (a pure function of the
  state, so equally stable), plus the tool guidance and, once anything is
  compressed, the reload hint;
* the changes to ctxmgr's own state (plain JSON, see :mod:`ctxmgr_langgraph.state`).

The budget counts what the request sends besides the history (system prompt,
tool schemas) and the room kept for the answer, in the model's own tokens once
it has reported some (see :mod:`ctxmgr_langgraph.calibration`). Offloads and
memos are namespaced by project and session, the session being the graph's
thread id.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import logging
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from ctxmgr import (
    ArchiveState,
    AutoContextConfig,
    ConfigError,
    ContextProcessor,
    ExtractiveSummarizer,
    MemoStore,
    Message,
    Namespace,
    ProcessResult,
    Settings,
    Store,
    TextBlock,
    TokenCounter,
    default_counter,
    elide_memo_content,
    project_dir_name,
    render_archived,
    system_prompt_fragment,
)
from ctxmgr.autocontext.events import EventCallback
from ctxmgr_langgraph.calibration import ScaledCounter, ratio_of, updated_calibration
from ctxmgr_langgraph.history import MessageCache
from ctxmgr_langgraph.state import CONTEXT_KEY
from ctxmgr_langgraph.store import LangGraphStore, resolve_store
from ctxmgr_langgraph.summarizer import LangChainSummarizer
from ctxmgr_langgraph.tools import context_tools

try:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, RemoveMessage
    from langchain_core.tools import BaseTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.store.base import BaseStore
    from langgraph.store.base.batch import AsyncBatchedBaseStore
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangGraph: pip install ".[langgraph]"') from exc

__all__ = ["ContextEngine", "EngineOptions", "PreparedCall"]

logger = logging.getLogger(__name__)

GUIDANCE_ID = "ctxmgr-tool-guidance"
"""Id of the system message that tells the model when to archive and to write memos."""
DEFAULT_SESSION = "default"
_LABEL = re.compile(r"[A-Za-z0-9._-]{1,200}")
_MAX_PROCESSORS = 1024
_DEFAULT: Any = object()


def session_label(thread_id: object) -> str:
    """A store label for a thread id: itself when it is one, else a digest of it."""
    if thread_id is None or thread_id == "":
        return DEFAULT_SESSION
    text = str(thread_id)
    if _LABEL.fullmatch(text) and text not in (".", ".."):
        return text
    return "thread-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def thread_id_of(config: Mapping[str, Any] | None = None, runtime: Any = None) -> str | None:
    """The graph's thread id from a runtime's execution info or a runnable config."""
    info = getattr(runtime, "execution_info", None)
    thread = getattr(info, "thread_id", None)
    if thread is None and config:
        thread = (config.get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)


@dataclass(frozen=True, slots=True, kw_only=True)
class PreparedCall:
    """What one model call needs: the prompt, and the state update that persists it."""

    prompt: list[BaseMessage]
    """The messages to send (the request's system prompt, if held apart, not included)."""
    messages: list[BaseMessage]
    """Update of the ``messages`` channel: ``RemoveMessage`` s and same-id stand-ins."""
    context: dict[str, Any]
    """Update of ctxmgr's state (empty when nothing changed)."""
    result: ProcessResult
    sent_tokens: int
    """Base-counter tokens of everything the request sends (for calibration)."""
    session: str

    def update(self, extra_context: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The state update to return from a node (only the keys that changed)."""
        update: dict[str, Any] = {}
        if self.messages:
            update["messages"] = list(self.messages)
        context = {**self.context, **(extra_context or {})}
        if context:
            update[CONTEXT_KEY] = context
        return update


class EngineOptions(TypedDict, total=False):
    """The keyword options of :class:`ContextEngine`, which ``ContextMiddleware``,
    ``ContextHook`` and ``ContextNode`` pass through (defaults and meaning: see
    :class:`~ctxmgr_langgraph.ContextMiddleware`)."""

    summarizer: Any
    counter: TokenCounter | None
    store: Store | BaseStore | None
    project: str | None
    session: str | None
    message_archiving: bool | str | None
    memo: bool | str | None
    context_reload: bool
    reserve_output_tokens: int | Literal["auto"] | None
    calibrate: bool
    guidance: bool
    max_memos: int | None
    on_event: EventCallback | None


class ContextEngine:
    """Compression, rendering, storage and tools for one LangGraph integration.

    See :class:`~ctxmgr_langgraph.ContextMiddleware` for the arguments.
    """

    def __init__(
        self,
        config: AutoContextConfig | None = None,
        *,
        summarizer: Any = "extractive",
        counter: TokenCounter | None = None,
        store: Store | BaseStore | None = None,
        project: str | None = None,
        session: str | None = None,
        message_archiving: bool | str | None = None,
        memo: bool | str | None = None,
        context_reload: bool = True,
        reserve_output_tokens: int | Literal["auto"] | None = None,
        calibrate: bool = True,
        guidance: bool = True,
        max_memos: int | None = None,
        on_event: EventCallback | None = None,
    ) -> None:
        config = config or AutoContextConfig()
        if not isinstance(config, AutoContextConfig):
            raise ConfigError(f"config must be an AutoContextConfig, got {config!r}")
        if reserve_output_tokens is not None:  # validated by the config itself
            config = dataclasses.replace(config, reserve_output_tokens=reserve_output_tokens)
        self.config = config
        self.counter = counter or default_counter()
        self.summarizer = _summarizer(summarizer)
        self.settings = Settings.resolve(message_archiving=message_archiving, memo=memo)
        self.context_reload = bool(context_reload)
        self.calibrate = bool(calibrate)
        self.project = project if project is not None else project_dir_name()
        Namespace(self.project, DEFAULT_SESSION, "offload")  # a clear error now, not at 1st call
        self.fixed_session = session_label(session) if session is not None else None
        self.max_memos = max_memos
        self.on_event = on_event
        self.cache = MessageCache()
        if isinstance(store, BaseStore):
            store = LangGraphStore(store)
        if store is not None and not isinstance(store, Store):
            raise ConfigError("store must be a ctxmgr Store or a LangGraph BaseStore, got "
                              f"{type(store).__name__}")
        self._store = store
        self._default_store: Store | None = None
        self._wrapped: dict[int, tuple[BaseStore, Store]] = {}
        self._processors: OrderedDict[tuple[int, str, float], ContextProcessor] = OrderedDict()
        self._tool_tokens: dict[int, tuple[Any, int]] = {}
        self._text_tokens: dict[str, int] = {}
        self._pending: dict[str, int] = {}  # session -> sent tokens awaiting a usage report
        self._lock = threading.Lock()
        text = system_prompt_fragment(message_archiving=self.settings.message_archiving,
                                      memo=self.settings.memo) if guidance else ""
        self.guidance = (Message(role="system", content=(TextBlock(text=text),), id=GUIDANCE_ID)
                         if text else None)
        self.guidance_tokens = self.counter.count(self.guidance) if self.guidance else 0
        self.tools: list[BaseTool] = context_tools(self)

    # -- where things live -------------------------------------------------------------

    def session_of(self, config: Mapping[str, Any] | None = None, runtime: Any = None) -> str:
        """The session (store namespace) of a call: the fixed one, else the thread id."""
        if self.fixed_session is not None:
            return self.fixed_session
        return session_label(thread_id_of(config, runtime))

    def store_for(self, runtime_store: BaseStore | None) -> Store:
        """The store given to the constructor, else the graph's, else the embedded default."""
        if self._store is not None:
            return self._store
        if runtime_store is None:
            if self._default_store is None:
                self._default_store = resolve_store(None)
            return self._default_store
        hit = self._wrapped.get(id(runtime_store))
        if hit is None or hit[0] is not runtime_store:
            hit = (runtime_store, resolve_store(runtime_store))
            with self._lock:
                self._wrapped[id(runtime_store)] = hit
        return hit[1]

    def processor(self, store: Store, session: str, ratio: float = 1.0) -> ContextProcessor:
        """The processor of one session (offloads under project / session), counting at
        ``ratio`` times the base counter."""
        key = (id(store), session, ratio)
        with self._lock:
            processor = self._processors.get(key)
            if processor is not None:
                self._processors.move_to_end(key)
                return processor
            counter = self.counter if ratio == 1.0 else ScaledCounter(self.counter, ratio)
            processor = ContextProcessor(
                self.config, counter=counter, summarizer=self.summarizer, store=store,
                project=self.project, session=session, on_event=self.on_event)
            self._processors[key] = processor
            if len(self._processors) > _MAX_PROCESSORS:
                self._processors.popitem(last=False)
            return processor

    def memos(self, store: Store, session: str) -> MemoStore:
        """The memos of one session."""
        if self.max_memos is None:
            return MemoStore(store, session=session, project=self.project)
        return MemoStore(store, session=session, project=self.project, max_memos=self.max_memos)

    # -- what the request sends besides the history ------------------------------------

    def overhead_tokens(self, system: BaseMessage | str | None = None,
                        tools: Iterable[Any] = ()) -> int:
        """Base-counter tokens of a system prompt and tool schemas (cached by identity)."""
        total = self.guidance_tokens
        if system is not None:
            text = system if isinstance(system, str) else _text_of(system)
            total += self._text_cost(text) + self.counter.per_message + 1
        for tool in tools:
            hit = self._tool_tokens.get(id(tool))
            if hit is None or hit[0] is not tool:
                hit = (tool, self._schema_tokens(tool))
                with self._lock:
                    self._tool_tokens[id(tool)] = hit
            total += hit[1]
        return total

    def _text_cost(self, text: str) -> int:
        n = self._text_tokens.get(text)
        if n is None:
            n = self.counter.count_text(text)
            with self._lock:
                if len(self._text_tokens) > 256:
                    self._text_tokens.clear()
                self._text_tokens[text] = n
        return n

    def _schema_tokens(self, tool: Any) -> int:
        schema: Any
        try:
            schema = convert_to_openai_tool(tool)
        except Exception:  # a provider-specific dict: count what would be sent
            schema = tool if isinstance(tool, Mapping) else {"name": str(tool)}
        return self.counter.count_text(json.dumps(schema, ensure_ascii=False, default=str))

    # -- one call ----------------------------------------------------------------------

    def prepare(self, messages: Sequence[BaseMessage], context: Mapping[str, Any] | None, *,
                session: str, store: Store, overhead: int,
                state_messages: Sequence[BaseMessage] | None = None) -> PreparedCall:
        """Compress if needed and build the prompt and the state update.

        Args:
            messages: the history as the graph holds it (system prompt may be apart).
            context: ctxmgr's dict from the state (``None`` at first).
            session, store: from :meth:`session_of` and :meth:`store_for`.
            overhead: :meth:`overhead_tokens` of what the request sends besides
                ``messages`` (the answer's reserve is the config's, kept out of the
                prompt budget by the processor).
            state_messages: the state's ``messages`` when ``messages`` may differ from
                them (a request an outer middleware rewrote); a compression naming
                messages the state lacks then stays view-only.

        Raises:
            ContextOverflowError: over the window after every strategy.
        """
        context = context or {}
        processor, neutral, scaled = self._begin(messages, context, session, store, overhead)
        result = processor.process(neutral, context.get("compression"), overhead_tokens=scaled)
        return self._finish(result, context, session, processor, overhead, scaled, state_messages)

    async def aprepare(self, messages: Sequence[BaseMessage], context: Mapping[str, Any] | None,
                       *, session: str, store: Store, overhead: int,
                       state_messages: Sequence[BaseMessage] | None = None) -> PreparedCall:
        """Async twin of :meth:`prepare` (the summarizer is awaited)."""
        context = context or {}
        processor, neutral, scaled = self._begin(messages, context, session, store, overhead)
        state = context.get("compression")
        if _async_only(store):
            # its sync calls must run off the loop that owns its connection
            result = await asyncio.to_thread(processor.process, neutral, state,
                                             overhead_tokens=scaled)
        else:
            result = await processor.aprocess(neutral, state, overhead_tokens=scaled)
        return self._finish(result, context, session, processor, overhead, scaled, state_messages)

    def _begin(self, messages: Sequence[BaseMessage], context: Mapping[str, Any],
               session: str, store: Store, overhead: int
               ) -> tuple[ContextProcessor, list[Message], int]:
        """The session's processor, the converted history and the overhead in its units."""
        ratio = ratio_of(context.get("calibration")) if self.calibrate else 1.0
        processor = self.processor(store, session, ratio)
        neutral = self.cache.to_neutral(messages)
        scaled = overhead if ratio == 1.0 else math.ceil(overhead * ratio)
        return processor, neutral, scaled

    def _finish(self, result: ProcessResult, context: Mapping[str, Any], session: str,
                processor: ContextProcessor, overhead: int, scaled: int,
                state_messages: Sequence[BaseMessage] | None) -> PreparedCall:
        update = self._persisted(result, state_messages)
        changes: dict[str, Any] = {}
        before = context.get("compression")
        if result.state != before and (before or result.state.get("stand_ins")):
            changes["compression"] = result.state
        if context.get("overhead") != scaled:
            changes["overhead"] = scaled
        changes.update(self._pruned(context, result.messages))
        rendered = self.render(result.prompt, context)
        sent = self.counter.count_messages(rendered) + overhead
        if self.guidance is not None:
            rendered = _after_system(rendered, self.guidance)
        return PreparedCall(prompt=self.cache.to_langchain(rendered), messages=update,
                            context=changes, result=result, sent_tokens=sent,
                            session=session)

    def _persisted(self, result: ProcessResult, state_messages: Sequence[BaseMessage] | None
                   ) -> list[BaseMessage]:
        """The ``messages`` update that applies ``result.edits`` through ``add_messages``."""
        if not result.edits:
            return []
        allowed = None if state_messages is None else {m.id for m in state_messages}
        update: list[BaseMessage] = []
        for edit in result.edits:
            ids = [i for mid in edit.ids for i in self.cache.langchain_ids(mid)]
            stand_in = self.cache.parts(edit.stand_in) if edit.stand_in is not None else ()
            keep = {p.id for p in stand_in}
            if allowed is not None and not allowed.issuperset(ids):
                logger.warning("compression of %d message(s) kept view-only: the request's "
                               "messages are not the state's", len(edit.ids))
                continue
            if not keep.issubset(ids):
                # a part with a new id would be appended at the end, not put in place
                logger.warning("compression of %d message(s) kept view-only: its stand-in "
                               "is written as LangChain messages the range lacks",
                               len(edit.ids))
                continue
            update.extend(RemoveMessage(id=i) for i in ids if i not in keep)
            update.extend(stand_in)
        return update

    # -- the view the model gets -------------------------------------------------------

    def render(self, messages: Sequence[Message], context: Mapping[str, Any]) -> list[Message]:
        """``messages`` as the model sees them: archived tool results as placeholders and
        written memos' content elided. Deterministic in ``context``."""
        out = render_archived(messages, ArchiveState.from_dict(context.get("archive")))
        memos = context.get("memos") or ()
        if not memos:
            return out
        by_message: dict[str, list[Mapping[str, Any]]] = {}
        for entry in memos:
            by_message.setdefault(entry["message_id"], []).append(entry)
        for i, m in enumerate(out):
            for entry in by_message.get(m.id, ()):
                out[i] = m = elide_memo_content([m], entry["tool_use_id"],
                                                entry["placeholder"])[0]
        return out

    @staticmethod
    def _pruned(context: Mapping[str, Any], view: Sequence[Message]) -> dict[str, Any]:
        """Drop archive entries and memo elisions whose message left the working view."""
        archived = (context.get("archive") or {}).get("archived") or []
        memos = context.get("memos") or []
        if not archived and not memos:
            return {}
        present = {m.id for m in view}
        changes: dict[str, Any] = {}
        if gone := [e for e in archived if e.get("message_id") not in present]:
            changes["archive_remove"] = gone
        kept = [e for e in memos if e.get("message_id") in present]
        if len(kept) != len(memos):
            changes["memos"] = kept
        return changes

    def reload_budget(self, processor: ContextProcessor, messages: Sequence[BaseMessage],
                      context: Mapping[str, Any]) -> int:
        """Tokens a ``context_reload`` answer may take: the room left before compression
        would start, or :attr:`min_reload_page` when that is less (a context at its
        trigger is compressed to its target before the model reads the page)."""
        view = self.cache.to_neutral(messages)
        overhead = context.get("overhead")
        if isinstance(overhead, bool) or not isinstance(overhead, int):
            overhead = 0
        used = processor.counter.count_messages(processor.prompt_for(view)) + overhead
        return max(self.config.trigger_tokens - used, self.min_reload_page)

    @property
    def min_reload_page(self) -> int:
        """The smallest ``context_reload`` page, in tokens: half the room between the
        compression target and the trigger, which a compression frees at least."""
        return max(256, (self.config.trigger_tokens - self.config.target_tokens) // 2)

    # -- calibration -------------------------------------------------------------------

    def calibration(self, context: Mapping[str, Any] | None, sent_tokens: int,
                    answer: Any) -> dict[str, Any]:
        """The state change after an answer that reports its input tokens ({} if none)."""
        if not self.calibrate or not isinstance(answer, AIMessage) or not answer.usage_metadata:
            return {}
        record = updated_calibration((context or {}).get("calibration"), counted=sent_tokens,
                                     reported=answer.usage_metadata.get("input_tokens"))
        return {"calibration": record} if record else {}

    def observe(self, session: str, messages: Sequence[BaseMessage],
                context: Mapping[str, Any] | None) -> dict[str, Any]:
        """For hooks that run before the model: calibrate from the latest answer in
        ``messages`` against what this engine sent for it ({} if nothing to learn)."""
        sent = self._pending.pop(session, None)
        if sent is None:
            return {}
        for m in reversed(messages):
            if isinstance(m, AIMessage):
                return self.calibration(context, sent, m)
            if m.type not in ("tool",):
                break
        return {}

    def expect_answer(self, session: str, sent_tokens: int) -> None:
        """Remember what was sent, for :meth:`observe` on the next call."""
        with self._lock:
            if len(self._pending) > 10_000:
                self._pending.clear()
            self._pending[session] = sent_tokens


def _summarizer(value: Any) -> Any:
    if value == "extractive" or value is _DEFAULT:
        return ExtractiveSummarizer()
    if isinstance(value, BaseChatModel):
        return LangChainSummarizer(value)
    if value is None or hasattr(value, "summarize") or hasattr(value, "asummarize"):
        return value
    raise ConfigError("summarizer must be a LangChain chat model, an object with summarize / "
                      f"asummarize, 'extractive' or None, got {value!r}")


def _text_of(message: BaseMessage) -> str:
    text = message.text
    return text if isinstance(text, str) else str(message.content)


def _after_system(messages: list[Message], message: Message) -> list[Message]:
    """``messages`` with ``message`` inserted after the leading system messages."""
    at = 0
    while at < len(messages) and messages[at].role == "system":
        at += 1
    return [*messages[:at], message, *messages[at:]]


def _async_only(store: Store) -> bool:
    return isinstance(store, LangGraphStore) and isinstance(store.base_store,
                                                            AsyncBatchedBaseStore)
