"""Compressions as LlamaIndex instrumentation events, so the app's event handlers see them.

Every :class:`~ctxmgr.CompressionEvent` (applied or skipped) of a ``ContextMemory``
``get`` / ``aget`` or of a ``ContextFunctionAgent`` / ``ContextReActAgent`` step is
dispatched as a :class:`ContextCompressionEvent` through this module's dispatcher
(``get_dispatcher(__name__)``), which hands it up to the root dispatcher: a
``BaseEventHandler`` added there (as Arize Phoenix, Langfuse and the other LlamaIndex
integrations do) receives it, tied to the span that was open (the agent's step, the
memory call) through its ``span_id``. LlamaIndex's dispatcher already keeps a handler
that raises from stopping anything; this module adds the same guard around building
the event.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ctxmgr import CompressionEvent

try:
    from llama_index.core.instrumentation import get_dispatcher
    from llama_index.core.instrumentation.events import BaseEvent
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["ContextCompressionEvent", "adispatch_compressions", "dispatch_compressions"]

logger = logging.getLogger(__name__)
dispatcher = get_dispatcher(__name__)


class ContextCompressionEvent(BaseEvent):
    """One compression step of ctxmgr, as a LlamaIndex instrumentation event.

    The fields are those of :class:`~ctxmgr.CompressionEvent` (``name`` is
    ``strategy_name`` here), plus the memory's ``session``.
    """

    strategy: int
    """The strategy's number: the six cheapest first (1-6), then the last resorts (7-9)."""
    strategy_name: str
    status: str
    """``"applied"`` or ``"skipped"``."""
    replaced_ids: list[str]
    """Ids of the messages replaced (reloadable under ``offload_id``)."""
    offload_id: str | None
    tokens_before: int
    tokens_after: int
    cache_invalidated_tokens: int
    """Prompt tokens of the cached prefix the step cut off (an upper bound)."""
    summarizer_input_tokens: int
    summarizer_output_tokens: int
    duration_s: float
    reason: str | None
    """Why a step was skipped."""
    session: str

    @classmethod
    def class_name(cls) -> str:
        return "ContextCompressionEvent"

    @classmethod
    def from_compression(cls, event: CompressionEvent, *, session: str
                         ) -> ContextCompressionEvent:
        """The instrumentation event of one :class:`~ctxmgr.CompressionEvent`."""
        return cls(strategy=event.strategy, strategy_name=event.name, status=event.status,
                   replaced_ids=list(event.replaced_ids), offload_id=event.offload_id,
                   tokens_before=event.tokens_before, tokens_after=event.tokens_after,
                   cache_invalidated_tokens=event.cache_invalidated_tokens,
                   summarizer_input_tokens=event.summarizer_input_tokens,
                   summarizer_output_tokens=event.summarizer_output_tokens,
                   duration_s=event.duration_s, reason=event.reason, session=session)


def dispatch_compressions(events: Sequence[CompressionEvent], *, session: str) -> None:
    """Dispatch each event to LlamaIndex's event handlers; never raises."""
    for event in events:
        try:
            dispatcher.event(ContextCompressionEvent.from_compression(event, session=session))
        except Exception as exc:  # noqa: BLE001 - an observer's failure is not compression's
            logger.warning("dispatching a compression event raised %s: %s; the model call "
                           "goes on", type(exc).__name__, exc, exc_info=True)


async def adispatch_compressions(events: Sequence[CompressionEvent], *, session: str) -> None:
    """Async twin of :func:`dispatch_compressions` (async handlers are awaited)."""
    for event in events:
        try:
            await dispatcher.aevent(
                ContextCompressionEvent.from_compression(event, session=session))
        except Exception as exc:  # noqa: BLE001 - an observer's failure is not compression's
            logger.warning("dispatching a compression event raised %s: %s; the model call "
                           "goes on", type(exc).__name__, exc, exc_info=True)
