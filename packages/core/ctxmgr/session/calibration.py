"""Token counts calibrated against what the model reports it was sent.

ctxmgr counts with tiktoken; Claude, Gemini or Llama count the same prompt
differently, often 10-30 % higher, so a budget met by tiktoken's count can still
overflow their window. When a model reports the input tokens of a call, the ratio
of that figure to ctxmgr's own count of the same request is tracked (a moving
average kept in the session state), and counts are scaled by it, rounded up to
the next 5 %, so budgets hold in the model's own tokens. Every adapter feeds it
the same way: what was sent (:attr:`~ctxmgr.session.Turn.sent_tokens`) and what
the provider reported.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxmgr.messages import Message
from ctxmgr.tokens import LineSum, TokenCounter

__all__ = ["MAX_RATIO", "MIN_RATIO", "Calibration", "ScaledCounter"]

STEP = 0.05
"""Ratios are rounded up to a multiple of this, so counts are cached per step, not per call."""
MIN_RATIO = 0.5
MAX_RATIO = 4.0
MIN_SAMPLE_TOKENS = 200
"""Requests smaller than this are not used: fixed framing dominates their ratio."""
WEIGHT = 0.5
"""Weight of the newest observation in the moving average."""


class ScaledCounter(TokenCounter):
    """``base``'s counts times ``ratio``, rounded up (the base count stays cached too)."""

    def __init__(self, base: TokenCounter, ratio: float) -> None:
        self.base = base
        self.ratio = ratio
        self.cache_key = f"{base.cache_key}*{ratio:.2f}"
        self.per_message = base.per_message
        self.per_tool_call = base.per_tool_call
        self.per_request = math.ceil(base.per_request * ratio)

    def count_text(self, text: str) -> int:
        return math.ceil(self.base.count_text(text) * self.ratio)

    def line_sum(self) -> LineSum | None:
        inner = self.base.line_sum()
        if inner is None:
            return None
        counter, total = inner
        ratio = self.ratio
        return counter, lambda tokens: math.ceil(total(tokens) * ratio)

    def count_uncached(self, message: Message) -> int:
        return math.ceil(self.base.count(message) * self.ratio)

    def __repr__(self) -> str:
        return f"ScaledCounter({self.base!r}, ratio={self.ratio:.2f})"


@dataclass(frozen=True, slots=True, kw_only=True)
class Calibration:
    """The measured ratio of the model's token counts to ctxmgr's."""

    ratio: float = 1.0
    """Moving average of reported / counted input tokens."""
    samples: int = 0
    """Model calls that reported their input tokens so far."""

    @property
    def counting_ratio(self) -> float:
        """The ratio counts are scaled by: :attr:`ratio` bounded and rounded up to 5 %."""
        if not math.isfinite(self.ratio):
            return 1.0
        value = min(MAX_RATIO, max(MIN_RATIO, self.ratio))
        return round(math.ceil(round(value / STEP, 6)) * STEP, 2)

    def counter(self, base: TokenCounter) -> TokenCounter:
        """``base`` scaled by :attr:`counting_ratio` (``base`` itself at 1.0)."""
        ratio = self.counting_ratio
        return base if ratio == 1.0 else ScaledCounter(base, ratio)

    def observed(self, *, counted: int, reported: Any) -> Calibration | None:
        """The calibration after one model call, or ``None`` when it does not change.

        Args:
            counted: ctxmgr's count, at :attr:`counting_ratio`, of everything the request
                sent (what :attr:`~ctxmgr.session.Turn.sent_tokens` says).
            reported: the input tokens the provider reported for that request, if any.
        """
        if isinstance(reported, bool) or not isinstance(reported, int | float) or reported <= 0:
            return None
        base = counted / self.counting_ratio  # the observation is against the base count
        if base < MIN_SAMPLE_TOKENS:
            return None
        observed = min(MAX_RATIO, max(MIN_RATIO, reported / base))
        ratio = observed if self.samples == 0 else (1 - WEIGHT) * self.ratio + WEIGHT * observed
        after = Calibration(ratio=round(ratio, 4), samples=self.samples + 1)
        if self.samples >= 3 and after.counting_ratio == self.counting_ratio:
            return None  # same counting step: no need to write the state again
        return after

    def to_json(self) -> dict[str, Any]:
        return {"ratio": self.ratio, "samples": self.samples}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Calibration:
        """Read :meth:`to_json` output.

        Raises:
            ValueError: ``data`` is not what :meth:`to_json` writes.
        """
        ratio, samples = data.get("ratio", 1.0), data.get("samples", 0)
        if (isinstance(ratio, bool) or not isinstance(ratio, int | float)
                or not math.isfinite(ratio) or ratio <= 0):
            raise ValueError(f"ratio must be a positive number, got {ratio!r:.40}")
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
            raise ValueError(f"samples must be an int >= 0, got {samples!r:.40}")
        return cls(ratio=float(ratio), samples=samples)
