"""Time of ``AutoContextMemory.compress_if_needed``: the no-op check, and full compressions.

(a) **Nothing to compress.** The largest SWE trajectory is stretched to the longest
history needed (its system prompt and task, then its assistant/tool steps cycled
with fresh ids via ``dataclasses.replace``) and counted once. For each size, an
``AutoContextMemory`` whose trigger is never reached (``max_tokens`` 10^12,
``msg_threshold`` above the size) is given the first N messages; then
``compress_if_needed()`` is called many times and the median per-call time is
reported, side by side with a full ``counter.count_messages`` over the same
history (cached per-message counts, so linear in N), for contrast.

(b) **One full compression** of the largest trajectory (by tokens) at each window
(16k and 32k by default), with no LLM (``summarizer=None``: strategies 2 and 3
only) and with the deterministic ``ExtractiveSummarizer``: time to add the
messages (first-time token counting) and time of the one ``compress_if_needed()``
call, tokens before/after and the events by strategy. A run whose cheap offloads
cannot fit the window ends in ``ContextOverflowError``; the row says so and shows
what was applied.

Everything runs in one process; the script prints and asserts nothing. Usage::

    python benchmarks/bench_autocontext.py [--trajectories DIR] [--sizes 1000 10000 100000]
        [--calls 20000] [--windows 16000 32000] [--repeats 3] [--file-store]
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ctxmgr.autocontext import AutoContextConfig, AutoContextMemory, ExtractiveSummarizer
from ctxmgr.errors import ContextOverflowError
from ctxmgr.messages import Message, new_message_id
from ctxmgr.replay.report import markdown_table
from ctxmgr.replay.trajectories import Trajectory, load_trajectories
from ctxmgr.store.files import FileStore
from ctxmgr.store.memory import InMemoryStore
from ctxmgr.tokens import TokenCounter, default_counter

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRAJECTORIES = ROOT / "benchmarks" / "data"


# ---------------------------------------------------------------- histories


def stretched_history(messages: Sequence[Message], n: int) -> list[Message]:
    """``messages``' preamble, then its assistant/tool steps cycled to ``n`` fresh messages."""
    k = next(i for i, m in enumerate(messages) if m.role == "assistant")
    head, body = list(messages[:k]), list(messages[k:])
    while body and body[-1].role == "assistant":  # end on a tool result: whole steps
        body.pop()
    out = [dataclasses.replace(m, id=new_message_id()) for m in head]
    i = 0
    while len(out) < n:
        out.append(dataclasses.replace(body[i % len(body)], id=new_message_id()))
        i += 1
    return out


def fresh(messages: Sequence[Message]) -> list[Message]:
    """Copies with new ids and empty token caches."""
    return [dataclasses.replace(m, id=new_message_id()) for m in messages]


def swe_runs(trajectories: Sequence[Trajectory]) -> list[Trajectory]:
    runs = [t for t in trajectories if not t.id.startswith("tau")]
    return runs or list(trajectories)


# ---------------------------------------------------------------- timing


