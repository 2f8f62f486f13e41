"""The summarizer's cool-down: after a call times out, no call for a while.

A model that hung once usually hangs again for a while (an overloaded endpoint, a network
partition). A sync call that timed out keeps its thread until it returns, and while it
runs :class:`~ctxmgr.autocontext.summarizers.SummaryWorker` skips further calls; an async
call is cancelled at its timeout, so nothing would stop the next call from waiting the
full timeout again, on every model call. A :class:`SummaryCooldown` closes that gap for
both: once a call timed out, every call through it is skipped at once until
``summary_cooldown_s`` has passed. A session engine shares one among all its sessions
(threads), so a hung model delays the agent at most once per cool-down period.
"""

from __future__ import annotations

import threading
import time

__all__ = ["SummaryCooldown"]


class SummaryCooldown:
    """Skips summarizer calls for ``seconds`` after one timed out (0: never skips).

    Thread-safe: share one among the sessions of an engine.
    """

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = float(seconds)
        self._until = 0.0
        self._lock = threading.Lock()

    def skip_reason(self) -> str | None:
        """Why a call now should not be made, or ``None`` when it may be."""
        with self._lock:
            left = self._until - time.monotonic()
        if left <= 0:
            return None
        return (f"summarizer timed out recently; not called again for {left:.0f} s more "
                f"(summary_cooldown_s={self.seconds:g})")

    def timed_out(self) -> None:
        """A call timed out: start (or restart) the cool-down."""
        if self.seconds > 0:
            with self._lock:
                self._until = time.monotonic() + self.seconds

    def __repr__(self) -> str:
        return f"SummaryCooldown({self.seconds:g})"
