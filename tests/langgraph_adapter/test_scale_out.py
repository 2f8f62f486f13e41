"""Scale-out at the store level: worker processes share one PostgreSQL through ctxmgr.

Two real OS processes (tests/scale_out_worker.py), each a worker of its own project
on its own thread id, one on ``PostgresStore`` and one on ``AsyncPostgresStore``,
write offloads and memos at the same time into one database. Each gets back exactly
what it wrote, and nothing of the other's is reachable through its stores, not even
under the same offload id or memo key.
"""

from __future__ import annotations

from langgraph.store.postgres import PostgresStore
from scale_out_worker import SHARED_MEMO_KEY, SHARED_OFFLOAD_ID, WorkerProcess

from ctxmgr import MemoStore
from ctxmgr.autocontext import OffloadStore
from ctxmgr_langgraph import LangGraphStore

WORKERS = {
    "a": {"project": "-srv-app-a", "thread": "thread-a", "trajectory": "0", "async": False},
    "b": {"project": "-srv-app.b", "thread": "thread.b", "trajectory": "1", "async": True},
}


def test_two_worker_processes_share_one_postgres_store_and_stay_in_their_namespaces(
        postgres_uri: str) -> None:
    procs = {
        # --name=value: project names start with "-" (as project_dir_name makes them)
        name: WorkerProcess(f"--uri={postgres_uri}", f"--project={w['project']}",
                            f"--thread={w['thread']}", f"--trajectory={w['trajectory']}",
                            *(["--async"] if w["async"] else []))
        for name, w in WORKERS.items()
    }
    try:
        pids = {name: p.read("ready")["pid"] for name, p in procs.items()}
        for p in procs.values():  # both write at the same time
            p.send(go=True)
        written = {name: p.read("written") for name, p in procs.items()}
        procs["a"].send(**written["b"])
        procs["b"].send(**written["a"])
        reports = {name: p.read("report") for name, p in procs.items()}
        codes = {name: p.finish() for name, p in procs.items()}
    finally:
        for p in procs.values():
            p.proc.kill()
            p.proc.wait(30)

    assert codes == {"a": 0, "b": 0}
    assert len(set(pids.values())) == 2
    for name in WORKERS:
        report, mine = reports[name], written[name]
        thread = WORKERS[name]["thread"]
        assert SHARED_OFFLOAD_ID in mine["offloads"] and len(mine["offloads"]) == 5
        assert report["reloaded_intact"] is True
        assert report["offload_ids"] == sorted(mine["offloads"])
        assert report["memos"] == {f"notes-{thread}": f"notes of {thread}",
                                   SHARED_MEMO_KEY: f"plan of {thread}"}
        assert report["foreign_offloads_found"] == []
        assert report["foreign_memos_found"] == []
    # one id, two workers, two different originals: each got its own back
    assert (written["a"]["offloads"][SHARED_OFFLOAD_ID]
            != written["b"]["offloads"][SHARED_OFFLOAD_ID])

    # the database, seen from a third connection, holds each worker's blobs in its namespace
    with PostgresStore.from_conn_string(postgres_uri) as base:
        store = LangGraphStore(base)
        for name, w in WORKERS.items():
            project, thread = str(w["project"]), str(w["thread"])
            offloads = OffloadStore(store, project=project, session=thread)
            memos = MemoStore(store, project=project, session=thread)
            assert offloads.ids() == sorted(written[name]["offloads"])
            assert memos.read(SHARED_MEMO_KEY) == f"plan of {thread}"
        assert {(n.project, n.kind, n.session) for n in store.namespaces()} == {
            (str(w["project"]), kind, str(w["thread"]))
            for w in WORKERS.values() for kind in ("offload", "notes")}
