"""put / get / keys latency of ctxmgr's stores, and of LangGraphStore on LangGraph's stores.

Side by side in one process, on the same blobs (slices of a recorded run's offload
JSON, cut to each size): ctxmgr's ``InMemoryStore`` and ``FileStore`` (the default,
the baseline of the ratios), and ``LangGraphStore`` over LangGraph's
``InMemoryStore``, ``SqliteStore`` (a file), ``PostgresStore`` and
``AsyncPostgresStore`` (sync calls from the main thread, the store's loop in
another: the rule for async-only stores). PostgreSQL is a local server over TCP
on 127.0.0.1: ``--postgres-uri`` or ``CTXMGR_TEST_POSTGRES_URI``, else a
throwaway one started with ``scripts/postgres.sh`` for the run.

Prints a table; asserts nothing. Usage::

    python benchmarks/bench_store.py [--sizes 2000 64000] [--ops 300] [--keys 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from ctxmgr import FileStore, InMemoryStore, Store
from ctxmgr.messages import message_to_dict
from ctxmgr.replay.trajectories import load_trajectories
from ctxmgr.store import Namespace

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "trajectories"
NS = Namespace(project="-bench-project", session="thread-1", kind="offload")


def _blob(size: int) -> bytes:
    """``size`` bytes of real offload JSON (the largest bundled run, repeated if short)."""
    run = max(load_trajectories([FIXTURES]), key=lambda t: len(t.messages))
    text = json.dumps({"messages": [message_to_dict(m) for m in run.messages]}).encode()
    return (text * (size // len(text) + 1))[:size]


def _stats(times: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def measure(store: Store, data: bytes, ops: int, n_keys: int) -> dict[str, float]:
    """Median and p95 seconds of a put of a new key, a get, and keys() of ``n_keys`` keys."""
    run = uuid.uuid4().hex[:8]
    put, get, keys = [], [], []
    ns = Namespace(project=NS.project, session=f"{NS.session}-{run}", kind=NS.kind)
    for i in range(ops):
        t0 = time.perf_counter()
        store.put(ns, f"{i:06d}.json", data)
        put.append(time.perf_counter() - t0)
    for i in range(ops):
        t0 = time.perf_counter()
        got = store.get(ns, f"{i:06d}.json")
        get.append(time.perf_counter() - t0)
        assert got == data
    listed = Namespace(project=NS.project, session=f"keys-{run}", kind=NS.kind)
    for i in range(n_keys):
        store.put(listed, f"{i:06d}.json", b"x")
    for _ in range(max(5, ops // 10)):
        t0 = time.perf_counter()
        assert len(store.keys(listed)) == n_keys
        keys.append(time.perf_counter() - t0)
    (put_med, put_p95), (get_med, get_p95), (keys_med, _) = map(_stats, (put, get, keys))
    return {"put": put_med, "put95": put_p95, "get": get_med, "get95": get_p95,
            "keys": keys_med}


@contextmanager
def _postgres(uri: str | None) -> Iterator[str]:
    """A database for the run on the given server, or on a throwaway one."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    with ExitStack() as stack:
        if not uri:
            out = subprocess.run(["bash", str(ROOT / "scripts" / "postgres.sh"), "start"],
                                 check=True, capture_output=True, text=True).stdout
            env = dict(shlex.split(line.removeprefix("export "))[0].split("=", 1)
                       for line in out.splitlines() if line.startswith("export "))
            uri = env["CTXMGR_TEST_POSTGRES_URI"]
            stack.callback(subprocess.run, ["bash", str(ROOT / "scripts" / "postgres.sh"),
                                            "stop", env["CTXMGR_TEST_POSTGRES_DIR"]], check=True)
        dbname = f"ctxmgr_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{dbname}"')

        def drop() -> None:
            with psycopg.connect(uri, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE "{dbname}" WITH (FORCE)')

        stack.callback(drop)
        yield make_conninfo(**{**conninfo_to_dict(uri), "dbname": dbname})


async def _cancel_tasks() -> None:
    """End the async store's background task before its loop stops."""
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@contextmanager
def _stores(postgres_uri: str) -> Iterator[list[tuple[str, Store]]]:
    from langgraph.store.memory import InMemoryStore as LangGraphInMemoryStore
    from langgraph.store.postgres import AsyncPostgresStore, PostgresStore
    from langgraph.store.sqlite import SqliteStore

    from ctxmgr_langgraph import LangGraphStore

    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        sqlite = stack.enter_context(SqliteStore.from_conn_string(str(tmp / "store.db")))
        sqlite.setup()
        postgres = stack.enter_context(PostgresStore.from_conn_string(postgres_uri))
        postgres.setup()

        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        stack.callback(thread.join, 10)
        stack.callback(loop.call_soon_threadsafe, loop.stop)
        stack.callback(lambda: asyncio.run_coroutine_threadsafe(_cancel_tasks(), loop).result())
        opened = AsyncPostgresStore.from_conn_string(postgres_uri)
        async_postgres = asyncio.run_coroutine_threadsafe(opened.__aenter__(), loop).result()
        stack.callback(lambda: asyncio.run_coroutine_threadsafe(
            opened.__aexit__(None, None, None), loop).result())

        yield [
            ("ctxmgr InMemoryStore", InMemoryStore()),
            ("ctxmgr FileStore", FileStore(tmp / "files")),
            ("LangGraphStore(InMemoryStore)", LangGraphStore(LangGraphInMemoryStore())),
            ("LangGraphStore(SqliteStore)", LangGraphStore(sqlite)),
            ("LangGraphStore(PostgresStore)", LangGraphStore(postgres)),
            ("LangGraphStore(AsyncPostgresStore)", LangGraphStore(async_postgres)),
        ]


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f} µs" if seconds < 1e-2 else f"{seconds * 1e3:,.1f} ms"


