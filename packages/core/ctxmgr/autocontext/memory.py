"""AutoContextMemory: the compressor for callers who own an append-only history.

It holds the working view (what the model is sent), the offload store and the
latest events. ``compress_if_needed`` is O(1) when nothing needs doing: a running
token tally answers the trigger without recounting the history. Originals live
only in the offload store, so the memory (and :meth:`to_json`) grows with the
working view, not with the history. For a history a framework owns and hands
over whole on every call, use :class:`~ctxmgr.autocontext.processor.ContextProcessor`.
"""

from __future__ import annotations

import dataclasses
import json
from collections import deque
from collections.abc import Iterable
from typing import Any

from ctxmgr._unset import UNSET, Unset
from ctxmgr.autocontext import reload as reloading
from ctxmgr.autocontext import search
from ctxmgr.autocontext.config import AutoContextConfig, refuse_moved
from ctxmgr.autocontext.events import CompressionEvent, EventCallback
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.parts import CompressorParts
from ctxmgr.autocontext.pipeline import CompressionResult, acompress, compress, needs_compression
from ctxmgr.autocontext.processor import is_reload_hint, with_reload_hint
from ctxmgr.errors import ContextOverflowError, InvalidMessageError
from ctxmgr.messages import Message, message_from_dict, message_to_dict
from ctxmgr.store.base import Store
from ctxmgr.tokens import TokenCounter, TokenTally

__all__ = ["MAX_EVENTS", "AutoContextMemory"]

MAX_EVENTS = 1000
"""Events kept in :attr:`AutoContextMemory.events` (the newest); every event also goes
to ``on_event`` and the log, so nothing is hidden, but memory stays bounded."""
MAX_RELOAD_PAGES = 100
"""Page sizes kept for ranges being reloaded (the oldest are forgotten)."""


