"""Strategy 7, the first last resort: notes for what lies before the working set.

Runs only while the prompt is over the budget after strategies 1-6, and before
the working set is touched (strategy 8). Every run of messages before the working
set that nothing kept interrupts (whole tool groups, and the short messages the
other strategies pass over; never a user turn) becomes one note with its offload
tag, oldest run first, as far as the prompt needs. On a 4k window the policy prompt
leaves so little room that a few short answers decide whether the last three tool
results still fit. The note is not bare: it carries the record of the run's tool
calls (:mod:`ctxmgr.autocontext.record`), so the agent does not redo them, and an
identifiers line only in the room the bare note leaves under the budget (so it never
takes back the room the note makes).
"""

from __future__ import annotations

from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.record import range_record
from ctxmgr.autocontext.rounds import Layout
from ctxmgr.autocontext.strategies.base import (
    CHARS_PER_TOKEN,
    Plan,
    RunsWhen,
    StrategyContext,
    idle_at,
    summary_message,
)
from ctxmgr.messages import Message

__all__ = ["OffloadHistory"]


class OffloadHistory:
    number = 7
    name = "offload_history"
    uses_llm = False
    runs_when: RunsWhen = "over_budget"
    reduces_count = False
    writes_summary = True
    closes_round = False
    last_resort = True
    frees_history = True

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        if idle_at(self, ctx.tokens, ctx.config):
            return []
        plans: list[Plan] = []
        for start, end in _touchable_runs(ctx.layout):
            if end - start == 1 and _is_note(ctx.messages[start]):
                continue  # already a note: nothing to gain (a lone summary may still be)

            def build(_: str | None, offload_id: str, start: int = start, end: int = end
                      ) -> tuple[Message, ...]:
                n = end - start
                text = f"[{n} earlier message{'s' if n > 1 else ''} offloaded to make room]"
                return (_note(ctx, start, end, text, offload_id, self),)

            plans.append(Plan(strategy=self.number, start=start, end=end, build=build))
        return plans


_MIN_LINE_CHARS = 40
"""An identifiers line shorter than this names too little to be worth its header."""


def _note(ctx: StrategyContext, start: int, end: int, text: str, offload_id: str,
          by: OffloadHistory) -> Message:
    """The note for ``messages[start:end]``: its text and record, and, when the prompt
    fits the budget with the bare note, an identifiers line within the room left (at
    most ``identifiers_chars``): the distinctive strings that the range's earlier
    stand-ins carried (a preview's or a summary's line) would go otherwise."""
    cfg, counter = ctx.config, ctx.counter
    replaced = ctx.messages[start:end]
    record = range_record(replaced, cfg.record_limit)  # read once for every size tried
    bare = summary_message(replaced, text, offload_id, by=by, record_chars=cfg.record_limit,
                           record=record)
    if not cfg.identifiers_limit:
        return bare
    old = sum(counter.count(m) for m in replaced)
    bare_tokens = counter.count(bare)
    if bare_tokens >= old:
        return bare  # no smaller than the run (a short answer): the pass leaves it as it is
    room = cfg.budget_tokens - (ctx.tokens - old + bare_tokens)
    chars = min(cfg.identifiers_limit, room * CHARS_PER_TOKEN)
    elsewhere = ctx.elsewhere(start, end)
    while chars > _MIN_LINE_CHARS:
        note = summary_message(replaced, text, offload_id, by=by,
                               record_chars=cfg.record_limit, identifiers_chars=chars,
                               elsewhere=elsewhere, record=record)
        if counter.count(note) - bare_tokens <= room:
            return note
        chars = chars * 3 // 4
    return bare


def _is_note(m: Message) -> bool:
    marker = CompressedMarker.of(m)
    return marker is not None and marker.strategy == OffloadHistory.number


def _touchable_runs(lay: Layout) -> list[tuple[int, int]]:
    """(start, end) of each run before the working set made of whole tool groups and
    single messages, none of them kept (pinned, or a user turn)."""
    group_end = {g.start: g.end for g in lay.groups}
    runs: list[tuple[int, int]] = []
    run_start: int | None = None
    i = 0
    while i < lay.frozen_from:
        end = group_end.get(i, i + 1)
        touchable = end <= lay.frozen_from and not any(
            k in lay.kept for k in range(i, end))
        if touchable and run_start is None:
            run_start = i
        elif not touchable and run_start is not None:
            runs.append((run_start, i))
            run_start = None
        i = end
    if run_start is not None:
        runs.append((run_start, lay.frozen_from))
    return runs
