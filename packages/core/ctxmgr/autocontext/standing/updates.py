"""Which sentence replaced which: a later value for the same thing, in any language.

Two sentences speak of the same thing when the words they share are the words that
name it: words few statements of the conversation use (weighed by how rare they are
there, so "the", "der", "的" weigh nothing without a list of them), compared by their
first letters (``бюджет``, ``бюджета``) or, in a script written without spaces, by
pairs of characters (``预算``). A later sentence replaces an earlier one when it says
every value of it again (a restatement), or when it has a value of every kind the
earlier one has and names the same thing (:data:`SAME_THING` of what names the earlier
one), a rule only by a rule. Weaker evidence (an id of the same shape, a unit, a word
of change) links them as a *likely* update, which drops nothing but ranks the earlier
one lower (:mod:`.selection`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from ctxmgr.autocontext.standing.lexicon import CLOSED_UNSPACED, CLOSED_WORDS, marks
from ctxmgr.autocontext.standing.statements import Statement
from ctxmgr.autocontext.standing.text import unspaced_runs, words
from ctxmgr.autocontext.standing.values import id_shapes, names, value_kinds, values

__all__ = ["LIKELY_EVIDENCE", "SAME_THING", "latest", "likely_updates", "supersedes"]

SAME_THING = 0.5
"""The share of what names the earlier sentence (its rare words, weighed) that a later
one must say too to give a new value for the same thing."""
SAME_THING_CHANGED = 0.35
"""The same, when the later sentence says that something changed ("now", "instead")."""
LIKELY_EVIDENCE = 2.0
"""The evidence (:func:`_evidence`) from which a later statement likely updates an
earlier one."""
_RARE = 3
"""A word in more statements than this is a way of speaking, not a name of one thing."""
_HEAD_WORDS = 2
_STEM = 5
"""Words are compared by their first letters: endings change, the stem stays."""
_MEASURES = ("money", "percent", "time", "date", "number")
"""Kinds of value that measure (with every ``unit:``): a new amount may be written in
another form ("5.180 €", "940 Euro", "21:25 Uhr", "11.25 Uhr"), so they are one kind
when a later value is compared with an earlier one."""


@lru_cache(maxsize=32768)
def subject(sentence: str) -> frozenset[str]:
    """What ``sentence`` is about, in its own words: the words before its first value
    (the whole sentence when fewer than :data:`_HEAD_WORDS` come before it: "max 188
    seconds for the API timeout"), by their first letters, and the
    pairs of characters of its runs without spaces; values, digits and the words of the
    closed classes left out. What follows the value is how it is said ("..., nicht
    das, was ich vorhin gesagt habe"), which two updates of two things share."""
    head = _words_of(_head(sentence))
    return head if len(head) >= _HEAD_WORDS else _words_of(sentence)


def _head(sentence: str) -> str:
    """``sentence`` up to its first value (names count only where it has no other)."""
    found = values(sentence) - set(names(sentence)) or values(sentence)
    at = min((k for v in found if (k := sentence.find(v)) >= 0), default=len(sentence))
    return sentence[:at]


def _words_of(text: str) -> frozenset[str]:
    drop = {w for v in values(text) - set(names(text)) for w in words(v)}
    out = {w[:_STEM] for w in words(text) if w not in drop and w not in CLOSED_WORDS
           and not any(ch.isdigit() for ch in w) and len(w) > 2}
    for run in unspaced_runs(text):
        out.update(pair for k in range(len(run) - 1)
                   if not CLOSED_UNSPACED.search(pair := run[k:k + 2]))
    return frozenset(out)


class _Weights:
    """How rare each word is among the statements: what names one thing weighs most."""

    def __init__(self, texts: Iterable[str]) -> None:
        distinct = set(texts)
        self.df = Counter(w for t in distinct for w in subject(t))
        self.total = max(1, len(distinct))

    def of(self, word: str, among: int) -> float:
        """The weight of ``word`` when ``among`` of the statements that use it are the two
        being compared: by how many others use it, and nothing when more than
        :data:`_RARE` do (a way of speaking: "Small change: the ... becomes")."""
        others = max(0, self.df.get(word, 1) - among)
        return 0.0 if others >= _RARE else math.log(1 + self.total / (1 + others))

    def shared(self, later: str, earlier: str) -> tuple[float, bool]:
        """The weighed share of ``earlier``'s subject that ``later`` says too, and whether
        they share a word few others use (:data:`_RARE`)."""
        old = subject(earlier)
        if not old:
            return 0.0, False
        both = old & subject(later)
        total = sum(self.of(w, 1 + (w in both)) for w in old)
        if not total:
            return 0.0, False
        return (sum(self.of(w, 2) for w in both) / total,
                any(self.df.get(w, 1) <= _RARE for w in both))


def _kinds(sentence: str) -> frozenset[str]:
    """The kinds of value of ``sentence`` as updates compare them: names left out (a
    capital is weak evidence: in German every noun has one)."""
    return frozenset(k for k in value_kinds(sentence) if k != "name")


def _covers(kinds: frozenset[str], old: frozenset[str]) -> bool:
    """``kinds`` has a value of every kind of ``old``: the same kind; for a bare number,
    any measure (a number may be written with or without what it counts); for an amount
    written with a currency's code, that currency named ("9.820 EUR", "9.260 Euro")."""
    units = {k for k in kinds if k.startswith("unit:")}
    return all(k in kinds or (k == "number" and any(
        m in _MEASURES or m.startswith("unit:") for m in kinds)) or (
        k == "money" and bool(units & old)) for k in old)


def _comparable(later: str, earlier: str) -> bool:
    """``later`` could give a new value for what ``earlier`` set: a value of every kind
    ``earlier`` has (:func:`_covers`; a name for a name alone), and ids of one shape."""
    kinds, old = _kinds(later), _kinds(earlier)
    if not old and value_kinds(earlier) == {"name"}:
        kinds, old = value_kinds(later), value_kinds(earlier)
    if not old or not _covers(kinds, old):
        return False
    shapes, old_shapes = id_shapes(later), id_shapes(earlier)
    return not (shapes and old_shapes and not shapes & old_shapes)


def _same_stance(later: str, earlier: str) -> bool:
    """Both deny what they are about or neither (a negation before the first value): a
    rule about a thing ("never refund ORD-1") is not a new value of a statement of one
    ("the refund for ORD-2 has gone through"), unless what changes is a measure. A
    negation after the value ("..., nicht das, was ich vorhin gesagt habe") is how a
    correction is said."""
    if any(k in _MEASURES or k.startswith("unit:") for k in _kinds(earlier)):
        return True
    return _denies(later) == _denies(earlier)


def _denies(sentence: str) -> bool:
    head = _head(sentence)
    return "negation" in marks(head if head.strip() else sentence)


def supersedes(later: str, earlier: str, *, weights: _Weights | None = None) -> bool:
    """``later`` gives a new value for what ``earlier`` set (see the module's rule)."""
    if not _comparable(later, earlier):
        return False
    if values(earlier) <= values(later):
        return True  # every value said again: a restatement, whatever the wording
    weights = weights or _Weights((later, earlier))
    if not _same_stance(later, earlier):
        return False
    share, rare = weights.shared(later, earlier)
    changed = "change" in marks(later) and "change" not in marks(earlier)
    needed = SAME_THING_CHANGED if changed else SAME_THING
    return rare and share >= needed and weights.shared(earlier, later)[0] >= needed


def _evidence(later: str, earlier: str, weights: _Weights) -> float:
    """How strongly ``later`` looks like a new value for what ``earlier`` set: an id
    shape they share (2; an email address or a path 1: there are many), a unit, a currency
    or a share (1), the weighed share of ``earlier``'s subject said again
    (up to 2), and a word of change in ``later`` (1, with other evidence only)."""
    if (not _comparable(later, earlier) or values(earlier) <= values(later)
            or not _same_stance(later, earlier)):
        return 0.0
    evidence = sum(1.0 if shape in ("@", "/") else 2.0
                   for shape in id_shapes(later) & id_shapes(earlier))
    evidence += len({k for k in value_kinds(later) & value_kinds(earlier)
                     if k.startswith("unit:") or k in ("money", "percent")})
    evidence += 2 * weights.shared(later, earlier)[0]
    if evidence and "change" in marks(later):
        evidence += 1
    return evidence


def latest(statements: Iterable[Statement]) -> list[Statement]:
    """``statements`` deduplicated (the first of equal ones), with every one that a
    later one :func:`supersedes` left out, in order."""
    return _latest(tuple(statements))[0]


def _latest(statements: tuple[Statement, ...]
            ) -> tuple[list[Statement], dict[tuple[int, ...], set[tuple[int, ...]]]]:
    """:func:`latest`, and for each statement that replaced others the orders of all it
    replaced (and what those had replaced). Each statement is checked only against the
    earlier ones it shares a rare word or a value with, found through an index: a chat
    that pastes a log every turn has thousands of statements."""
    ordered = sorted(statements, key=lambda s: s.order)
    weights = _Weights(s.text for s in ordered)
    out: dict[tuple[int, ...], Statement] = {}
    by_key: dict[str, set[tuple[int, ...]]] = {}  # of statements not replaced yet
    keys_of: dict[tuple[int, ...], set[str]] = {}
    replaced: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    seen: set[str] = set()
    for s in ordered:
        if s.text in seen:
            continue
        seen.add(s.text)
        out[s.order] = s
        if not value_kinds(s.text):  # it neither replaces nor can be replaced
            continue
        keys = keys_of[s.order] = _keys(s.text, weights)
        for o in sorted({o for k in keys for o in by_key.get(k, ())}):
            if supersedes(s.text, out[o].text, weights=weights):
                del out[o]
                for k in keys_of.pop(o):
                    by_key[k].discard(o)
                replaced.setdefault(s.order, set()).update((o, *replaced.get(o, ())))
        for k in keys:
            by_key.setdefault(k, set()).add(s.order)
    return list(out.values()), replaced


def _keys(text: str, weights: _Weights) -> set[str]:
    """What an update of ``text`` shares with it: a rare word, a value, an id's shape, a
    unit."""
    keys = {f"w:{w}" for w in subject(text) if weights.df.get(w, 1) <= _RARE}
    keys.update(f"v:{v}" for v in values(text))
    keys.update(f"s:{s}" for s in id_shapes(text))
    keys.update(k for k in value_kinds(text) if k.startswith("unit:") or k == "money")
    return keys


def likely_updates(statements: Sequence[Statement], *,
                   replaced: Mapping[tuple[int, ...], Iterable[tuple[int, ...]]] | None = None
                   ) -> dict[tuple[int, ...], tuple[int, ...] | None]:
    """For each statement that likely gives a new value for what one earlier statement
    set, in words :func:`supersedes` cannot tell ("the ticket for this is TCK-1" ...
    "the support case is now TCK-2"), the order of that earlier one (``None``: several
    fit it equally well). The two must be each other's best match, and neither pasted."""
    if replaced is None:
        replaced = _latest(tuple(statements))[1]
    gone = {o for olds in replaced.values() for o in olds}
    valued = [s for s in sorted(statements, key=lambda s: s.order)
              if not s.pasted and value_kinds(s.text) and s.order not in gone]
    weights = _Weights(s.text for s in valued)
    index: dict[str, list[int]] = {}
    best_earlier: dict[int, tuple[float, list[int]]] = {}
    best_later: dict[int, tuple[float, list[int]]] = {}
    for j, late in enumerate(valued):
        keys = _keys(late.text, weights) | {
            k for k in value_kinds(late.text) if k in ("percent",)}
        for i in sorted({i for k in keys for i in index.get(k, ())}):
            score = _evidence(late.text, valued[i].text, weights)
            if score < LIKELY_EVIDENCE:
                continue
            for best, me, other in ((best_earlier, j, i), (best_later, i, j)):
                top = best.get(me)
                if top is None or score > top[0]:
                    best[me] = (score, [other])
                elif score == top[0]:
                    top[1].append(other)
        for k in keys:
            index.setdefault(k, []).append(j)
    out: dict[tuple[int, ...], tuple[int, ...] | None] = {}
    for j, (_, others) in best_earlier.items():
        if len(others) > 1:
            out[valued[j].order] = None
        elif best_later[others[0]][1] == [j]:
            out[valued[j].order] = valued[others[0]].order
    return out
