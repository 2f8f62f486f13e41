"""ctxmgr on the LangGraph server under load: N threads at once, against the same graph
without ctxmgr.

The example app (``examples/langgraph_server``) is served with ``langgraph dev`` (in-memory
runtime, ``--n-jobs-per-worker`` runs at a time) from a fresh folder per measurement, and
driven with langgraph-sdk: N threads (10, 50, 200) each ask for ``--calls`` model calls
(a build log read in 1,300-token parts, one tool call per model call), all submitted at
once. The model is scripted and answers at once, so the server's CPU is all there is. The
same graph runs without ctxmgr (``plain``) for the ratios (once per N: the window is
ctxmgr's setting, so the plain graph is the same at every window). ``bench_server_graphs.py``
wraps both in a middleware that times each model call as the model node sees it.

Per window and graph, per N: wall time and throughput (model calls per second, and
ctxmgr's over plain's); the server's CPU per model call; the time added per model call
on average ((wall with ctxmgr - wall without) / calls) and the model call's own p50 / p99
with and without ctxmgr (ctxmgr's work before and after the model included); peak and
final resident memory of the server and its slope over N (least squares); ctxmgr's store
bytes per thread; and the checks: calls over budget (the input tokens the model reported
against the window less the reserve), threads whose state or offloads hold another
thread's data, stand-ins whose original is missing from the store.

``--profile`` also runs one thread of the ctxmgr graph in this process under cProfile
(an in-memory store in the same loop) and splits its CPU time by where it is spent.

Prints tables; asserts nothing. The full run (2 windows x 2 graphs x 3 N x 50 calls)
takes about 15 minutes on 2 cores; while iterating, ``--threads 10 --windows 8000``::

    python benchmarks/bench_server.py [--threads 10 50 200] [--windows 8000 32000]
        [--calls 50] [--jobs 20] [--profile] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import platform
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from langgraph_server import EXAMPLE_APP, LangGraphServer, serve

from ctxmgr import AutoContextConfig

HERE = Path(__file__).resolve().parent
GRAPHS = HERE / "bench_server_graphs.py"
TAG = re.compile(r"CONTEXT_OFFLOAD: uuid=([0-9a-f]+)")
THREAD_MARK = re.compile(r"\[([0-9a-f-]{36})\]")


@dataclass
class Load:
    """One measurement: one graph, one window, N threads of ``calls`` model calls."""

    graph: str
    window: int
    threads: int
    calls: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    call_ms: list[float] = field(default_factory=list, repr=False)
    peak_rss_mb: float = 0.0
    final_rss_mb: float = 0.0
    store_bytes_per_thread: float = 0.0
    over_budget: int = 0
    cross_thread: int = 0
    lost_offloads: int = 0
    unfinished: int = 0

    @property
    def calls_per_s(self) -> float:
        return self.calls / self.wall_s if self.wall_s else 0.0

    @property
    def cpu_ms_per_call(self) -> float:
        return 1000 * self.cpu_s / self.calls if self.calls else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content or [])


@contextmanager
def sampling_rss(server: LangGraphServer, every_s: float = 0.2) -> Iterator[list[int]]:
    """The server's resident memory, sampled in the background while the block runs."""
    samples: list[int] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(every_s):
            samples.append(server.rss_bytes())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield samples
    finally:
        done.set()
        sampler.join()
        samples.append(server.rss_bytes())


