"""Pages of reloaded text sized to the room left in the prompt.

A compressed range can hold hundreds of messages: returned whole, a reload
would push the prompt past the window it was compressed to fit. The rendered
originals are cut into pages that each fit the room the caller names, at line
breaks where possible, and the model is told how to ask for the next one.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from ctxmgr.tokens import TokenCounter

__all__ = ["MIN_PAGE_TOKENS", "paginate"]

MIN_PAGE_TOKENS = 100
"""Smallest page: with less room than this the model would never make progress, so a
page this size is returned anyway (the compressor's trigger leaves far more headroom)."""


def paginate(text: str, page_tokens: int, counter: TokenCounter) -> list[str]:
    """``text`` cut into pages of at most ``page_tokens`` tokens (at least one page).

    Pages end at a line break when one falls in their second half, so a line is
    rarely split; joined back together they give ``text`` exactly.
    """
    limit = max(page_tokens, MIN_PAGE_TOKENS)
    if not text:
        return [text]
    pages: list[str] = []
    rest = text
    while rest:
        cut = _page_end(rest, limit, counter)
        pages.append(rest[:cut])
        rest = rest[cut:]
    return pages


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
