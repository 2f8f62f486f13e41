"""What goes into a note that cannot hold everything: each statement's score (its
priority, raised for an update, lowered when a later one likely replaced it), and the
statements that fit, highest first, shown in the order they were said."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from ctxmgr.autocontext.standing.grammar import _binds, _pattern, _says_change
from ctxmgr.autocontext.standing.statements import Statement
from ctxmgr.autocontext.standing.updates import _latest, likely_updates
from ctxmgr.autocontext.standing.values import _values, value_kinds
from ctxmgr.autocontext.standing.weight import priority
from ctxmgr.autocontext.standing.words import _DEIXIS

LIKELY_RANK = 2
"""The most an earlier statement ranks once a later one likely updates it: the least of
what binds or carries a value. It stays above chatter, in case the link is wrong (about
one in ten joins two things), but below everything else worth keeping."""
UPDATE_BONUS = 2
"""Priority steps a statement gains for giving a new value: the user said that thing
twice, and the new value is what stands. Two steps, not one: at a fifth of a chat
session, 493 latest values of 500 stood where one step kept 487 (phrasings no rule was
designed on), for 0.005 fewer planted items kept in two families; three steps cost 0.04."""
CHANGE_BONUS = 1
"""Priority steps for a value said in words of change ("new max is 143 seconds", "I
changed my mind; put X as the signature") that no earlier statement was found for: most
updates that share no word with what they replace say that they change something. One
step, not :data:`UPDATE_BONUS`: the words also come in things said once ("the new plan",
"I'd rather not"); at a fifth of a chat session (100 sessions in each of four families),
1,998 latest values of 2,000 stood where none kept 1,996, and 1,995 where 1,986 on the next
100 seeds, survival the same or up to 0.003 higher; two steps cost 0.006 to 0.009."""


def scores(statements: Sequence[Statement], *, among: Sequence[Statement] = ()
           ) -> dict[tuple[int, ...], int]:
    """:func:`priority` of each statement (by order): a pasted one loses three steps; one
    whose pattern recurs among ``statements`` and ``among`` (say, the statements a later
    value replaced) counts as repeated, and one that replaced a statement of those in
    words of its own, or binding, as an update (:func:`_is_update`). An update ranks at
    least as high as what it replaced: "the planned downtime is now capped at 125
    minutes" carries on the rule "don't let the planned downtime go above 228 minutes".
    One a later statement likely updates (or what says it again since) steps down to
    :data:`LIKELY_RANK`, unless it gave a new value itself (of the links onto such a
    value in the generated sessions, 20 of 21 were wrong: "the API timeout stays under 25
    seconds" onto "the goal is now a page load under 4.9 seconds")."""
    pool = (*statements, *among)
    patterns = Counter(_pattern(text) for text in {s.text for s in pool})
    replaced = _latest(pool)[1]
    text_of = {s.order: s.text for s in pool}
    # what is left of a line a later one replaced in part (:func:`latest`) keeps the
    # line's order: it is scored for its own words, not for the value that went
    own = {s.order: priority(s.text, repeated=patterns[_pattern(s.text)] > 1,
                             update=_is_update(s.text, [text_of[o] for o in
                                                        replaced.get(s.order, ())]))
           - (3 if s.pasted else 0)
           for s in (*among, *statements)}
    # what replaced each statement last: a likely update of a statement said again
    # since is one of what says it now
    now = {o: new for new, olds in sorted(replaced.items()) for o in olds}
    gone = now.keys()
    likely = {a: b for a, b in ((a, b if b is None else now.get(b, b)) for a, b in
                                likely_updates(pool, replaced=replaced).items())
              if b is None or (b not in gone and b < a)}
    changed = {s.order for s in statements if s.order in likely or any(
        _values(text_of[e]) - _values(s.text) for e in replaced.get(s.order, ()))}
    said_anew = {s.order for s in statements if s.order not in changed and not s.pasted
                 and value_kinds(s.text) and _says_change(s.text)}
    out = {}
    for s in statements:
        earlier = [*replaced.get(s.order, ())]
        if (one := likely.get(s.order)) is not None:
            earlier.append(one)
        score = max([own[s.order], *(own[o] for o in earlier)])
        out[s.order] = score + (UPDATE_BONUS if s.order in changed
                                else CHANGE_BONUS if s.order in said_anew else 0)
    for later, earlier_one in likely.items():
        if (later in out and earlier_one is not None and earlier_one in out
                and earlier_one not in changed):
            out[earlier_one] = min(out[earlier_one], LIKELY_RANK)
    return out


def _is_update(text: str, replaced: Sequence[str]) -> bool:
    """``text``, which replaced the statements ``replaced``, changes what stands: said in
    words of its own ("the planned downtime is now capped at 125 minutes" after "don't
    let it go above 228 minutes"), or binding ("keep the discount under 17%" after "keep
    the discount under 29%"). The same words with another number and nothing binding are
    a reading taken again ("the queue shows 16 people waiting"), and rank as the repeated
    remark they are, binding or not when they speak of the moment ("it's 5:20 here, so
    not much time left")."""
    return bool(replaced) and (any(_pattern(o) != _pattern(text) for o in replaced)
                               or (_binds(text) and not _DEIXIS.search(text)))


INSTRUCTION_RANK = 4
"""From this :func:`scores` up a statement is an instruction: a value said to the
assistant, or one that binds. A note that cannot hold every instruction holds the most
priority it can: instructions go by the characters they take per step of priority above
:data:`LIKELY_RANK` (a rule that binds a value said to the assistant, 6, before a
request with a value, 4, unless it is twice as long). At a tenth of a chat session 0.42
and 0.39 of the planted items survive where rank, then recency kept 0.38 and 0.36, with
about as many safety rules (0.55 and 0.44, from 0.57 and 0.44). Below, the higher score
first, and of equal scores the most recent, as a plain statement of a value may be an
update no link was found for (shorter first there lost 4 more latest values of 2,000 at
a fifth of the session)."""


def _rank(score: int) -> int:
    """Where a statement of ``score`` stands in :func:`select`: higher first; every
    instruction (:data:`INSTRUCTION_RANK` and up) alike."""
    return min(score, INSTRUCTION_RANK)


def select(statements: Sequence[Statement], max_chars: int, *,
           among: Sequence[Statement] = (),
           score: Mapping[tuple[int, ...], int] | None = None
           ) -> tuple[list[Statement], int]:
    """The statements that fit ``max_chars``, highest :func:`_rank` first (instructions by
    characters per step of priority, :data:`INSTRUCTION_RANK`; other ties by recency),
    shown in their original order, and how many were left out. Once one does not fit,
    none of lower rank is taken: room is not filled with chatter.
    ``among``: other statements of the conversation, to tell repeated remarks;
    ``score``: their :func:`scores`, when the caller has them already (a note sized
    to its room selects from the same statements several times)."""
    score = scores(statements, among=among) if score is None else score
    newest_first = sorted(statements, key=lambda s: s.order, reverse=True)
    ranked = sorted(newest_first, key=lambda s: (  # stable: other ties by recency
        -_rank(score[s.order]),
        len(s.text) / (score[s.order] - LIKELY_RANK) if score[s.order] >= INSTRUCTION_RANK
        else 0))
    kept: list[Statement] = []
    size = 0
    floor: int | None = None  # the rank of the first statement that did not fit
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
