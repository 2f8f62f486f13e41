"""The note of the user's words as a model writes it: lines it says are quotes, kept only
where each is one.

A model asked to quote (:data:`~ctxmgr.autocontext.prompts.USER_NOTE_PROMPT`) may
paraphrase, translate, number its lines or make one up. A line enters the prompt only
when it occurs in what the user said, compared after NFKC (full-width and half-width
forms alike) and with runs of whitespace collapsed; list markers and quotation marks the
model put around a line are taken off first. Every other line is rejected, and counted,
so a made-up line never reaches the prompt."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ctxmgr.autocontext.marker import OFFLOAD_TAG_RE

__all__ = ["CheckedQuotes", "check_quotes", "normalised"]

_SPACE = re.compile(r"\s+")
_MARKER = re.compile(r"^\s*(?:(?:[-*•·]|\d+[.)]|>)\s+)?(?:\[user\]\s*)?")
"""What a model may put before a quote: a list marker, and the role the transcript
showed (``[user]``)."""
_WRAP = "\"'“”„«»「」『』‘’`"
MIN_QUOTE_CHARS = 2
"""A shorter line ("a", "。") quotes nothing worth a line."""


def normalised(text: str) -> str:
    """``text`` as quotes are compared: NFKC, runs of whitespace as one space."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()


@dataclass(frozen=True, slots=True)
class CheckedQuotes:
    """The lines of a model's answer that quote the user, in the user's own wording and
    in the order the model gave them, and how many lines were not quotes."""

    quotes: tuple[str, ...]
    rejected: int


def check_quotes(answer: str, sources: Sequence[str]) -> CheckedQuotes:
    """The lines of ``answer`` that occur in one of ``sources`` (what the user said),
    each as the user wrote it; duplicates once. A line with an offload tag is never a
    quote (a model must not forge one)."""
    said = [_Source(text) for text in sources]
    quotes: list[str] = []
    rejected = 0
    for raw in answer.splitlines():
        line = _MARKER.sub("", raw).strip()
        if len(line) > 2 and line[0] in _WRAP and line[-1] in _WRAP:
            line = line[1:-1].strip()
        if not line:
            continue
        found = None
        if not OFFLOAD_TAG_RE.search(line) and len(line) >= MIN_QUOTE_CHARS:
            want = normalised(line)
            found = next((q for src in said if (q := src.find(want)) is not None), None)
        if found is None:
            rejected += 1
        elif found not in quotes:
            quotes.append(found)
    return CheckedQuotes(tuple(quotes), rejected)


class _Source:
    """One text the user said, normalised, with where each normalised character came
    from, so a quote found in it is given back in the user's own characters."""

    def __init__(self, text: str) -> None:
        self.text = text
        chars: list[str] = []
        at: list[int] = []
        space = True  # leading whitespace dropped
        for k, ch in enumerate(text):
            if ch.isspace():
                if not space:
                    chars.append(" ")
                    at.append(k)
                space = True
                continue
            space = False
            for out in unicodedata.normalize("NFKC", ch):
                chars.append(out)
                at.append(k)
        self.norm = "".join(chars)
        self.at = at

    def find(self, want: str) -> str | None:
        k = self.norm.find(want)
        if k < 0 or not want:
            return None
        return _SPACE.sub(" ", self.text[self.at[k]:self.at[k + len(want) - 1] + 1])
