"""Time of one ``context_search`` over a session with 10,000 offloaded messages.

The target: one search over a session with 10,000 offloaded messages answers in under
50 ms, and an index is kept only if a measurement says it pays. This measures it.

**The session** is a real compressed one: a coding agent's loop (system prompt, task,
then one assistant message calling one tool, sometimes two, and the tool results) is
driven through a real ``AutoContextMemory`` (default config, ``ExtractiveSummarizer``,
a 32,000-token window by default): each step is added and ``compress_if_needed()``
called, as an agent does before every model call, until ``--offloaded`` original
messages (10,000 by default) are hidden behind the working view's stand-ins, nested
summaries of summaries included. The steps are generated, seeded: the tool steps of
``planted.filler.tool_step`` (ls, git log, pytest, grep, log tails,
file reads, HTTP JSON, ticket search, tracebacks; 100 B to 2 KB), and one step in
eight a large result (a file read of 80-600 numbered lines of generated Python, or a
verbose pytest run, 4-40 KB), so ranges are of very uneven size as in real runs.
One old file read holds the rare fact (``lint_path_q7x``, on one line). The session
is built once on an ``InMemoryStore``; its offload blobs are copied byte for byte to a
``FileStore`` in a temp folder, so both stores hold the same session.

**The searches**, each through ``AutoContextMemory.handle_search_call`` (the room left
before the trigger as the cap, every page it names kept, as a session does):

* ``rare literal``: a name on one line of an old range (every passage scanned);
* ``common word``: a word on thousands of lines (the count stops at 1,000 distinct
  matching lines, ``MAX_COUNTED``, and the older ranges are not read);
* ``regex``: a regular expression that matches the rare line only (the ranges whose raw
  bytes lack its leading literal passed by, the others' text scanned, only the range
  that holds it decoded).

**The columns,** each the median of ``--repeats`` samples, wall time with the CPU time
of the process in brackets (the machine is shared: CPU time is what the search costs
on a core of its own):

* ``warm``: the same search again (ranges rendered, the walk and the page cuts cached
  by ``HiddenOriginals``);
* ``walk redone``: the view's stand-ins changed, as after a compression, so the walk
  over the cached ranges is done again (the view less one stand-in, alternating;
  this column and the next call ``search.handle_search_call`` on the memory's
  ``HiddenOriginals`` directly, with the memory's room and page size, the reload floor);
* ``new page cuts``: pages of another size (each call one room smaller, with no page
  size given), so the reload pages of the ranges the answer names are cut afresh
  (``reload_pages`` tokenizes each such range): what a range named for the first time
  costs;
* ``cold``: the first search of a memory rebuilt with ``AutoContextMemory.from_json``
  on the same store (a restarted process): every range's search index read (the
  reload text and its layout, saved beside each blob), newest first, a literal looked
  for in their raw bytes, only the ranges that may hold it decoded, and only until the
  answer is counted; the page boundaries of the range named cut;
* ``cold, no index``: the same on a copy of the store without the indexes (a session
  offloaded before they existed, or a store that could not write them): every range's
  messages JSON-decoded, rebuilt and rendered. A search without the cache,
  ``HiddenOriginals`` re-reading every range each time, would pay this on every call;
  the cache's own price is its memory, printed below the table, with the indexes'
  size beside the blobs' and what writing one costs a compression.

File reads come from the OS page cache (the blobs were just written); a truly cold
disk is slower. Everything runs in one process; the script prints and asserts
nothing. About 5 minutes on 2 shared cores (a minute of it builds the session)::

    python benchmarks/bench_search.py [--offloaded 10000] [--window 32000] [--repeats 11]
        [--seed 0]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from planted.filler import SYSTEM_PROMPTS, TASKS, tool_step
from planted.values import WORDS

from ctxmgr.autocontext import AutoContextConfig, AutoContextMemory, ExtractiveSummarizer
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.offload import INDEX_SUFFIX
from ctxmgr.autocontext.reload import reload_floor, reload_room
from ctxmgr.autocontext.search import handle_search_call
from ctxmgr.autocontext.search_index import encode_index
from ctxmgr.messages import Message, ToolResultBlock, ToolUseBlock, text_message
from ctxmgr.replay.report import markdown_table
from ctxmgr.store.base import Store
from ctxmgr.store.files import FileStore
from ctxmgr.store.memory import InMemoryStore
from ctxmgr.tokens import TokenCounter, default_counter

RARE = "lint_path_q7x"
COMMON = "timeout"
REGEX = r"def lint_\w+_q7x\("
QUERIES: dict[str, dict[str, Any]] = {
    "rare literal": {"query": RARE},
    "common word": {"query": COMMON},
    "regex": {"query": REGEX, "regex": True},
}
TARGET_MS = 50.0


# ---------------------------------------------------------------- the session


def _python_file(rng: random.Random, lines: int, planted: bool) -> str:
    """``lines`` numbered lines of made-up Python (``cat -n`` style), distinct names."""
    out: list[str] = []
    while len(out) < lines:
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{rng.getrandbits(20):05x}"
        out += [f"class {name.title().replace('_', '')}:",
                f"    def {name}(self, payload, timeout={rng.randrange(1, 90)}):",
                f"        \"\"\"Handle one {rng.choice(WORDS)} record of the batch.\"\"\"",
                "        if not payload:",
                "            return None",
                f"        result = self.client.{rng.choice(WORDS)}(payload, retries="
                f"{rng.randrange(1, 6)})",
                f"        log.debug(\"{name} done in %s ms\", result.elapsed)",
                "        return result", ""]
    out = out[:lines]
    if planted:
        out[min(lines - 1, 11)] = f"    def {RARE}(self, fname, timeout=30):"
    return "\n".join(f"{n + 1:6d}\t{line}" for n, line in enumerate(out))


def _pytest_verbose(rng: random.Random) -> str:
    rows = [f"tests/test_{rng.choice(WORDS)}.py::test_{rng.choice(WORDS)}_{k} "
            f"{rng.choice(('PASSED', 'PASSED', 'PASSED', 'FAILED', 'SKIPPED'))} "
            f"[{k * 100 // 300:3d}%]" for k in range(rng.randrange(80, 300))]
    return "============ test session starts ============\n" + "\n".join(rows)


def _large_step(rng: random.Random, ids: Callable[[], str], planted: bool) -> list[Message]:
    cid = f"call_{rng.getrandbits(64):016x}"
    if planted or rng.random() < 0.7:
        path = f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py"
        name, args = "read_file", {"path": path}
        output = _python_file(rng, rng.randrange(80, 600), planted)
    else:
        name, args = "bash", {"command": "python -m pytest tests -v"}
        output = _pytest_verbose(rng)
    return [text_message("assistant", "Reading it.", id=ids(),
                         tool_uses=[ToolUseBlock(id=cid, name=name, input=args)]),
            Message(role="tool", id=ids(), content=(ToolResultBlock(tool_use_id=cid,
                                                                    content=output),))]


def build_session(offloaded: int, window: int, seed: int, counter: TokenCounter
                  ) -> tuple[AutoContextMemory, dict[str, Any]]:
    """A real compressed coding session with at least ``offloaded`` hidden originals."""
    rng = random.Random(seed)
    serial = iter(range(10**9))

    def ids() -> str:
        return f"m{next(serial)}"

    memory = AutoContextMemory(AutoContextConfig(max_tokens=window), counter=counter,
                               summarizer=ExtractiveSummarizer(), store=InMemoryStore())
    memory.add([text_message("system", SYSTEM_PROMPTS["tools"][0], id=ids()),
                text_message("user", TASKS["tools"][0], id=ids())])
    added, steps, chars = 2, 0, 0
    t0 = time.perf_counter()
    while added - len(memory.messages) < offloaded:
        step = (_large_step(rng, ids, planted=steps == 40) if steps == 40 or rng.random() < 1 / 8
                else tool_step(rng, ids))
        memory.add(step)
        memory.compress_if_needed()
        added += len(step)
        steps += 1
        chars += sum(len(b.text) for m in step for b in m.content
                     if isinstance(b, ToolResultBlock))
    info = {"steps": steps, "messages": added, "view": len(memory.messages),
            "tokens": memory.tokens, "ranges": len(memory.offload.ids()),
            "result_chars": chars, "build_s": time.perf_counter() - t0,
            "passages": len(memory.hidden.passages(memory.messages))}
    return memory, info


def copy_store(src: Store, dst: Store, memory: AutoContextMemory, *, indexes: bool = True
               ) -> None:
    ns = memory.offload.namespace
    for key in src.keys(ns):
        if key.endswith(INDEX_SUFFIX) and not indexes:
            continue
        data = src.get(ns, key)
        assert data is not None
        dst.put(ns, key, data)


# ---------------------------------------------------------------- timing


def clock(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of one call (CPU: what it costs on a core of its own)."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def reopen(state: dict[str, Any], store: Store, counter: TokenCounter, window: int
           ) -> AutoContextMemory:
    return AutoContextMemory.from_json(state, config=AutoContextConfig(max_tokens=window),
                                       counter=counter, summarizer=ExtractiveSummarizer(),
                                       store=store)


COLUMNS = ("warm", "walk", "pages", "cold", "bare")
SHORT = {"warm": "warm", "walk": "walk", "pages": "pages", "cold": "cold", "bare": "no index"}


def measure(state: dict[str, Any], store: Store, bare: Store, counter: TokenCounter,
            window: int, query: dict[str, Any], repeats: int) -> dict[str, Any]:
    """Per column of :data:`COLUMNS`, the (wall, CPU) samples of one search (``bare``:
    the store without its indexes), and the answer's first line."""
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in COLUMNS}
    first = ""
    for i in range(repeats):
        unindexed = reopen(state, bare, counter, window)
        gc.collect()
        samples["bare"].append(clock(lambda m=unindexed: m.handle_search_call(query)))
        memory = reopen(state, store, counter, window)
        view = memory.messages
        # the same view less its first stand-in: other roots, the same ranges
        k = next(j for j, m in enumerate(view) if CompressedMarker.of(m) is not None)
        other = [*view[:k], *view[k + 1:]]
        room = reload_room(memory.config, memory.tokens)
        gc.collect()
        samples["cold"].append(clock(lambda m=memory: m.handle_search_call(query)))
        first = memory.handle_search_call(query).splitlines()[0]
        samples["warm"].append(clock(lambda m=memory: m.handle_search_call(query)))
        floor = reload_floor(memory.config)  # the page size a session names pages in
        for v in (other, view):  # each call walks again: its roots differ from the last
            samples["walk"].append(clock(lambda m=memory, v=v, r=room, f=floor:
                                         handle_search_call(m.hidden, query, view=v,
                                                            counter=counter, room=r,
                                                            page_size=f)))
        samples["pages"].append(clock(lambda m=memory, r=room - 1 - i: handle_search_call(
            m.hidden, query, view=m.messages, counter=counter, room=r)))
    out: dict[str, Any] = {"first": first}
    for name, xs in samples.items():
        out[name] = (statistics.median(w for w, _ in xs), statistics.median(c for _, c in xs))
    return out


