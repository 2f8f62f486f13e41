"""What one sentence is, as far as the reader can tell in any language: a rule (it
binds the assistant), a statement of a value, text it cannot classify, or chatter; and
so its priority when a note cannot hold every sentence.

A rule outranks a value, a value outranks text the reader does not understand, and
that outranks what it classified as chatter (a question, a reading repeated with
other numbers). Text is never dropped for not being understood: it is kept, newest
first, before anything the reader took for chatter."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import regex

from ctxmgr.autocontext.standing.lexicon import marks, opens_with_verb, restricts_a_number
from ctxmgr.autocontext.standing.text import clauses, is_question, unspaced_runs, words
from ctxmgr.autocontext.standing.values import value_kinds

__all__ = ["CHANGED", "CHATTER", "RULE", "STEP", "TEXT", "TRIVIAL_WORDS", "VALUE", "Binding",
           "binding", "binds", "demands", "is_trivial", "listed", "pattern", "priority", "size"]

Binding = Literal["strong", "weak"] | None

STEP = 10
"""One step of priority (scores are multiples of it; the selection adds and takes off
steps and fractions of one)."""
RULE = 4 * STEP
"""The priority of a sentence that binds (a value in it adds a step)."""
VALUE = 3 * STEP
"""A sentence that carries a value and does not bind (said to the assistant, a step
more)."""
REQUEST = VALUE + STEP // 4
"""A sentence that binds weakly (:func:`binding`: a request) outranks a value said on its
own, and a rule outranks it."""
TEXT = 2 * STEP
"""A sentence the reader cannot classify: no value, nothing that binds, not chatter."""
CHATTER = STEP
"""A question without a value or a rule in it, or a reading the user repeats with other
numbers ("the queue shows 16 people", then 21)."""
CHANGED = REQUEST - TEXT
"""A sentence the reader cannot classify that says something changed ("from now on",
"改成", "앞으로") ranks this much above other such text, as a request does: it says what
stands now. Where the reader cannot link it to what it replaces (a name in a script
without capitals, an item named by another label), it then outranks the request it
updates (the older one ranks first only by its place). On fresh sessions, latest value at
30 %: zh .910 -> .960, ja .940 -> .975, ko .905 -> .975, ar .885 -> .915 (seeds 9000+;
9500+: ko .830 -> .920, ar .825 -> .905), other languages within 0.01; half a step
(the value before) kept the old request ahead."""
TRIVIAL_WORDS = 2
"""A sentence of at most this many words, with no value and no word of the closed
classes, is a courtesy ("ok, thanks", "好的"): not content at all."""


@lru_cache(maxsize=32768)
def size(sentence: str) -> int:
    """Words in ``sentence``; in a script written without spaces, three characters count
    as one word (a word there is one to five: "好的", "ありがとう")."""
    runs = unspaced_runs(sentence)
    spaced = len(words(regex.sub(r"[\p{Han}\p{Hiragana}\p{Katakana}ー]+", " ", sentence)))
    return spaced + sum((len(r) + 2) // 3 for r in runs)


def listed(sentence: str) -> int:
    """The priority of ``sentence`` as an item of a list the user typed: a point they set
    out ranks at least as a request does (a question still asks)."""
    if is_question(sentence):
        return CHATTER
    return REQUEST + STEP * bool(value_kinds(sentence))


def is_trivial(sentence: str) -> bool:
    """A courtesy (:data:`TRIVIAL_WORDS`): nothing to carry."""
    return (size(sentence) <= TRIVIAL_WORDS and not value_kinds(sentence)
            and not marks(sentence) - {"addressee", "numerals", "change"})


@lru_cache(maxsize=32768)
def pattern(sentence: str) -> str:
    """``sentence`` folded with its numbers blanked out: what a repeated reading keeps."""
    return " ".join(words(_DIGITS.sub("#", sentence)))


_DIGITS = regex.compile(r"\d+(?:[.,:]\d+)*")


@lru_cache(maxsize=32768)
def binding(sentence: str) -> Binding:
    """How ``sentence`` binds the assistant: ``"strong"``, with a modal word or, outside a
    question, a negation ("must", "always", "never", "不要") or a bound (:func:`_bounds`);
    ``"weak"``, with a word that asks ("please", "请", "bitte"), or, outside a question,
    a word for every case ("All customer-facing stuff goes out in Czech") or the
    imperative (its endings
    and particles, or in English and Dutch a sentence or a later clause that opens with
    its verb: "Keep the answers short", "If X, stop and ask me first"); ``None``. A
    question binds only when it asks ("Could you please ..."): "Which one should we do
    first?" asks for an answer, not a rule."""
    found = marks(sentence)
    if is_question(sentence):
        return "weak" if "politeness" in found else None
    if found & {"modal", "negation"} or _bounds(sentence, found):
        return "strong"
    if found & {"politeness", "imperative", "universal"} or opens_with_verb(sentence) or any(
            opens_with_verb(c) for c in clauses(sentence)[1:] if size(c) >= 3):
        return "weak"
    return None


def _bounds(sentence: str, found: frozenset[str]) -> bool:
    """A limit on a value ("at most 5 sentences", "under five sentences", "5000元以内",
    "223 seconds tops"), or a
    restriction that is not on a number ("plain text only", "nur Klartext"): a rule."""
    if "limit" in found and ("numerals" in found
                             or value_kinds(sentence) - {"name", "id", "path", "quoted"}):
        return True
    return "restrictive" in found and not restricts_a_number(sentence)


def binds(sentence: str) -> bool:
    """``sentence`` binds the assistant (:func:`binding`)."""
    return binding(sentence) is not None


def demands(sentence: str) -> bool:
    """``sentence`` asks something of the assistant in so many words (a modal word, a
    word that asks, the imperative, a bound) or says a value changed: a sentence that does so
    again with another number is an update, not a reading taken again."""
    found = marks(sentence)
    return bool(found & {"modal", "politeness", "imperative", "change"}) or _bounds(
        sentence, found) or binding(sentence) == "weak"




@lru_cache(maxsize=32768)
def priority(sentence: str, *, repeated: bool = False) -> int:
    """Higher first when a note cannot hold every sentence: :data:`RULE` for a sentence
    that binds (a value in it adds :data:`STEP`), :data:`VALUE` for a value (said to
    the assistant, a step more), :data:`TEXT` for what the reader cannot classify,
    :data:`CHATTER` for a question or, ``repeated``, a reading the user takes again with
    other numbers (unless it :func:`demands` something)."""
    kinds = value_kinds(sentence)
    how = binding(sentence)
    if repeated and not demands(sentence):
        return CHATTER
    if how is not None:
        return (RULE if how == "strong" else REQUEST) + STEP * bool(kinds)
    if kinds:
        # a count ("3 coffees", "451") is weak evidence; an id, a path, an amount, a
        # share, a time or a date names something the user will need again
        named = bool(kinds - {"number", "name"} - {k for k in kinds if k.startswith("unit:")})
        return VALUE + (STEP // 2) * named + STEP * ("addressee" in marks(sentence))
    if is_question(sentence):
        return CHATTER
    # says that something changed ("from now on", "改成"): what stands now, though the
    # reader cannot tell what about
    return TEXT + CHANGED * ("change" in marks(sentence))
