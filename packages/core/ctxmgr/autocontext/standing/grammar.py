"""Tests of a sentence's grammar: does it bind (negation, a modal verb, a limit on a
value), is it said to the assistant (the imperative), does it deny, what is it about
(its content words), does it say a change; and its opening asides."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ctxmgr.autocontext.identifiers import distinctive_strings
from ctxmgr.autocontext.standing.values import _NUMBER_UNIT, _names, _unit, value_kinds
from ctxmgr.autocontext.standing.words import (
    _APOSTROPHE,
    _BINDING,
    _CALENDAR,
    _CHANGE,
    _CLAUSE_OPENERS,
    _COMPARATIVE,
    _CONJUNCTIONS,
    _DENYING_VERBS,
    _ELAPSED,
    _FINITE,
    _HEDGE,
    _LIMITS,
    _NEGATION,
    _NOT_DENYING,
    _OBJECT,
    _QUANTIFIERS,
    _STOP,
    _TIME_WORDS,
    _TOPIC,
    _words,
)

TRIVIAL_WORDS = 2
"""A sentence of at most this many words and no value is a courtesy ("ok, thanks",
"go on"), not content."""


def _is_trivial(sentence: str) -> bool:
    return len(_words(sentence)) <= TRIVIAL_WORDS and not value_kinds(sentence)
_CLAUSE = re.compile(r"[,;:]\s+|\s+-\s+")


@lru_cache(maxsize=8192)
def _imperative(sentence: str) -> bool:
    """A clause with a value in the imperative mood: it opens with a word of no closed
    class (grammar words, auxiliaries, prepositions, conjunctions, words for a time; not
    an "-ing" or "-ed" form) and then a determiner or a pronoun ("If a tool wants the
    ticket, give it TCK-2", "so call the project X", "Cap the number of workers at 5"):
    said to the assistant, as "you" and "please" are, with no lexicon of verbs."""
    for clause in _CLAUSE.split(sentence[_lead_in_end(sentence):]):
        words = [_APOSTROPHE.sub("'", w.lower()) for w in _words(clause)]
        while words and words[0] in _CLAUSE_OPENERS:
            words = words[1:]
        if len(words) < 2 or words[1] not in _OBJECT or not value_kinds(clause):
            continue
        first = words[0]
        if (first.isalpha() and not first.endswith(("ing", "ed"))
                and not {first} & (_STOP | _FINITE | _TOPIC | _CONJUNCTIONS | _HEDGE
                                   | _TIME_WORDS | _CALENDAR)):
            return True
    return False


@lru_cache(maxsize=8192)
def _binds(sentence: str) -> bool:
    """A negation, a modal verb, "have to", or a limit or comparison on a value ("under
    370 MB", "no higher than 5"); but not a negated quantity ("not much time left"),
    "only" before a number ("only 13% of the tickets": a quantity in focus) or a modal
    verb in a condition ("if you need to reach me"): grammar that does not bind. A
    typographic apostrophe, as phones and word processors write it ("don’t"), is one."""
    words = [_APOSTROPHE.sub("'", w.lower()) for w in _words(sentence)]
    condition = {w.lower() for m in _CONDITION.finditer(sentence) for w in _words(m[0])}

    def binding(k: int, word: str) -> bool:
        after = words[k + 1] if k + 1 < len(words) else ""
        if word in _LIMITS:
            return _value_follows(words, k)
        if word in ("have", "has"):
            return after == "to"
        if word in _NEGATION or word.endswith("n't"):
            return after not in _QUANTIFIERS
        if word not in _BINDING:
            return False
        return not (word == "only" and after[:1].isdigit()) and word not in condition

    return any(binding(k, w) for k, w in enumerate(words)) or bool(
        value_kinds(sentence) and _COMPARATIVE.search(sentence))
_CONDITION = re.compile(r"\b(?:if|in case)\b[^,;:.!?]*", re.I)
"""A condition clause, up to its comma: a modal verb in it says when, not what must be."""


def _value_follows(words: Sequence[str], k: int) -> bool:
    """A number comes within three words after ``words[k]`` ("under $ 500", "over 370")."""
    return any(any(ch.isdigit() for ch in w) for w in words[k + 1:k + 4])


@lru_cache(maxsize=8192)
def _pattern(sentence: str) -> str:
    """``sentence`` with its numbers blanked out: what a repeated remark keeps."""
    return " ".join("#" if any(ch.isdigit() for ch in w) else w.lower()
                    for w in _words(sentence))


_ASIDE = re.compile(r"[^,;:.!?]+,\s+")
LEAD_IN_WORDS = 5
"""An opening phrase of at most this many words, set off by a comma, with no value, no
verb that makes it a clause and no word that binds ("Reading back through the thread,
...", "Heads up, ...", "Also, ..."), is an aside: it says how the sentence comes, not
what it is about ("The vendor meeting has changed, ..." is a clause: its subject counts;
"Never, ever ..." binds)."""


def _lead_in_end(sentence: str) -> int:
    """Where ``sentence`` starts once its opening asides (:data:`LEAD_IN_WORDS`) are
    left out; 0 when it has none."""
    end = 0
    while (m := _ASIDE.match(sentence, end)) and m.end() < len(sentence):
        words = [w.lower() for w in _words(m[0])]
        if (not words or len(words) > LEAD_IN_WORDS or value_kinds(m[0])
                or _APOSTROPHE.search(m[0])
                or _FINITE.intersection(words) or _BINDING.intersection(words)):
            break  # a value, a clause, or a word that binds ("Never, ever touch prod")
        end = m.end()
    return end


@lru_cache(maxsize=8192)
def _negated(sentence: str) -> bool:
    """A negation: "not", "never", "no", a "n't" (those :data:`_NOT_DENYING` aside), or a
    verb that denies (:data:`_DENYING_VERBS`)."""
    for pattern in _NOT_DENYING:
        sentence = pattern.sub(",", sentence)
    return any(w in _NEGATION or w in _DENYING_VERBS or w.endswith(("n't", "n’t"))
               for w in (w.lower() for w in _words(sentence)))


def _naming(pair: tuple[str, str]) -> bool:
    """Both words are content words ("planned downtime"): a stronger name for one thing
    than a pair with a grammar word ("the export"), which two items can share."""
    return all(map(_content, pair))


def _content(word: str) -> bool:
    """A content word: four letters or more, not a grammar word, not a word for a time
    or for changing ("changed this morning to", "small change:" say when or that, not
    what: two updates of different things share them)."""
    return (len(word) >= 4 and word not in _STOP and word not in _TIME_WORDS
            and not _CHANGE.fullmatch(word))


@lru_cache(maxsize=8192)
def _content_words(sentence: str) -> frozenset[str]:
    """The content words of ``sentence`` (:func:`_content`), the values (a number's unit
    too: "3.7 seconds") and a contraction's second part left out: what it is about, in
    its words (an opening aside left out, as :func:`_phrases` does)."""
    rest = sentence[_lead_in_end(sentence):]
    for value in sorted({*distinctive_strings(sentence), *_names(sentence)}, key=len,
                        reverse=True):
        rest = rest.replace(value, " ")
    rest = _NUMBER_UNIT.sub(lambda m: " " if _unit(m) or not m.group(1) else f" {m.group(1)}",
                            rest)
    out = set()
    for token in _words(rest):
        word = _APOSTROPHE.split(token.lower())[0]
        if not token[0].isdigit() and _content(word.rstrip("s")) and word not in _BINDING:
            out.add(word)
    return frozenset(out)


def _same_word(a: str, b: str) -> bool:
    """One word, give or take an ending ("retries", "retry") or a slip of the keys: two
    letters swapped ("spend", "sepnd")."""
    if a == b:
        return True
    if len(a) == len(b) and sorted(a) == sorted(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 2
    common = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                  min(len(a), len(b)))
    return common >= max(4, min(len(a), len(b)) - 2)


def _says_change(sentence: str) -> bool:
    """A word of change (:data:`_CHANGE`), time gone by (:data:`_ELAPSED`) aside."""
    return bool(_CHANGE.search(_ELAPSED.sub(" ", sentence)))
