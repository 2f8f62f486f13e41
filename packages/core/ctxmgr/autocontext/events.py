"""CompressionEvent: what each compression step did, with real token numbers.

Events go to the caller's callback and to the ``ctxmgr.autocontext`` logger,
so a user sees compressions in their logs without wiring anything (and, with
OpenTelemetry installed, to their tracing: :mod:`ctxmgr.autocontext.tracing`). A
callback that raises is logged and ignored: observing compression must not stop it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["CompressionEvent", "EventCallback", "emit"]

logger = logging.getLogger("ctxmgr.autocontext")


@dataclass(frozen=True, slots=True, kw_only=True)
class CompressionEvent:
    """One applied (or skipped) compression step."""

    strategy: int
    """The strategy's number: AgentScope's six cheapest first (1-6), then the last
    resorts (7-9); see the table of strategies in docs/how-it-decides.md."""
    name: str
    """The strategy's name, e.g. ``"tool_runs"``."""
    status: Literal["applied", "skipped"]
    replaced_ids: tuple[str, ...]
    """Ids of the messages replaced (they are reloadable under ``offload_id``)."""
    offload_id: str | None
    tokens_before: int
    """Prompt tokens before this step."""
    tokens_after: int
    cache_invalidated_tokens: int = 0
    """Prompt tokens of the cached prefix this step cut off: from the first message it
    changed (or, with a session's first compression, from where the reload hint enters
    the prompt, after the system messages) up to where an earlier step of the same pass
    had cut it already, the replaced messages included. The prompt before the pass is
    taken as cached in full, so it is an upper bound; the steps of a pass add up to the
    pass's. 0 for a skipped step."""
    summarizer_input_tokens: int = 0
    summarizer_output_tokens: int = 0
    duration_s: float = 0.0
    reason: str | None = None
    """Why a step was skipped (summarizer error, timeout, empty answer), or why an applied
    one fell back (the note of the user's words written by the reader, not the model)."""
    rejected_quotes: int = 0
    """Lines the summarizer offered as quotes of the user that quote nothing the user
    said: left out of the note (strategy 9 with a model that quotes)."""
    effective_config: Mapping[str, int] = field(default_factory=dict)
    """The sizes the compressor worked with (``AutoContextConfig.effective()``): the
    trigger, the target and every window-scaled value, resolved."""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["replaced_ids"] = list(self.replaced_ids)
        d["effective_config"] = dict(self.effective_config)
        return d


EventCallback = Callable[[CompressionEvent], None]


def emit(event: CompressionEvent, callback: EventCallback | None) -> None:
    if event.status == "applied":
        logger.info(
            "strategy %d (%s): replaced %d message(s), %d -> %d tokens, offload id %s",
            event.strategy, event.name, len(event.replaced_ids), event.tokens_before,
            event.tokens_after, event.offload_id)
    else:
        logger.warning("strategy %d (%s) skipped: %s", event.strategy, event.name, event.reason)
    if callback is not None:
        try:
            callback(event)
        except Exception as exc:  # noqa: BLE001 - an observer's failure is not compression's
            logger.warning("on_event callback raised %s: %s; compression goes on",
                           type(exc).__name__, exc, exc_info=True)
