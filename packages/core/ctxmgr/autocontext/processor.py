"""ContextProcessor: AutoContextMemory for a history the framework owns.

A LangGraph middleware, a pre-model hook or a LlamaIndex agent holds the
history itself and hands ctxmgr all of it before every model call. The
processor is idempotent by message id: the same history twice changes nothing,
new messages are taken once, and an edit someone else made is respected. It
returns the prompt to send **and** the compressions as :class:`Edit` s, which
the framework persists with its own reducer, plus a small JSON state for the
checkpoint (the originals are in the offload store, not in the state).

``history_processor`` wraps it as a plain function, messages to messages, in
the manner of pydantic-ai's history processors.
"""

from __future__ import annotations

import operator
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Unpack

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.edits import Edit, diff_edits
from ctxmgr.autocontext.events import CompressionEvent
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.parts import CompressorParts, PartsOptions
from ctxmgr.autocontext.pipeline import CompressionResult, acompress, check_overhead, compress
from ctxmgr.autocontext.reload import handle_reload_call, reload_floor
from ctxmgr.autocontext.search import handle_search_call
from ctxmgr.autocontext.standins import Expander, StandIns, check_unique_ids, message_digest
from ctxmgr.errors import ContextOverflowError, CtxmgrError
from ctxmgr.messages import Message
from ctxmgr.prompts import RELOAD_HINT_ID, RELOAD_SYSTEM_PROMPT, after_system

