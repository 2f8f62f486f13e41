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


@dataclass(frozen=True, slots=True, kw_only=True)
class CompressedMarker:
    """What ctxmgr records on a message it wrote in place of others."""

    strategy: int
    """The strategy (1-8) that wrote it."""
    offload_id: str
    """Where its originals are: ``context_reload`` with this id gives them back."""
    current_round: bool = False
    """True for a strategy-6 summary of the round still in progress."""

    SUMMARIES = frozenset({1, 4, 6, 7})
    """Strategies whose stand-in replaces a range with one summary message."""

    @property
    def is_summary(self) -> bool:
        return self.strategy in self.SUMMARIES

    @classmethod
    def of(cls, message: Message) -> CompressedMarker | None:
        """The marker on ``message``, or ``None`` for a message ctxmgr did not write."""
        meta = message.metadata.get(METADATA_KEY)
        if not isinstance(meta, Mapping) or not meta.get("compressed"):
            return None
        strategy = meta.get("strategy")
        offload_id = meta.get("offload_id")
        return cls(strategy=strategy if isinstance(strategy, int) else 0,
                   offload_id=offload_id if isinstance(offload_id, str) else "",
                   current_round=bool(meta.get("current_round")))

    def metadata(self, original: Mapping[str, Any]) -> dict[str, Any]:
        """``original`` metadata with this marker added."""
        marker: dict[str, Any] = {"compressed": True, "strategy": self.strategy,
                                  "offload_id": self.offload_id}
        if self.current_round:
            marker["current_round"] = True
        return {**original, METADATA_KEY: marker}
