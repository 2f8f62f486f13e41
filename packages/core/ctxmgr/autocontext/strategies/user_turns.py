"""Strategy 9, the very last resort: the user's own words, oldest first, into one note.

Every other strategy leaves the user's turns alone (tool results and the agent's own
text go first), so this one runs only while the prompt is still over the budget once
strategies 1-8 have done all they can. It replaces the oldest user turns that are
not pinned (the task and the latest user message always are), with everything
between them, by one user-role note right after what is pinned at the top:

* what the user said there that still stands, verbatim and deduplicated, each value
  at its latest, within ``user_note_chars`` and the room the budget leaves; what does
  not fit stays in the reloadable original. Where the summarizer can quote (a model:
  ``can_quote``), the model picks the lines and each is checked to be a quote
  (:mod:`ctxmgr.autocontext.quotes`); otherwise, and whenever the model fails, is slow
  or quotes nothing, the reader of :mod:`ctxmgr.autocontext.standing` picks them;
* the record of the range's tool calls (:mod:`ctxmgr.autocontext.record`).

The note takes in the earlier stand-ins before it and, on the next pass, itself: one
note rolls forward instead of many piling up. It is a user message, so a round trip
through a provider's format that loses ctxmgr's markers still leaves it the last thing
compressed, and its lines are read back as the user's words.

**Cost.** The user's statements are read and scored once per plan; where the range
ends is chosen from running sums over the candidate ends, and the note is built once
for that end (and again only if its estimate did not fit): the time grows with the
text the plan reads, not with its square.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import TYPE_CHECKING

from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.prompts import USER_NOTE_PROMPT
from ctxmgr.autocontext.quotes import check_quotes
from ctxmgr.autocontext.rounds import Layout
from ctxmgr.autocontext.strategies.base import (
    CHARS_PER_TOKEN,
    Plan,
    RunsWhen,
    StrategyContext,
    summary_message,
)
from ctxmgr.messages import Message, text_message

if TYPE_CHECKING:
    from ctxmgr.autocontext.standing import Statement

# The reader of the user's words (:mod:`ctxmgr.autocontext.standing`, and ``regex``
# with it) is imported where a note is built: ``import ctxmgr`` does not load it.

__all__ = ["UserTurns", "user_note", "user_note_text"]

_WEIGHTY = 30  # a score from here on: the sentence binds or carries a value
_FILL_STEP = 16  # characters: a note sized to its room stops searching this close to it


def user_note(statements: Sequence[Statement], max_chars: int, *,
              among: Sequence[Statement] = (),
              score: Mapping[tuple[int, ...], int] | None = None
              ) -> tuple[str, list[Statement]]:
    """The note's own text (the header, the statements that fit ``max_chars`` by
    priority, shown in order, and how many did not), and the statements it holds
    (``among`` and ``score`` as :func:`~ctxmgr.autocontext.standing.select` takes them)."""
    from ctxmgr.autocontext.standing import note_line, select

    kept, left_out = select(statements, max_chars, among=among, score=score)
    return user_note_text([note_line(s) for s in kept], left_out), kept


def user_note_text(lines: Sequence[str], left_out: int) -> str:
    """The note's layout: the header, a line each (no bullets: a token a line), and how
    many statements were left out."""
    from ctxmgr.autocontext.standing import USER_NOTE_HEADER

    out = [USER_NOTE_HEADER, *lines]
    if not lines and not left_out:
        out.append("(nothing that still stands)")
    if left_out:
        out.append(f"(+{left_out} more)")
    return "\n".join(out)


@dataclass(slots=True)
class _Quoted:
    """What the model's answer gave the note: the checked quotes, and the lines that
    were not quotes (for the compression event)."""

    rejected: int = 0
    fallback: str | None = None
    """Why the reader's note stands instead of the model's (``None``: the model's)."""
    extra: dict[str, int] = field(default_factory=dict)


class UserTurns:
    number = 9
    name = "user_turns"
    uses_llm = False
    runs_when: RunsWhen = "over_budget"
    reduces_count = False
    writes_summary = True
    closes_round = False
    last_resort = True
    frees_history = False

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        from ctxmgr.autocontext.standing import Statement, statements_of

        cfg = ctx.config
        if ctx.tokens <= cfg.budget_tokens:
            return []
        lay = ctx.layout
        movable = sorted(i for i in lay.user_turns if i < lay.frozen_from)
        if not movable:
            return []
        start = _start(lay, movable[0])
        limit = _limit(lay, movable[0])
        statements = {i: [Statement(x.text, (i, *x.order), x.pasted, x.listed)
                          for x in statements_of(ctx.messages[i])]
                      for i in range(start, lay.size)
                      if i in lay.user_turns or i == lay.latest_user}
        reading = _Reading.of(statements)
        ends = [i for i in movable[1:] if i < limit] + [limit]
        chosen, fitted_id, fitted = self._fitting(ctx, start, ends, reading)
        quoted = _Quoted()

        def build(answer: str | None, offload_id: str) -> tuple[Message, ...]:
            if not ctx.quotes and offload_id == fitted_id:
                return (fitted,)  # the note the end was chosen with: built from the same
            note, _ = self._stand_in(ctx, start, chosen, offload_id, reading,
                                     answer=answer, quoted=quoted)
            return (note,)

        if not ctx.quotes:
            return [Plan(strategy=self.number, start=start, end=chosen, build=build)]
        said = [m for i in range(start, chosen) if i in statements
                for m in (ctx.messages[i],)]
        return [Plan(strategy=self.number, start=start, end=chosen, build=build,
                     instruction=USER_NOTE_PROMPT, summary_input=tuple(
                         text_message("user", m.text, id=m.id) for m in said),
                     falls_back=True, report=lambda: _report(quoted))]

    def _fitting(self, ctx: StrategyContext, start: int, ends: Sequence[int],
                 reading: _Reading) -> tuple[int, str, Message]:
        """:meth:`_end`, or where a note first fits if its estimate did not (each further
        end tried with the note built for it; the last end when none fits); with the
        offload id of its range and the reader's note built for it."""
        chosen = self._end(ctx, start, ends, reading)
        for end in [chosen, *(e for e in ends if e > chosen)]:
            offload_id = OffloadStore.id_for(ctx.messages[start:end])
            note, _ = self._stand_in(ctx, start, end, offload_id, reading)
            old = sum(ctx.counter.count(m) for m in ctx.messages[start:end])
            if ctx.tokens - old + ctx.counter.count(note) <= ctx.config.budget_tokens:
                return end, offload_id, note
        return end, offload_id, note  # the last end: none fits

    def _end(self, ctx: StrategyContext, start: int, ends: Sequence[int],
             reading: _Reading) -> int:
        """Where the note should end: of the candidate ends, the one that keeps the most
        of what binds or carries a value (verbatim after it, or in the note as far as
        its room holds them at their average length), less the replaced values left
        verbatim; then the most statements; then the fewest turns moved. One pass over
        running sums: no note is built here."""
        from ctxmgr.autocontext.standing import USER_NOTE_HEADER

        cfg = ctx.config
        weight, statements = reading.weight, reading.statements
        tokens = list(accumulate((ctx.counter.count(m) for m in ctx.messages[start:ends[-1]]),
                                 initial=0))
        # per user turn: what binds or has a value (all of it, and what still stands, with
        # its characters), every statement, and the replaced ones (stale while verbatim)
        rows = {i: (sum(weight[s.order] >= _WEIGHTY for s in found),
                    sum(weight[s.order] >= _WEIGHTY and s.order in reading.kept
                        for s in found),
                    sum(len(s.text) + 1 for s in found
                        if weight[s.order] >= _WEIGHTY and s.order in reading.kept),
                    len(found), sum(s.order in reading.gone for s in found))
                for i, found in statements.items()}
        total = [sum(r[k] for r in rows.values()) for k in range(5)]
        moved = [0] * 5
        best: tuple[int, int, int] | None = None
        chosen = ends[-1]
        i = start
        fixed = ctx.counter.count_text(USER_NOTE_HEADER) + _TAG_TOKENS
        # characters per token of what the user wrote (about 4 in English, 1 in Chinese)
        users = [ctx.messages[i] for i in statements]
        density = (sum(len(m.text) for m in users) / max(1, sum(map(ctx.counter.count, users)))
                   if users else CHARS_PER_TOKEN)
        for end in ends:
            while i < end:
                for k, v in enumerate(rows.get(i, (0,) * 5)):
                    moved[k] += v
                i += 1
            room = cfg.budget_tokens - ctx.tokens + tokens[end - start] - fixed
            if room < 0:
                continue
            chars = min(cfg.user_note_limit, int(room * density))
            fits = min(moved[1], chars * moved[1] // moved[2]) if moved[2] else 0
            key = (total[0] - moved[0] + fits - (total[4] - moved[4]),
                   total[3] - moved[3] + fits, -end)
            if best is None or key > best:
                best, chosen = key, end
        return chosen

    def _stand_in(self, ctx: StrategyContext, start: int, end: int, offload_id: str,
                  reading: _Reading, *, answer: str | None = None,
                  quoted: _Quoted | None = None) -> tuple[Message, list[Statement]]:
        """The note for ``messages[start:end]`` and the statements it holds: what the user
        said first (the model's checked quotes when ``answer`` holds any, else the
        reader's choice), then the record of the range's tool calls in what room is left,
        both cut to fit beside the rest of the prompt within the budget."""
        cfg = ctx.config
        replaced = ctx.messages[start:end]
        said = [s for i in range(start, end) for s in reading.statements.get(i, ())]
        later = [s for i, found in reading.statements.items() if i >= end for s in found]
        quotes = _from_model(answer, start, replaced, said, later, quoted)
        score: Mapping[tuple[int, ...], int]
        if quotes is not None:  # ranked as the model ranked them
            standing = quotes
            score = {s.order: len(quotes) - k for k, s in enumerate(quotes)}
        else:
            standing = [s for s in said if s.order in reading.kept]
            score = reading.weight
        room = cfg.budget_tokens - ctx.tokens + sum(ctx.counter.count(m) for m in replaced)
        chars = cfg.user_note_limit
        fits: tuple[int, Message, list[Statement]] | None = None  # the most chars that fit
        over: int | None = None  # the fewest that did not
        built: dict[str, tuple[Message, int]] = {}  # by the user's text (many sizes hold one)
        while True:
            text, held = user_note(standing, chars, score=score)
            if text not in built:
                built[text] = self._sized(ctx, replaced, text, offload_id, room)
            note, tokens = built[text]
            if tokens <= room or chars <= 0:
                fits = (chars, note, held)
            else:
                over = chars
            # a shrink by ratio undershoots; the room between is searched by halves, as
            # a line of the note is often what the slack would hold
            if fits is not None and (over is None or over - fits[0] <= _FILL_STEP):
                return fits[1], fits[2]
            chars = ((fits[0] + over) // 2 if fits is not None and over is not None
                     else max(0, min(chars - 1, int(chars * room / tokens * 0.95))))


    def _sized(self, ctx: StrategyContext, replaced: Sequence[Message], text: str,
               offload_id: str, room: int) -> tuple[Message, int]:
        """The note holding ``text`` and the record of ``replaced`` in the characters the
        room leaves beside it, or without the record when the two do not fit; and its
        tokens."""
        record = max(0, min(ctx.config.record_limit, room * CHARS_PER_TOKEN - len(text)))
        note = summary_message(replaced, text, offload_id, by=self, role="user",
                               record_chars=record, agent_text=False)
        tokens = ctx.counter.count(note)
        if tokens > room and record:  # the user's words before the record
            note = summary_message(replaced, text, offload_id, by=self, role="user",
                                   agent_text=False)
            tokens = ctx.counter.count(note)
        return note, tokens


@dataclass(frozen=True, slots=True)
class _Reading:
    """The user's statements from where the note starts, read and scored once a plan."""

    statements: Mapping[int, list[Statement]]
    """By message index."""
    kept: frozenset[tuple[int, ...]]
    """What still stands: each value at its latest, each sentence once."""
    gone: frozenset[tuple[int, ...]]
    """What a later statement replaced."""
    weight: Mapping[tuple[int, ...], int]
    """Each statement's score (:func:`~ctxmgr.autocontext.standing.scores`)."""

    @staticmethod
    def of(statements: Mapping[int, list[Statement]]) -> _Reading:
        from ctxmgr.autocontext.standing import scores
        from ctxmgr.autocontext.standing.updates import _latest

        flat = tuple(s for i in sorted(statements) for s in statements[i])
        kept, replaced = _latest(flat)
        return _Reading(statements, frozenset(s.order for s in kept),
                        frozenset(o for olds in replaced.values() for o in olds),
                        scores(flat, replaced=replaced))


_TAG_TOKENS = 20
"""About what a note's offload tag and its count of lines left out take."""


def _from_model(answer: str | None, start: int, replaced: Sequence[Message],
                said: Sequence[Statement], later: Sequence[Statement],
                quoted: _Quoted | None) -> list[Statement] | None:
    """The model's checked quotes as statements, in the order it ranked them, less any
    that a statement the user made after it replaced (the model may quote a value the
    user changed later); ``None`` when there is no answer or it quotes nothing (the
    reader's note stands: :attr:`_Quoted.fallback` says why)."""
    from ctxmgr.autocontext.standing import Statement, latest

    if quoted is None:
        return None
    if answer is None:
        quoted.fallback = "the summarizer gave no answer"
        return None
    users = [(start + j, m.text) for j, m in enumerate(replaced) if m.role == "user"]
    checked = check_quotes(answer, [text for _, text in users])
    quoted.rejected = checked.rejected
    if not checked.quotes:
        quoted.fallback = "the summarizer quoted nothing the user said"
        return None
    # each where the user said it: before the reader's statements of that message
    mine = [Statement(q, (*_said_at(q, users), k)) for k, q in enumerate(checked.quotes)]
    standing = {s.order for s in latest([*mine, *said, *later])}
    quoted.fallback = None
    return [s for s in mine if s.order in standing]


def _said_at(quote: str, users: Sequence[tuple[int, str]]) -> tuple[int, int]:
    """The index of the first message of ``users`` that holds ``quote`` (as
    :func:`~ctxmgr.autocontext.quotes.check_quotes` gave it back), and ``-1``: it sorts
    before the reader's statements of that message."""
    for index, text in users:
        if quote in " ".join(text.split()):
            return index, -1
    return users[-1][0] if users else 0, -1


def _report(quoted: _Quoted) -> dict[str, object]:
    """What the compression event says of the model's note."""
    out: dict[str, object] = {"rejected_quotes": quoted.rejected}
    if quoted.fallback is not None:
        out["reason"] = f"user note written by the reader: {quoted.fallback}"
    return out


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
