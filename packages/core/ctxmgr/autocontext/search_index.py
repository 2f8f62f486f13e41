"""What a search needs of one offloaded range, saved beside its blob.

Reading a range back from its blob means JSON-decoding and rebuilding every message:
over a session with 10,000 offloaded messages that is half a second, and the first
``context_search`` after a restart paid it all. So :meth:`OffloadStore.save
<ctxmgr.autocontext.offload.OffloadStore.save>` also writes the range as a search reads
it, under ``<id>.search``: three JSON lines, then the range's reload text
(:func:`~ctxmgr.autocontext.reload_text.render_reloaded`) as UTF-8. The first line is
what a walk needs to pass the range by (its nested ranges, its tool calls, how many
messages it shows), the second where each message's text starts and what it is, the
third the text's tokens line by line when the compression counted them so (a search
names a page of the range without counting it again).

A literal is looked for in the raw bytes first: UTF-8 is self-synchronizing, so the
bytes of a string are found exactly where the string is, and a range without them is
never decoded. The index only saves time: a range without one, or with a damaged one,
is read from its blob.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ctxmgr.autocontext.marker import CompressedMarker, find_offload_ids
from ctxmgr.autocontext.paging import LineCounts
from ctxmgr.autocontext.reload_text import SEPARATOR, render_reloaded
from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from ctxmgr.tokens import TokenCounter

__all__ = ["MessageEntry", "RangeIndex", "encode_index", "entries_text", "message_entries",
           "saved_line_counts", "stand_in_ids"]

_VERSION = 2


class MessageEntry(NamedTuple):
    """One message of a range, as a search sees it (a tuple: a search builds ten
    thousand of these at a restart)."""

    text: str
    """The message as :func:`render_reloaded` renders it ("" for nothing to show)."""
    inner: str | None
    """The offload id it stands for, when it is a stand-in."""
    uses: tuple[tuple[str, str], ...]
    """The (id, tool name) of each tool call it makes."""
    label: str
    """What it is, for the model: ``bash result``, ``assistant, bash call``, ``user``…"""
    call: str | None
    """A tool result whose call the range does not hold before it: the call's id (a walk
    names it from an earlier range)."""


def message_entries(messages: Iterable[Message]) -> list[MessageEntry]:
    """The entries of a range's messages, in order, labelled from the range's own calls."""
    out: list[MessageEntry] = []
    names: dict[str, str] = {}
    for m in messages:
        uses = tuple((use.id, use.name) for use in m.tool_uses)
        names.update(uses)
        results = m.tool_results
        call = results[0].tool_use_id if results else None
        out.append(MessageEntry(text=render_reloaded([m]), inner=next(iter(stand_in_ids(m)), None),
                                uses=uses, label=_label(m, names),
                                call=call if call is not None and call not in names else None))
    return out


def entries_text(entries: Iterable[MessageEntry]) -> str:
    """The reload text of a range whose messages are ``entries`` (:func:`render_reloaded`
    of the range, from each message's own text)."""
    return SEPARATOR.join(e.text for e in entries if e.text)


def encode_index(offload_id: str, messages: Sequence[Message],
                 lines: LineCounts | None = None) -> bytes:
    """The index of the range ``messages`` saved under ``offload_id``, with ``lines``,
    its reload text's :func:`~ctxmgr.autocontext.paging.line_counts` when the caller
    has them (a search then cuts its pages without counting it again)."""
    entries = message_entries(messages)
    head = {"v": _VERSION, "id": offload_id, "messages": len(entries),
            "inner": [e.inner for e in entries if e.inner is not None],
            "uses": dict(u for e in entries for u in e.uses),
            "shown": sum(1 for e in entries if e.inner is None and e.text)}
    rows = [[len(e.text), e.inner, [list(u) for u in e.uses], e.label, e.call] for e in entries]
    joined = entries_text(entries)
    counts = None
    if lines is not None:
        chars, tokens = lines.pieces(len(joined))
        if min(chars, default=0) >= 0 and sum(chars) == len(joined):  # of this very text
            counts = {"key": lines.counter.cache_key, "chars": chars, "tokens": tokens}
    text = joined.encode("utf-8", "surrogatepass")
    head["bytes"] = len(text)
    return b"\n".join((json.dumps(head).encode("ascii"), json.dumps(rows).encode("ascii"),
                       json.dumps(counts).encode("ascii"), text))


class RangeIndex:
    """A range's index as read from the store: the walk's part decoded, the rest raw.

    Raises:
        ValueError: the bytes are not an index of ``offload_id`` (a damaged or foreign
            blob: read the range from its own blob instead).
    """

    __slots__ = ("_counts_at", "_raw", "_rows_at", "_text", "_text_at", "inner", "messages",
                 "shown", "uses")

    def __init__(self, offload_id: str, raw: bytes) -> None:
        first = raw.find(b"\n")
        second = raw.find(b"\n", first + 1)
        third = raw.find(b"\n", second + 1)
        if first < 0 or second < 0 or third < 0:
            raise ValueError("it is not a search index")
        head = json.loads(raw[:first])
        if not isinstance(head, dict) or head.get("v") != _VERSION or head.get("id") != offload_id:
            raise ValueError(f"it is not a version-{_VERSION} index of {offload_id}")
        if head.get("bytes") != len(raw) - third - 1:
            raise ValueError("its text is not as long as it says")
        self.messages: int = _int(head.get("messages"))
        self.shown: int = _int(head.get("shown"))
        self.inner: tuple[str, ...] = tuple(_strings(head.get("inner")))
        uses = head.get("uses")
        if not isinstance(uses, dict):
            raise ValueError("its calls are not a mapping of id to name")
        self.uses: dict[str, str] = uses
        """The tool name of each call the range makes (a damaged name is shown as is)."""
        self._raw = raw
        self._rows_at = first + 1
        self._counts_at = second + 1
        self._text_at = third + 1
        self._text: str | None = None

    def may_hold(self, needle: bytes) -> bool:
        """Whether the reload text may hold ``needle`` (the UTF-8 of a literal; a match
        across two messages' texts also says yes)."""
        return self._raw.find(needle, self._text_at) >= 0

    @property
    def saved_counts(self) -> bytes:
        """The reload text's line counts as saved (JSON; ``null``: none were): read them
        with :func:`saved_line_counts`."""
        return self._raw[self._counts_at:self._text_at - 1]

    def text(self) -> str:
        """The range's reload text, decoded once (a pattern looked for in every range's
        text decodes them all; the next search reuses them)."""
        if self._text is None:
            self._text = str(memoryview(self._raw)[self._text_at:], "utf-8", "surrogatepass")
        return self._text

    def entries(self) -> tuple[list[MessageEntry], str]:
        """Every message's entry, its text cut from the reload text; and that text.

        Raises:
            ValueError, TypeError: the layout does not fit the text (a damaged index; a
                damaged name or id of a call only shows as it is).
        """
        rows = json.loads(self._raw[self._rows_at:self._counts_at - 1])
        text = self.text()
        if not isinstance(rows, list) or len(rows) != self.messages:
            raise ValueError("its layout does not list every message")
        out: list[MessageEntry] = []
        at = 0
        for chars, inner, uses, label, call in rows:  # a damaged row: Type- or ValueError
            end = at + chars
            out.append(MessageEntry(text[at:end], inner,
                                    tuple(map(tuple, uses)) if uses else (), label, call))
            if chars:
                at = end + len(SEPARATOR)
        if max(0, at - len(SEPARATOR)) != len(text) or any(r[0] < 0 for r in rows):
            raise ValueError("its layout does not cover its text")
        return out, text


def saved_line_counts(saved: bytes, counter: TokenCounter, text_chars: int
                      ) -> LineCounts | None:
    """:attr:`RangeIndex.saved_counts` for ``counter`` (``None``: none were saved, they
    are damaged, or another tokenizer counted them)."""
    try:
        counts = json.loads(saved)
        if not isinstance(counts, dict):
            return None
        chars, tokens = counts["chars"], counts["tokens"]
        if sum(chars) != text_chars or min(chars, default=0) < 0 or min(tokens, default=0) < 0:
            return None
        return LineCounts.from_pieces(counter, counts["key"], chars, tokens)
    except (ValueError, TypeError, KeyError, RecursionError):
        return None


def stand_in_ids(m: Message) -> Sequence[str]:
    """The offload ids a message stands for: its marker's, else the tags it carries."""
    marker = CompressedMarker.of(m)
    if marker is None:
        return ()
    if marker.offload_id:
        return (marker.offload_id,)
    return [oid for b in m.content if isinstance(b, TextBlock | ToolResultBlock)
            for oid in find_offload_ids(b.text)]


def _label(m: Message, names: dict[str, str]) -> str:
    """What a passage is, as the model knows it: the role, or the tool result's call."""
    results = m.tool_results
    if results:
        name = names.get(results[0].tool_use_id)
        return f"{name} result" if name else "tool result"
    uses = [b.name for b in m.content if isinstance(b, ToolUseBlock)]
    if m.role == "assistant" and uses:
        return f"assistant, {', '.join(dict.fromkeys(uses))} call"
    return m.role


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{value!r:.40} is not a count")
    return value


def _strings(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("its nested ranges are not a list of ids")
    return value
