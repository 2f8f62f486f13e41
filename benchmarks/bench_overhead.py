"""Per-call policy time versus history length (1k / 10k / 100k messages), every policy.

The largest recorded coding run is stretched to the longest history needed: its
system prompt and task, then its assistant/tool steps repeated with fresh message
ids (tool-call ids repeat, as they do in real runs). For each policy and each
size N, one warm-up call hands the policy the first N messages at once (it builds
its state: memories fill, summarizers fire); then ``--calls`` further model
calls each add one recorded step (assistant reply + tool result), and their
times are the measurement. A call's time is the policy's own time
(``PolicyResult.seconds`` when the policy reports it, else the wall time of
``prompt``) minus the time spent in the shared fake summarizer.

A policy is skipped at a size when its time at the previous size, grown in
proportion to the history, would exceed ``--max-seconds`` for the cell; the
table says so. The token counts of all messages are computed once before any
timing (the per-message cache every policy shares), so no policy pays for
first-time tokenization. Usage::

    python benchmarks/bench_overhead.py [--trajectories DIR] [--sizes 1000 10000 100000]
        [--calls 20] [--budget 32000] [--policy NAME ...] [--json OUT]
        [--markdown benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import itertools
import json
import platform
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ctxmgr.messages import Message, new_message_id
from ctxmgr.replay import (
    FakeSummarizer,
    PolicyContext,
    available_policies,
    create_policy,
    load_trajectories,
)
from ctxmgr.replay.report import replace_markdown_section
from ctxmgr.tokens import default_counter

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRAJECTORIES = ROOT / "benchmarks" / "data"
MARK = "bench_overhead"


def stretched_history(messages: Sequence[Message], n: int) -> list[Message]:
    """``messages``' preamble, then its assistant/tool steps cycled to ``n`` messages."""
    k = next(i for i, m in enumerate(messages) if m.role == "assistant")
    head, body = list(messages[:k]), list(messages[k:])
    # keep whole steps: the body starts on an assistant message and ends on a tool result
    while body and body[-1].role == "assistant":
        body.pop()
    out = list(head)
    i = 0
    while len(out) < n:
        out.append(dataclasses.replace(body[i % len(body)], id=new_message_id()))
        i += 1
    return out


class Prefix(Sequence[Message]):
    """The first ``n`` messages of ``history`` without copying them: slicing a 100,000-item
    list before every timed call would evict the CPU caches and show up as growth in
    every policy's own time (measured: 2 µs -> 6 µs for ctxmgr), as an artefact."""

    def __init__(self, history: list[Message], n: int) -> None:
        self._history, self._n = history, n

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[Message]:
        return itertools.islice(self._history, self._n)

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if isinstance(index, slice):
            return self._history[slice(*index.indices(self._n))]
        if not -self._n <= index < self._n:
            raise IndexError(index)
        return self._history[index % self._n]


def _measure(name: str, history: list[Message], n: int, calls: int, budget: int,
             counter: Any) -> dict[str, Any]:
    summarizer = FakeSummarizer(counter)
    ctx = PolicyContext(budget=budget, counter=counter, summarizer=summarizer)
    policy = create_policy(name, ctx)
    policy.reset()
    gc.collect()
    start = time.perf_counter()
    policy.prompt(history[:n])
    warm = time.perf_counter() - start
    times = []
    prompt_sizes = []
    for c in range(1, calls + 1):
        view = Prefix(history, n + 2 * c)  # one more step: the recorded reply and its result
        before = summarizer.usage.snapshot()
        t0 = time.perf_counter()
        out = policy.prompt(view)
        wall = time.perf_counter() - t0
        own = out.seconds if out.seconds is not None else wall
        times.append(max(0.0, own - (summarizer.usage - before).seconds))
        prompt_sizes.append(len(out.messages))
    return {
        "median_ms": statistics.median(times) * 1000,
        "max_ms": max(times) * 1000,
        "warmup_s": warm,
        "prompt_messages": prompt_sizes[-1],
        "cell_s": warm + sum(times),
    }


def _fmt_ms(ms: float) -> str:
    return f"{ms:,.3f}" if ms < 10 else f"{ms:,.1f}"


