"""Token counts calibrated against what the model reports it was sent.

ctxmgr counts with tiktoken; Claude, Gemini or Llama count the same prompt
differently, often 10-30 % higher, so a budget met by tiktoken's count can still
overflow their window. When the model reports ``usage_metadata["input_tokens"]``,
the ratio of that figure to ctxmgr's own count of the same request is tracked
(a moving average kept in the graph state), and counts are scaled by it,
rounded up to the next 5 %, so budgets hold in the model's own tokens.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ctxmgr import Message, TokenCounter

__all__ = ["MAX_RATIO", "MIN_RATIO", "ScaledCounter", "ratio_of", "updated_calibration"]

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

    def count_uncached(self, message: Message) -> int:
        return math.ceil(self.base.count(message) * self.ratio)

    def __repr__(self) -> str:
        return f"ScaledCounter({self.base!r}, ratio={self.ratio:.2f})"


def ratio_of(calibration: Mapping[str, Any] | None) -> float:
    """The counting ratio a calibration record asks for (1.0 when there is none)."""
    if not calibration:
        return 1.0
    try:
        value = float(calibration.get("ratio", 1.0))
    except (TypeError, ValueError):
        return 1.0
    if not math.isfinite(value):
        return 1.0
    value = min(MAX_RATIO, max(MIN_RATIO, value))
    return round(math.ceil(round(value / STEP, 6)) * STEP, 2)


def updated_calibration(calibration: Mapping[str, Any] | None, *, counted: int,
                        reported: Any) -> dict[str, Any] | None:
    """The calibration record after one model call, or ``None`` when nothing changes.

    Args:
        calibration: the record so far (``{"ratio": float, "samples": int}``) or ``None``.
        counted: ctxmgr's count (base counter) of everything the request sent.
        reported: ``usage_metadata["input_tokens"]`` of the answer, if any.
    """
    if isinstance(reported, bool) or not isinstance(reported, int | float) or reported <= 0:
        return None
    if counted < MIN_SAMPLE_TOKENS:
        return None
    observed = min(MAX_RATIO, max(MIN_RATIO, reported / counted))
    samples = int((calibration or {}).get("samples", 0) or 0)
    previous = float((calibration or {}).get("ratio", observed) or observed)
    ratio = observed if samples == 0 else (1 - WEIGHT) * previous + WEIGHT * observed
    record = {"ratio": round(ratio, 4), "samples": samples + 1}
    if calibration and ratio_of(calibration) == ratio_of(record) and samples >= 3:
        return None  # same counting step: no need to write the state again
    return record
