"""The fewest compressions any pass policy needs on bench_cache's 300-call sessions.

A compression rewrites the prompt from its first changed message, so the prompt cache
goes cold; how often that must happen is bounded by what a pass cannot fold away. This
oracle keeps verbatim what ctxmgr never folds before the last resort (system messages,
the first and latest tasks, the working set of the newest ``keep`` tool results) and,
whenever the prompt reaches the firing point (the trigger, or the budget), folds every
other message before the working set into notes of ``note`` tokens per stretch (one
stretch between kept messages: as strategy 7 does, with no record beyond ``note``). It
counts the calls that had to compress (a lower bound on ctxmgr's steps, which may be
several per call) and what the prompt holds right after each pass.

With ``note`` = 30 tokens (the offload tag alone) and the defaults (``keep`` 3, firing at
the trigger), no pass policy compresses less often than this without giving up the
working set or compressing only at the budget. Prints one table; asserts nothing::

    python benchmarks/bench_cache_floor.py [--windows 8000 16000] [--notes 30 300]
        [--keep 3 2 1] [--sessions N]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

from bench_cache import DEFAULT_TRAJECTORIES, sessions
from bench_replay import is_tau

from ctxmgr import AutoContextConfig, Tuning, default_counter
from ctxmgr.autocontext.parts import reload_hint_for
from ctxmgr.autocontext.rounds import layout
from ctxmgr.replay import Trajectory, load_trajectories


@dataclass(frozen=True)
class Floor:
    calls: int
    passes: int
    after_pass: float  # mean prompt tokens right after a pass
    pinned: float  # mean tokens of what is pinned, at a pass
    working_set: float  # mean tokens of the working set, at a pass

    @property
    def per_100(self) -> float:
        return 100 * self.passes / self.calls if self.calls else 0.0


def floor(runs: Sequence[Trajectory], *, window: int, note: int, keep: int,
          fire_at_budget: bool) -> Floor:
    """The oracle on ``runs`` (see the module doc)."""
    counter = default_counter()
    config = AutoContextConfig(max_tokens=window, tuning=Tuning(keep_tool_results=keep))
    fire = config.budget_tokens if fire_at_budget else config.trigger_tokens
    hint = reload_hint_for(config, counter)  # in the prompt once anything is compressed
    hint_tokens = counter.count(hint) if hint is not None else 0
    calls = passes = 0
    after: list[int] = []
    pinned: list[int] = []
    working: list[int] = []
    for run in runs:
        messages = list(run.messages)
        sizes = [counter.count(m) for m in messages]
        folded: set[int] = set()
        for i, m in enumerate(messages):
            if m.role != "assistant":
                continue
            calls += 1
            if _tokens(sizes[:i], folded, note, hint_tokens) < fire:
                continue
            passes += 1
            lay = layout(messages[:i], config, counter)
            folded |= {k for k in range(lay.frozen_from) if k not in lay.pinned}
            after.append(_tokens(sizes[:i], folded, note, hint_tokens))
            pinned.append(sum(sizes[k] for k in lay.pinned))
            working.append(sum(sizes[lay.frozen_from:i]))

    def mean(xs: list[int]) -> float:
        return sum(xs) / len(xs) if xs else 0.0

    return Floor(calls, passes, mean(after), mean(pinned), mean(working))


def _tokens(sizes: Sequence[int], folded: set[int], note: int, hint: int) -> int:
    """The prompt's tokens with each stretch of ``folded`` messages as one note, and the
    reload hint (``hint`` tokens) once any is."""
    total = stretches = 0
    inside = False
    for k, size in enumerate(sizes):
        if k in folded:
            stretches += not inside
            inside = True
        else:
            total += size
            inside = False
    return total + stretches * note + (hint if folded else 0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--windows", type=int, nargs="+", default=[8000, 16000])
    parser.add_argument("--notes", type=int, nargs="+", default=[30, 300],
                        help="tokens of each stretch's note")
    parser.add_argument("--keep", type=int, nargs="+", default=[3, 2, 1],
                        help="tool results kept verbatim (the working set)")
    parser.add_argument("--sessions", type=int, default=0, metavar="N",
                        help="only the first N sessions (0: all)")
    args = parser.parse_args(argv)
    runs = [t for t in load_trajectories([DEFAULT_TRAJECTORIES]) if not is_tau(t)]
    made = sessions(runs)
    if args.sessions:
        made = made[:args.sessions]
    print(f"{len(made)} sessions of 300 calls (bench_cache's); compressing calls per 100 "
          "calls at the fewest, and the prompt right after a pass (mean tokens)\n")
    print("| window | note tokens | results kept | fires at | compressing calls / 100 | "
          "after a pass | pinned | working set |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for window in args.windows:
        for note in args.notes:
            for keep in args.keep:
                for at_budget in (False, True):
                    f = floor(made, window=window, note=note, keep=keep,
                              fire_at_budget=at_budget)
                    print(f"| {window:,} | {note} | {keep} | "
                          f"{'budget' if at_budget else 'trigger'} | {f.per_100:.1f} | "
                          f"{f.after_pass:,.0f} | {f.pinned:,.0f} | {f.working_set:,.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
