"""Two agent processes on different threads and projects share one PostgreSQL store.

Each worker (``tests/kill_worker.py``) is a real ``create_agent`` with
``ContextMiddleware`` on a ``PostgresSaver`` and ``PostgresStore`` at the same URI,
running a different recorded coding run at the same time. Afterwards each one's
offloads reload from its own namespace (project / thread), and none of them can be
reached from the other's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from langgraph.store.postgres import PostgresStore

from ctxmgr import OffloadNotFoundError
from ctxmgr.autocontext import OffloadStore
from ctxmgr_langgraph import LangGraphStore

TESTS = Path(__file__).resolve().parents[1]
RUNS = {"alpha": "swe__deepseek_chat_test_1-100__django__django-11099.json",
        "beta": "swe__deepseek_chat_dev__pydicom__pydicom-1256.json"}


def start(uri: str, name: str, thread: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.Popen(
        [sys.executable, "-m", "kill_worker", "--target", uri, "--mode", "run",
         "--thread", thread, "--project", f"proj-{name}", "--trajectory", RUNS[name],
         "--durability", "sync"], env=env, text=True, stdout=subprocess.PIPE)


def test_two_agent_processes_share_one_postgres_store_each_in_its_own_namespace(
        postgres_uri: str) -> None:
    threads = {name: f"{name}-{uuid.uuid4().hex[:8]}" for name in RUNS}
    # the second starts once the first has set the database up (LangGraph's setup() is
    # not safe to run twice at once), then both work side by side
    first = start(postgres_uri, "alpha", threads["alpha"])
    seen = [first.stdout.readline()]  # type: ignore[union-attr]
    while seen[-1] and '"call"' not in seen[-1]:
        seen.append(first.stdout.readline())  # type: ignore[union-attr]
    procs = {"alpha": first, "beta": start(postgres_uri, "beta", threads["beta"])}
    offloads: dict[str, list[str]] = {}
    for name, proc in procs.items():
        out, _ = proc.communicate(timeout=240)
        out = "".join(seen) + out if name == "alpha" else out
        assert proc.returncode == 0, f"{name} failed:\n{out}"
        events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        assert {"finished": True} in events
        offloads[name] = sorted({e["offload"] for e in events if "offload" in e})
        assert offloads[name], f"{name} compressed nothing"
    assert not set(offloads["alpha"]) & set(offloads["beta"])  # different runs, different ids
    with PostgresStore.from_conn_string(postgres_uri) as pg:
        store = LangGraphStore(pg)
        for name, other in (("alpha", "beta"), ("beta", "alpha")):
            own = OffloadStore(store, project=f"proj-{name}", session=threads[name])
            stored = set(own.ids())
            assert set(offloads[name]) <= stored, (name, sorted(set(offloads[name]) - stored))
            assert all(own.load(i) for i in offloads[name])  # each reloads its own
            for foreign in offloads[other]:  # and cannot reach the other's
                try:
                    own.load(foreign)
                except OffloadNotFoundError:
                    continue
                raise AssertionError(f"{name} reached {other}'s offload {foreign}")
            spaces = store.namespaces(project=f"proj-{name}")
            assert {ns.session for ns in spaces} == {threads[name]}
