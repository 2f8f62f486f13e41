"""AutoContextMemory: the stateful face of the compressor.

It holds the working view (what the model is sent), every original message
ever added, the offload store and the events. ``compress_if_needed`` is O(1)
when nothing needs doing: a running token tally answers the trigger without
recounting the history.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.events import CompressionEvent, EventCallback
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.pipeline import CompressionResult, acompress, compress, needs_compression
from ctxmgr.autocontext.reload import handle_reload_call
from ctxmgr.autocontext.summarizers import ExtractiveSummarizer
from ctxmgr.errors import ContextOverflowError
from ctxmgr.messages import Message, message_from_dict, message_to_dict
from ctxmgr.store.base import Store
from ctxmgr.store.memory import InMemoryStore
from ctxmgr.tokens import TokenCounter, TokenTally, default_counter

__all__ = ["AutoContextMemory"]

_DEFAULT = object()


class AutoContextMemory:
    """Progressive, reversible compression of one agent's history.

    Example::

        memory = AutoContextMemory(AutoContextConfig(max_tokens=32_000))
        memory.add(history)
        memory.compress_if_needed()
        prompt = memory.messages          # send this to the model
        memory.reload(offload_id)         # any original, byte for byte

    Args:
        config: thresholds and switches; defaults follow SPEC §5.1.
        counter: token counter; default: exact tiktoken, offline.
        summarizer: object with ``summarize`` / ``asummarize``; default the
            deterministic :class:`ExtractiveSummarizer`; ``None`` disables the LLM
            strategies (1, 4, 5, 6).
        store: where offloaded originals go; default in memory.
        project, session: the offload namespace inside ``store``.
        on_event: called with every :class:`CompressionEvent`.
    """

    def __init__(
        self,
        config: AutoContextConfig | None = None,
        *,
        counter: TokenCounter | None = None,
        summarizer: object | None = _DEFAULT,
        store: Store | None = None,
        project: str = "default",
        session: str = "default",
        on_event: EventCallback | None = None,
    ) -> None:
        self.config = config or AutoContextConfig()
        self.counter = counter or default_counter()
        self.summarizer = ExtractiveSummarizer() if summarizer is _DEFAULT else summarizer
        self.offload = OffloadStore(store or InMemoryStore(), project=project, session=session)
        self.on_event = on_event
        self._working: list[Message] = []
        self._originals: list[Message] = []
        self._events: list[CompressionEvent] = []
        self._tally = TokenTally(self.counter)
        self._model_calls = 0  # assistant messages ever added: the summaries' payback horizon

    # -- history ---------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The working view: what to send to the model (a copy)."""
        return list(self._working)

    @property
    def originals(self) -> list[Message]:
        """Every message ever added, uncompressed, in order (a copy)."""
        return list(self._originals)

    @property
    def events(self) -> list[CompressionEvent]:
        return list(self._events)

    @property
    def tokens(self) -> int:
        """Prompt tokens of the working view."""
        return self._tally.total

    def add(self, messages: Message | Iterable[Message]) -> None:
        """Append messages to both the working view and the originals."""
        new = [messages] if isinstance(messages, Message) else list(messages)
        self._working.extend(new)
        self._originals.extend(new)
        self._tally.extend(new)
        self._model_calls += sum(m.role == "assistant" for m in new)

    def needs_compression(self) -> bool:
        return needs_compression(self._tally.total, len(self._working), self.config)

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
                "summarizer": self.summarizer, "on_event": self._record,
                "model_calls": self._model_calls}

    def _record(self, event: CompressionEvent) -> None:
        self._events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _apply(self, result: CompressionResult | None) -> list[CompressionEvent]:
        if result is None:
            return []
        self._working = result.messages
        self._tally.reset(self._working)
        return list(result.events)

    # -- reload ----------------------------------------------------------------------

    def reload(self, offload_id: str) -> list[Message]:
        """The original messages behind an offload tag, exactly as they were.

        Raises:
            OffloadNotFoundError: unknown id.
        """
        return self.offload.load(offload_id)

    def handle_reload_call(self, tool_input: Any) -> str:
        """Answer a ``context_reload`` tool call; never raises on the model's input."""
        return handle_reload_call(self.offload, tool_input)

    # -- persistence -----------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Working view, originals and events as plain JSON (the offload store persists itself)."""
        return {
            "version": 1,
            "working": [message_to_dict(m) for m in self._working],
            "originals": [message_to_dict(m) for m in self._originals],
            "events": [e.to_dict() for e in self._events],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | str, **kwargs: Any) -> AutoContextMemory:
        """Rebuild from :meth:`to_json` output; ``kwargs`` as for the constructor
        (pass the same ``store``, ``project`` and ``session`` to keep reload working)."""
        state: dict[str, Any] = json.loads(data) if isinstance(data, str) else data
        memory = cls(**kwargs)
        memory._working = [message_from_dict(d) for d in state["working"]]
        memory._originals = [message_from_dict(d) for d in state["originals"]]
        memory._events = [CompressionEvent(**{**e, "replaced_ids": tuple(e["replaced_ids"])})
                          for e in state.get("events", [])]
        memory._tally.reset(memory._working)
        memory._model_calls = sum(m.role == "assistant" for m in memory._originals)
        return memory

    def __repr__(self) -> str:
        return (f"AutoContextMemory(messages={len(self._working)}, tokens={self.tokens}, "
                f"max_tokens={self.config.max_tokens}, events={len(self._events)})")

