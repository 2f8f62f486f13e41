"""How much one sentence weighs (its priority) when a note cannot hold every one:
values and words that bind raise it; questions, remarks about the moment and repeated
readings lower it."""

from __future__ import annotations

from functools import lru_cache

from ctxmgr.autocontext.standing.grammar import _binds, _imperative
from ctxmgr.autocontext.standing.values import value_kinds
from ctxmgr.autocontext.standing.words import _ADDRESSEE, _DEIXIS, _words


@lru_cache(maxsize=8192)
def priority(sentence: str, *, repeated: bool = False, update: bool = False) -> int:
    """Higher first when a note cannot hold every sentence: values and binding words
    (negation, modal verbs, a limit on a value: "under 370 MB") raise it; a question
    without a value ("what's next?"), a short remark without one, a pattern the user
    repeats with other numbers (``repeated``: "it's 5:31 here", "it's 5:56 here") and a
    remark about the moment ("today", "right now") that is not an ``update`` of an
    earlier statement lower it."""
    words = [w.lower() for w in _words(sentence)]
    kinds = value_kinds(sentence)
    score = (3 if kinds else 0) + (2 if _binds(sentence) else 0)
    if kinds and (_ADDRESSEE.intersection(words) or _imperative(sentence)):
        score += 1
    if kinds == {"number"}:
        score -= 1  # a bare count with nothing to say what of is weak evidence
    if sentence.rstrip().endswith("?") and not kinds:
        score -= 2
    if len(words) <= 4 and not kinds:
        score -= 1
    if repeated and not update:
        score -= 3
    if not update and _DEIXIS.search(sentence) and not kinds & _STABLE:
        score -= 1
    return score


_STABLE = frozenset(("id", "path", "name"))
"""Values that name a thing rather than measure the moment: an id, a path or a name said
"now" ("the support case is now TCK-89300", "call me Ingrid Mbeki now") is what the thing
is from then on, where a count
or a time said "now" ("21 people waiting", "it's 5:31 here") is a reading of the moment."""
