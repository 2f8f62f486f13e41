"""The ``context_search`` tool: find one detail in what was compressed away.

``context_reload`` gives back a whole range, and a range can be many pages; an
agent that needs the line ``800: def lint_path`` from an old grep needs that line,
not the forty tool results around it. A search answers with the matching lines,
a line of context on each side, where each was found (the offload id and the
reload page that holds it, the memo, or the archived result) and how many more
matches there are, within a token cap sized to the room the prompt has left.

Rules the answers keep, for every caller:

* **Literal by default.** The query is matched as written, case and all; when
  nothing matches exactly, matches that differ only in case are offered and the
  answer says so. ``regex: true`` takes a regular expression (the ``regex``
  package, with a time limit: a pattern that would run away is answered with one
  line, never a hang).
* **Newest first,** one hit per matching line; ``max_results`` hits a page, and
  the last line of an answer says how to ask for the next page.
* **Bounded.** An answer is at most :data:`SEARCH_MAX_TOKENS` tokens and never
  more than the room given; long lines are cut to a window around the match, and
  context lines go before any hit does.
* **Never raises** on anything the model sends.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ctxmgr.autocontext.hidden import HiddenOriginals, MayHold, Passage
from ctxmgr.autocontext.search_index import RangeIndex
from ctxmgr.messages import Message
from ctxmgr.prompts import ToolSpec

if TYPE_CHECKING:
    import regex
from ctxmgr.tokens import TokenCounter, default_counter
from ctxmgr.tool_guard import never_raises
from ctxmgr.tool_input import parse_tool_input

__all__ = ["CONTEXT_SEARCH_TOOL", "DEFAULT_MAX_RESULTS", "MAX_RESULTS", "SEARCH_MAX_TOKENS",
           "TOOL_WORDING", "SearchAnswer", "SearchWording", "answer_search",
           "handle_search_call"]

DEFAULT_MAX_RESULTS = 1
"""Hits a page holds unless the call asks for more. One: an agent searches for a detail
it copies (a path, a name, an error), and the newest line that holds it, with a line of
context on each side, is the one it wants; the first line of the answer says how many
lines match and the last how to get the next. On the recorded coding runs (replay's
``cost_with_recovery``, one search per missing fact) an answer holds 104 tokens on
average with one hit, 131 with two and 149 with three: at a 16k window one hit brings
the recovery bill from 0.034 to 0.030 of no management's cost, and every answer still
holds the fact (benchmarks/bench_replay.py on the recorded runs)."""
MAX_RESULTS = 20
SEARCH_MAX_TOKENS = 1000
"""Largest answer: enough for a page of hits with context, small beside any prompt."""
MAX_QUERY_CHARS = 1000
REGEX_SECONDS = 1.0
"""Time a regular expression may take over every passage of one search."""
MAX_COUNTED = 1_000
"""Matching lines counted before an answer says "more than": past a thousand, the count
only tells the model to narrow the query, and counting stops reading older ranges (a
word on every line of 10,000 offloaded messages: 126-166 ms counted to 10,000, against
a detail's 30-40 ms; benchmarks/bench_search.py)."""

_LINE_CHARS = 120
"""Characters of a matching line shown around the match, before the cap narrows it."""
_CONTEXT_CHARS = 80
_SMALLEST_HIT_TOKENS = 60
"""What one hit takes at most once cut to its narrowest (its place line and a line of 60
characters), with its share of the first and last lines."""

CONTEXT_SEARCH_TOOL = ToolSpec(
    name="context_search",
    description=(
        "Find a detail (a name, an error, a line of a file) in what was compressed out of "
        "your context. Returns the newest matching line with context, the uuid and page "
        "that context_reload gives it back on, and how many more match. Literal unless "
        "regex is true."
    ),
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The text to find."},
            "regex": {"type": "boolean"},
            "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS,
                            "description": "Matches per page."},
            "page": {"type": "integer", "minimum": 1},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)
"""Its schema is kept short: it is sent with every request, and a small window feels it
(about 120 tokens)."""

_USAGE = ('expected {"query": "<text to find>", "regex": false, "max_results": '
          f'{DEFAULT_MAX_RESULTS}, "page": 1}}')