class AutoContextMemory(CompressorParts):
    """Progressive, reversible compression of one agent's history.

    Example::

        memory = AutoContextMemory(AutoContextConfig(max_tokens=32_000))
        memory.add(history)
        memory.compress_if_needed()
        prompt = memory.prompt            # send this to the model
        memory.reload(offload_id)         # any original, byte for byte

    Args:
        config: every setting (:class:`~ctxmgr.AutoContextConfig`); default: one read
            from the environment. With no window there, 128,000 tokens are assumed and a
            warning says so once per process.
        summarizer: object with ``summarize`` / ``asummarize``; left out, the
            deterministic :class:`ExtractiveSummarizer`; ``None`` disables the LLM
            strategies (1, 4, 5, 6).
        counter: token counter; default: exact tiktoken.
        store: where offloaded originals go; default in memory.
        session: the offload namespace inside ``store`` (under the config's project).
        on_event: called with every :class:`CompressionEvent`.

    Raises:
        ConfigError: a bad setting.
        TypeError: a setting given as a keyword; it lives in the config (the message says
            where).
    """

    def __init__(self, config: AutoContextConfig | None = None, *,
                 summarizer: object | None = UNSET, counter: TokenCounter | None = None,
                 store: Store | None = None, session: str = "default",
                 on_event: EventCallback | None = None, **moved: Any) -> None:
        from ctxmgr.session.defaults import choose_window

        refuse_moved("AutoContextMemory", moved)
        config = config if config is not None else AutoContextConfig()
        if isinstance(config, AutoContextConfig) and config.max_tokens is UNSET:
            config = dataclasses.replace(config, max_tokens=choose_window(UNSET))
        super().__init__(config, summarizer=summarizer, counter=counter, store=store,
                         session=session, on_event=on_event)
        self._working: list[Message] = []
        self._events: deque[CompressionEvent] = deque(maxlen=MAX_EVENTS)
        self._tally = TokenTally(self.counter)
        self._model_calls = 0  # assistant messages ever added: the summaries' payback horizon
        self._hinted = False  # the prompt carries the reload hint (something is compressed)
        self._reload_pages: dict[str, int] = {}  # uuid -> page size its first page fixed

    # -- history ---------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The working view: the history with every compression applied (a copy)."""
        return list(self._working)

    @property
    def prompt(self) -> list[Message]:
        """What to send to the model: :attr:`messages`, plus the reload hint (a system
        message after the leading system messages) once anything is compressed."""
        return with_reload_hint(self._working, self.hint)

    @property
    def originals(self) -> list[Message]:
        """Every message ever added, uncompressed, in order, read back from the offload
        store (the memory itself keeps only the working view).

        Raises:
            OffloadNotFoundError: the store lost an offloaded range.
        """
        return self.offload.originals(self._working)

    @property
    def events(self) -> list[CompressionEvent]:
        """The latest :data:`MAX_EVENTS` compression steps, oldest first."""
        return list(self._events)

    @property
    def tokens(self) -> int:
        """Prompt tokens of :attr:`prompt` (the reload hint included once it is there)."""
        return self._tally.total + (self.hint_tokens if self._hinted else 0)

    def add(self, messages: Message | Iterable[Message]) -> None:
        """Append messages to the working view (the caller owns the history: a message
        added twice is there twice; a framework-owned history goes to ContextProcessor)."""
        new = [messages] if isinstance(messages, Message) else list(messages)
        new = [m for m in new if not is_reload_hint(m)]  # a prompt fed back in: added anew
        self._working.extend(new)
        self._tally.extend(new)
        self._model_calls += sum(m.role == "assistant" for m in new)
        self._hinted = self._hinted or _any_compressed(new)

    def needs_compression(self) -> bool:
        """The trigger is reached (the reload hint is always counted: it may be added)."""
        return needs_compression(self._tally.total + self.hint_tokens, len(self._working),
                                 self.config)

    # -- compression -----------------------------------------------------------------

    def compress_if_needed(self, *, force: bool = False) -> list[CompressionEvent]:
        """Compress the working view when the trigger is reached; returns this call's events.

        Raises:
            ContextOverflowError: still over ``max_tokens`` after every strategy.
        """
        if not (force or self.needs_compression()):
            return []
        try:
            return self._apply(compress(self._working, **self._kwargs(), force=force))
        except ContextOverflowError as exc:
            self._apply(exc.partial)  # keep what was done: its offloads are written
            raise

    async def acompress_if_needed(self, *, force: bool = False) -> list[CompressionEvent]:
        """Async twin of :meth:`compress_if_needed`."""
        if not (force or self.needs_compression()):
            return []
        try:
            return self._apply(await acompress(self._working, **self._kwargs(), force=force))
        except ContextOverflowError as exc:
            self._apply(exc.partial)
            raise

    def _kwargs(self) -> dict[str, Any]:
        return {"config": self.config, "counter": self.counter, "offload": self.offload,
                "summarizer": self.summarizer, "on_event": self.on_event,
                "model_calls": self._model_calls, "overhead_tokens": self.hint_tokens,
                "worker": self._worker, "adds_hint": self.hint is not None}

    def _apply(self, result: object) -> list[CompressionEvent]:
        if not isinstance(result, CompressionResult):
            return []
        self._working = result.messages
        self._events.extend(result.events)  # only a pass that is applied is recorded
        self._tally.reset(self._working)
        self._hinted = _any_compressed(self._working)
        return list(result.events)

    # -- reload ----------------------------------------------------------------------

    def reload(self, offload_id: str) -> list[Message]:
        """The original messages behind an offload tag, exactly as they were.

        Raises:
            OffloadNotFoundError: unknown id.
            StoreError: the store failed, or the blob is damaged (the message names it).
        """
        return self.offload.load(offload_id)

    def handle_reload_call(self, tool_input: Any, *, reload_room: int | None | Unset = UNSET
                           ) -> str:
        """Answer a ``context_reload`` tool call; never raises on the model's input.

        Args:
            reload_room: tokens the answer may take; a longer range comes back in pages
                (``{"uuid": ID, "page": N}``). Default: the room left before the trigger
                (:func:`~ctxmgr.autocontext.reload.reload_room`), the first page fixing
                the page size of its range. ``None``: the whole range at once.
        """
        if reload_room is not UNSET:
            return reloading.answer_reload(self.offload, tool_input, reload_room=reload_room,
                                           counter=self.counter).text
        answer = reloading.answer_reload(
            self.offload, tool_input, counter=self.counter,
            reload_room=reloading.reload_room(self.config, self.tokens),
            page_tokens=self._reload_pages)
        if answer.uuid is not None and answer.page_tokens is not None:
            self._keep_page_size(answer.uuid, answer.page_tokens)
        return answer.text

    def _keep_page_size(self, uuid: str, page_tokens: int) -> None:
        self._reload_pages.setdefault(uuid, page_tokens)
        while len(self._reload_pages) > MAX_RELOAD_PAGES:
            del self._reload_pages[next(iter(self._reload_pages))]

    def handle_search_call(self, tool_input: Any) -> str:
        """Answer a ``context_search`` tool call: the lines of the offloaded originals that
        match, newest first, each with the uuid and page a reload gives it back on, within
        the room left before the trigger. Never raises on the model's input."""
        answer = search.handle_search_call(
            self.hidden, tool_input, view=self._working, counter=self.counter,
            room=reloading.reload_room(self.config, self.tokens),
            page_size=reloading.reload_floor(self.config), page_tokens=self._reload_pages)
        for uuid, size in answer.page_tokens.items():  # the pages it named stay those pages
            self._keep_page_size(uuid, size)
        return answer.text

    # -- persistence -----------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The working view and the model-call count as plain JSON. Originals are in the
        offload store (which persists itself), so this grows with the working view only."""
        return {
            "version": 2,
            "working": [message_to_dict(m) for m in self._working],
            "model_calls": self._model_calls,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | str, **kwargs: Any) -> AutoContextMemory:
        """Rebuild from :meth:`to_json` output; ``kwargs`` as for the constructor
        (pass the same ``store``, ``project`` and ``session`` to keep reload working).

        Raises:
            InvalidMessageError: ``data`` is not what :meth:`to_json` writes.
        """
        try:
            state = json.loads(data) if isinstance(data, str) else data
            working = [message_from_dict(d) for d in state["working"]]
            calls = state.get("model_calls")
            if calls is None:  # version 1 kept every original beside the view
                calls = sum(d["role"] == "assistant" for d in state.get("originals", []))
            if isinstance(calls, bool) or not isinstance(calls, int) or calls < 0:
                raise ValueError(f"model_calls must be an int >= 0, got {calls!r}")
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
            raise InvalidMessageError(
                f"not an AutoContextMemory state ({type(exc).__name__}: {exc}); pass what "
                "AutoContextMemory.to_json() returned") from None
        memory = cls(**kwargs)
        memory._working = working
        memory._tally.reset(working)
        memory._model_calls = calls
        memory._hinted = _any_compressed(working)
        return memory

    def __repr__(self) -> str:
        return (f"AutoContextMemory(messages={len(self._working)}, tokens={self.tokens}, "
                f"max_tokens={self.config.max_tokens}, events={len(self._events)})")


def _any_compressed(messages: Iterable[Message]) -> bool:
    return any(CompressedMarker.of(m) is not None for m in messages)
