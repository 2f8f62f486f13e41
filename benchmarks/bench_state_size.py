"""Checkpoint size after a long run: ctxmgr's state against the working view it serves.

A framework checkpoints its state on every step. This drives a ContextProcessor the
way a LangGraph middleware does (the full history every call, the edits persisted)
through a long loop made of a real recorded SWE run's tool steps, repeated with fresh
ids, and prints, at several points of the run:

* the working view (what the checkpoint's ``messages`` hold) in JSON bytes;
* ctxmgr's own state in JSON bytes, and the checkpoint (view + state) against the view;
* what AutoContextMemory.to_json() weighs, and what its old form, which kept every
  original beside the view, would weigh;
* the processor's median time per call.

    python benchmarks/bench_state_size.py [--steps 3000] [--max-tokens 32000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

from ctxmgr import (
    AutoContextConfig,
    AutoContextMemory,
    ExtractiveSummarizer,
    Message,
    default_counter,
)
from ctxmgr.autocontext import ContextProcessor, apply_edits
from ctxmgr.messages import message_to_dict
from ctxmgr.replay.trajectories import load_trajectories

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "trajectories" / (
    "swe__deepseek_lite_dev_noparallel__sqlfluff__sqlfluff-1733.json")


def size(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode())


def view_size(messages: list[Message]) -> int:
    return size([message_to_dict(m) for m in messages])


def long_run(steps: int) -> list[Message]:
    """System + task, then the run's (tool call, result) steps repeated with fresh ids."""
    run = load_trajectories([FIXTURE])[0].messages
    head = list(run[:2])
    body = list(run[2:])
    out = list(head)
    k = 0
    while sum(m.role == "assistant" for m in out) < steps:
        out.extend(replace(m, id=f"{m.id}~{k}") for m in body)
        k += 1
    # trim to exactly ``steps`` model calls, ending after a tool result
    calls, cut = 0, len(out)
    for i, m in enumerate(out):
        calls += m.role == "assistant"
        if calls > steps:
            cut = i
            break
    return out[:cut]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--max-tokens", type=int, default=32_000)
    args = parser.parse_args()

    messages = long_run(args.steps)
    counter = default_counter()
    cfg = AutoContextConfig(max_tokens=args.max_tokens)
    processor = ContextProcessor(cfg, counter=counter, summarizer=ExtractiveSummarizer())
    memory = AutoContextMemory(cfg, counter=counter, summarizer=ExtractiveSummarizer())
    history: list[Message] = []
    state = None
    originals_bytes = 0
    times: list[float] = []
    marks = {args.steps // 10, args.steps // 3, args.steps}
    calls = 0
    rows = []
    for m in messages:
        history.append(m)
        start = time.perf_counter()
        result = processor.process(history, state)
        times.append(time.perf_counter() - start)
        state = result.state
        history = apply_edits(history, result.edits)
        memory.add(m)
        memory.compress_if_needed()
        originals_bytes += size(message_to_dict(m))
        calls += m.role == "assistant"
        if m.role == "assistant" and calls in marks:
            view = view_size(history)
            st = size(state)
            mem = size(memory.to_json())
            rows.append((calls, len(history), view, st, (view + st) / view, mem,
                         mem + originals_bytes))
    print(f"{args.steps} model calls ({len(messages)} messages) of {FIXTURE.name} repeated, "
          f"window {args.max_tokens:,} tokens, ExtractiveSummarizer")
    print()
    print("| calls | view messages | view bytes | state bytes | checkpoint / view "
          "| AutoContextMemory.to_json | with every original (old form) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for calls, n, view, st, ratio, mem, old in rows:
        print(f"| {calls:,} | {n:,} | {view:,} | {st:,} | {ratio:.2f}x | {mem:,} | {old:,} |")
    print()
    print(f"ContextProcessor.process: median {statistics.median(times) * 1e3:.2f} ms per call, "
          f"p95 {sorted(times)[int(len(times) * 0.95)] * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
