"""The two ways a compressed message is recognised: its offload tag and its marker.

The tag ``<!-- CONTEXT_OFFLOAD: uuid=ID -->`` is what the model reads (and
copies into ``context_reload``); the marker is the metadata entry
``{"ctxmgr": {"compressed": true, "strategy": N, "offload_id": ID, ...}}``
that tells ctxmgr itself a message stands in for others, so a summary is never
taken for a final answer. Both are written and read only here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxmgr.messages import Message

__all__ = [
    "OFFLOAD_TAG_RE",
    "CompressedMarker",
    "find_offload_ids",
    "offload_tag",
    "strip_offload_tags",
]

OFFLOAD_TAG_RE = re.compile(r"<!-- CONTEXT_OFFLOAD: uuid=([0-9a-f]{32}) -->")
"""Matches one offload tag; group 1 is the offload id (32 hex digits)."""

_ANY_TAG_RE = re.compile(r"\n?<!-- CONTEXT_OFFLOAD: uuid=[0-9a-f]+ -->")

METADATA_KEY = "ctxmgr"
"""Where the marker lives in :attr:`Message.metadata`."""


def offload_tag(offload_id: str) -> str:
    """The tag a stand-in carries so the model can reload its originals."""
    return f"<!-- CONTEXT_OFFLOAD: uuid={offload_id} -->"


def find_offload_ids(text: str) -> list[str]:
    """Every offload id tagged in ``text``, in order."""
    return OFFLOAD_TAG_RE.findall(text)


def strip_offload_tags(text: str) -> str:
    """``text`` without its offload tags (to carry an earlier summary into a new one)."""
    return _ANY_TAG_RE.sub("", text)


_LEGACY_RANGES = frozenset({1, 4, 6, 7})
"""Markers written before they recorded ``range`` (checkpoints of older versions): the
strategies whose stand-in was then one message for a range."""
_LEGACY_ROUND_ENDS = frozenset({4})


@dataclass(frozen=True, slots=True, kw_only=True)
class CompressedMarker:
    """What ctxmgr records on a message it wrote in place of others.

    The strategy that wrote it declares what the marker says (see
    :class:`~ctxmgr.autocontext.strategies.base.Strategy`), so no reader needs to know
    strategy numbers.
    """

    strategy: int
    """The strategy that wrote it (its ``number``)."""
    offload_id: str
    """Where its originals are: ``context_reload`` with this id gives them back."""
    range: bool = False
    """One message standing for a range (a summary or a note), not a message cut to a
    preview: it is never taken for a final answer."""
    closes_round: bool = False
    """It stands for finished rounds, each ending with the agent's answer."""
    current_round: bool = False
    """It summarizes the round still in progress."""

    @property
    def is_summary(self) -> bool:
        return self.range

    @classmethod
    def of(cls, message: Message) -> CompressedMarker | None:
        """The marker on ``message``, or ``None`` for a message ctxmgr did not write."""
        meta = message.metadata.get(METADATA_KEY)
        if not isinstance(meta, Mapping) or not meta.get("compressed"):
            return None
        strategy = meta.get("strategy")
        number = strategy if isinstance(strategy, int) and not isinstance(strategy, bool) else 0
        offload_id = meta.get("offload_id")
        is_range = meta.get("range")
        closes = meta.get("closes_round")
        return cls(strategy=number,
                   offload_id=offload_id if isinstance(offload_id, str) else "",
                   range=bool(is_range) if is_range is not None else number in _LEGACY_RANGES,
                   closes_round=(bool(closes) if closes is not None
                                 else number in _LEGACY_ROUND_ENDS),
                   current_round=bool(meta.get("current_round")))

    def metadata(self, original: Mapping[str, Any]) -> dict[str, Any]:
        """``original`` metadata with this marker added."""
        marker: dict[str, Any] = {"compressed": True, "strategy": self.strategy,
                                  "offload_id": self.offload_id, "range": self.range}
        if self.closes_round:
            marker["closes_round"] = True
        if self.current_round:
            marker["current_round"] = True
        return {**original, METADATA_KEY: marker}