__all__ = [
    "ContextProcessor",
    "ProcessResult",
    "async_history_processor",
    "history_processor",
    "is_reload_hint",
    "with_reload_hint",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ProcessResult:
    """What one call of :meth:`ContextProcessor.process` produced."""

    messages: list[Message]
    """The working view: the history with every compression applied. Equals
    ``apply_edits(history, edits)``, and what a framework holds once it persists them."""
    prompt: list[Message]
    """What to send to the model: :attr:`messages`, plus the reload hint (a system
    message after the leading system messages) once anything is compressed."""
    edits: list[Edit]
    """The changes to make to the history given, by id (persist them with the
    framework's reducer: same-id replacement and removal)."""
    events: list[CompressionEvent]
    """This call's compression steps (applied and skipped)."""
    state: dict[str, Any] = field(repr=False)
    """Plain-JSON state to keep for the next call (e.g. in a checkpoint)."""
    tokens: int
    """Prompt tokens of :attr:`prompt`, with the ``overhead_tokens`` given (the reload
    hint counted whether or not the prompt holds it yet)."""


class ContextProcessor(CompressorParts):
    """Progressive, reversible compression of a history someone else owns.

    Example::

        processor = ContextProcessor(AutoContextConfig(max_tokens=32_000))
        state = None
        for history in calls:                       # the full history, every call
            result = processor.process(history, state)
            state = result.state                    # small, plain JSON
            send(result.prompt)
            persist(result.edits)                   # optional: keeps the prefix stable

    Args:
        config: thresholds and switches.
        counter: token counter; default: exact tiktoken.
        summarizer: object with ``summarize`` / ``asummarize``; default the
            deterministic :class:`ExtractiveSummarizer`; ``None`` runs only the
            strategies that need no LLM (2 and 3).
        store: where offloaded originals go; default in memory. Use a shared store
            (files, a database) when several workers or restarts share a session.
        project, session: the offload namespace inside ``store``.
        on_event: called with every :class:`CompressionEvent`.
        reload_hint: add the reload hint to :attr:`ProcessResult.prompt` once anything is
            compressed (its tokens are counted in every budget check).
    """

    def __init__(self, config: AutoContextConfig | None = None,
                 **parts: Unpack[PartsOptions]) -> None:
        super().__init__(config, **parts)
        self._known: dict[str, Message] = {}
        """Messages of the last working view by id: an equal message handed over again
        (a framework converts its history anew on every call) reuses the known object and
        with it its cached token count, so a call costs what changed, not the history."""

    # -- one model call --------------------------------------------------------------

    def process(self, history: Sequence[Message], state: Mapping[str, Any] | None = None,
                *, overhead_tokens: int = 0, force: bool = False,
                persisted: Callable[[Edit], bool] | None = None) -> ProcessResult:
        """Compress ``history`` if it needs it; idempotent by message id.

        Args:
            history: every message of the conversation as the framework holds it now,
                system messages included, each with its own id.
            state: :attr:`ProcessResult.state` of the previous call (``None`` at first).
            overhead_tokens: prompt tokens sent outside ``history`` (a system prompt the
                framework adds, tool schemas, room kept for the answer).
            force: compress even below the trigger.
            persisted: which edits the caller persists in its history along with this
                prompt; their stand-ins are then kept only by a digest in :attr:`ProcessResult.
                state`. ``None``: each stand-in stays in the state until a history holds it.

        Raises:
            ContextOverflowError: still over ``max_tokens`` after every strategy; its
                ``partial`` is the :class:`ProcessResult` of the work that was done.
            InvalidMessageError: two messages share an id, or ``state`` is damaged.
        """
        history, view, stand_ins, calls = self._prepare(history, state)
        try:
            result = compress(view, **self._kwargs(calls, overhead_tokens), force=force)
        except ContextOverflowError as exc:
            raise self._overflow(exc, history, view, stand_ins, persisted) from exc.store_error
        return self._finish(history, view, stand_ins, result, persisted)

    async def aprocess(self, history: Sequence[Message], state: Mapping[str, Any] | None = None,
                       *, overhead_tokens: int = 0, force: bool = False,
                       persisted: Callable[[Edit], bool] | None = None) -> ProcessResult:
        """Async twin of :meth:`process` (the summarizer is awaited; the store is asked
        in a worker thread, never on the loop)."""
        import asyncio  # already loaded: an event loop runs this

        asked: list[Message] = []
        prepared = self._prepare(history, state, expand=lambda m: asked.append(m))
        if asked:  # a range lost some of its originals: read which ones it had
            prepared = await asyncio.to_thread(self._prepare, history, state)
        history, view, stand_ins, calls = prepared
        try:
            result = await acompress(view, **self._kwargs(calls, overhead_tokens), force=force)
        except ContextOverflowError as exc:
            raise self._overflow(exc, history, view, stand_ins, persisted) from exc.store_error
        return self._finish(history, view, stand_ins, result, persisted)

    def view(self, history: Sequence[Message], state: Mapping[str, Any] | None = None
             ) -> list[Message]:
        """The working view of ``history`` as it stands, compressing nothing: each range
        the state records as compressed replaced by its stand-in.

        Raises:
            InvalidMessageError: two messages share an id, or ``state`` is damaged.
        """
        return self._prepare(history, state)[1]

    def _prepare(self, history: Sequence[Message], state: Mapping[str, Any] | None,
                 expand: Expander | None = None
                 ) -> tuple[list[Message], list[Message], StandIns, int]:
        history = [self._reuse(m) for m in history if not is_reload_hint(m)]
        check_unique_ids(history)
        stand_ins = StandIns.from_json(state)
        view, calls = stand_ins.reconcile(history, expand or self._expand, message_digest)
        return history, view, stand_ins, calls

    def _reuse(self, m: Message) -> Message:
        known = self._known.get(m.id)
        return known if known is not None and (known is m or known == m) else m

    def _kwargs(self, calls: int, overhead_tokens: int) -> dict[str, Any]:
        check_overhead(overhead_tokens)  # before the hint is added to it
        return {"config": self.config, "counter": self.counter, "offload": self.offload,
                "summarizer": self.summarizer, "on_event": self.on_event,
                "model_calls": calls, "overhead_tokens": overhead_tokens + self.hint_tokens,
                "worker": self._worker, "adds_hint": self.hint is not None}

    def _finish(self, history: list[Message], view: list[Message], stand_ins: StandIns,
                result: CompressionResult, persisted: Callable[[Edit], bool] | None
                ) -> ProcessResult:
        messages = result.messages
        view_edits = diff_edits(view, messages)
        stand_ins.record(view, view_edits, persisted)
        stand_ins.prune(messages)
        self._known = {m.id: m for m in messages}
        same = len(view) == len(history) and all(map(operator.is_, view, history))
        return ProcessResult(
            messages=messages, prompt=self.prompt_for(messages),
            edits=view_edits if same else diff_edits(history, messages),
            events=list(result.events), state=stand_ins.to_json(), tokens=result.tokens)

    def _overflow(self, exc: ContextOverflowError, history: list[Message],
                  view: list[Message], stand_ins: StandIns,
                  persisted: Callable[[Edit], bool] | None) -> ContextOverflowError:
        partial = exc.partial
        done = (self._finish(history, view, stand_ins, partial, persisted)
                if isinstance(partial, CompressionResult) else None)
        return ContextOverflowError(tokens=exc.tokens, limit=exc.limit, partial=done,
                                    store_error=exc.store_error)

    def prompt_for(self, messages: Sequence[Message]) -> list[Message]:
        """``messages`` with the reload hint, once any of them is compressed."""
        return with_reload_hint(messages, self.hint)

    # -- reload ----------------------------------------------------------------------

    def handle_reload_call(self, tool_input: Any, *, reload_room: int | None) -> str:
        """Answer a ``context_reload`` tool call; never raises on the model's input.

        Args:
            reload_room: tokens the answer may take: :func:`~ctxmgr.autocontext.reload.
                reload_room` of the latest :attr:`ProcessResult.tokens`; a longer range
                comes back in pages (``{"uuid": ID, "page": N}``), which line up only
                when every page is asked with the first page's room (a session engine
                keeps it). ``None``: the whole range at once.
        """
        return handle_reload_call(self.offload, tool_input, reload_room=reload_room,
                                  counter=self.counter)

    def handle_search_call(self, tool_input: Any, *, view: Sequence[Message] = (),
                           search_room: int | None = None) -> str:
        """Answer a ``context_search`` tool call over this session's offloaded originals;
        never raises on the model's input.

        Args:
            view: the working view (:attr:`ProcessResult.messages`): its stand-ins order
                the ranges, newest hits first.
            search_room: tokens the answer may take (see :func:`~ctxmgr.autocontext.
                reload.reload_room`); ``None``: :data:`~ctxmgr.autocontext.search.
                SEARCH_MAX_TOKENS`.
        """
        return handle_search_call(self.hidden, tool_input, view=view, room=search_room,
                                  counter=self.counter,
                                  page_size=reload_floor(self.config)).text

    def _expand(self, stand_in: Message) -> set[str] | None:
        """Ids of every original behind a stand-in, nested stand-ins opened too."""
        try:
            return {m.id for m in self.offload.originals([stand_in])}
        except (CtxmgrError, OSError, ValueError):
            return None

    def __repr__(self) -> str:
        return f"ContextProcessor({self.config!r}, counter={self.counter!r})"


def is_reload_hint(m: Message) -> bool:
    """True for the reload hint ctxmgr adds to a prompt (by id, or by text after a round
    trip through a provider's format gave it another id): a prompt fed back in holds it,
    and it must neither be compressed nor counted twice."""
    return m.role == "system" and (m.id == RELOAD_HINT_ID or m.text == RELOAD_SYSTEM_PROMPT)


def with_reload_hint(messages: Sequence[Message], hint: Message | None) -> list[Message]:
    """``messages`` with ``hint`` after the leading system messages, once any of them is
    compressed: the model is told what the offload tags mean before it meets one."""
    if hint is None or not any(CompressedMarker.of(m) for m in messages):
        return list(messages)
    return after_system(messages, [hint])


def history_processor(
    config: AutoContextConfig | None = None, **kwargs: Any
) -> Callable[[Sequence[Message]], list[Message]]:
    """A plain function from the full history to the prompt, keeping its state inside.

    Example::

        process = history_processor(AutoContextConfig(max_tokens=32_000))
        prompt = process(history)        # call before every model call

    ``kwargs`` are those of :class:`ContextProcessor`. The function carries its
    processor as ``.processor`` and the latest :class:`ProcessResult` as ``.last``.
    """
    processor = ContextProcessor(config, **kwargs)
    box: dict[str, Any] = {"state": None}

    def process(messages: Sequence[Message]) -> list[Message]:
        result = processor.process(messages, box["state"])
        box["state"] = result.state
        process.last = result  # type: ignore[attr-defined]
        return result.prompt

    process.processor = processor  # type: ignore[attr-defined]
    process.last = None  # type: ignore[attr-defined]
    return process


def async_history_processor(
    config: AutoContextConfig | None = None, **kwargs: Any
) -> Callable[[Sequence[Message]], Awaitable[list[Message]]]:
    """Async twin of :func:`history_processor` (the summarizer is awaited)."""
    processor = ContextProcessor(config, **kwargs)
    box: dict[str, Any] = {"state": None}

    async def process(messages: Sequence[Message]) -> list[Message]:
        result = await processor.aprocess(messages, box["state"])
        box["state"] = result.state
        process.last = result  # type: ignore[attr-defined]
        return result.prompt

    process.processor = processor  # type: ignore[attr-defined]
    process.last = None  # type: ignore[attr-defined]
    return process
