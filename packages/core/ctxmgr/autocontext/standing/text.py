"""Text in any script: sentences, words and the runs of a script written without spaces.

Everything here rests on Unicode's own properties (the ``regex`` module's ``\\p{...}``
classes), not on tables of one language: a sentence ends at a ``Sentence_Terminal``
(``.`` ``!`` ``?`` ``。`` ``！`` ``？`` ``؟`` ``।`` ...), a word is a run of letters,
marks and digits, and Han, Hiragana and Katakana are written without spaces, so there
the reader compares characters, not words. Comparison uses NFKC (full-width digits and
letters are the ASCII ones) and case folding; the text kept is always the original.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import regex

__all__ = ["clauses", "fold", "is_question", "sentence_spans", "unspaced_runs", "words"]

_SENTENCE_END = regex.compile(
    r"""(?:
        \p{Sentence_Terminal}+[\p{Pf}\p{Pe}\p{Pi}"')]*(?=\s)   # a stop before a space
      | (?<!\d)\.(?=\p{Lu})                           # "...paid.The next" run on
      | [\p{Sentence_Terminal}--[.!?]]+[\p{Pf}\p{Pe}"')]*  # 。！？ need no space after
    )\s*|\n\s*""", regex.X | regex.V1)
"""Where a sentence ends: a terminator before a space (not the dot of ``3.5`` or of
``example.com``, nor the ``!`` of ``<!--``), a terminator of another script anywhere
(CJK text puts no space after ``。``), or a line break."""
_WORD = regex.compile(r"[\p{L}\p{M}\p{N}#]+(?:['’][\p{L}\p{M}]+)*")
"""A word: letters, marks and digits, with an inner apostrophe ("don't", "n'utilisez")."""
_UNSPACED = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}ー]+")
"""A run of a script written without spaces between words."""
_QUESTION = regex.compile(r"[?？؟;][\p{Pf}\p{Pe}\"')]*\s*$")
"""A sentence that asks: it ends with a question mark of any script (``;`` is the Greek
one)."""


@lru_cache(maxsize=16384)
def fold(text: str) -> str:
    """``text`` as compared: NFKC (full-width ``５``, ``Ａ`` are ``5``, ``a``), case folded,
    typographic apostrophes as ``'``, Arabic's optional vowel marks left out."""
    return _HARAKAT.sub("", unicodedata.normalize("NFKC", text).casefold().replace("’", "'"))


_HARAKAT = regex.compile(r"[\u064B-\u065F\u0670\u0640]")
"""Arabic short vowels, the dagger alif and the tatweel: optional marks, written or not
("دائمًا", "دائما")."""


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of ``text`` starts and ends (stripped), in order."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() > start:
            _add(text, start, m.end(), out)
            start = m.end()
    _add(text, start, len(text), out)
    return out


def _add(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    piece = text[start:end]
    left = len(piece) - len(piece.lstrip())
    right = len(piece.rstrip())
    if right > left:
        out.append((start + left, start + right))


@lru_cache(maxsize=16384)
def words(text: str) -> tuple[str, ...]:
    """The words of ``text``, folded (:func:`fold`)."""
    return tuple(_WORD.findall(fold(text)))


@lru_cache(maxsize=16384)
def unspaced_runs(text: str) -> tuple[str, ...]:
    """The runs of ``text`` in a script written without spaces (Han, kana), folded."""
    return tuple(_UNSPACED.findall(fold(text)))


def is_question(sentence: str) -> bool:
    """``sentence`` ends with a question mark, in any script."""
    return _QUESTION.search(sentence) is not None


_CLAUSE = regex.compile(r"[,;:،、，；：]\s*|\s[-–—]\s")


@lru_cache(maxsize=16384)
def clauses(sentence: str) -> tuple[str, ...]:
    """The parts of ``sentence`` between commas, semicolons, colons and dashes of any
    script: "If a step would delete X, stop and ask me first" has its request second."""
    return tuple(p for p in _CLAUSE.split(sentence) if p.strip())
