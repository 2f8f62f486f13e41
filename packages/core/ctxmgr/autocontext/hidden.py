"""What the agent no longer sees: the originals behind a working view's stand-ins.

``context_search`` looks for a detail in these, so they are laid out here as
*passages*: one per original message, rendered exactly as ``context_reload``
renders it, with the offload range that gives it back and where in that range's
reload text it starts (to name the page). Stand-ins inside a range are opened in
place, so a summary of a summary is searched through to the first originals and
no summary text is ever offered as a match.

Each range is read from its search index (:mod:`~ctxmgr.autocontext.search_index`),
or from its blob when it has none. A search passes by, undecoded, every range whose
index shows it cannot hold what it looks for (:meth:`HiddenOriginals.newest_first`).
Offloaded ranges never change (an id names one content), so a range is decoded once
per session and kept in a small cache, and the last complete walk is kept until the
ranges it starts from change (a compression): a search then scans the passages without
building them again.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.reload import reload_text_pages
from ctxmgr.autocontext.reload_text import SEPARATOR
from ctxmgr.autocontext.search_index import (
    MessageEntry,
    RangeIndex,
    entries_text,
    message_entries,
    saved_line_counts,
    stand_in_ids,
)
from ctxmgr.errors import OffloadNotFoundError
from ctxmgr.messages import Message
from ctxmgr.tokens import TokenCounter

__all__ = ["HiddenOriginals", "MayHold", "Passage"]

logger = logging.getLogger(__name__)

MayHold = Callable[[RangeIndex], bool]
"""Whether a range, by its index, may hold what a search looks for (no: the range is not
decoded, and its passages are left out of that search)."""


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


class _Item(NamedTuple):
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
    """One offloaded range, decoded once: its reload text, and its items."""

    text: str
    """Its reload text (:func:`render_reloaded` of its messages)."""
    messages: int
    """How many messages it holds."""
    parts: tuple[_Run | _Item, ...]
    """Its items, runs of plain ones together (see :func:`_parts`)."""
    saved_counts: bytes = b"null"
    """Its text's line counts as its index saved them (see :func:`saved_line_counts`)."""