async def drive(server: LangGraphServer, load: Load, calls: int, budget: int) -> None:
    """Run ``load.threads`` threads of ``calls`` model calls at once; fill in ``load``."""
    from langgraph_sdk import get_client

    client = get_client(url=server.url, timeout=3600)
    parts = calls - 1  # one model call per part, and the final answer
    ask: Any = {"messages": [{"role": "user", "content": f"read the build log, {parts} parts"}]}
    # warm up: imports, the tokenizer, the first compression (not measured)
    warm = (await client.threads.create())["thread_id"]
    await client.runs.wait(warm, load.graph, input=ask)
    threads = [(await client.threads.create())["thread_id"] for _ in range(load.threads)]
    cpu = server.cpu_seconds()
    start = time.perf_counter()
    with sampling_rss(server) as rss:
        await asyncio.gather(*(client.runs.wait(t, load.graph, input=ask) for t in threads))
        load.wall_s = time.perf_counter() - start
        load.cpu_s = server.cpu_seconds() - cpu
    load.peak_rss_mb = max(rss) / 2**20
    load.final_rss_mb = rss[-1] / 2**20
    store_bytes = 0
    for thread_id in threads:
        values: Any = (await client.threads.get_state(thread_id))["values"]
        recorded = values.get("bench_calls", [])
        load.calls += len(recorded)
        load.call_ms += [c["ms"] for c in recorded]
        load.over_budget += sum(c["input_tokens"] > budget for c in recorded)
        messages = values["messages"]
        load.unfinished += not text_of(messages[-1]).startswith("Read all")
        seen = "\n".join(text_of(m) for m in messages)
        items = await thread_items(client, thread_id)
        stored = "\n".join(i["value"].get("data", "") for i in items)
        store_bytes += len(stored.encode())
        foreign = set(THREAD_MARK.findall(seen)) | set(THREAD_MARK.findall(stored))
        load.cross_thread += bool(foreign - {thread_id})
        kept = {i["key"].removesuffix(".json") for i in items if i["key"].endswith(".json")}
        load.lost_offloads += len(set(TAG.findall(seen)) - kept)
    load.store_bytes_per_thread = store_bytes / load.threads


async def thread_items(client: Any, thread_id: str) -> list[dict[str, Any]]:
    """ctxmgr's items of one thread in the server's store (offloads and their indexes)."""
    answer = await client.store.list_namespaces(prefix=["ctxmgr"], suffix=[thread_id])
    items: list[dict[str, Any]] = []
    for namespace in answer["namespaces"]:
        items += (await client.store.search_items(namespace, limit=100_000))["items"]
    return items


def measure(graph: str, window: int, threads: int, calls: int, jobs: int) -> Load:
    """One load on a fresh server serving both graphs at ``window``."""
    config = {"dependencies": ["."],
              "graphs": {"agent": f"./{GRAPHS.name}:agent", "plain": f"./{GRAPHS.name}:plain"}}
    load = Load(graph=graph, window=window, threads=threads)
    budget = AutoContextConfig(max_tokens=window).budget_tokens
    with tempfile.TemporaryDirectory(prefix="bench-server-") as folder:
        root = Path(folder)
        with serve(root, config=config, env={"MODEL_WINDOW": str(window)}, jobs=jobs,
                   extra_files=[GRAPHS]) as server:
            asyncio.run(drive(server, load, calls, budget))
    if load.calls != threads * calls:
        print(f"  note: {load.calls} calls recorded, {threads * calls} asked", file=sys.stderr)
    return load


