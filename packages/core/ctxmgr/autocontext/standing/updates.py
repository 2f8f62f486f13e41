"""Which sentence replaced which: a later value for the same thing
(:func:`supersedes`, :func:`latest`), said in words of its own (:func:`likely_updates`),
and a line that ran two statements together, replaced through one of them."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache

from ctxmgr.autocontext.identifiers import distinctive_strings
from ctxmgr.autocontext.standing.grammar import (
    _content,
    _content_words,
    _is_trivial,
    _lead_in_end,
    _naming,
    _negated,
    _same_word,
    _says_change,
)
from ctxmgr.autocontext.standing.statements import Statement
from ctxmgr.autocontext.standing.values import (
    _forms,
    _id_shapes,
    _names,
    _value_letters,
    _values,
    value_kinds,
)
from ctxmgr.autocontext.standing.words import (
    _APOSTROPHE,
    _CHANGE,
    _QUANTITIES,
    _TIME_UNITS,
    _words,
)

SUBJECT_MAX_DF = 3
"""A word pair shared by more statements than this is a way of speaking ("changed this
morning to"), not the name of one thing (an item, its restatement and its update)."""


@lru_cache(maxsize=8192)
def _phrases(sentence: str) -> frozenset[tuple[str, str]]:
    """The pairs of neighbouring words in ``sentence`` that hold a content word (four
    letters or more, not a grammar word): what names the thing a value is about ("the
    planned", "planned downtime"), whatever the rest of the sentence says. A value
    breaks the run, with the unit after a number ("under 281 seconds" pairs nothing: the
    words belong to the value, not to what it is about), and a contraction counts as its
    first word ("that's" is "that"). An opening aside (:func:`_lead_in_end`: "Reading back
    through the thread, ...") says how the sentence comes, not what it is about."""
    values = _value_letters(distinctive_strings(sentence))
    out: set[tuple[str, str]] = set()
    before, unit_next = "", False
    for token in _words(sentence[_lead_in_end(sentence):]):
        word = token.lower()
        if token[0].isdigit() or word in values or unit_next:
            before, unit_next = "", token[0].isdigit()
            continue
        word = _APOSTROPHE.split(word)[0].rstrip("s")
        if before and (_content(before) or _content(word)):
            out.add((before, word))
        before = word
    return frozenset(out)


def supersedes(later: str, earlier: str, *,
               df: Mapping[tuple[str, str], int] | None = None) -> bool:
    """``later`` gives a new value for what ``earlier`` set.

    ``later`` must carry a value of every kind ``earlier`` does (so ``earlier`` holds
    nothing ``later`` would lose), they must share a word pair that names the thing
    ("the planned downtime ... 222 minutes", "the planned downtime is now 125 minutes")
    and that few other statements of the conversation use (``df``: in how many it
    occurs; a pair in more than :data:`SUBJECT_MAX_DF` is a way of speaking, not a
    subject, and a pair with a grammar word, "the export", in more than one fewer, and
    only between two sentences that both negate or neither and when one of them says no
    content word the other does not ("try not to skip saving the exports to X" and "the
    export lands in Y" are two things, and so are "the contact email changed this morning
    to X" and "the database host changed this morning to Y", which share a frame, not a
    subject; :func:`likely_updates` weighs such pairs instead); a pair with a word of
    change, "new value", names nothing, and neither does one of a frame after the values
    when the words before them differ, :func:`_other_heads`), and
    their ids must be of one kind when both have ids (``ORD-56113`` does not replace
    ``GB869939294``). A later sentence that says every value of ``earlier`` again is a
    restatement, and replaces it too, whatever its words: one of them is enough.
    """
    kinds, old_kinds = value_kinds(later), value_kinds(earlier)
    if not old_kinds or not old_kinds <= kinds:
        return False
    old_values = _values(earlier)
    if old_values and old_values <= _values(later):
        return True  # every value said again: a restatement, whatever the wording
    ids, old_ids = _id_shapes(later), _id_shapes(earlier)
    if ids and old_ids and not ids & old_ids:
        return False  # an order number and a VAT number: two things, whatever the words
    # a pair with a word of change ("new value", "changed to") says that, not of what
    shared = {pair for pair in _phrases(later) & _phrases(earlier)
              if not any(_CHANGE.fullmatch(word) for word in pair)}
    if not shared or _other_heads(later, earlier):
        return False
    words, old_words = _content_words(later), _content_words(earlier)
    one_frame = _negated(later) == _negated(earlier) and (
        _covered(words, old_words) or _covered(old_words, words))
    return any((df or {}).get(pair, 1) <= SUBJECT_MAX_DF - (not _naming(pair))
               and (_naming(pair) or one_frame) for pair in shared)


def _other_heads(later: str, earlier: str) -> bool:
    """Both name something before their first value, and not one word of it alike: the
    pairs they share come after the values, in a frame they are said in ("... going
    forward", "... wherever you've got it written down"), or in a label both open with
    ("new exit criteria: monthly churn ..." and "new exit criteria: test coverage ..."),
    not in what they are about."""
    labelled = _labelled(later) and _labelled(earlier)
    head, old_head = _head(later, labelled), _head(earlier, labelled)
    return bool(head and old_head) and not any(
        _same_word(a, b) for a in head for b in old_head)


def _before_value(sentence: str) -> str:
    at = min((i for v in _values(sentence) if (i := sentence.find(v)) >= 0), default=0)
    return sentence[:at]


def _labelled(sentence: str) -> bool:
    """Content words come between a colon and the first value."""
    _, colon, rest = _before_value(sentence).rpartition(": ")
    return bool(colon and _content_words(rest))


@lru_cache(maxsize=8192)
def _head(sentence: str, after_label: bool = False) -> frozenset[str]:
    """The content words of ``sentence`` before its first value (after its label, one
    that ends in a colon, if ``after_label``)."""
    before = _before_value(sentence)
    return _content_words(before.rpartition(": ")[2] if after_label else before)


def _covered(words: frozenset[str], by: frozenset[str]) -> bool:
    """Every one of ``words`` is one of ``by`` (:func:`_same_word`)."""
    return all(any(_same_word(a, b) for b in by) for a in words)
LIKELY_EVIDENCE = 2
"""The evidence (:func:`_update_match`) from which a later statement likely updates an
earlier one."""
_KEY_MAX_DF = 8
"""A unit, an id's shape or a word in more statements than this finds no candidates."""


def likely_updates(statements: Sequence[Statement], *,
                   replaced: Mapping[tuple[int, ...], Iterable[tuple[int, ...]]] | None = None
                   ) -> dict[tuple[int, ...], tuple[int, ...] | None]:
    """For each statement that likely gives a new value, in words of its own, for what
    one earlier statement set, the order of that earlier one (``None``: several earlier
    ones fit it equally well, so which one it updates is not known): an update
    :func:`supersedes` cannot tell ("the ticket for this is TCK-1" ... "the support case
    is now TCK-2"; "keep the planned downtime under 222 minutes" ... "any maintenance
    outage can now go as high as 199 minutes").

    Weaker evidence than :func:`supersedes` asks for, so nothing is dropped for it: the
    earlier one ranks no higher than :data:`LIKELY_RANK` and the later one at least as
    high as it did (:func:`scores`), unless it gave a new value itself: the user corrected
    that one already, and weak evidence does not demote the latest value of a thing.
    The two must be each other's best match (one later statement, one earlier; of equal
    evidence, the one that shares more of the subject's words, and of a statement and those
    it replaced, ``replaced`` as :func:`latest` found it, the latest), and neither pasted; a
    later statement that fits several equally still ranks as an update, and demotes none
    of them."""
    if replaced is None:
        replaced = _latest(tuple(statements))[1]
    first: dict[str, Statement] = {}  # of equal statements the first, as :func:`latest`
    for s in sorted(statements, key=lambda s: s.order):
        first.setdefault(s.text, s)
    valued = [s for s in first.values() if not s.pasted and value_kinds(s.text)]
    df: Counter[str] = Counter(w for s in valued for w in _content_words(s.text))
    index: dict[str, list[int]] = {}
    found: dict[tuple[int, int], tuple[int, int]] = {}
    in_part: set[tuple[int, int]] = set()  # links to one part of a line run on
    for j, late in enumerate(valued):
        keys = _update_keys(late.text)
        near = {i for k in keys if len(index.get(k, ())) <= _KEY_MAX_DF
                for i in index.get(k, ())}
        for i in sorted(near):
            # (evidence, subject words shared): of equal evidence, the more shared wins
            if (match := _update_match(late.text, valued[i].text, df))[0] >= LIKELY_EVIDENCE:
                found[(j, i)] = match
            elif (match := _part_match(late.text, valued[i].text, df))[0] >= LIKELY_EVIDENCE:
                found[(j, i)] = match
                in_part.add((j, i))
        for k in keys:
            index.setdefault(k, []).append(j)
    best_earlier: dict[int, tuple[tuple[int, int], list[int]]] = {}
    best_later: dict[int, tuple[tuple[int, int], list[int]]] = {}
    for (j, i), match in found.items():
        for best, me, other in ((best_earlier, j, i), (best_later, i, j)):
            top = best.get(me)
            if top is None or match > top[0]:
                best[me] = (match, [other])
            elif match == top[0]:
                top[1].append(other)  # a tie: no one best match, unless one thing

    def one(others: list[int]) -> int | None:
        # of a statement and the ones it replaced (a restatement), the latest stands
        said = {valued[k].order: k for k in others}
        left = set(said) - {o for k in said for o in replaced.get(k, ())}
        return said[left.pop()] if len(left) == 1 else None

    out: dict[tuple[int, ...], tuple[int, ...] | None] = {}
    for j, (_, others) in best_earlier.items():
        earlier = one(others)
        if earlier is None or one(best_later[earlier][1]) == j:
            out[valued[j].order] = (None if earlier is None or (j, earlier) in in_part
                                    else valued[earlier].order)
    return out


def _update_keys(sentence: str) -> set[str]:
    """What a statement and its update may share: a unit, an amount, a share or a name,
    an id's shape, a value's form, a word (by its first four letters, and by its letters, for a
    slip of the keys)."""
    keys = {k for k in value_kinds(sentence)
            if k.startswith("unit:") or k in ("money", "percent", "name")}
    keys.update(f"id:{shape}" for shape in _id_shapes(sentence))
    keys.update(f"form:{form}" for form in _forms(sentence))
    for word in _content_words(sentence):
        keys.update((f"w:{word[:4]}", f"l:{''.join(sorted(word))}"))
    return keys


def _update_match(later: str, earlier: str, df: Mapping[str, int]) -> tuple[int, int]:
    """How strongly ``later`` looks like a new value for what ``earlier`` set, and how many
    of the subject's words they share (:func:`_shared_subject`, which breaks a tie).

    The evidence is 0 when its
    values could not stand for ``earlier``'s (a kind missing, ids of another shape, a
    restatement, or a rule and a plain statement about one id); else an id shape they
    share (2, an email address 1), a unit (2, a unit of time 1), an amount or a share
    (1), a name for what a name alone set, said in words of change (1), a value's
    written form (1, :func:`_forms`), each content word they share that
    few statements use (1), and a word of change in ``later`` (1, with other evidence
    only)."""
    kinds, old_kinds = value_kinds(later), value_kinds(earlier)
    if not old_kinds <= kinds or _values(earlier) <= _values(later):
        return 0, 0  # a kind missing, or every value said again: a restatement
    shapes, old_shapes = _id_shapes(later), _id_shapes(earlier)
    if shapes and old_shapes and not shapes & old_shapes:
        return 0, 0
    quantity = any(k in _QUANTITIES or k.startswith("unit:") for k in old_kinds)
    if not quantity and _negated(later) != _negated(earlier):
        return 0, 0  # "never refund ORD-1" and "the refund for ORD-2 has gone through"
    evidence = sum(1 if shape == "@" else 2 for shape in shapes & old_shapes)
    evidence += len(_forms(later) & _forms(earlier))
    evidence += len({"money", "percent"} & kinds & old_kinds)
    if old_kinds == {"name"} and "name" in kinds and _says_change(later):
        evidence += 1  # a name, said anew in words of change ("call me X instead")
    for kind in {k for k in kinds & old_kinds if k.startswith("unit:")}:
        evidence += 1 if kind[5:] in _TIME_UNITS else 2
    subject = _shared_subject(later, earlier, df)
    evidence += subject
    if evidence and _says_change(later):
        evidence += 1
    return evidence, subject


def _part_match(later: str, earlier: str, df: Mapping[str, int]) -> tuple[int, int]:
    """:func:`_update_match` of ``later`` and the best part of ``earlier``, a line that
    runs two statements together (:data:`_PART_CUT`) with a kind of value ``later`` does
    not say ("... may not exceed 46 workers; ... the spend on contractors has a hard
    ceiling of 4,505.88 EUR" ... "the ceiling on contractor costs has moved to $7,465");
    (0, 0) when no part matches better than the whole."""
    if value_kinds(earlier) <= value_kinds(later):
        return 0, 0
    return max((_update_match(later, part, df) for part in _parts(earlier)
                if not _is_trivial(part)), default=(0, 0))


def _shared_subject(later: str, earlier: str, df: Mapping[str, int]) -> int:
    """The content words of ``earlier`` that few statements use (at most
    :data:`SUBJECT_MAX_DF`) and ``later`` says too, give or take a slip of the keys."""
    words = _content_words(later)
    return sum(1 for b in _content_words(earlier) if df.get(b, 1) <= SUBJECT_MAX_DF
               and any(_same_word(a, b) for a in words))


def latest(statements: Iterable[Statement]) -> list[Statement]:
    """``statements`` deduplicated (the first of equal ones), with every one that a
    later one (or a part of a later line that ran two together, :func:`_parts`)
    :func:`supersedes` left out, and of a line that ran two together the part a later
    one replaced (:func:`_rest_not_replaced`), in order."""
    return _latest(tuple(statements))[0]


def _latest(statements: tuple[Statement, ...]
            ) -> tuple[list[Statement], dict[tuple[int, ...], set[tuple[int, ...]]]]:
    """:func:`latest`, and for each statement that replaced others, whole or in part,
    the orders of all it replaced (and what those had replaced whole).

    A statement can only replace one it shares a value or a word pair with (see
    :func:`supersedes`), so each is checked against those alone, found through an index:
    a chat that pastes a log every turn has thousands of statements."""
    ordered = sorted(statements, key=lambda s: s.order)
    df: Counter[tuple[str, str]] = Counter()
    value_df: Counter[str] = Counter()
    for text in {s.text for s in ordered}:
        df.update(_phrases(text))
        value_df.update(_values(text))
    out: dict[tuple[int, ...], Statement] = {}  # in order; a replaced one is removed
    by_key: dict[object, set[tuple[int, ...]]] = {}
    replaced: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    seen: set[str] = set()
    for s in ordered:
        if s.text in seen:
            continue
        seen.add(s.text)
        if not value_kinds(s.text):  # it neither replaces nor can be replaced
            out[s.order] = s
            continue
        # a pair more statements share than SUBJECT_MAX_DF names no subject: no key; a
        # restatement says every value of the one it replaces, so its rarest is enough
        pairs = [p for p in _phrases(s.text) if df[p] <= SUBJECT_MAX_DF]
        values = _values(s.text)
        candidates = {o for k in [*pairs, *values] for o in by_key.get(k, ())}
        parts = tuple(_parts(s.text)) if candidates else ()  # each cut once, not per candidate
        for o in sorted(candidates):
            old = out.get(o)
            if old is None:
                continue
            if supersedes(s.text, old.text, df=df) or any(
                    supersedes(part, old.text, df=df) for part in parts):
                del out[o]
                replaced.setdefault(s.order, set()).update((o, *replaced.get(o, ())))
            elif (rest := _rest_not_replaced(s.text, old.text, df)) is not None:
                out[o] = Statement(rest, old.order, old.pasted)
                replaced.setdefault(s.order, set()).add(o)
        out[s.order] = s
        rarest = [min(values, key=lambda v: (value_df[v], v))] if values else []
        for k in [*pairs, *rarest]:
            by_key.setdefault(k, set()).add(s.order)
    return list(out.values()), replaced


_PART_CUT = re.compile(r"[,;]\s+|(?<=[a-z])\s+(?=[A-Z][\w'’-]*,?\s+[a-z])")
"""Where one statement may end and the next begin in a line run on without a full stop:
after a comma or a semicolon, before a capitalised word between lowercase ones ("... 22,348
rows so yeah I find ...", "... each time Ultimately, this is ..."; not inside "20:15
UTC" or "Fenella Nakamura")."""


def _run_on_parts(line: str) -> Iterator[tuple[str, str]]:
    """Each way to cut ``line`` in two at a :data:`_PART_CUT` that splits no value."""
    # every value but a capitalised word (which may open the part after the cut)
    values = {v for v in _values(line) if " " in v or v not in _names(line)}
    for cut in _PART_CUT.finditer(line):
        head, tail = line[:cut.start()].strip(), line[cut.end():].strip()
        if values <= _values(head) | _values(tail):
            yield head, tail


def _parts(line: str) -> Iterator[str]:
    """Each side of each cut of a line that ran statements together (:func:`_run_on_parts`):
    a later line "order ORD-7 is refunded Scratch that, our VAT number is GB2" replaces
    "our VAT number is GB9" through its second part."""
    for head, tail in _run_on_parts(line):
        yield head
        yield tail


def _rest_not_replaced(later: str, earlier: str,
                       df: Mapping[tuple[str, str], int]) -> str | None:
    """What is left of ``earlier`` when ``later`` replaces a part of it: ``earlier`` ran
    two statements together and holds a kind of value ``later`` does not say (so
    :func:`supersedes` cannot drop it whole), and one side of a cut (:data:`_PART_CUT`)
    is what ``later`` gives a new value for. The rest is kept verbatim, the replaced value
    goes; ``None``: no part of it is replaced."""
    if value_kinds(earlier) <= value_kinds(later):
        return None
    for head, tail in _run_on_parts(earlier):
        for part, rest in ((head, tail), (tail, head)):
            if (not _is_trivial(rest) and not _values(part) & _values(rest)
                    and supersedes(later, part, df=df)):
                return rest
    return None
