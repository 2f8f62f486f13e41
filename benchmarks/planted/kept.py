"""Is a polyglot item still in a prompt? Items with a value and items without one.

Both sides are compared after :func:`normalize` (Unicode NFKC, every run of whitespace
one space), so a prompt that writes ``５０００元`` as ``5000元``, or joins a sentence's
lines, still holds what was said.

* An item **with a value** is kept when every value it needs occurs in the prompt's
  visible text and, once updated, its latest value has the last word: no value it
  replaced shows after the latest one's last mention (:func:`planted.scoring.is_kept`,
  on normalized text).
* An item **without a value** ("no emojis", "always reply in Czech") is kept when a
  sentence that said it occurs in the prompt: any of them, for a rule said twice.

:func:`said_verbatim` is the stricter reading for every item: a sentence that said it
(with its latest value, and no replaced one) is there word for word.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ctxmgr.messages import Message
from planted.scoring import prompt_text

__all__ = [
    "Scored",
    "ScoredItem",
    "is_kept",
    "is_stale",
    "normalize",
    "said_verbatim",
    "score_items",
    "visible",
]

_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """``text`` in Unicode NFKC with every run of whitespace collapsed to one space."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def visible(prompt: Sequence[Message]) -> str:
    """What the model reads in ``prompt`` (:func:`~planted.scoring.prompt_text`),
    normalized."""
    return normalize(prompt_text(prompt))


class ScoredItem(Protocol):
    """What scoring needs of an item (:class:`planted.polyglot.PolyglotItem` has it)."""

    @property
    def key(self) -> str: ...
    @property
    def values(self) -> tuple[str, ...]: ...
    @property
    def replaced(self) -> tuple[str, ...]: ...
    @property
    def said(self) -> tuple[str, ...]: ...


def is_stale(item: ScoredItem, text: str) -> bool:
    """Normalized ``text`` still shows a value ``item`` replaced."""
    return any(normalize(old) in text for old in item.replaced)


def is_kept(item: ScoredItem, text: str) -> bool:
    """``item`` survives in normalized ``text`` (module docstring)."""
    if not item.values:
        return any(normalize(s) in text for s in item.said)
    values = [normalize(v) for v in item.values]
    if not all(v in text for v in values):
        return False
    last = min(text.rfind(v) for v in values)
    return all(text.rfind(normalize(old)) < last for old in item.replaced)


def said_verbatim(item: ScoredItem, text: str) -> bool:
    """A sentence that said ``item``, with its latest value and no replaced one, is in
    normalized ``text``."""
    return any(normalize(s) in text for s in item.said
               if all(v in s for v in item.values) and not any(r in s for r in item.replaced))


@dataclass(frozen=True, slots=True, kw_only=True)
class Scored:
    """One item against one prompt."""

    key: str
    kept: bool
    stale: bool
    """A replaced value still shows anywhere (``False`` for items never updated)."""
    verbatim: bool
    """:func:`said_verbatim`."""


def score_items(items: Sequence[ScoredItem], prompt: Sequence[Message]
                ) -> tuple[Scored, ...]:
    """Each of ``items`` against ``prompt``, in order."""
    text = visible(prompt)
    return tuple(Scored(key=i.key, kept=is_kept(i, text), stale=is_stale(i, text),
                        verbatim=said_verbatim(i, text)) for i in items)