def cache_bytes(state: dict[str, Any], store: Store, counter: TokenCounter, window: int,
                query: dict[str, Any]) -> tuple[int, int]:
    """Bytes the filled cache holds (traced allocations kept after one search), and the
    bytes of the offload blobs it was read from."""
    memory = reopen(state, store, counter, window)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    memory.handle_search_call(query)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    ns = memory.offload.namespace
    blobs = sum(len(store.get(ns, k) or b"") for k in store.keys(ns))
    return after - before, blobs


def index_price(memory: AutoContextMemory, store: Store) -> tuple[float, float]:
    """Median ms to build one range's index from its messages, and to write it to
    ``store`` (a compression pays both, once per range it offloads)."""
    build, write = [], []
    ns = memory.offload.namespace
    for oid in memory.offload.ids()[:100]:
        messages = memory.offload.load(oid)
        t0 = time.perf_counter()
        data = encode_index(oid, messages)
        t1 = time.perf_counter()
        store.put(ns, f"{oid}{INDEX_SUFFIX}", data)
        write.append(time.perf_counter() - t1)
        build.append(t1 - t0)
    return statistics.median(build) * 1e3, statistics.median(write) * 1e3


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f} ms"


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--offloaded", type=int, default=10_000,
                        help="original messages hidden behind stand-ins (default 10000)")
    parser.add_argument("--window", type=int, default=32_000,
                        help="max_tokens of the session (default 32000)")
    parser.add_argument("--repeats", type=int, default=11,
                        help="samples per cell, median reported (default 11)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    counter = default_counter()
    memory, info = build_session(args.offloaded, args.window, args.seed, counter)
    print(f"counter : {counter!r}")
    print(f"python  : {sys.version.split()[0]} on {sys.platform}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"session : {info['steps']:,} tool steps, {info['messages']:,} messages "
          f"({info['result_chars'] / 1e6:.1f} M characters of tool results), built in "
          f"{info['build_s']:.1f} s at a {args.window:,}-token window")
    print(f"          view: {info['view']} messages, {info['tokens']:,} tokens; "
          f"{info['ranges']:,} offloaded ranges holding {info['passages']:,} searchable "
          f"originals; reload room {reload_room(memory.config, memory.tokens):,} tokens")
    state = memory.to_json()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        stores: dict[str, tuple[Store, Store]] = {
            "InMemoryStore": (memory.offload.store, InMemoryStore()),
            "FileStore": (FileStore(Path(tmp) / "indexed"), FileStore(Path(tmp) / "bare"))}
        copy_store(memory.offload.store, stores["FileStore"][0], memory)
        for _, bare in stores.values():
            copy_store(memory.offload.store, bare, memory, indexes=False)
        for store_name, (store, bare) in stores.items():
            for label, query in QUERIES.items():
                r = measure(state, store, bare, counter, args.window, query, args.repeats)
                matches = r["first"].split(" lines match")[0].replace("more than ", ">")
                under = [SHORT[name] for name in COLUMNS if r[name][0] * 1e3 < TARGET_MS]
                rows.append([store_name, label, matches,
                             *(f"{r[name][0] * 1e3:,.1f} ({r[name][1] * 1e3:,.1f})"
                               for name in COLUMNS),
                             ", ".join(under) if under else "none"])
        held, blobs = cache_bytes(state, stores["FileStore"][1], counter, args.window,
                                  QUERIES["common word"])
        ns = memory.offload.namespace
        indexes = sum(len(memory.offload.store.get(ns, k) or b"")
                      for k in memory.offload.store.keys(ns) if k.endswith(INDEX_SUFFIX))
        build_ms, write_ms = index_price(memory, FileStore(Path(tmp) / "writes"))
    print()
    print(f"One search through AutoContextMemory.handle_search_call; ms, median of "
          f"{args.repeats} wall (CPU in brackets); target: under {TARGET_MS:.0f} ms")
    print()
    print(markdown_table(["store", "search", "matches", "warm", "walk redone", "new page cuts",
                          "cold", "cold, no index", "under 50 ms (wall)"], rows,
                         left=frozenset({0, 1, 9})))
    print()
    print("warm: the same search again. walk redone: the view's stand-ins changed (as after "
          "a compression),")
    print("ranges and page cuts cached. new page cuts: pages of another size, so the reload "
          "pages")
    print("of the ranges the answer names are cut afresh (a range named the first time). "
          "cold: a memory rebuilt from")
    print("to_json() on the store (a restart), searching from the ranges' indexes; cold, no "
          "index: the same")
    print("on a copy of the store without them (every range's messages decoded).")
    print(f"The filled cache holds {held / 1e6:.1f} MB of Python objects "
          f"(the offload blobs weigh {blobs / 1e6:.1f} MB, their indexes "
          f"{indexes / 1e6:.1f} MB).")
    print(f"An index costs a compression {build_ms:.2f} ms to build and {write_ms:.2f} ms to "
          f"write to a FileStore per range offloaded (medians of {min(100, info['ranges'])}).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