def _ratio(seconds: float, baseline: float) -> str:
    return f"{seconds / baseline:.2g}x" if seconds < baseline else f"{seconds / baseline:.1f}x"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 64_000],
                        help="blob sizes in bytes (default: %(default)s)")
    parser.add_argument("--ops", type=int, default=300,
                        help="puts and gets timed per store and size (default: %(default)s)")
    parser.add_argument("--keys", type=int, default=100,
                        help="keys in the namespace that keys() lists (default: %(default)s)")
    parser.add_argument("--postgres-uri", default=os.environ.get("CTXMGR_TEST_POSTGRES_URI"),
                        help="a PostgreSQL server (default: $CTXMGR_TEST_POSTGRES_URI, "
                             "else a throwaway one for the run)")
    args = parser.parse_args(argv)

    with _postgres(args.postgres_uri) as uri, _stores(uri) as stores:
        print(f"python {sys.version.split()[0]}; {args.ops} puts (new keys) and gets per row; "
              f"keys() over {args.keys} keys; PostgreSQL on 127.0.0.1 (TCP); median "
              "(p95); ratio = median / FileStore's")
        print()
        header = ("store", "blob", "put", "ratio", "get", "ratio", f"keys() of {args.keys}",
                  "ratio")
        table: list[tuple[str, ...]] = [header]
        for size in args.sizes:
            data = _blob(size)
            results = {name: measure(store, data, args.ops, args.keys) for name, store in stores}
            base = results["ctxmgr FileStore"]
            for name, r in results.items():
                table.append((
                    name, f"{size:,} B",
                    f"{_fmt(r['put'])} ({_fmt(r['put95'])})", _ratio(r["put"], base["put"]),
                    f"{_fmt(r['get'])} ({_fmt(r['get95'])})", _ratio(r["get"], base["get"]),
                    _fmt(r["keys"]), _ratio(r["keys"], base["keys"])))
        _print_table(table)
    return 0


def _print_table(rows: list[tuple[str, ...]]) -> None:
    """A Markdown table: the first two columns left-aligned, the figures right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]

    def line(row: tuple[str, ...]) -> str:
        cells = (c.ljust(w) if i < 2 else c.rjust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=True)))
        return "| " + " | ".join(cells) + " |"

    print(line(rows[0]))
    print("|" + "|".join("-" * (w + 2) if i < 2 else "-" * (w + 1) + ":"
                         for i, w in enumerate(widths)) + "|")
    for row in rows[1:]:
        print(line(row))


if __name__ == "__main__":
    sys.exit(main())
