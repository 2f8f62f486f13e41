"""Pages of reloaded text sized to the room left in the prompt.

A compressed range can hold hundreds of messages: returned whole, a reload
would push the prompt past the window it was compressed to fit. The rendered
originals are cut into pages that each fit the room the caller names, at line
breaks where possible, and the model is told how to ask for the next one.
"""

from __future__ import annotations

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
    if counter.count_text(text) <= limit:
        return [text]
    pages: list[str] = []
    rest = text
    while rest:
        if counter.count_text(rest) <= limit:
            pages.append(rest)
            break
        cut = _longest_prefix(rest, limit, counter)
        newline = rest.rfind("\n", 0, cut)
        if newline >= cut // 2:
            cut = newline + 1
        pages.append(rest[:cut])
        rest = rest[cut:]
    return pages


def _longest_prefix(text: str, limit: int, counter: TokenCounter) -> int:
    """Characters of the longest prefix of ``text`` within ``limit`` tokens (at least 1)."""
    lo, hi = 1, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count_text(text[:mid]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return lo