@dataclass(frozen=True, slots=True, kw_only=True)
class SearchWording:
    """How an answer tells its reader to go on: the model calls the tool again, a user of
    ``ctxmgr search`` passes options."""

    next_page: Callable[[int, int | None], str]
    """(the next page, the page size when the cap made it smaller than asked) -> how."""
    no_more: str
    """The last line when no match is left."""
    no_match: str
    """What to try when nothing matched."""


TOOL_WORDING = SearchWording(
    next_page=lambda page, size: "the same call with "
    + (f'"max_results": {size}, ' if size is not None else "") + f'"page": {page}.',
    no_more="No more. context_reload with a uuid and page gives back the whole page.",
    no_match='It may still be in your context; try fewer words, another spelling, or '
             '"regex": true.')

Where = Callable[[Passage, int], str]
"""Where a hit is, for the model: (passage, character offset of the hit in it) -> text
such as ``uuid=… page 2 of 3``."""


@dataclass(frozen=True, slots=True)
class _Query:
    text: str
    regex: bool
    per_page: int
    page: int
    asked: int = 0
    """The ``max_results`` the call gave (``per_page`` may be smaller, to fit the cap)."""


@dataclass(frozen=True, slots=True)
class _Hit:
    passage: Passage
    start: int
    """Start of the matching line in the passage."""
    end: int
    """End of the matching line (its newline excluded)."""
    match: tuple[int, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchAnswer:
    """What one ``context_search`` call answered."""

    text: str
    """The tool result for the model."""
    page_tokens: Mapping[str, int] = field(default_factory=dict)
    """The page size of each range the answer names a page of: keep it (as a reload's
    first page is kept), so a later ``context_reload`` cuts the pages the answer named."""


def _failed(text: str) -> SearchAnswer:
    return SearchAnswer(text=text)


@never_raises("context_search", _failed)
def handle_search_call(hidden: HiddenOriginals, tool_input: Any, *,
                       view: Sequence[Message] = (), room: int | None = None,
                       counter: TokenCounter | None = None,
                       page_tokens: Mapping[str, int] | None = None,
                       page_size: int | None = None,
                       extra: Sequence[Passage] = ()) -> SearchAnswer:
    """Answer one ``context_search`` call over a session's offloaded originals (and
    ``extra`` passages: memos, archived results), naming for each hit the reload page
    that holds it. Never raises.

    Args:
        hidden: the session's offloaded originals.
        view: the working view (its stand-ins order the ranges; others follow).
        room: tokens the answer may take (``None``: :data:`SEARCH_MAX_TOKENS`).
        page_tokens: the page size of each range already reloaded or named (a session's
            ``reload_pages``): its pages are named as that reload cuts them.
        page_size: the page size a range not reloaded yet is named in, and keeps
            (:func:`~ctxmgr.autocontext.reload.reload_floor`: it always fits, and being
            the same on every call, a range is cut into pages once); ``None``: ``room``,
            and with no room either, ranges are one page, as a reload without a room
            gives them.
    """
    counter = counter or default_counter()
    fixed = dict(page_tokens or {})
    named: dict[str, int] = {}

    def where(p: Passage, offset: int) -> str:
        if p.source.startswith("memo:"):
            return f'memo "{p.source[5:]}" (memo read gives it whole)'
        if p.source.startswith("archived:"):
            return f"archived (message_archiving unarchive {p.source[9:]} restores it)"
        size = fixed.get(p.source, page_size if page_size is not None else room)
        starts = hidden.page_starts(p.source, size, counter) if size is not None else None
        if starts is None:
            return f"uuid={p.source}"
        if p.source not in fixed and size is not None:
            named[p.source] = size
        page = bisect.bisect_right(starts, p.offset + offset)
        return f"uuid={p.source} page {page} of {len(starts)}"

    def lookup(may_hold: MayHold | None) -> tuple[Iterator[Passage], int]:
        found, searched = hidden.newest_first(view, may_hold)
        return itertools.chain(reversed(extra), found), searched + len(extra)

    text = answer_search(lookup, tool_input, room=room, counter=counter, where=where)
    return SearchAnswer(text=text, page_tokens=named)


Lookup = Callable[[MayHold | None], tuple[Iterable[Passage], int]]
"""(whether a range may hold the match, or ``None``) -> the passages, newest first, of
the ranges that may (``None``: every one), and how many passages there are in all: a
lookup may leave out, undecoded, ranges it can tell cannot, and read the rest only as
far as the search goes (:meth:`HiddenOriginals.newest_first`)."""


@never_raises("context_search", str)
def answer_search(passages: Sequence[Passage] | Lookup, tool_input: Any, *,
                  room: int | None = None, counter: TokenCounter | None = None,
                  where: Where | None = None, wording: SearchWording | None = None) -> str:
    """Answer one ``context_search`` call over ``passages`` (oldest first). Never raises.

    Args:
        passages: what the agent no longer sees (see :mod:`ctxmgr.autocontext.hidden`),
            or a :data:`Lookup` of it.
        tool_input: ``{"query", "regex", "max_results", "page"}`` as a mapping or JSON.
        room: tokens the answer may take beside the prompt (capped at
            :data:`SEARCH_MAX_TOKENS`); ``None``: that cap.
        counter: counts the answer (default: the exact default counter).
        where: names where a hit is (default: its source).
        wording: how the answer tells its reader to go on (default: the tool's words for
            the model; the ``ctxmgr search`` command names its own options).
    """
    query = _parse(tool_input)
    if isinstance(query, str):
        return query
    cap = min(room, SEARCH_MAX_TOKENS) if room is not None else SEARCH_MAX_TOKENS
    # a page never holds more hits than the cap has room for at their smallest
    query = replace(query, per_page=max(1, min(query.per_page, cap // _SMALLEST_HIT_TOKENS)),
                    asked=query.per_page)
    lookup = passages if callable(passages) else _everything(passages)
    try:
        hits, total, folded, searched = _find(lookup, query)
    except TimeoutError:
        return (f"Error: the regular expression {query.text!r:.80} took longer than "
                f"{REGEX_SECONDS:g} s; make it simpler, or search for a literal word in it.")
    counter = counter or default_counter()
    return _render(query, hits, total, folded, searched, cap, counter,
                   where or _default_where, wording or TOOL_WORDING)


def _everything(passages: Sequence[Passage]) -> Lookup:
    return lambda _: (reversed(passages), len(passages))


def _parse(tool_input: Any) -> _Query | str:
    parsed = parse_tool_input(tool_input, _USAGE)
    if isinstance(parsed, str):
        return parsed
    text = parsed.get("query")
    if not isinstance(text, str) or not text.strip():
        return f"Error: query must be the text to find, got {text!r:.80}; {_USAGE}"
    if len(text) > MAX_QUERY_CHARS:
        return (f"Error: query is {len(text)} characters; search for at most "
                f"{MAX_QUERY_CHARS} (a distinctive part is enough).")
    is_regex = parsed.get("regex", False)
    if isinstance(is_regex, str) and is_regex.strip().lower() in ("true", "false"):
        is_regex = is_regex.strip().lower() == "true"
    if not isinstance(is_regex, bool):
        return f"Error: regex must be true or false, got {is_regex!r:.40}; {_USAGE}"
    numbers = {}
    for name, default in (("max_results", DEFAULT_MAX_RESULTS), ("page", 1)):
        value = parsed.get(name, default)
        if value is None:
            value = default
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            return f"Error: {name} must be a whole number from 1, got {value!r:.40}; {_USAGE}"
        numbers[name] = value
    if is_regex:
        import regex  # with the first search, not at ``import ctxmgr``

        try:
            regex.compile(text)
        except (regex.error, OverflowError, RecursionError) as exc:
            return f"Error: query is not a valid regular expression ({str(exc)[:120]})."
    return _Query(text=text, regex=is_regex, per_page=min(numbers["max_results"], MAX_RESULTS),
                  page=numbers["page"])


def _find(lookup: Lookup, query: _Query) -> tuple[list[_Hit], int, bool, int]:
    """Hits up to the requested page (newest passage first), the number of matching lines
    (counted up to :data:`MAX_COUNTED`), whether only a case-folded match was found, and
    how many passages were searched.

    Raises:
        TimeoutError: a regular expression ran past :data:`REGEX_SECONDS`.
    """
    import regex  # with the first search, not at ``import ctxmgr``

    want = query.page * query.per_page
    deadline = time.monotonic() + REGEX_SECONDS
    if query.regex:
        pattern = regex.compile(query.text)
        passages, searched = lookup(_pattern_filter(pattern, deadline))
        return (*_collect(_regex_matches(passages, pattern, deadline), want), False, searched)
    passages, searched = lookup(_holding(query.text))
    hits, total = _collect(_literal_matches(passages, query.text), want)
    if total:
        return hits, total, False, searched
    folded = regex.compile(regex.escape(query.text), regex.IGNORECASE)
    passages, searched = lookup(_pattern_filter(folded, deadline))
    hits, total = _collect(_regex_matches(passages, folded, deadline), want)
    return hits, total, bool(total), searched


def _pattern_filter(pattern: regex.Pattern[str], deadline: float) -> MayHold | None:
    """Whether a range may hold a match of ``pattern``: the literal every match starts
    with (:func:`_leading_literal`) in its raw bytes, then a match in its whole reload
    text. A pattern that finds in passages joined what it finds in each alone
    (:func:`_joinable`) matches the range's text wherever it matches one of its
    passages; any other is looked for in every range that holds its literal, or in
    every passage (``None``)."""
    literal = _leading_literal(pattern)
    holds = _holding(literal) if literal else None
    if not _joinable(pattern.pattern):
        return holds

    def matches(index: RangeIndex) -> bool:
        return pattern.search(index.text(), timeout=_left(deadline)) is not None

    return matches if holds is None else (lambda index: holds(index) and matches(index))


def _holding(literal: str) -> MayHold:
    """Whether a range may hold ``literal``: its bytes are in the range's raw text."""
    needle = literal.encode("utf-8", "surrogatepass")
    return lambda index: index.may_hold(needle)


_SPECIAL = frozenset("\\.^$*+?{}[]()|")
_OPTIONAL = frozenset("*?{")


def _leading_literal(pattern: regex.Pattern[str]) -> str | None:
    """Text every match of ``pattern`` starts with, when the pattern plainly begins with
    it: the characters before its first special one, less the last when a quantifier
    that allows none of it follows; ``None`` when the pattern has an alternative, a
    group with options (``(?i)``, a lookaround) or is case-blind, or begins with fewer
    than three plain characters (then every range's text is searched)."""
    import regex  # loaded already: ``pattern`` is one of its patterns

    text = pattern.pattern
    if pattern.flags & (regex.IGNORECASE | regex.VERBOSE) or "|" in text or "(?" in text:
        return None
    end = next((k for k, ch in enumerate(text) if ch in _SPECIAL), len(text))
    if end < len(text) and text[end] in _OPTIONAL:
        end -= 1
    return text[:end] if end >= 3 else None


_Match = tuple[Passage, int, int, tuple[int, int]]
"""(passage, line start, line end, match span): the first match on a matching line."""


def _collect(matches: Iterable[_Match], want: int) -> tuple[list[_Hit], int]:
    """The first ``want`` hits of ``matches`` on lines no newer hit showed, and how many
    such lines there are (counted up to :data:`MAX_COUNTED`)."""
    hits: list[_Hit] = []
    seen: set[str] = set()
    for p, start, end, match in matches:
        if _new_line(seen, p.text, start, end) and len(hits) < want:
            hits.append(_Hit(p, start, end, match))
        if len(seen) >= MAX_COUNTED:
            break
    return hits, len(seen)


def _literal_matches(newest: Iterable[Passage], text: str) -> Iterator[_Match]:
    for p in newest:
        body = p.text
        pos = body.find(text)
        while pos >= 0:
            start, end = _line(body, pos)
            yield p, start, end, (pos, pos + len(text))
            pos = body.find(text, end)


def _new_line(seen: set[str], body: str, start: int, end: int) -> bool:
    """Whether the line is one no newer hit showed (a file read twice, a command run
    again: the newest copy is the one shown, the others are not counted)."""
    line = body[start:end].strip()
    if line in seen:
        return False
    seen.add(line)
    return True


def _regex_matches(newest: Iterable[Passage], pattern: regex.Pattern[str],
                   deadline: float | None = None) -> Iterator[_Match]:
    """Matches in ``newest`` (passages newest first). Raises TimeoutError past
    ``deadline`` (default: :data:`REGEX_SECONDS` from the first match asked for)."""
    deadline = deadline if deadline is not None else time.monotonic() + REGEX_SECONDS
    size = _CHUNK if _joinable(pattern.pattern) else 1
    passages = iter(newest)
    while part := list(itertools.islice(passages, size)):
        yield from _matches(part, pattern, deadline)


_CHUNK = 64
"""Passages one regular-expression search runs over, joined by a newline. Each search
with a time limit pays a set-up of a few microseconds, more than scanning a short
passage takes; chunks of 64 measured fastest (10,000 passages: 56 ms one by one,
12 ms in chunks of 64, 23 ms all joined, the join's copy dominating)."""


def _matches(part: Sequence[Passage], pattern: regex.Pattern[str], deadline: float
             ) -> Iterator[_Match]:
    """The first match on each matching line of ``part``'s passages, in order, as (passage,
    line start, line end, match span), exactly as searching each passage alone finds
    them: a match that runs on from one passage into the next is searched again in its
    own passage alone (:func:`_joinable` keeps out patterns a join could change
    otherwise)."""
    if len(part) == 1:
        yield from _passage_matches(part[0], 0, pattern, deadline)
        return
    text = "\n".join(p.text for p in part)
    starts = list(itertools.accumulate((len(p.text) + 1 for p in part), initial=0))
    pos = 0
    while pos <= len(text):
        m = pattern.search(text, pos, timeout=_left(deadline))
        if m is None:
            return
        i = bisect.bisect_right(starts, m.start()) - 1
        p, base = part[i], starts[i]
        if m.end() > base + len(p.text):
            yield from _passage_matches(p, m.start() - base, pattern, deadline)
            pos = base + len(p.text) + 1
            continue
        start, end = _line(p.text, m.start() - base)
        yield p, start, end, (m.start() - base, max(m.end(), m.start()) - base)
        pos = base + end + 1


def _passage_matches(p: Passage, pos: int, pattern: regex.Pattern[str], deadline: float
                     ) -> Iterator[_Match]:
    body = p.text
    while pos <= len(body):
        m = pattern.search(body, pos, timeout=_left(deadline))
        if m is None:
            return
        start, end = _line(body, m.start())
        yield p, start, end, (m.start(), max(m.end(), m.start()))
        pos = end + 1


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


_EDGE_ESCAPES = frozenset("AZzBGKmM")
"""Escapes whose meaning depends on what is around a passage (its start and end, the
character before it, where a match starts)."""


def _joinable(pattern: str) -> bool:
    """Whether ``pattern`` finds the same matches in passages joined by a newline as in
    each alone (a match running on into the next passage aside): no anchor (``^``, ``$``,
    ``\\A``, ``\\Z``…), no lookaround, no reverse search, no verbose pattern (its comments
    are not read). ``\\b`` is kept: a newline is a boundary as a passage's start and end
    are. A ``^`` or ``$`` in a character class is a character, not an anchor; a class is
    read up to its first ``]``, so a misread one (``[]a]``, a nested set) can only make a
    character look like an anchor, and a named group like a lookbehind: the pattern then
    goes one passage at a time, which only costs speed."""
    in_class = False
    k = 0
    while k < len(pattern):
        ch = pattern[k]
        if ch == "\\":
            if pattern[k + 1:k + 2] in _EDGE_ESCAPES:
                return False
            k += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            k += 2 if pattern[k + 1:k + 2] == "^" else 1  # a negated class, not an anchor
            continue
        elif ch in "^$":
            return False
        elif ch == "(" and pattern[k + 1:k + 2] == "?":
            flags = re.match(r"[a-zA-Z0-9-]*", pattern[k + 2:])
            after = pattern[k + 2:k + 3]
            if after in ("=", "!", "<") or set(flags.group() if flags else "") & {"r", "x"}:
                return False
        k += 1
    return True


def _line(body: str, pos: int) -> tuple[int, int]:
    start = body.rfind("\n", 0, pos) + 1
    end = body.find("\n", pos)
    return start, len(body) if end < 0 else end


def _default_where(p: Passage, _: int) -> str:
    return p.source


def _render(query: _Query, hits: list[_Hit], total: int, folded: bool, searched: int,
            cap: int, counter: TokenCounter, where: Where, wording: SearchWording) -> str:
    shown_q = json.dumps(query.text[:80], ensure_ascii=False)
    if not total:
        return (f"No match for {shown_q} in what was compressed away ({searched} messages "
                f"searched). {wording.no_match}")
    first = (query.page - 1) * query.per_page
    page_hits = hits[first:first + query.per_page]
    if not page_hits:
        pages = -(-min(total, MAX_COUNTED) // query.per_page)
        return (f"Error: {total} match(es) for {shown_q} make {pages} page(s) of "
                f"{query.per_page}; ask for page 1 to {pages}.")
    counted = f"more than {total}" if total >= MAX_COUNTED else str(total)
    kind = "lines matching, case aside," if folded else "lines match"
    head = (f"{counted} {kind} {shown_q} in what was compressed away (newest first; "
            f"{first + 1}-{first + len(page_hits)}):")
    left = total - first - len(page_hits)
    if left > 0:
        more = "more than " if total >= MAX_COUNTED else ""
        tail = f"{more}{left} more: " + wording.next_page(
            query.page + 1, None if query.per_page == query.asked else query.per_page)
    else:
        tail = wording.no_more
    places = [where(h.passage, h.start) for h in page_hits]
    # widest snippets first; narrower ones, then none of the context, until it fits
    for line_chars, context in ((_LINE_CHARS, True), (_LINE_CHARS, False), (80, False),
                                (60, False)):
        body = _snippets(page_hits, places, line_chars, context)
        text = f"{head}\n\n{body}\n\n{tail}"
        if counter.count_text(text) <= cap:
            return text
    return text


def _snippets(hits: Sequence[_Hit], places: Sequence[str], line_chars: int, context: bool
              ) -> str:
    """The hits under a line naming where they are, hits side by side in one passage
    shown as one run of lines (a line is never shown twice); ``>`` marks a match."""
    blocks: list[str] = []
    i = 0
    while i < len(hits):
        j = i + 1
        while j < len(hits) and hits[j].passage is hits[i].passage and places[j] == places[i]:
            j += 1
        blocks.append(f"[{places[i]}; {hits[i].passage.label}]\n"
                      + _lines(hits[i:j], line_chars, context))
        i = j
    return "\n\n".join(blocks)


def _lines(hits: Sequence[_Hit], line_chars: int, context: bool) -> str:
    """The matching lines of one passage (and, with ``context``, the line on each side)."""
    body = hits[0].passage.text
    shown: dict[int, str] = {}  # line start -> rendered line
    for h in hits:
        shown[h.start] = "> " + _window(body[h.start:h.end], h.match[0] - h.start,
                                        h.match[1] - h.start, line_chars)
    if context:
        for h in hits:
            if h.start > 0:
                prev = body.rfind("\n", 0, h.start - 1) + 1
                _add_context(shown, prev, body[prev:h.start - 1])
            if h.end < len(body):
                nxt = body.find("\n", h.end + 1)
                _add_context(shown, h.end + 1, body[h.end + 1:len(body) if nxt < 0 else nxt])
    return "\n".join(shown[k] for k in sorted(shown))


def _add_context(shown: dict[int, str], start: int, line: str) -> None:
    if start not in shown and line.strip():
        shown[start] = "  " + _clip(line, _CONTEXT_CHARS)


def _clip(line: str, chars: int) -> str:
    return line if len(line) <= chars else line[:chars] + " [...]"


def _window(line: str, start: int, end: int, chars: int) -> str:
    """``line`` cut to about ``chars`` characters around ``line[start:end]`` (the match
    is always whole), with ``[...]`` where it was cut."""
    if len(line) <= chars:
        return line
    span = end - start
    before = max((chars - span) // 2, 20)
    lo = max(0, start - before)
    hi = min(len(line), max(end + before, lo + chars))
    lo = max(0, min(lo, hi - chars))
    return f"{'[...] ' if lo else ''}{line[lo:hi]}{' [...]' if hi < len(line) else ''}"
