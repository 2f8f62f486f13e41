"""The two ways a compressed message is recognised: its offload tag and its marker.

The tag ``<!-- CONTEXT_OFFLOAD: uuid=ID -->`` is what the model reads (and
copies into ``context_reload``); the marker is the metadata entry
``{"ctxmgr": {"compressed": true, "strategy": N, "offload_id": ID, ...}}``
that tells ctxmgr itself a message stands in for others, so a summary is never
taken for a final answer. Both are written and read only here.

ctxmgr knows its stand-ins by their marker, never by a tag in their text: a tag someone
else wrote (a user pasting one, a summarizer copying or inventing one) is text. In the
text of a stand-in, where the model would take it for ctxmgr's, it is quoted
(:func:`quote_offload_tags`), so each stand-in shows exactly one tag, its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ctxmgr.messages import Message, TextBlock, ToolResultBlock

__all__ = [
    "OFFLOAD_ID_DIGITS",
    "OFFLOAD_ID_RE",
    "OFFLOAD_TAG_RE",
    "CompressedMarker",
    "find_offload_ids",
    "offload_tag",
    "quote_offload_tags",
    "strip_offload_tags",
    "tagged_size",
    "with_sized_tags",
]

OFFLOAD_ID_DIGITS = 16
"""Hex digits of a new offload id (:meth:`~ctxmgr.autocontext.offload.OffloadStore.id_for`).
The tag stands in every compressed range, so each digit costs tokens in every prompt;
16 are 64 bits: the chance of two ranges of one session clashing is under one in 10^7
even at a million ranges."""

OFFLOAD_ID_RE = re.compile(r"(?:[0-9a-f]{32}|[0-9a-f]{16})")
"""An offload id: :data:`OFFLOAD_ID_DIGITS` hex digits, or 32 for a range offloaded by an
earlier version (its tags and stored blobs still reload)."""

OFFLOAD_TAG_RE = re.compile(rf"<!-- CONTEXT_OFFLOAD: uuid=({OFFLOAD_ID_RE.pattern})"
                            r"(?: \(\d+ characters, \d+ tokens\))? -->")
"""Matches one offload tag; group 1 is the offload id."""

_SIZED_TAG_RE = re.compile(rf"<!-- CONTEXT_OFFLOAD: uuid=({OFFLOAD_ID_RE.pattern}) "
                           r"\((\d+) characters, (\d+) tokens\) -->")

_ANY_TAG_RE = re.compile(r"\n?<!-- CONTEXT_OFFLOAD: uuid=[0-9a-f]+(?: \([^()<>]*\))? -->")

_TAG_LIKE_RE = re.compile(r"<!--\s*CONTEXT[_ ]OFFLOAD\b\s*:?\s*([^>]{0,200}?)\s*-->", re.IGNORECASE)
"""Anything a reader could take for an offload tag, in any spacing or case."""

METADATA_KEY = "ctxmgr"
"""Where the marker lives in :attr:`Message.metadata`."""


def offload_tag(offload_id: str, size: tuple[int, int] | None = None) -> str:
    """The tag a stand-in carries so the model can reload its originals; with ``size``
    (characters, tokens), it says how much a reload gives back, so the model can judge
    whether one is worth it."""
    if size is None:
        return f"<!-- CONTEXT_OFFLOAD: uuid={offload_id} -->"
    return f"<!-- CONTEXT_OFFLOAD: uuid={offload_id} ({size[0]} characters, {size[1]} tokens) -->"


def find_offload_ids(text: str) -> list[str]:
    """Every offload id tagged in ``text``, in order."""
    return OFFLOAD_TAG_RE.findall(text)


def tagged_size(text: str, offload_id: str) -> tuple[int, int] | None:
    """The size the tag of ``offload_id`` in ``text`` states, if it states one."""
    for m in _SIZED_TAG_RE.finditer(text):
        if m[1] == offload_id:
            return int(m[2]), int(m[3])
    return None


def with_sized_tags(message: Message, offload_id: str, size: tuple[int, int]) -> Message:
    """``message`` with each tag of ``offload_id`` stating ``size`` (characters, tokens)."""
    plain, sized = offload_tag(offload_id), offload_tag(offload_id, size)
    blocks = []
    changed = False
    for b in message.content:
        if isinstance(b, TextBlock) and plain in b.text:
            b, changed = replace(b, text=b.text.replace(plain, sized)), True
        elif isinstance(b, ToolResultBlock) and plain in b.text:
            b, changed = replace(b, content=b.text.replace(plain, sized)), True
        blocks.append(b)
    return replace(message, content=tuple(blocks)) if changed else message


def quote_offload_tags(text: str) -> str:
    """``text`` with every offload tag in it (or what looks like one) quoted, so that
    neither the model nor ctxmgr takes it for a tag: what ctxmgr writes into a stand-in
    beside the one tag of its own (a summary, a user's words, a preview)."""
    return _TAG_LIKE_RE.sub(lambda m: f"(quoted offload tag, not ctxmgr's: {m[1]})", text)


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
