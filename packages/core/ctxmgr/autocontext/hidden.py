"""What the agent no longer sees: the originals behind a working view's stand-ins.

``context_search`` looks for a detail in these, so they are laid out here as
*passages*: one per original message, rendered exactly as ``context_reload``
renders it, with the offload range that gives it back and where in that range's
reload text it starts (to name the page). Stand-ins inside a range are opened in
place, so a summary of a summary is searched through to the first originals and
no summary text is ever offered as a match.

Offloaded ranges never change (an id names one content), so each range is read
and rendered once per session and kept in a small cache, and the last walk is kept
until the ranges it starts from change (a compression): a search then scans the
passages without building them again.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from ctxmgr.autocontext.marker import CompressedMarker, find_offload_ids
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.reload import reload_pages, render_reloaded
from ctxmgr.errors import OffloadNotFoundError
from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from ctxmgr.tokens import TokenCounter

__all__ = ["HiddenOriginals", "Passage"]

logger = logging.getLogger(__name__)

_SEPARATOR = "\n\n"
"""What :func:`render_reloaded` puts between two rendered blocks (and so messages)."""


@dataclass(frozen=True, slots=True)
class Passage:
    """One hidden original, as a reload shows it."""

    text: str
    """The message rendered as :func:`render_reloaded` renders it."""
    source: str
    """Where it can be read back: an offload id, ``memo:<key>`` or ``archived:<id>``."""
    offset: int = 0
    """Where ``text`` starts in its offload range's reload text (offloads only)."""
    label: str = ""
    """What it is, for the model: ``bash result``, ``bash call``, ``user``, …"""


@dataclass(frozen=True, slots=True)
class _Item:
    """One message of a range, as a walk needs it (worked out once, when it is read)."""

    inner: str | None
    """The offload id it stands for, when it is a stand-in."""
    uses: tuple[tuple[str, str], ...]
    """The (id, tool name) of each tool call it makes."""
    passage: Passage | None
    """Its passage (``None``: a stand-in, or nothing to show), labelled from the range."""
    call: str | None
    """A tool result whose call the range does not hold before it: the call's id, for a
    walk to name it from an earlier range."""


@dataclass(frozen=True, slots=True)
class _Run:
    """Consecutive items of a range that neither open a nested range nor need a name
    from elsewhere: a walk takes their passages at once, and their calls' names."""

    passages: tuple[Passage, ...]
    uses: dict[str, str]
    """The (id: tool name) of their calls, in order (a later id overrides)."""


@dataclass(frozen=True, slots=True)
class _Range:
    """One offloaded range, read once: its messages, rendered, and nested ranges."""

    messages: tuple[Message, ...]
    parts: tuple[_Run | _Item, ...]
    """Its items, runs of plain ones together (see :func:`_parts`)."""


