"""What goes into a note that cannot hold everything: each statement's score (its
priority, raised for an update, lowered when a later one likely replaced it), and the
statements that fit, highest first, shown in the order they were said."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from ctxmgr.autocontext.standing.reading import RULE, STEP, VALUE, listed, pattern, priority
from ctxmgr.autocontext.standing.statements import Statement
from ctxmgr.autocontext.standing.updates import _latest, likely_updates

__all__ = ["LIKELY_RANK", "PASTED", "UPDATE_BONUS", "scores", "select"]

UPDATE_BONUS = STEP
"""Priority a statement gains for giving a new value: the user said that thing twice,
and the new value is what stands."""
LIKELY_RANK = VALUE - STEP // 2
"""The most an earlier statement ranks once a later one likely updates it: above
chatter, in case the link is wrong, below everything else worth keeping."""
PASTED = STEP
"""Priority a statement loses for coming from text the user pasted rather than said."""


def scores(statements: Sequence[Statement], *, among: Sequence[Statement] = (),
           replaced: Mapping[tuple[int, ...], set[tuple[int, ...]]] | None = None
           ) -> dict[tuple[int, ...], int]:
    """:func:`~.reading.priority` of each statement (by order), with ``among`` (other
    statements of the conversation, such as those a later value replaced) to tell a
    reading the user repeats with other numbers. An update ranks at least as high as
    what it replaced, and one step higher; one a later statement likely updates ranks
    no higher than :data:`LIKELY_RANK`. ``replaced``: what :func:`~.updates.latest`
    found replaced in ``statements`` and ``among``, when the caller has it already."""
    pool = (*statements, *among)
    patterns = Counter(pattern(text) for text in {s.text for s in pool})
    if replaced is None:
        replaced = _latest(pool)[1]
    own = {s.order: max(priority(s.text, repeated=patterns[pattern(s.text)] > 1),
                        listed(s.text) if s.listed else 0)
           - (PASTED if s.pasted else 0) for s in pool}
    likely = likely_updates(pool, replaced=replaced)
    out = {}
    for s in statements:
        earlier = [*replaced.get(s.order, ())]
        if (one := likely.get(s.order)) is not None:
            earlier.append(one)
        updated = s.order in likely or bool(earlier)
        out[s.order] = max([own[s.order], *(own[o] for o in earlier if o in own)]) + (
            UPDATE_BONUS if updated and own[s.order] >= VALUE else 0)
    for earlier_one in likely.values():
        if earlier_one is not None and earlier_one in out and earlier_one not in likely:
            out[earlier_one] = min(out[earlier_one], LIKELY_RANK)
    return out


def _rank(score: int) -> int:
    """Where a statement of ``score`` stands in :func:`select`: every rule alike."""
    return min(score, RULE)


def select(statements: Sequence[Statement], max_chars: int, *,
           among: Sequence[Statement] = (),
           score: Mapping[tuple[int, ...], int] | None = None
           ) -> tuple[list[Statement], int]:
    """The statements that fit ``max_chars``, highest :func:`_rank` first and, of one
    rank, the newest first, shown in their original order, and how many were left out.
    Once one does not fit, none of lower rank is taken: room is not filled with what
    matters less than what was left out. ``among`` and ``score`` as :func:`scores`
    takes and gives them."""
    score = scores(statements, among=among) if score is None else score
    ranked = sorted(sorted(statements, key=lambda s: s.order, reverse=True),
                    key=lambda s: -_rank(score[s.order]))
    kept: list[Statement] = []
    size = 0
    floor: int | None = None
    for s in ranked:
        if floor is not None and _rank(score[s.order]) < floor:
            break
        cost = len(s.text) + 1  # its line
        if size + cost > max_chars:
            floor = _rank(score[s.order]) if floor is None else floor
            continue
        kept.append(s)
        size += cost
    kept.sort(key=lambda s: s.order)
    return kept, len(statements) - len(kept)
