"""Strategy 9, the very last resort: the user's own words, oldest first, into one note.

Every other strategy leaves the user's turns alone (tool results and the agent's own
text go first), so this one runs only while the prompt is still over the budget once
strategies 1-8 have done all they can. It replaces the oldest user turns that are
not pinned (the task and the latest user message always are), with everything
between them, by one user-role note right after what is pinned at the top:

* what the user said there that still stands, verbatim and deduplicated, each value
  at its latest (:mod:`ctxmgr.autocontext.standing`), within ``user_note_chars`` and
  the room the budget leaves; what does not fit stays in the reloadable original;
* the record of the range's tool calls (:mod:`ctxmgr.autocontext.record`).

The note takes in the earlier stand-ins before it and, on the next pass, itself: one
note rolls forward instead of many piling up. It is a user message, so a round trip
through a provider's format that loses ctxmgr's markers still leaves it the last thing
compressed, and its lines are read back as the user's words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.rounds import Layout
from ctxmgr.autocontext.standing import (
    USER_NOTE_HEADER,
    Statement,
    latest,
    scores,
    select,
    statements_of,
)
from ctxmgr.autocontext.strategies.base import (
    CHARS_PER_TOKEN,
    Plan,
    RunsWhen,
    StrategyContext,
    summary_message,
)
from ctxmgr.messages import Message

__all__ = ["UserTurns", "user_note", "user_note_text"]

_WEIGHTY = 2  # a priority from here on: the sentence binds or carries a value
_FILL_STEP = 16  # characters: a note sized to its room stops searching this close to it


def user_note(statements: Sequence[Statement], max_chars: int, *,
              among: Sequence[Statement] = (),
              score: Mapping[tuple[int, ...], int] | None = None
              ) -> tuple[str, list[Statement]]:
    """The note's own text (the header, the statements that fit ``max_chars`` by
    priority, shown in order, and how many did not), and the statements it holds
    (``among`` and ``score`` as :func:`~ctxmgr.autocontext.standing.select` takes them)."""
    kept, left_out = select(statements, max_chars, among=among, score=score)
    return user_note_text([s.text for s in kept], left_out), kept


def user_note_text(lines: Sequence[str], left_out: int) -> str:
    """The note's layout: the header, a line each (no bullets: a token a line), and how
    many statements were left out."""
    out = [USER_NOTE_HEADER, *lines]
    if not lines:
        out.append("(nothing that still stands)")
    if left_out:
        out.append(f"(+{left_out} more)")
    return "\n".join(out)


class UserTurns:
    number = 9
    name = "user_turns"
    uses_llm = False
    runs_when: RunsWhen = "over_budget"
    reduces_count = False
    writes_summary = True
    closes_round = False
    last_resort = True

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        cfg = ctx.config
        if ctx.tokens <= cfg.budget_tokens:
            return []
        lay = ctx.layout
        movable = sorted(i for i in lay.user_turns if i < lay.frozen_from)
        if not movable:
            return []
        start = _start(lay, movable[0])
        limit = _limit(lay, movable[0])
        statements = {i: statements_of(ctx.messages[i]) for i in range(start, lay.size)
                      if i in lay.user_turns or i == lay.latest_user}
        weight = scores([Statement(x.text, (i, *x.order), x.pasted)
                         for i, found in statements.items() for x in found])
        best: tuple[int, int, int] | None = None
        chosen = limit
        ends = [i for i in movable[1:] if i < limit] + [limit]
        # each measured with the id it will carry: ids take 13 to 23 tokens in a tag
        ids = OffloadStore.ids_for(ctx.messages[start:], [end - start for end in ends])
        for end in ends:
            note, held = self._stand_in(ctx, start, end, ids[end - start], statements)
            old = sum(ctx.counter.count(m) for m in ctx.messages[start:end])
            if ctx.tokens - old + ctx.counter.count(note) > cfg.budget_tokens:
                continue
            verbatim = [Statement(x.text, (i, *x.order), x.pasted)
                        for i, found in statements.items() if i >= end for x in found]
            current = {x.order for x in latest(verbatim)}
            stale = sum(x.order not in current for x in verbatim)  # replaced, still shown
            still = [*held, *verbatim]
            # what the user said that binds or has a value, less the values shown though
            # replaced; then all the rest; then the fewest turns moved (oldest go first)
            key = (sum(weight.get(x.order, 0) >= _WEIGHTY for x in still) - stale,
                   len(still), -end)
            if best is None or key > best:
                best, chosen = key, end

        def build(_: str | None, offload_id: str) -> tuple[Message, ...]:
            return (self._stand_in(ctx, start, chosen, offload_id, statements)[0],)

        return [Plan(strategy=self.number, start=start, end=chosen, build=build)]

    def _stand_in(self, ctx: StrategyContext, start: int, end: int, offload_id: str,
                  statements: dict[int, list[Statement]]
                  ) -> tuple[Message, list[Statement]]:
        """The note for ``messages[start:end]`` and the statements it holds: what the user
        said first, then the record of the range's tool calls in what room is left,
        both cut to fit beside the rest of the prompt within the budget."""
        cfg = ctx.config
        replaced = ctx.messages[start:end]
        said = [Statement(s.text, (i, *s.order), s.pasted) for i in range(start, end)
                for s in statements.get(i, ())]
        later = [Statement(s.text, (i, *s.order), s.pasted) for i, found in statements.items()
                 if i >= end for s in found]
        moved = {s.order for s in said}
        standing = [s for s in latest([*said, *later]) if s.order in moved]
        room = cfg.budget_tokens - ctx.tokens + sum(ctx.counter.count(m) for m in replaced)
        score = scores(standing, among=said)
        chars = cfg.user_note_limit
        fits: tuple[int, Message, list[Statement]] | None = None  # the most chars that fit
        over: int | None = None  # the fewest that did not
        while True:
            text, held = user_note(standing, chars, among=said, score=score)
            record = max(0, min(cfg.record_limit, room * CHARS_PER_TOKEN - len(text)))
            note = summary_message(replaced, text, offload_id, by=self, role="user",
                                   record_chars=record, agent_text=False)
            tokens = ctx.counter.count(note)
            if tokens <= room or chars <= 0:
                fits = (chars, note, held)
            else:
                over = chars
            # a shrink by ratio undershoots; the room between is searched by halves, as
            # a line of the note is often what the slack would hold
            if fits is not None and (over is None or over - fits[0] <= _FILL_STEP):
                return fits[1], fits[2]
            chars = ((fits[0] + over) // 2 if fits is not None and over is not None
                     else min(chars - 1, int(chars * room / tokens * 0.95)))


def _start(lay: Layout, first: int) -> int:
    """Where the note starts: back over the earlier stand-ins and messages before the
    first movable user turn, up to what is pinned, never inside a tool group."""
    group_of = {k: g for g in lay.groups for k in range(g.start, g.end)}
    start = first
    while start > 0 and (start - 1) not in lay.pinned:
        g = group_of.get(start - 1)
        if g is not None and any(k in lay.pinned for k in range(g.start, g.end)):
            break
        start = g.start if g is not None else start - 1
    return start


def _limit(lay: Layout, first: int) -> int:
    """Where the note must end at the latest: the working set, or the next pinned
    message after the first movable user turn."""
    return min([lay.frozen_from, *(i for i in lay.pinned if i > first)])