class HiddenOriginals:
    """The hidden originals of one session's offload store, read through a cache."""

    def __init__(self, offload: OffloadStore, *, max_ranges: int = 4096) -> None:
        self.offload = offload
        self.max_ranges = max_ranges
        self._ranges: OrderedDict[str, _Range | None] = OrderedDict()
        self._pages: dict[tuple[str, int, int], list[int]] = {}
        self._walked: tuple[tuple[str, ...], list[Passage]] | None = None
        """The last complete walk: the ranges it started from, and its passages."""

    def range(self, offload_id: str) -> tuple[Message, ...] | None:
        """The messages of one range (``None``: unknown id, or the store cannot give it)."""
        got = self._range(offload_id)
        return None if got is None else got.messages

    def page_starts(self, offload_id: str, page_tokens: int, counter: TokenCounter
                    ) -> list[int] | None:
        """Where each page of a ``context_reload`` of the range with pages of
        ``page_tokens`` starts in its reload text (``None``: the range cannot be read).
        Cutting pages counts the whole range, so the answer is kept."""
        key = (offload_id, page_tokens, id(counter))
        if key in self._pages:
            return self._pages[key]
        messages = self.range(offload_id)
        if messages is None:
            return None
        starts = [0]
        for page in reload_pages(offload_id, messages, page_tokens, counter)[:-1]:
            starts.append(starts[-1] + len(page))
        self._pages[key] = starts
        while len(self._pages) > self.max_ranges:
            del self._pages[next(iter(self._pages))]
        return starts

    def passages(self, view: Sequence[Message]) -> list[Passage]:
        """Every original hidden behind ``view``'s stand-ins, in conversation order, then
        those of ranges no stand-in in ``view`` leads to (older compressions), by id.

        A range the store cannot read is left out (a reload of it says why).
        """
        roots = [oid for m in view for oid in _stand_in_ids(m)]
        complete = True
        try:
            roots.extend(sorted(self.offload.ids()))
        except Exception as exc:  # any backend failure: the ranges the view names remain
            logger.warning("cannot list the offloaded ranges of %s: %r", self.offload.namespace,
                           exc)
            complete = False
        key = tuple(roots)
        if self._walked is not None and self._walked[0] == key:
            return list(self._walked[1])
        names: dict[str, str] = {}
        out: list[Passage] = []
        seen: set[str] = set()
        unread: list[str] = []
        for root in roots:
            out.extend(self._walk(root, seen, names, unread))
        if complete and not unread:  # a range not read now may be readable later
            self._walked = (key, out)
        return list(out)

    def _walk(self, root: str, seen: set[str], names: dict[str, str], unread: list[str]
              ) -> list[Passage]:
        """The originals of ``root``, nested ranges opened in place (an explicit stack:
        a summary of a summary may nest deeply); ranges that cannot be read go to
        ``unread``."""
        out: list[Passage] = []
        stack: list[Iterator[_Run | _Item]] = []

        def open_range(oid: str) -> None:
            if oid in seen:
                return
            seen.add(oid)
            got = self._range(oid)
            if got is None:
                unread.append(oid)
            else:
                stack.append(iter(got.parts))

        open_range(root)
        while stack:
            part = next(stack[-1], None)
            if part is None:
                stack.pop()
            elif isinstance(part, _Run):
                names.update(part.uses)
                out.extend(part.passages)
            else:
                if part.uses:
                    names.update(part.uses)
                if part.inner is not None:
                    open_range(part.inner)
                elif part.passage is not None:
                    if part.call is not None and part.call in names:
                        out.append(replace(part.passage, label=f"{names[part.call]} result"))
                    else:
                        out.append(part.passage)
        return out

    def _range(self, offload_id: str) -> _Range | None:
        if offload_id in self._ranges:
            self._ranges.move_to_end(offload_id)
            return self._ranges[offload_id]
        try:
            messages = tuple(self.offload.load(offload_id))
        except OffloadNotFoundError:
            return None  # not cached: it may be written later
        except Exception as exc:  # any backend failure: search the rest; not cached
            logger.warning("cannot read offloaded range %s: %r", offload_id, exc)
            return None
        items: list[_Item] = []
        names: dict[str, str] = {}  # the range's own calls, to label its results
        offset = 0
        for m in messages:
            inner = next(iter(_stand_in_ids(m)), None)
            uses = tuple((use.id, use.name) for use in m.tool_uses)
            names.update(uses)
            text = render_reloaded([m])
            passage: Passage | None = None
            call: str | None = None
            if inner is None and text:
                passage = Passage(text=text, source=offload_id, offset=offset,
                                  label=_label(m, names))
                results = m.tool_results
                if results and results[0].tool_use_id not in names:
                    call = results[0].tool_use_id
            items.append(_Item(inner=inner, uses=uses, passage=passage, call=call))
            if text:
                offset += len(text) + len(_SEPARATOR)
        self._ranges[offload_id] = _Range(messages=messages, parts=_parts(items))
        while len(self._ranges) > self.max_ranges:
            self._ranges.popitem(last=False)
        return self._ranges[offload_id]


def _parts(items: Sequence[_Item]) -> tuple[_Run | _Item, ...]:
    """``items`` with each run of plain ones (no nested range, no name needed from
    elsewhere) made one :class:`_Run`: a walk reads no name while it takes them, so their
    calls' names may all be taken at once, and a walk is a step per run, not per message."""
    out: list[_Run | _Item] = []
    passages: list[Passage] = []
    uses: dict[str, str] = {}
    for item in items:
        if item.inner is None and item.call is None:
            uses.update(item.uses)
            if item.passage is not None:
                passages.append(item.passage)
            continue
        if passages or uses:
            out.append(_Run(tuple(passages), uses))
            passages, uses = [], {}
        out.append(item)
    if passages or uses:
        out.append(_Run(tuple(passages), uses))
    return tuple(out)


def _stand_in_ids(m: Message) -> Iterable[str]:
    """The offload ids a message stands for: its marker's, else the tags it carries."""
    marker = CompressedMarker.of(m)
    if marker is not None and marker.offload_id:
        return (marker.offload_id,)
    if marker is None:
        return ()
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
