"""Workers in two processes writing memos to one session of one PostgresKVStore, and of
one RedisKVStore (Debian's redis-server).

Memo writes hold ``LlamaIndexKVStore.lock``, a PostgreSQL advisory lock or a Redis lock key
with a lease, so the cap holds exactly. Each memo's entry has a key of its own, so neither
worker loses the other's entries even with that lock cut back to one process, as on a
MongoDB KV store.
The long profile (``CTXMGR_PROFILE=long``) repeats each race 20 times.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from memo_race import (
    UNLOCKED_WRITES,
    assert_a_holder_elsewhere_blocks_until_it_goes,
    assert_every_memo_kept,
    assert_only_accepted_memos_stay,
    race,
    shared_memos,
    unlocked,
)
from postgres_db import sqlalchemy_urls
from profiles import repeats

from ctxmgr.store import Namespace
from ctxmgr.store.advisory_lock import advisory_key
from ctxmgr.store.redis_lock import redis_lock_key
from ctxmgr_llamaindex import LlamaIndexKVStore

WRITES = 200
_STORE = """
from llama_index.storage.kvstore.postgres import PostgresKVStore
from ctxmgr_llamaindex import LlamaIndexKVStore
store = LlamaIndexKVStore(PostgresKVStore(table_name="kv", connection_string={sync!r},
                                          async_connection_string={async_!r}))
"""


def _store_code(uri: str) -> str:
    sync, async_ = sqlalchemy_urls(uri)
    return _STORE.format(sync=sync, async_=async_)


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_two_processes_writing_200_memos_each_to_one_postgres_kv_store_lose_none(
        postgres_kvstore: Any, postgres_kv_database: str, tmp_path: Path, run: int) -> None:
    accepted = race(_store_code(postgres_kv_database), tmp_path, cap=1000, writes=WRITES)

    assert_every_memo_kept(shared_memos(LlamaIndexKVStore(postgres_kvstore), cap=1000),
                           accepted, writes=WRITES)


def test_the_memo_cap_holds_when_two_processes_race_past_it_on_a_postgres_kv_store(
        postgres_kvstore: Any, postgres_kv_database: str, tmp_path: Path) -> None:
    accepted = race(_store_code(postgres_kv_database), tmp_path, cap=50, writes=60)

    assert len(accepted) == 50
    assert_only_accepted_memos_stay(shared_memos(LlamaIndexKVStore(postgres_kvstore), cap=50),
                                    accepted)


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_two_processes_lose_no_memo_on_a_postgres_kv_store_without_a_lock_across_processes(
        postgres_kvstore: Any, postgres_kv_database: str, tmp_path: Path, run: int) -> None:
    accepted = race(unlocked(_store_code(postgres_kv_database)), tmp_path, cap=1000,
                    writes=UNLOCKED_WRITES)

    assert_every_memo_kept(shared_memos(LlamaIndexKVStore(postgres_kvstore), cap=1000),
                           accepted, writes=UNLOCKED_WRITES)


def test_the_memo_cap_is_never_passed_on_a_postgres_kv_store_without_a_lock_across_processes(
        postgres_kvstore: Any, postgres_kv_database: str, tmp_path: Path) -> None:
    accepted = race(unlocked(_store_code(postgres_kv_database)), tmp_path, cap=50, writes=60)

    assert len(accepted) in (49, 50)  # both racers for the last place may back out
    assert_only_accepted_memos_stay(shared_memos(LlamaIndexKVStore(postgres_kvstore), cap=50),
                                    accepted)


def test_a_postgres_kv_lock_held_elsewhere_times_out_then_frees_when_its_holder_goes(
        postgres_kvstore: Any, postgres_kv_database: str) -> None:
    ns = Namespace(project="p", session="shared", kind="notes")
    store = LlamaIndexKVStore(postgres_kvstore, lock_timeout_s=0.3)
    holder = psycopg.connect(postgres_kv_database, autocommit=True)  # another worker
    holder.execute("SELECT pg_advisory_lock(%s::bigint)", (advisory_key("ctxmgr", ns),))
    # the worker dies: the server drops its lock
    assert_a_holder_elsewhere_blocks_until_it_goes(store, ns, holder.close)


# --- the same races on Debian's redis-server: the lock is a Redis key with a lease ---------

_REDIS_STORE = """
from llama_index.storage.kvstore.redis import RedisKVStore
from ctxmgr_llamaindex import LlamaIndexKVStore
store = LlamaIndexKVStore(RedisKVStore(redis_uri={uri!r}))
"""


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_two_processes_writing_200_memos_each_to_one_redis_kv_store_lose_none(
        redis_kvstore: Any, redis_kv_uri: str, tmp_path: Path, run: int) -> None:
    accepted = race(_REDIS_STORE.format(uri=redis_kv_uri), tmp_path, cap=1000, writes=WRITES)

    assert_every_memo_kept(shared_memos(LlamaIndexKVStore(redis_kvstore), cap=1000),
                           accepted, writes=WRITES)


def test_the_memo_cap_holds_exactly_when_two_processes_race_past_it_on_a_redis_kv_store(
        redis_kvstore: Any, redis_kv_uri: str, tmp_path: Path) -> None:
    accepted = race(_REDIS_STORE.format(uri=redis_kv_uri), tmp_path, cap=50, writes=60)

    assert len(accepted) == 50  # one writer at a time across the processes: none backs out
    assert_only_accepted_memos_stay(shared_memos(LlamaIndexKVStore(redis_kvstore), cap=50),
                                    accepted)


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_two_processes_lose_no_memo_on_a_redis_kv_store_without_a_lock_across_processes(
        redis_kvstore: Any, redis_kv_uri: str, tmp_path: Path, run: int) -> None:
    accepted = race(unlocked(_REDIS_STORE.format(uri=redis_kv_uri)), tmp_path, cap=1000,
                    writes=UNLOCKED_WRITES)

    assert_every_memo_kept(shared_memos(LlamaIndexKVStore(redis_kvstore), cap=1000),
                           accepted, writes=UNLOCKED_WRITES)


def test_a_redis_kv_lock_held_elsewhere_times_out_then_frees_when_its_lease_runs_out(
        redis_kvstore: Any, redis_kv_uri: str, caplog: pytest.LogCaptureFixture) -> None:
    import redis

    ns = Namespace(project="p", session="shared", kind="notes")
    store = LlamaIndexKVStore(redis_kvstore, lock_timeout_s=0.3)
    holder = redis.Redis.from_url(redis_kv_uri)  # another worker, killed while holding it
    assert holder.lock(redis_lock_key("ctxmgr", ns), timeout=0.8).acquire(blocking=False)

    assert_a_holder_elsewhere_blocks_until_it_goes(store, ns, lambda: time.sleep(0.9))
    assert not [r for r in caplog.records if "cannot lock" in r.getMessage()]
    holder.close()
