"""Workers in two processes writing memos to one session of one PostgresStore.

Memo writes hold ``LangGraphStore.lock``, a PostgreSQL advisory lock, so the cap holds
exactly. Each memo's entry has a key of its own, so neither worker loses the other's
entries even with that lock cut back to one process, as on a Redis or MongoDB store.
The long profile (``CTXMGR_PROFILE=long``) repeats each race 20 times.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from langgraph.store.postgres import PostgresStore
from memo_race import (
    UNLOCKED_WRITES,
    assert_a_holder_elsewhere_blocks_until_it_goes,
    assert_every_memo_kept,
    assert_only_accepted_memos_stay,
    race,
    shared_memos,
    unlocked,
)
from profiles import repeats

from ctxmgr import MemoStore
from ctxmgr.store import Namespace
from ctxmgr.store.advisory_lock import advisory_key
from ctxmgr_langgraph import LangGraphStore

WRITES = 200
_STORE = """
from langgraph.store.postgres import PostgresStore
from ctxmgr_langgraph import LangGraphStore
opened = PostgresStore.from_conn_string({uri!r})  # held: it closes when collected
store = LangGraphStore(opened.__enter__())
"""


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_two_processes_writing_200_memos_each_to_one_postgres_store_lose_none(
        postgres_uri: str, tmp_path: Path, run: int) -> None:
    accepted = race(_STORE.format(uri=postgres_uri), tmp_path, cap=1000, writes=WRITES)

    with PostgresStore.from_conn_string(postgres_uri) as base:
        assert_every_memo_kept(shared_memos(LangGraphStore(base), cap=1000), accepted,
                               writes=WRITES)


def test_the_memo_cap_holds_when_two_processes_race_past_it_on_postgres(
        postgres_uri: str, tmp_path: Path) -> None:
    accepted = race(_STORE.format(uri=postgres_uri), tmp_path, cap=50, writes=60)

    with PostgresStore.from_conn_string(postgres_uri) as base:
        assert len(accepted) == 50
        assert_only_accepted_memos_stay(shared_memos(LangGraphStore(base), cap=50), accepted)


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_two_processes_lose_no_memo_on_a_postgres_store_without_a_lock_across_processes(
        postgres_uri: str, tmp_path: Path, run: int) -> None:
    accepted = race(unlocked(_STORE.format(uri=postgres_uri)), tmp_path, cap=1000,
                    writes=UNLOCKED_WRITES)

    with PostgresStore.from_conn_string(postgres_uri) as base:
        assert_every_memo_kept(shared_memos(LangGraphStore(base), cap=1000), accepted,
                               writes=UNLOCKED_WRITES)


def test_the_memo_cap_is_never_passed_on_postgres_without_a_lock_across_processes(
        postgres_uri: str, tmp_path: Path) -> None:
    accepted = race(unlocked(_STORE.format(uri=postgres_uri)), tmp_path, cap=50, writes=60)

    with PostgresStore.from_conn_string(postgres_uri) as base:
        assert len(accepted) in (49, 50)  # both racers for the last place may back out
        assert_only_accepted_memos_stay(shared_memos(LangGraphStore(base), cap=50), accepted)


def test_a_postgres_lock_held_elsewhere_times_out_then_frees_when_its_holder_goes(
        postgres_uri: str) -> None:
    ns = Namespace(project="p", session="shared", kind="notes")
    with PostgresStore.from_conn_string(postgres_uri) as base:
        store = LangGraphStore(base, lock_timeout_s=0.3)
        holder = psycopg.connect(postgres_uri, autocommit=True)  # another worker
        holder.execute("SELECT pg_advisory_lock(%s::bigint)", (advisory_key("ctxmgr", ns),))
        # the worker dies: the server drops its lock
        assert_a_holder_elsewhere_blocks_until_it_goes(store, ns, holder.close)


def test_an_idle_lock_connection_the_server_dropped_is_replaced(postgres_uri: str) -> None:
    ns = Namespace(project="p", session="shared", kind="notes")
    with PostgresStore.from_conn_string(postgres_uri) as base, \
            psycopg.connect(postgres_uri, autocommit=True) as admin:
        store = LangGraphStore(base)
        with store.lock(ns):  # its connection is kept, idle, for the next lock
            pass
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                      "AND pid <> %s", (base.conn.info.backend_pid,))

        with store.lock(ns):
            MemoStore(store, project="p", session="shared").write("plan", "content", "s")
