"""Is a planted item still in a prompt?

An item *survives* in a prompt when every value string it needs occurs in what
the model reads (text, tool-result output, tool-call arguments:
:func:`~ctxmgr.replay.fidelity.visible_text`) and, for an updated item, its
latest value *stands*: it has the last word. A prompt is read in order, as the
conversation was said, so a replaced value may still show earlier on (the user's own
turns, kept verbatim while they fit, say "$450" before "$650"), but never after the
latest one: a prompt that shows "$650" and then "$450" tells the model the old cap.
:func:`is_stale` says, more strictly, whether a replaced value shows at all.
Values occur nowhere else in their session (see
:func:`~planted.generator.check_session`), so a match is
the item, not a coincidence.

A value alone can survive without what it was about: a stand-in's list of
identifiers may name ``ORD-37959`` long after "never refund order ORD-37959" is
gone. So a second, stricter measure asks whether each value is *with its words*
(:func:`is_kept_with_words`): on a line of the prompt that shares at least
:data:`CONTEXT_WORDS` content words (four letters or more, common words aside) with a
sentence the user said it in, or all of them if that sentence has fewer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ctxmgr.messages import Message
from ctxmgr.replay.fidelity import visible_text
from planted.generator import PlantedItem, Position
from planted.phrasings import ItemType

__all__ = [
    "CONTEXT_WORDS",
    "ItemScore",
    "is_kept",
    "is_kept_with_words",
    "is_stale",
    "prompt_text",
    "score_prompt",
]

CONTEXT_WORDS = 2
"""Content words a value's line must share with what the user said for the value to be
"with its words"."""
_WORD = re.compile(r"[A-Za-z]{4,}")
_STOP = frozenset(("about", "after", "again", "also", "been", "before", "being", "could", "does",
    "doing", "down", "each", "from", "have", "here", "into", "just", "like", "more", "most",
    "much", "must", "need", "only", "over", "please", "same", "should", "some", "such", "than",
    "that", "their", "them", "then", "there", "these", "they", "thing", "this", "those", "very",
    "were", "what", "when", "where", "which", "while", "will", "with", "would", "your", "yours",
    "thanks", "okay", "earlier", "something", "repeat", "said", "already"))


def prompt_text(prompt: Sequence[Message]) -> str:
    """Everything the model reads in ``prompt``, one message per line."""
    return "\n".join(visible_text(m) for m in prompt)


def is_stale(item: PlantedItem, text: str) -> bool:
    """``text`` still shows a value the user replaced."""
    return any(old in text for old in item.replaced)


def is_kept(item: PlantedItem, text: str) -> bool:
    """Every value ``item`` needs is in ``text``, and the latest has the last word: no
    value it replaced shows after the latest value's last mention."""
    if not all(v in text for v in item.values):
        return False
    last = min(text.rfind(v) for v in item.values)
    return all(text.rfind(old) < last for old in item.replaced)


def _content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)} - _STOP


def is_kept_with_words(item: PlantedItem, text: str) -> bool:
    """:func:`is_kept`, and every value on a line of ``text`` that shares
    :data:`CONTEXT_WORDS` content words with a sentence that said the value."""
    if not is_kept(item, text):
        return False
    lines = text.splitlines()
    for value in item.values:
        said = set().union(*(_content_words(s.replace(value, " "))
                             for s in item.said if value in s))
        need = min(CONTEXT_WORDS, len(said))  # a short sentence has fewer to share
        if not any(value in line and len(_content_words(line.replace(value, " ")) & said)
                   >= need for line in lines):
            return False
    return True


@dataclass(frozen=True, slots=True, kw_only=True)
class ItemScore:
    """One item against one prompt."""

    key: str
    type: ItemType
    position: Position
    updated: bool
    kept: bool
    """Survived: every value there, and for an updated item the latest value has the
    last word."""
    with_words: bool
    """Kept, each value with its words (:func:`is_kept_with_words`)."""
    stale: bool
    """A replaced value is still in the prompt (``False`` for items never updated)."""
    form: str
    """How it was first said (the template's structural form)."""
    update_form: str | None
    """How the update was said (``"same"`` or ``"rephrased"``), ``None``: not updated."""


def score_prompt(items: Sequence[PlantedItem], prompt: Sequence[Message]
                 ) -> tuple[ItemScore, ...]:
    """Each of ``items`` against ``prompt``, in order."""
    text = prompt_text(prompt)
    return tuple(ItemScore(key=i.key, type=i.type, position=i.position, updated=i.updated,
                           kept=is_kept(i, text), with_words=is_kept_with_words(i, text),
                           stale=is_stale(i, text), form=i.form, update_form=i.update_form)
                 for i in items)