class HiddenOriginals:
    """The hidden originals of one session's offload store, read through a cache."""

    def __init__(self, offload: OffloadStore, *, max_ranges: int = 4096) -> None:
        self.offload = offload
        self.max_ranges = max_ranges
        self._ranges: OrderedDict[str, _Range] = OrderedDict()
        self._indexes: OrderedDict[str, RangeIndex] = OrderedDict()
        """Indexes read and not decoded yet (a search passed their ranges by)."""
        self._unindexed: set[str] = set()
        """Ranges whose index was missing or damaged when read: read from their blobs."""
        self._pages: dict[tuple[str, int, int], list[int]] = {}
        self._walked: tuple[tuple[str, ...], list[Passage]] | None = None
        """The last complete walk: the ranges it started from, and its passages."""

    def page_starts(self, offload_id: str, page_tokens: int, counter: TokenCounter
                    ) -> list[int] | None:
        """Where each page of a ``context_reload`` of the range with pages of
        ``page_tokens`` starts in its reload text (``None``: the range cannot be read).
        Cutting pages counts the whole range, so the answer is kept."""
        key = (offload_id, page_tokens, id(counter))
        if key in self._pages:
            return self._pages[key]
        got = self._range(offload_id)
        if got is None:
            return None
        lines = saved_line_counts(got.saved_counts, counter, len(got.text))
        starts = [0]
        for page in reload_text_pages(offload_id, got.messages, got.text, page_tokens,
                                      counter, lines=lines)[:-1]:
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
        roots, complete = self._roots(view)
        key = tuple(roots)
        if self._walked is not None and self._walked[0] == key:
            return list(self._walked[1])
        self._read_indexes(roots)
        walk = _Walk(self)
        for root in roots:
            walk.root(root)
        if complete and not walk.unread:  # a range not read now may be readable later
            self._walked = (key, walk.out)
        return list(walk.out)

    def newest_first(self, view: Sequence[Message], may_hold: MayHold | None
                     ) -> tuple[Iterator[Passage], int]:
        """:meth:`passages` newest first, as a search reads them, and how many there are.

        They are read as the reader gets to them: a range is decoded only when its turn
        comes, and one whose index ``may_hold`` says no to is passed by undecoded, so a
        search that has seen enough stops before the older ranges are read. (Where the
        original of a tool result names its call from an earlier range, the name comes
        from every range's calls, not only the earlier ones'.)
        """
        roots, _ = self._roots(view)
        if self._walked is not None and self._walked[0] == tuple(roots):
            done = self._walked[1]
            return reversed(done), len(done)
        self._read_indexes(roots)
        plan = _Plan(self, roots)
        return plan.newest_first(may_hold), plan.count

    def _roots(self, view: Sequence[Message]) -> tuple[list[str], bool]:
        """The ranges a walk starts from: those ``view``'s stand-ins name, then every range
        by id; and whether the store could list them all."""
        roots = [oid for m in view for oid in stand_in_ids(m)]
        try:
            roots.extend(sorted(self.offload.ids()))
        except Exception as exc:  # any backend failure: the ranges the view names remain
            logger.warning("cannot list the offloaded ranges of %s: %r", self.offload.namespace,
                           exc)
            return roots, False
        return roots, True

    def _read_indexes(self, ids: Sequence[str]) -> None:
        """Read the indexes of the ranges not cached yet, at once where the store can."""
        todo = [oid for oid in dict.fromkeys(ids) if oid not in self._ranges
                and oid not in self._indexes and oid not in self._unindexed]
        for oid, raw in self.offload.load_indexes(todo).items():
            if raw is None or self._keep_index(oid, raw) is None:
                self._unindexed.add(oid)

    def _keep_index(self, offload_id: str, raw: bytes) -> RangeIndex | None:
        try:
            index = RangeIndex(offload_id, raw)
        except (ValueError, TypeError, RecursionError) as exc:  # damaged: the blob has it
            _damaged(offload_id, exc)
            return None
        self._indexes[offload_id] = index
        while len(self._indexes) > self.max_ranges:
            self._indexes.popitem(last=False)
        return index

    def _shape(self, offload_id: str) -> _Range | RangeIndex | None:
        """What a walk's plan looks at: the range if it is decoded, else its index, else
        the range decoded from its messages; ``None`` when it cannot be read."""
        if offload_id in self._ranges:
            self._ranges.move_to_end(offload_id)
            return self._ranges[offload_id]
        index = self._indexes.get(offload_id)
        if index is None and offload_id not in self._unindexed:
            raw = self.offload.load_index(offload_id)
            index = None if raw is None else self._keep_index(offload_id, raw)
            if index is None:
                self._unindexed.add(offload_id)
        return index if index is not None else self._range(offload_id)

    def _range(self, offload_id: str, index: RangeIndex | None = None) -> _Range | None:
        """The range decoded (from ``index`` when given), read once."""
        if offload_id in self._ranges:
            self._ranges.move_to_end(offload_id)
            return self._ranges[offload_id]
        index = index or self._indexes.get(offload_id)
        built = None
        if index is not None:
            try:
                entries, text = index.entries()
                built = _build(offload_id, entries, text, index.saved_counts)
            except (ValueError, TypeError, RecursionError) as exc:
                _damaged(offload_id, exc)
            self._indexes.pop(offload_id, None)
        if built is None:
            try:
                messages = self.offload.load(offload_id)
            except OffloadNotFoundError:
                return None  # not cached: it may be written later
            except Exception as exc:  # any backend failure: search the rest; not cached
                logger.warning("cannot read offloaded range %s: %r", offload_id, exc)
                return None
            entries = message_entries(messages)
            built = _build(offload_id, entries, entries_text(entries))
        self._ranges[offload_id] = built
        while len(self._ranges) > self.max_ranges:
            self._ranges.popitem(last=False)
        return built


class _Walk:
    """One walk over the ranges: their passages in order, nested ranges opened in place
    (an explicit stack: a summary of a summary may nest deeply)."""

    def __init__(self, hidden: HiddenOriginals) -> None:
        self.hidden = hidden
        self.out: list[Passage] = []
        self.unread: list[str] = []
        self.seen: set[str] = set()
        self.names: dict[str, str] = {}
        """The tool name of each call met so far, to label a result in a later range."""

    def root(self, root: str) -> None:
        stack: list[Iterator[_Run | _Item]] = []
        self._open(root, stack)
        names, out = self.names, self.out
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
                    self._open(part.inner, stack)
                elif part.passage is not None:
                    out.append(_named(part.passage, part.call, names))

    def _open(self, offload_id: str, stack: list[Iterator[_Run | _Item]]) -> None:
        if offload_id in self.seen:
            return
        self.seen.add(offload_id)
        got = self.hidden._range(offload_id)
        if got is None:
            self.unread.append(offload_id)
        else:
            stack.append(iter(got.parts))