def per_call(fn: Callable[[], object], calls: int, *, batches: int = 7) -> float:
    """Median over ``batches`` of the mean time of one call in a batch of ``calls // batches``."""
    size = max(1, calls // batches)
    times = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(size):
            fn()
        times.append((time.perf_counter() - t0) / size)
    return statistics.median(times)


def fmt_s(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:,.2f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:,.2f} ms"
    return f"{seconds:,.2f} s"


# ---------------------------------------------------------------- (a) the no-op check


def measure_noop(history: list[Message], sizes: Sequence[int], counter: TokenCounter,
                 calls: int) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        prefix = history[:n]
        config = AutoContextConfig(max_tokens=10**12, msg_threshold=n + 1_000_000)
        memory = AutoContextMemory(config, counter=counter, summarizer=None)
        t0 = time.perf_counter()
        memory.add(prefix)  # counts are cached on the messages already
        add_s = time.perf_counter() - t0
        assert not memory.needs_compression()  # the setup, not a measurement
        gc.collect()
        noop_s = per_call(memory.compress_if_needed, calls)
        recount_calls = max(7, min(calls, calls * 1_000 // n))
        recount_s = per_call(lambda p=prefix: counter.count_messages(p), recount_calls)
        rows.append({"size": n, "tokens": memory.tokens, "add": add_s, "noop": noop_s,
                     "recount": recount_s, "events": len(memory.events)})
    return rows


# ---------------------------------------------------------------- (b) full compressions


def measure_compression(messages: Sequence[Message], window: int, summarizer: object | None,
                        counter: TokenCounter, *, repeats: int, file_store: bool
                        ) -> dict[str, Any]:
    adds, compresses = [], []
    outcome: dict[str, Any] = {}
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            store = FileStore(tmp) if file_store else InMemoryStore()
            memory = AutoContextMemory(AutoContextConfig(max_tokens=window), counter=counter,
                                       summarizer=summarizer, store=store)
            copies = fresh(messages)
            gc.collect()
            t0 = time.perf_counter()
            memory.add(copies)
            t1 = time.perf_counter()
            before = memory.tokens
            overflow: ContextOverflowError | None = None
            try:
                memory.compress_if_needed()
            except ContextOverflowError as exc:
                overflow = exc
            t2 = time.perf_counter()
        adds.append(t1 - t0)
        compresses.append(t2 - t1)
        applied = Counter(f"{e.strategy} {e.name}" for e in memory.events
                          if e.status == "applied")
        skipped = Counter(f"{e.strategy} {e.name}" for e in memory.events
                          if e.status != "applied")
        outcome = {"before": before, "after": memory.tokens, "messages": len(memory.messages),
                   "applied": applied, "skipped": skipped,
                   "overflow": overflow.excess if overflow else None}
    return {"add": statistics.median(adds), "compress": statistics.median(compresses),
            **outcome}


def describe_events(applied: Counter[str], skipped: Counter[str]) -> str:
    parts = [f"{name} x{n}" for name, n in sorted(applied.items())]
    parts += [f"{name} skipped x{n}" for name, n in sorted(skipped.items())]
    return ", ".join(parts) or "none"


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trajectories", type=Path, default=None,
                        help=f"folder of trajectories (default {DEFAULT_TRAJECTORIES})")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000],
                        help="history lengths for the no-op check (default 1000 10000 100000)")
    parser.add_argument("--calls", type=int, default=20_000,
                        help="compress_if_needed calls timed per size (default 20000)")
    parser.add_argument("--windows", type=int, nargs="+", default=[16_000, 32_000],
                        help="max_tokens for the full compressions (default 16000 32000)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="full compressions per row, median reported (default 3)")
    parser.add_argument("--file-store", action="store_true",
                        help="offload to a FileStore in a temp folder (default: in memory)")
    args = parser.parse_args(argv)

    folder = args.trajectories or DEFAULT_TRAJECTORIES
    runs = swe_runs(load_trajectories([folder]))
    counter = default_counter()
    sized = {t.id: counter.count_messages(t.messages) for t in runs}
    largest = max(runs, key=lambda t: sized[t.id])

    chars = sum(len(json.dumps(r, ensure_ascii=False)) for r in largest.raw)
    print(f"trajectories: {folder} ({len(runs)} SWE runs)")
    print(f"largest     : {largest.id}: {len(largest.messages)} messages, "
          f"{sized[largest.id]:,} tokens, {chars:,} chars of JSON")
    print(f"counter     : {counter!r}")
    print(f"python      : {sys.version.split()[0]} on {sys.platform}")

    # (a)
    sizes = sorted(set(args.sizes))
    t0 = time.perf_counter()
    history = stretched_history(largest.messages, sizes[-1])
    counter.count_messages(history)  # first-time tokenization, cached on each message
    print(f"history     : stretched to {sizes[-1]:,} fresh messages and counted once in "
          f"{fmt_s(time.perf_counter() - t0)}")
    print()
    noop = measure_noop(history, sizes, counter, args.calls)
    print("(a) compress_if_needed() when nothing needs compressing "
          f"(median of 7 batches, {args.calls:,} calls per size)")
    print()
    print(markdown_table(
        ["history", "tokens", "memory.add (cached counts)", "compress_if_needed() per call",
         "counter.count_messages per call", "ratio"],
        [[f"{r['size']:,}", f"{r['tokens']:,}", fmt_s(r["add"]), fmt_s(r["noop"]),
          fmt_s(r["recount"]), f"{r['recount'] / r['noop']:,.0f}x"] for r in noop]))
    print()
    print("compress_if_needed reads the running TokenTally and the message count: flat in N;")
    print("count_messages sums the cached per-message counts of the whole history: linear in N.")
    print()

    # (b)
    store = "FileStore (temp folder)" if args.file_store else "InMemoryStore"
    print(f"(b) one full compression of {largest.id} ({len(largest.messages)} messages), "
          f"median of {args.repeats}; offloads to {store}")
    print()
    rows = []
    for window in args.windows:
        for label, summarizer in (("none (strategies 2-3)", None),
                                  ("extractive", ExtractiveSummarizer())):
            r = measure_compression(largest.messages, window, summarizer, counter,
                                    repeats=args.repeats, file_store=args.file_store)
            result = (f"overflow: {r['overflow']:,} over the window" if r["overflow"] is not None
                      else "fits" if r["after"] <= window else "over the window")
            rows.append([f"{window:,}", label, f"{r['add'] * 1e3:,.1f}",
                         f"{r['compress'] * 1e3:,.1f}", f"{r['before']:,}", f"{r['after']:,}",
                         f"{len(largest.messages)} -> {r['messages']}",
                         describe_events(r["applied"], r["skipped"]), result])
    print(markdown_table(["window", "summarizer", "add ms (first count)", "compress ms",
                 "tokens before", "tokens after", "messages", "events by strategy", "result"],
                rows, left=frozenset({0, 1, 7, 8})))
    print()
    print(f"Trigger = window x {AutoContextConfig().token_ratio}, target = window x "
          f"{AutoContextConfig().target_ratio} (AutoContextConfig defaults). On overflow the")
    print("memory keeps what was applied (tokens after = that state) and the error says by how")
    print("much the prompt is still over.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
