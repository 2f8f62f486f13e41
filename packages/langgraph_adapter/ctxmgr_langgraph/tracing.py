"""Compressions as LangChain custom events, so the run's callback handlers see them.

Every :class:`~ctxmgr.CompressionEvent` of a model call (applied or skipped) is
dispatched as the custom event :data:`COMPRESSION_EVENT` (``"ctxmgr.compression"``)
through the callbacks of the run that prepared the call: the model node's run for
``ContextMiddleware``, the hook's or the node's own run for ``ContextHook`` and
``ContextNode``. A handler receives it in ``on_custom_event(name, data, run_id=...)``,
and ``astream_events`` yields it as an ``on_custom_event``. ``data`` is the event's
``to_dict()`` (JSON-native) plus the ``session``. (LangSmith's tracer in langchain-core
1.8 and Langfuse's LangChain handler do not record custom events themselves; both take
OpenTelemetry spans, which :mod:`ctxmgr.autocontext.tracing` makes.)

A custom event needs a parent run, which LangChain finds through the run's config: the
config is always passed explicitly (read from the node's argument, or from LangGraph's
context inside a middleware), never left to a context variable that an async task or a
worker thread may not carry. Outside a run (a hook called by hand) nothing is sent.
A handler that raises (one with ``raise_error``) is logged and the model call goes on:
observing a compression must not stop the agent.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ctxmgr import CompressionEvent

try:
    from langchain_core.callbacks import adispatch_custom_event, dispatch_custom_event
    from langchain_core.runnables import RunnableConfig
    from langgraph.config import get_config
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangChain: pip install ".[langgraph]"') from exc

__all__ = ["COMPRESSION_EVENT", "adispatch_compressions", "current_run_config",
           "dispatch_compressions"]

logger = logging.getLogger(__name__)

COMPRESSION_EVENT: Final = "ctxmgr.compression"
"""The name of the custom event each compression is dispatched as."""


def current_run_config() -> RunnableConfig | None:
    """The config of the LangGraph run this code runs in, or ``None`` outside one."""
    try:
        return get_config()
    except RuntimeError:
        return None


def _payload(event: CompressionEvent, session: str) -> dict[str, Any]:
    return {**event.to_dict(), "session": session}


def _has_parent_run(config: Mapping[str, Any] | None) -> bool:
    """A config whose callbacks belong to a run (what a custom event is attached to) and
    include a handler that takes custom events (else there is no one to tell, and the
    events are not built)."""
    callbacks = None if config is None else config.get("callbacks")
    if getattr(callbacks, "parent_run_id", None) is None:
        return False
    handlers = getattr(callbacks, "handlers", None)
    return handlers is None or any(not getattr(h, "ignore_custom_event", False)
                                   for h in handlers)


def dispatch_compressions(events: Sequence[CompressionEvent], config: RunnableConfig | None,
                          *, session: str) -> None:
    """Dispatch each event as :data:`COMPRESSION_EVENT` to the run's handlers; never raises."""
    if not events or not _has_parent_run(config):
        return
    for event in events:
        try:
            dispatch_custom_event(COMPRESSION_EVENT, _payload(event, session), config=config)
        except Exception as exc:  # noqa: BLE001 - an observer's failure is not compression's
            logger.warning("a callback handler raised %s on %s: %s; the model call goes on",
                           type(exc).__name__, COMPRESSION_EVENT, exc, exc_info=True)


async def adispatch_compressions(events: Sequence[CompressionEvent],
                                 config: RunnableConfig | None, *, session: str) -> None:
    """Async twin of :func:`dispatch_compressions` (async handlers are awaited)."""
    if not events or not _has_parent_run(config):
        return
    for event in events:
        try:
            await adispatch_custom_event(COMPRESSION_EVENT, _payload(event, session),
                                         config=config)
        except Exception as exc:  # noqa: BLE001 - an observer's failure is not compression's
            logger.warning("a callback handler raised %s on %s: %s; the model call goes on",
                           type(exc).__name__, COMPRESSION_EVENT, exc, exc_info=True)