class _Plan:
    """The walk's shape, from the indexes alone: which range opens which nested range
    (the first stand-in met for it, walking in conversation order), every call's tool
    name, and how many passages there are; then the passages, newest first, each range
    decoded when its turn comes."""

    def __init__(self, hidden: HiddenOriginals, roots: Sequence[str]) -> None:
        self.hidden = hidden
        self.tops: list[str] = []
        self.opens: dict[str, set[int]] = {}
        """For each range walked: the places (k: its k-th stand-in) that open a range."""
        self.shapes: dict[str, _Range | RangeIndex] = {}
        self.names: dict[str, str] = {}
        self.count = 0
        seen: set[str] = set()
        for root in roots:
            if self._enter(root, seen):
                self.tops.append(root)

    def _enter(self, root: str, seen: set[str]) -> bool:
        """Walk ``root`` and what it opens (an explicit stack: nesting may be deep)."""
        if root in seen or not self._shape(root):
            return False
        seen.add(root)
        stack = [(root, iter(enumerate(_inner(self.shapes[root]))))]
        while stack:
            oid, inner = stack[-1]
            step = next(inner, None)
            if step is None:
                stack.pop()
                continue
            k, child = step
            if child not in seen and self._shape(child):
                seen.add(child)
                self.opens[oid].add(k)
                stack.append((child, iter(enumerate(_inner(self.shapes[child])))))
        return True

    def _shape(self, offload_id: str) -> bool:
        """Learn a range's shape (its index, else the range decoded); ``False``: it
        cannot be read."""
        got = self.hidden._shape(offload_id)
        if got is None:
            return False
        self.shapes[offload_id] = got
        self.opens[offload_id] = set()
        if isinstance(got, RangeIndex):
            self.names.update(got.uses)
            self.count += got.shown
        else:
            for part in got.parts:
                self.names.update(part.uses)
                self.count += (len(part.passages) if isinstance(part, _Run)
                               else part.passage is not None)
        return True

    def newest_first(self, may_hold: MayHold | None) -> Iterator[Passage]:
        stack: list[Iterator[Passage | str]] = [iter(self.tops[::-1])]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
            elif isinstance(step, str):
                stack.append(self._backwards(step, may_hold))
            else:
                yield step

    def _backwards(self, offload_id: str, may_hold: MayHold | None) -> Iterator[Passage | str]:
        """One range's passages newest first, and the ranges it opens where they are."""
        opens = self.opens[offload_id]
        shape = self.shapes[offload_id]
        if isinstance(shape, RangeIndex) and may_hold is not None and not may_hold(shape):
            yield from (shape.inner[k] for k in sorted(opens, reverse=True))
            return
        built = self.hidden._range(offload_id)
        if built is None:  # its blob is gone since its index was read: its nested ones
            yield from (_inner(shape)[k] for k in sorted(opens, reverse=True))
            return
        k = sum(1 for _ in _inner(built))
        names = self.names
        for part in reversed(built.parts):
            if isinstance(part, _Run):
                yield from reversed(part.passages)
            elif part.inner is not None:
                k -= 1
                if k in opens:
                    yield part.inner
            elif part.passage is not None:
                yield _named(part.passage, part.call, names)


def _inner(shape: _Range | RangeIndex) -> Sequence[str]:
    """The ranges a range's stand-ins stand for, in order."""
    if isinstance(shape, RangeIndex):
        return shape.inner
    return [p.inner for p in shape.parts if isinstance(p, _Item) and p.inner is not None]


def _named(passage: Passage, call: str | None, names: dict[str, str]) -> Passage:
    """``passage``, a result labelled by its call's tool when the ``call`` is in another
    range (``names``: the calls walked)."""
    if call is not None and call in names:
        return replace(passage, label=f"{names[call]} result")
    return passage


def _damaged(offload_id: str, exc: Exception) -> None:
    logger.warning("the search index of %s is damaged (%s); its messages are read instead",
                   offload_id, exc)


def _build(offload_id: str, entries: Sequence[MessageEntry], text: str,
           saved_counts: bytes = b"null") -> _Range:
    """A range decoded: each message's passage (where it starts in ``text``) and item."""
    items: list[_Item] = []
    offset = 0
    for e in entries:
        passage: Passage | None = None
        if e.inner is None and e.text:
            passage = Passage(text=e.text, source=offload_id, offset=offset, label=e.label)
        items.append(_Item(e.inner, e.uses, passage, e.call if passage is not None else None))
        if e.text:
            offset += len(e.text) + len(SEPARATOR)
    return _Range(text=text, messages=len(entries), parts=_parts(items),
                  saved_counts=saved_counts)


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