def _table(results: dict[str, dict[int, dict[str, Any]]], sizes: Sequence[int]) -> str:
    head = ["policy", *(f"{s:,} msgs: ms/call median (max)" for s in sizes),
            f"growth {sizes[0]:,} -> {sizes[-1]:,}"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---"] + ["--:"] * (len(head) - 1)) + "|"]
    for name, cells in results.items():
        row = [name]
        for s in sizes:
            c = cells.get(s)
            if c is None:
                row.append("-")
            elif "skipped" in c:
                row.append(f"skipped ({c['skipped']})")
            else:
                row.append(f"{_fmt_ms(c['median_ms'])} ({_fmt_ms(c['max_ms'])})")
        first, last = cells.get(sizes[0]), cells.get(sizes[-1])
        if first and last and "median_ms" in first and "median_ms" in last and first[
                "median_ms"] > 0:
            row.append(f"{last['median_ms'] / first['median_ms']:,.1f}x")
        else:
            row.append("-")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trajectories", type=Path, default=None,
                        help=f"where to find the coding run (default {DEFAULT_TRAJECTORIES})")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--calls", type=int, default=20, help="timed calls per cell")
    parser.add_argument("--budget", type=int, default=32_000)
    parser.add_argument("--policy", action="extend", nargs="+", metavar="NAME")
    parser.add_argument("--max-seconds", type=float, default=60.0,
                        help="skip a cell whose estimated time exceeds this (default 60)")
    parser.add_argument("--json", type=Path, metavar="OUT")
    parser.add_argument("--markdown", type=Path, metavar="FILE")
    args = parser.parse_args(argv)

    source = args.trajectories or DEFAULT_TRAJECTORIES
    runs = [t for t in load_trajectories([source]) if not t.id.startswith("tau")]
    base = max(runs, key=lambda t: len(t.messages))
    sizes = sorted(args.sizes)
    history = stretched_history(base.messages, sizes[-1] + 2 * args.calls + 2)
    counter = default_counter()
    t0 = time.perf_counter()
    counter.count_messages(history)  # fill the shared per-message cache once
    print(f"{base.id}: {len(base.messages)} messages stretched to {len(history):,} "
          f"({counter.count_messages(history):,} tokens, counted in "
          f"{time.perf_counter() - t0:.1f} s)", file=sys.stderr)

    names = list(dict.fromkeys(args.policy or available_policies()))
    results: dict[str, dict[int, dict[str, Any]]] = {}
    for name in names:
        results[name] = {}
        previous: tuple[int, float] | None = None
        for n in sizes:
            if previous is not None:
                prev_n, prev_s = previous
                estimate = prev_s * n / prev_n
                if estimate > args.max_seconds:
                    results[name][n] = {"skipped": f"est. {estimate:,.0f} s"}
                    print(f"{name} @ {n:,}: skipped, estimated {estimate:,.0f} s",
                          file=sys.stderr)
                    continue
            cell = _measure(name, history, n, args.calls, args.budget, counter)
            results[name][n] = cell
            previous = (n, cell["cell_s"])
            print(f"{name} @ {n:,}: median {cell['median_ms']:.3f} ms/call, max "
                  f"{cell['max_ms']:.3f} ms, warm-up {cell['warmup_s']:.2f} s, prompt of "
                  f"{cell['prompt_messages']:,} messages", file=sys.stderr)

    table = _table(results, sizes)
    print(table)
    if args.json:
        args.json.write_text(json.dumps({"budget": args.budget, "calls": args.calls,
                                         "trajectory": base.id, "results": {
                                             k: {str(n): c for n, c in v.items()}
                                             for k, v in results.items()}}, indent=2) + "\n")
    if args.markdown:
        command = "python benchmarks/bench_overhead.py " + " ".join(
            argv if argv is not None else sys.argv[1:])
        body = "\n\n".join([
            "## Overhead: policy time per model call versus history length",
            f"Produced by `{command.strip()}` (Python {platform.python_version()}, "
            f"{platform.machine()}, budget {args.budget:,}, {args.calls} timed calls per cell "
            f"after one warm-up call that hands the policy the whole history; history = "
            f"`{base.id}` stretched by repeating its steps). Median and max of the policy's "
            "own time per call in ms (summarizer time excluded); a skipped cell would have "
            f"taken over {args.max_seconds:.0f} s.",
            table,
        ])
        replace_markdown_section(args.markdown, MARK, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
