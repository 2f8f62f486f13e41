"""How much the per-message token cache and TokenTally save on a 100,000-message history.

The largest recorded trajectory is replicated to N fresh messages (new ids via
``dataclasses.replace``, so nothing is pre-cached) and counted once. Then, for
several history sizes, three ways of answering "how many tokens is the prompt
now that one message was appended?" are timed side by side in one process:

* ``TokenTally``: ``tally.append(msg); tally.total`` (counts only the new message);
* ``count_messages`` over the history, whose messages already carry cached counts;
* a recount from scratch, as a counter without the per-message cache would do
  (``count_uncached`` on every message).

Prints a table; asserts nothing. Usage::

    python benchmarks/bench_tokens.py [--trajectories DIR] [--messages 100000]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ctxmgr.messages import Message, new_message_id
from ctxmgr.replay.trajectories import Trajectory, load_trajectories
from ctxmgr.tokens import ApproximateCounter, TokenCounter, TokenTally, default_counter

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRAJECTORIES = ROOT / "tests" / "fixtures" / "trajectories"


def _largest(trajectories: Sequence[Trajectory]) -> Trajectory:
    return max(trajectories, key=lambda t: len(json.dumps(t.raw, ensure_ascii=False)))


def _replicate(messages: Sequence[Message], n: int) -> list[Message]:
    """``n`` fresh copies cycling through ``messages``: new ids, empty token caches."""
    return [dataclasses.replace(messages[i % len(messages)], id=new_message_id())
            for i in range(n)]


def _seconds(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``fn`` over ``repeats`` runs."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:,.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:,.2f} ms"
    return f"{seconds:,.2f} s"


def measure(counter: TokenCounter, history: list[Message], source: Sequence[Message],
            sizes: Sequence[int], *, appends: int, repeats: int) -> list[dict[str, float]]:
    """Per size: seconds for tally append+total, cached count_messages, scratch recount.

    Every timed operation appends a message never counted before (a fresh
    replica of ``source``), so each one pays for tokenizing its new message.
    """
    rows = []
    for size in sizes:
        prefix = history[:size]
        tally = TokenTally(counter, prefix)
        # One fresh message at a time; the tally grows by `appends` messages,
        # which is noise next to `size`.
        per_op = []
        for m in _replicate(source, appends):
            t0 = time.perf_counter()
            tally.append(m)
            _ = tally.total
            per_op.append(time.perf_counter() - t0)
        tally_s = statistics.median(per_op)
        read_s = _seconds(lambda t=tally: t.total, 1001)  # the "nothing new" check

        newcomers = iter(_replicate(source, repeats))
        cached_s = _seconds(
            lambda p=prefix, new=newcomers: counter.count_messages([*p, next(new)]), repeats)
        scratch_s = _seconds(
            lambda p=prefix: counter.per_request + sum(map(counter.count_uncached, p)),
            1 if size >= 50_000 else repeats)
        rows.append({"size": size, "read": read_s, "tally": tally_s, "cached": cached_s,
                     "scratch": scratch_s})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trajectories", type=Path, default=DEFAULT_TRAJECTORIES,
                        help="folder of *.json / *.jsonl trajectories (default: %(default)s)")
    parser.add_argument("--messages", type=int, default=100_000,
                        help="history length to replicate to (default: %(default)s)")
    parser.add_argument("--model", default="gpt-4o", help="model name for the tiktoken encoding")
    parser.add_argument("--approximate", action="store_true",
                        help="use ApproximateCounter instead of tiktoken")
    parser.add_argument("--appends", type=int, default=501,
                        help="append+total operations timed per size (median reported)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="runs per full-history measurement (median reported)")
    args = parser.parse_args(argv)

    trajectory = _largest(load_trajectories([args.trajectories]))
    counter = ApproximateCounter() if args.approximate else default_counter(args.model)
    n = args.messages
    sizes = sorted({s for s in (1_000, 10_000, n) if s <= n})

    t0 = time.perf_counter()
    history = _replicate(trajectory.messages, n)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    tally = TokenTally(counter, history)
    first_s = time.perf_counter() - t0

    chars = sum(len(json.dumps(r, ensure_ascii=False)) for r in trajectory.raw)
    print(f"trajectory : {trajectory.id} ({len(trajectory.messages)} messages, "
          f"{chars:,} chars of JSON)")
    print(f"history    : replicated to {n:,} fresh messages in {_fmt(build_s)}; "
          f"{tally.total:,} tokens")
    print(f"counter    : {counter!r}")
    print(f"first count: {_fmt(first_s)} (every message counted once, counts cached)")
    print(f"python     : {sys.version.split()[0]}")
    print()

    rows = measure(counter, history, trajectory.messages, sizes,
                   appends=args.appends, repeats=args.repeats)
    header = ("history", "TokenTally .total", "TokenTally append+total",
              "count_messages (cached)", "ratio", "recount from scratch", "ratio")
    table = [header] + [
        (f"{r['size']:,}", _fmt(r["read"]), _fmt(r["tally"]),
         _fmt(r["cached"]), f"{r['cached'] / r['tally']:,.0f}x",
         _fmt(r["scratch"]), f"{r['scratch'] / r['tally']:,.0f}x")
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        cells = zip(row, widths, strict=True)
        print("  ".join(cell.rjust(w) if i else cell.ljust(w) for cell, w in cells))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print()
    print("ratio = time / (TokenTally append+total). Every timed append brings a message never")
    print("counted before: TokenTally and count_messages tokenize only it; the scratch recount")
    print("tokenizes the whole history (count_uncached). .total alone is the no-new-message check.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