def slope(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of y over x."""
    if len(points) < 2:
        return 0.0
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else 0.0


def report(loads: list[Load]) -> None:
    windows = sorted({w.window for w in loads})
    for window in windows:
        budget = AutoContextConfig(max_tokens=window).budget_tokens
        print(f"\nWindow {window:,} tokens (budget {budget:,}):\n")
        print("| graph | threads | calls | wall s | calls/s | ratio | server CPU ms/call | "
              "added ms/call | call p50 ms | call p99 ms | added p50 | added p99 | "
              "peak RSS MB | store KB/thread | over budget | cross-thread | lost offloads |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
              "---:|---:|")
        plain = {x.threads: x for x in loads if x.window == window and x.graph == "plain"}
        for load in sorted((x for x in loads if x.window == window),
                           key=lambda x: (x.graph != "plain", x.threads)):
            base = plain.get(load.threads)
            p50, p99 = percentile(load.call_ms, 0.5), percentile(load.call_ms, 0.99)
            if base is not None and load is not base and load.calls:
                ratio = f"{load.calls_per_s / base.calls_per_s:.2f}"
                added = f"{1000 * (load.wall_s - base.wall_s) / load.calls:.1f}"
                add50 = f"{p50 - percentile(base.call_ms, 0.5):.1f}"
                add99 = f"{p99 - percentile(base.call_ms, 0.99):.1f}"
            else:
                ratio, added, add50, add99 = "1.00", "-", "-", "-"
            print(f"| {load.graph} | {load.threads} | {load.calls:,} | {load.wall_s:.1f} | "
                  f"{load.calls_per_s:.0f} | {ratio} | {load.cpu_ms_per_call:.1f} | {added} | "
                  f"{p50:.1f} | {p99:.1f} | {add50} | {add99} | {load.peak_rss_mb:.0f} | "
                  f"{load.store_bytes_per_thread / 1024:.0f} | {load.over_budget} | "
                  f"{load.cross_thread} | {load.lost_offloads} |")
        for graph in ("plain", "agent"):
            points = [(x.threads, x.final_rss_mb) for x in loads
                      if x.window == window and x.graph == graph]
            if len(points) > 1:
                print(f"\nmemory slope ({graph}): {slope(points) * 1024:.0f} KB per thread "
                      f"(final RSS over {len(points)} thread counts)")


# --- where a compression step's CPU goes ---------------------------------------------------

COMPONENTS = [
    ("ctxmgr core: compressor (autocontext)", "ctxmgr/autocontext/"),
    ("ctxmgr core: token counting", "ctxmgr/tokens/"),
    ("ctxmgr core: session engine", "ctxmgr/session/"),
    ("ctxmgr core: store", "ctxmgr/store/"),
    ("ctxmgr core: messages, other", "ctxmgr/"),
    ("ctxmgr_langgraph (adapter)", "ctxmgr_langgraph/"),
    ("scripted model and tool (agent.py)", "langgraph_server/agent.py"),
    ("tiktoken", "tiktoken"),
    ("pydantic", "pydantic"),
    ("langchain / langgraph", "/lang"),
]
_STDLIB = "stdlib and builtins"


def _component(path: str) -> str | None:
    path = path.replace("\\", "/")
    return next((name for name, part in COMPONENTS if part in path), None)


def split_by_component(stats: Any) -> dict[str, float]:
    """Self time by component; a builtin's or the standard library's goes to whoever
    called it, in proportion to the time each caller spent in it."""
    table = stats.stats
    memo: dict[Any, dict[str, float]] = {}

    def shares(func: Any, depth: int = 0) -> dict[str, float]:
        if func in memo:
            return memo[func]
        own = _component(func[0])
        if own is not None or depth > 12 or func not in table:
            result = {own or _STDLIB: 1.0}
        else:
            callers = table[func][4]
            total = sum(edge[2] for edge in callers.values())
            result = {}
            if not total:
                result = {_STDLIB: 1.0}
            for caller, edge in callers.items():
                if total and edge[2]:
                    for name, part in shares(caller, depth + 1).items():
                        result[name] = result.get(name, 0.0) + part * edge[2] / total
        memo[func] = result
        return result

    split: dict[str, float] = {}
    for func, row in table.items():
        for name, part in shares(func).items():
            split[name] = split.get(name, 0.0) + row[2] * part
    return split


def profile_split(window: int, calls: int) -> None:
    """One thread of the graph with and without ctxmgr, in this process (sync, so every
    step runs in this thread), under cProfile counting CPU time; the self time of each
    component per model call."""
    import cProfile
    import os
    import pstats

    sys.path.insert(0, str(EXAMPLE_APP))
    os.environ["MODEL_WINDOW"] = str(window)
    import agent as example
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    ask = {"messages": [("user", f"read the build log, {calls - 1} parts")]}

    def run(ctxmgr: bool) -> tuple[float, dict[str, float], Any]:
        agent = example.build_agent(ctxmgr=ctxmgr)
        agent.checkpointer, agent.store = InMemorySaver(), InMemoryStore()  # as the server

        def thread(name: str) -> dict[str, Any]:
            return {"configurable": {"thread_id": name}, "recursion_limit": 10_000}

        agent.invoke(ask, thread("warm-up"))
        start = time.process_time()
        agent.invoke(ask, thread("measured"))
        cpu = time.process_time() - start
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        agent.invoke(ask, thread("profiled"))
        profiler.disable()
        stats = pstats.Stats(profiler)
        return cpu, split_by_component(stats), stats

    plain_cpu, plain_split, _ = run(False)
    ctx_cpu, ctx_split, stats = run(True)
    scale = ctx_cpu / sum(ctx_split.values())  # profiling slows every call alike
    print(f"\nWhere a model call's CPU goes: one thread of {calls} calls at a "
          f"{window:,}-token window, sync, in this process. Unprofiled: "
          f"{1000 * ctx_cpu / calls:.1f} ms/call with ctxmgr, {1000 * plain_cpu / calls:.1f} "
          "without. cProfile self time by component, scaled to the unprofiled total "
          "(the standard library's and builtins' time goes to their callers):\n")
    print("| component | with ctxmgr ms/call | without ms/call | added | share of added |")
    print("|---|---:|---:|---:|---:|")
    plain_scale = plain_cpu / sum(plain_split.values())
    added_total = ctx_cpu - plain_cpu
    for name in sorted(ctx_split, key=lambda n: -ctx_split[n]):
        with_ms = 1000 * ctx_split[name] * scale / calls
        without_ms = 1000 * plain_split.get(name, 0.0) * plain_scale / calls
        added = with_ms - without_ms
        print(f"| {name} | {with_ms:.2f} | {without_ms:.2f} | {added:+.2f} | "
              f"{added / (1000 * added_total / calls):.0%} |")
    print("\nctxmgr's functions with the most self time (scaled):\n")
    rows = sorted(((k, v) for k, v in stats.stats.items() if "ctxmgr" in k[0]),
                  key=lambda kv: -kv[1][2])
    print("| function | calls | self ms/call | cumulative ms/call |")
    print("|---|---:|---:|---:|")
    for (path, line, name), row in rows[:12]:
        short = path.split("packages/")[-1]
        print(f"| `{short}:{line} {name}` | {row[1]:,} | {1000 * row[2] * scale / calls:.2f} | "
              f"{1000 * row[3] * scale / calls:.2f} |")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, nargs="+", default=[10, 50, 200])
    p.add_argument("--windows", type=int, nargs="+", default=[8_000, 32_000])
    p.add_argument("--calls", type=int, default=50, help="model calls per thread")
    p.add_argument("--jobs", type=int, default=20, help="runs the server works on at once")
    p.add_argument("--graphs", nargs="+", default=["plain", "agent"],
                   choices=["plain", "agent"])
    p.add_argument("--profile", action="store_true",
                   help="also split one thread's CPU by component (in this process)")
    p.add_argument("--json", type=Path, help="write every measurement here")
    args = p.parse_args(argv)
    print(f"Python {platform.python_version()}, {platform.machine()}; langgraph dev "
          f"(in-memory runtime), --n-jobs-per-worker {args.jobs}; {args.calls} model calls "
          "per thread; scripted model, answers at once")
    loads: list[Load] = []
    plain: dict[int, Load] = {}  # the window is ctxmgr's setting: plain runs once per N
    for window in args.windows:
        for graph in args.graphs:
            for threads in args.threads:
                if graph == "plain" and threads in plain:
                    load = dataclasses.replace(plain[threads], window=window)
                else:
                    load = measure(graph, window, threads, args.calls, args.jobs)
                    print(f"  {graph} {window} x{threads}: {load.wall_s:.1f} s, "
                          f"{load.calls_per_s:.0f} calls/s", file=sys.stderr)
                if graph == "plain":
                    plain[threads] = load
                loads.append(load)
    report(loads)
    if args.profile:
        profile_split(args.windows[0], args.calls)
    if args.json:
        args.json.write_text(json.dumps([{**asdict(x), "calls_per_s": x.calls_per_s}
                                         for x in loads], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
