"""Pages of reloaded text sized to the room left in the prompt.

A compressed range can hold hundreds of messages: returned whole, a reload
would push the prompt past the window it was compressed to fit. The rendered
originals are cut into pages that each fit the room the caller names, at line
breaks where possible, and the model is told how to ask for the next one.

With a counter whose counts add up line by line (:meth:`TokenCounter.line_sum`, the
tiktoken encodings), the text is counted once, line by line, and a page ends at the
last line start (:data:`~ctxmgr.tokens.LINE_START`) that fits: cutting every page of
a range costs one count of it. Otherwise each page's end is searched for by counting
prefixes of it.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ctxmgr.tokens import LINE_START, TokenCounter

__all__ = ["MIN_PAGE_TOKENS", "LineCounts", "line_counts", "paginate"]

MIN_PAGE_TOKENS = 100
"""Smallest page: with less room than this the model would never make progress, so a
page this size is returned anyway (the compressor's trigger leaves far more headroom)."""


@dataclass(frozen=True, slots=True)
class LineCounts:
    """A text's token counts at its line starts, from one count of each line."""

    starts: list[int]
    """Every :data:`~ctxmgr.tokens.LINE_START` cut of the text, in order."""
    before: list[int]
    """The line counter's tokens of the text before each of :attr:`starts`."""
    whole: int
    """Its tokens of the whole text."""
    counter: TokenCounter
    """The counter whose counts add up (see :meth:`TokenCounter.line_sum`)."""
    tokens: Callable[[int], int]
    """Its sum as the counter asked counts it."""

    @property
    def total(self) -> int:
        """The text's tokens, as the counter asked counts them."""
        return self.tokens(self.whole)

    def pieces(self, text_chars: int) -> tuple[list[int], list[int]]:
        """(characters, line-counter tokens) of each piece the cuts make of a text of
        ``text_chars`` characters: what a search index keeps of them."""
        bounds = [0, *self.starts, text_chars]
        counts = [0, *self.before, self.whole]
        return ([b - a for a, b in itertools.pairwise(bounds)],
                [b - a for a, b in itertools.pairwise(counts)])

    @classmethod
    def from_pieces(cls, counter: TokenCounter, key: str, chars: Sequence[int],
                    tokens: Sequence[int]) -> LineCounts | None:
        """The counts :meth:`pieces` gave, for ``counter`` (``None``: its counts do not add
        up, or not as the counter of ``key`` counted them)."""
        line_sum = counter.line_sum()
        if line_sum is None or line_sum[0].cache_key != key or len(chars) != len(tokens):
            return None
        starts = list(itertools.accumulate(chars[:-1]))
        before = list(itertools.accumulate(tokens[:-1]))
        return cls(starts, before, sum(tokens), line_sum[0], line_sum[1])


def line_counts(text: str, counter: TokenCounter) -> LineCounts | None:
    """``text`` counted line by line (``None``: ``counter``'s counts do not add up so)."""
    line_sum = counter.line_sum()
    if line_sum is None:
        return None
    base, tokens = line_sum
    count = base.count_text
    starts: list[int] = []
    before: list[int] = []
    at = seen = 0
    for m in LINE_START.finditer(text):
        cut = m.end()
        seen += count(text[at:cut])
        starts.append(cut)
        before.append(seen)
        at = cut
    return LineCounts(starts, before, seen + count(text[at:]), base, tokens)


def paginate(text: str, page_tokens: int, counter: TokenCounter, *,
             lines: LineCounts | None = None) -> list[str]:
    """``text`` cut into pages of at most ``page_tokens`` tokens (at least one page).

    Pages end at a line break when one falls in their second half, so a line is
    rarely split; joined back together they give ``text`` exactly.

    Args:
        lines: ``text``'s :func:`line_counts`, when the caller has them (else counted
            here, when ``counter``'s counts add up).
    """
    limit = max(page_tokens, MIN_PAGE_TOKENS)
    if not text:
        return [text]
    if lines is None:
        lines = line_counts(text, counter)
    pages: list[str] = []
    start = 0
    while start < len(text):
        cut = _line_page_end(text, start, limit, lines) if lines is not None else None
        if cut is None:
            cut = start + _page_end(text[start:], limit, counter)
        pages.append(text[start:cut])
        start = cut
    return pages


def _line_page_end(text: str, start: int, limit: int, lines: LineCounts) -> int | None:
    """Where the page from ``start`` ends: the end of the text if the rest fits, else the
    last line start that fits, when it is in the second half of the next one (``None``:
    it is not, or none fits; a long line is then cut by :func:`_page_end`)."""
    starts, before = lines.starts, lines.before
    i = bisect.bisect_right(starts, start)  # the first line start after ``start``
    if i == len(starts):
        return None if lines.tokens(_tail(text, start, lines)) > limit else len(text)
    # tokens from ``start`` to a line start j >= i are before[j] - base
    if start == 0:
        base = 0
    elif i > 0 and starts[i - 1] == start:
        base = before[i - 1]
    else:  # a page that began inside a line: the piece up to the next line start
        base = before[i] - lines.counter.count_text(text[start:starts[i]])

    def fits(tokens: int) -> bool:
        return lines.tokens(tokens) <= limit

    if fits(lines.whole - base):
        return len(text)
    if not fits(before[i] - base):
        return None
    lo, hi = i, len(starts)  # starts[lo] fits; the first that does not is in (lo, hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(before[mid] - base) else (lo, mid)
    end = starts[lo]
    over = starts[hi] if hi < len(starts) else len(text)
    return end if end - start - 1 >= (over - start) // 2 else None


def _tail(text: str, start: int, lines: LineCounts) -> int:
    """Line-counter tokens of ``text[start:]`` when no line start follows ``start``."""
    if lines.starts and lines.starts[-1] == start:
        return lines.whole - lines.before[-1]
    return lines.counter.count_text(text[start:])


def _page_end(text: str, limit: int, counter: TokenCounter) -> int:
    """Where the page at the start of ``text`` ends: after the last line break whose
    prefix fits ``limit`` tokens, when that is in the second half of the longest prefix
    that fits; else at that longest prefix (at least 1 character).

    Each step tokenizes a prefix, so steps are what a page costs. A probe of ``limit``
    characters gives the text's characters per token, and the next probe goes a little
    past where that puts the limit (a page costs tokenizing about a page of text, not
    the whole rest); then the line ends between the last two probes are searched
    (:func:`_last_fit`), and characters only when no line end will do.
    """
    lo, lo_tokens, hi = 0, 0, max(1, limit)
    while hi < len(text):
        hi_tokens = counter.count_text(text[:hi])
        if hi_tokens > limit:
            break
        # on to where the limit falls if tokens keep growing so, a little past it
        lo, lo_tokens = hi, hi_tokens
        hi = min(hi * 4, max(hi + 1, int(hi * limit / max(1, hi_tokens) * _PAST)))
    else:
        hi, hi_tokens = len(text), counter.count_text(text)
        if hi_tokens <= limit:
            return len(text)
    ends = [lo, *(k + 1 for k in _breaks(text, lo, hi - 1)), hi]
    fit, over = _last_fit(text, ends, (lo_tokens, hi_tokens), limit, counter)
    if fit[0] > lo and fit[0] - 1 >= over[0] // 2:
        return fit[0]  # a line end in the second half of any longer prefix that fits
    longest = _last_fit(text, range(fit[0], over[0] + 1), (fit[1], over[1]), limit,
                        counter)[0][0]
    newline = text.rfind("\n", 0, longest)
    return newline + 1 if newline >= longest // 2 else max(1, longest)


_PAST = 1.1
"""How far past its estimate the probe for a page's end goes: a little, so that it
most often passes the limit at once, and the text tokenized stays near a page."""


def _breaks(text: str, lo: int, hi: int) -> list[int]:
    """Positions of the line breaks in ``text[lo:hi]``."""
    out = []
    k = text.find("\n", lo, hi)
    while k >= 0:
        out.append(k)
        k = text.find("\n", k + 1, hi)
    return out


def _last_fit(text: str, at: Sequence[int], tokens: tuple[int, int], limit: int,
              counter: TokenCounter) -> tuple[tuple[int, int], tuple[int, int]]:
    """Of the prefixes ending at ``at`` (increasing; the first fits ``limit`` tokens and
    the last does not, ``tokens`` theirs), the last that fits and the first over it after
    that, as (end, tokens) each.

    Tokens grow nearly in step with characters, so the limit is first looked for where
    that puts it, and the neighbouring end on the other side settles it most often: about
    3 tokenizations, where a search by halves takes 10-15. An estimate that leaves more
    than half is followed by one halving, so the worst case stays logarithmic.
    """
    a, b = 0, len(at) - 1
    counts = {a: tokens[0], b: tokens[1]}

    def fits(m: int) -> bool:
        counts[m] = counter.count_text(text[:at[m]])
        return counts[m] <= limit

    estimate = True
    while b - a > 1:
        width = b - a
        if estimate:
            share = (limit - counts[a]) / max(1, counts[b] - counts[a])
            m = bisect.bisect_right(at, at[a] + share * (at[b] - at[a]), a + 1, b) - 1
            m = min(max(m, a + 1), b - 1)
        else:
            m = (a + b) // 2
        below = fits(m)
        a, b = (m, b) if below else (a, m)
        if estimate and b - a > 1:
            n = a + 1 if below else b - 1
            a, b = (n, b) if fits(n) else (a, n)
        estimate = (b - a) * 2 <= width
    return (at[a], counts[a]), (at[b], counts[b])
