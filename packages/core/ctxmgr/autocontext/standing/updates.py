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
one lower (:mod:`.selection`).

**Cost.** Only pairs that share something are compared: a replacement shares a value or
a rare word with what it replaces (:func:`_replacing_keys`); of the pairs that only
share a kind of value (a currency, a unit, an id's shape), each pair of two kinds is
weighed once (:class:`_Matches`). A user who gives a budget a thousand times is read in
time linear in what they said, not in its square."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
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


@lru_cache(maxsize=32768)
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
        self._of: dict[tuple[str, int], float] = {}  # a chat compares each word many times
        self._live: dict[str, tuple[str, ...]] = {}

    def of(self, word: str, among: int) -> float:
        """The weight of ``word`` when ``among`` of the statements that use it are the two
        being compared: by how many others use it, and nothing when more than
        :data:`_RARE` do (a way of speaking: "Small change: the ... becomes")."""
        weight = self._of.get((word, among))
        if weight is None:
            others = max(0, self.df.get(word, 1) - among)
            weight = 0.0 if others >= _RARE else math.log(1 + self.total / (1 + others))
            self._of[(word, among)] = weight
        return weight

    def live(self, text: str) -> tuple[str, ...]:
        """The words of ``text``'s subject that weigh anything when shared, in its order
        (the others add nothing to :meth:`shared`)."""
        live = self._live.get(text)
        if live is None:
            live = self._live[text] = tuple(w for w in subject(text) if self.of(w, 2))
        return live

    def shared(self, later: str, earlier: str) -> tuple[float, bool]:
        """The weighed share of ``earlier``'s subject that ``later`` says too, and whether
        they share a word few others use (:data:`_RARE`)."""
        old = subject(earlier)
        live = self.live(earlier)
        if not live:
            return 0.0, False
        both = old & subject(later)
        total = sum(self.of(w, 1 + (w in both)) for w in live)
        if not total:
            return 0.0, False
        return (sum(self.of(w, 2) for w in both) / total,
                any(self.df.get(w, 1) <= _RARE for w in both))


@lru_cache(maxsize=32768)
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


@lru_cache(maxsize=32768)
def _denies(sentence: str) -> bool:
    head = _head(sentence)
    return "negation" in marks(head if head.strip() else sentence)


@dataclass(frozen=True, slots=True)
class _Pair:
    """What two sentences are to each other whatever else the conversation holds (what
    depends on it is how rare their words are: :class:`_Weights`)."""

    restated: bool
    """The later one says every value of the earlier one again."""
    same_stance: bool
    """:func:`_same_stance`."""
    shapes_units: float
    """The evidence of their ids' shapes, units, currencies and shares
    (:func:`_evidence`)."""
    change: bool
    """The later one has a word of change."""
    changed: bool
    """... and the earlier one has none."""


def _pair(later: str, earlier: str) -> _Pair | None:
    """The pair, or ``None`` when ``later`` cannot give a new value for what ``earlier``
    set (:func:`_comparable`)."""
    if not _comparable(later, earlier):
        return None
    evidence = sum(1.0 if shape in ("@", "/") else 2.0
                   for shape in id_shapes(later) & id_shapes(earlier))
    evidence += len({k for k in value_kinds(later) & value_kinds(earlier)
                     if k.startswith("unit:") or k in ("money", "percent")})
    change = "change" in marks(later)
    return _Pair(restated=values(earlier) <= values(later),
                 same_stance=_same_stance(later, earlier), shapes_units=evidence,
                 change=change, changed=change and "change" not in marks(earlier))


def supersedes(later: str, earlier: str, *, weights: _Weights | None = None) -> bool:
    """``later`` gives a new value for what ``earlier`` set (see the module's rule)."""
    pair = _pair(later, earlier)
    if pair is None:
        return False
    if pair.restated:
        return True  # every value said again: a restatement, whatever the wording
    if not pair.same_stance:
        return False
    weights = weights or _Weights((later, earlier))
    share, rare = weights.shared(later, earlier)
    needed = SAME_THING_CHANGED if pair.changed else SAME_THING
    return rare and share >= needed and weights.shared(earlier, later)[0] >= needed


def _evidence(later: str, earlier: str, weights: _Weights) -> float:
    """How strongly ``later`` looks like a new value for what ``earlier`` set: an id
    shape they share (2; an email address or a path 1: there are many), a unit, a currency
    or a share (1), the weighed share of ``earlier``'s subject said again
    (up to 2), and a word of change in ``later`` (1, with other evidence only)."""
    pair = _pair(later, earlier)
    if pair is None or pair.restated or not pair.same_stance:
        return 0.0
    evidence = pair.shapes_units + 2 * weights.shared(later, earlier)[0]
    if evidence and pair.change:
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
        keys = keys_of[s.order] = _replacing_keys(s.text, weights)
        for o in sorted({o for k in (*keys, _NO_VALUE) for o in by_key.get(k, ())}):
            if supersedes(s.text, out[o].text, weights=weights):
                del out[o]
                for k in keys_of.pop(o):
                    by_key[k].discard(o)
                replaced.setdefault(s.order, set()).update((o, *replaced.get(o, ())))
        for k in keys:
            by_key.setdefault(k, set()).add(s.order)
    return list(out.values()), replaced


_NO_VALUE = "none"
"""The key of a statement with a kind of value but no value the reader can name: every
later one says all of its values again (there should be none: a kind comes with its
value)."""


def _replacing_keys(text: str, weights: _Weights) -> set[str]:
    """What a statement that replaces ``text`` (:func:`supersedes`) must share with it:
    a value (it says every value again) or a word few statements use (it names the same
    thing); only those are compared, however many share a unit or an id's shape."""
    found = values(text)
    keys = {f"w:{w}" for w in subject(text) if weights.df.get(w, 1) <= _RARE}
    keys.update(f"v:{v}" for v in found)
    return keys if found else {*keys, _NO_VALUE}


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
    texts = [s.text for s in valued]
    return {valued[j].order: None if i is None else valued[i].order
            for j, i in _Matches(texts, _Weights(texts)).best().items()}


_NO_MATCH = -1
_Kind = tuple[frozenset[str], frozenset[str], bool, bool]
"""What decides the evidence between two statements that share no value and no word
that weighs anything: kinds of value, ids' shapes, negation, a word of change."""


class _Matches:
    """Which statement of ``texts`` is which later one's best match (:func:`_evidence` of
    at least :data:`LIKELY_EVIDENCE`), each pair that shares something compared.

    A pair that shares a value or a word that weighs anything (:class:`_Weights`) is
    weighed on its own. Every other pair shares at most a kind of value (a unit, a
    currency, an id's shape), and weighs what any pair of the same two kinds weighs: a
    user who gives a budget a hundred times is read in time linear in what they said,
    not in its square."""

    def __init__(self, texts: Sequence[str], weights: _Weights) -> None:
        self.texts, self.weights = texts, weights
        self.kinds: list[_Kind] = [(value_kinds(t), id_shapes(t), _denies(t),
                                    "change" in marks(t)) for t in texts]
        self.members: dict[_Kind, list[int]] = {}  # of each kind, in order
        by_key: dict[str, set[_Kind]] = {}
        for j, kind in enumerate(self.kinds):
            self.members.setdefault(kind, []).append(j)
            for key in _kind_keys(kind):
                by_key.setdefault(key, set()).add(kind)
        self.near = {kind: set().union(*(by_key[k] for k in _kind_keys(kind)))
                     for kind in self.members}  # the kinds a kind shares a key with
        self.own: list[dict[int, float]] = [{} for _ in texts]  # own[j][i]: weighed alone
        self.own_later: list[dict[int, float]] = [{} for _ in texts]  # own_later[i][j]
        self._scores: dict[tuple[_Kind, _Kind], float] = {}
        self._weigh_own()

    def _weigh_own(self) -> None:
        index: dict[str, list[int]] = {}
        valueless: list[int] = []  # (none expected) every later one restates them
        for j, text in enumerate(self.texts):
            named = {f"v:{v}" for v in values(text)}
            named.update(f"w:{w}" for w in subject(text) if self.weights.df.get(w, 1) <= _RARE)
            live = {f"l:{w}" for w in self.weights.live(text)}
            near = self.near[self.kinds[j]]
            found = {i for k in named for i in index.get(k, ())}
            found.update(i for k in live for i in index.get(k, ()) if self.kinds[i] in near)
            found.update(i for i in valueless if self.kinds[i] in near)
            for i in found:
                self.own[j][i] = self.own_later[i][j] = _evidence(text, self.texts[i],
                                                                  self.weights)
            for k in named | live:
                index.setdefault(k, []).append(j)
            if not values(text):
                valueless.append(j)

    def _score(self, later: _Kind, earlier: _Kind) -> float:
        """:func:`_evidence` of any pair of these kinds weighed by kind (no word shared
        weighs anything: the share is 0)."""
        score = self._scores.get((later, earlier))
        if score is None:
            pair = _pair(self.texts[self.members[later][0]], self.texts[self.members[earlier][0]])
            score = 0.0
            if pair is not None and pair.same_stance:
                score = pair.shapes_units + 2 * 0.0
                if score and pair.change:
                    score += 1
            self._scores[(later, earlier)] = score
        return score

    def _top(self, me: int, own: Mapping[int, float], later: bool) -> int | None:
        """The single best match of ``me`` among the earlier (or ``later``) statements:
        its index; ``None`` when several tie; :data:`_NO_MATCH` when none reaches
        :data:`LIKELY_EVIDENCE`. ``own``: the pairs of ``me`` weighed on their own."""
        kind = self.kinds[me]
        found: list[tuple[float, int, int | _Kind]] = [
            (score, 1, i) for i, score in own.items() if score >= LIKELY_EVIDENCE]
        for other in self.near[kind]:
            score = self._score(other, kind) if later else self._score(kind, other)
            if score < LIKELY_EVIDENCE:
                continue
            members = self.members[other]
            at = bisect_right(members, me) if later else bisect_left(members, me)
            n = (len(members) - at if later else at) - sum(self.kinds[i] == other for i in own)
            if n > 0:
                found.append((score, n, other))
        if not found:
            return _NO_MATCH
        top = max(score for score, _, _ in found)
        best = [(n, who) for score, n, who in found if score == top]
        if len(best) > 1 or best[0][0] > 1:
            return None
        who = best[0][1]
        if isinstance(who, int):
            return who
        members = self.members[who]  # its one statement on that side that is not own
        if later:
            return next(members[k] for k in range(bisect_right(members, me), len(members))
                        if members[k] not in own)
        return next(i for i in members if i not in own)

    def best(self) -> dict[int, int | None]:
        """For each statement with a best match, that earlier one's index when each is
        the other's only best match, ``None`` when several tie (in order)."""
        out: dict[int, int | None] = {}
        for j in range(len(self.texts)):
            i = self._top(j, self.own[j], later=False)
            if i is None:
                out[j] = None
            elif i != _NO_MATCH and self._top(i, self.own_later[i], later=True) == j:
                out[j] = i
        return out


def _kind_keys(kind: _Kind) -> set[str]:
    """What a statement of ``kind`` shares with an update of it beside a value or a word:
    an id's shape, a unit, a currency, a share (a pair sharing none is not compared)."""
    kinds, shapes = kind[0], kind[1]
    keys = {f"s:{s}" for s in shapes}
    keys.update(k for k in kinds if k.startswith("unit:") or k in ("money", "percent"))
    return keys
