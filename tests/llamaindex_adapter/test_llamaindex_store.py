"""LlamaIndexKVStore: ctxmgr's Store contract on LlamaIndex key-value stores
(SimpleKVStore in memory, PostgresKVStore on a real PostgreSQL, RedisKVStore on Debian's
redis-server), sync and async."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from llama_index.core.storage.kvstore import SimpleKVStore
from llama_index.core.storage.kvstore.types import BaseKVStore
from store_conformance import NS, StoreConformance

from ctxmgr import AutoContextConfig, AutoContextMemory, ConfigError, MemoStore, Store
from ctxmgr.autocontext import OffloadStore
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.errors import StoreError
from ctxmgr.messages import message_to_dict
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.store import Namespace
from ctxmgr_llamaindex import LlamaIndexKVStore


@pytest.fixture(params=["simple", "postgres", "redis"])
def kvstore(request: pytest.FixtureRequest) -> BaseKVStore:
    if request.param == "simple":
        return SimpleKVStore()
    kv: BaseKVStore = request.getfixturevalue(f"{request.param}_kvstore")
    return kv


@pytest.fixture
def store(kvstore: BaseKVStore) -> Store:
    return LlamaIndexKVStore(kvstore)


class TestLlamaIndexKVStoreConformance(StoreConformance):
    """The core's Store suite (tests/store_conformance.py) on SimpleKVStore, Postgres and
    Redis."""


def test_a_namespace_is_one_collection_and_text_stays_readable(kvstore: BaseKVStore) -> None:
    store = LlamaIndexKVStore(kvstore, prefix="app1")
    ns = Namespace(project="-home-me-v1.2", session="thread.7", kind="notes")
    store.put(ns, "plan.md", "# plan ✓".encode())
    assert kvstore.get("plan.md", collection="app1/-home-me-v1.2/notes/thread.7") == {
        "encoding": "utf-8", "data": "# plan ✓"}
    store.put(ns, "bin", b"\xff\x00\x01")
    assert kvstore.get("bin", collection=store.collection(ns)) == {
        "encoding": "base64", "data": "/wAB"}


def test_prefixes_keep_two_applications_apart(kvstore: BaseKVStore) -> None:
    one, two = LlamaIndexKVStore(kvstore, prefix="one"), LlamaIndexKVStore(kvstore, prefix="two")
    one.put(NS, "k", b"mine")
    assert two.get(NS, "k") is None and two.keys(NS) == []


def test_async_twins_match_the_sync_methods(kvstore: BaseKVStore) -> None:
    store = LlamaIndexKVStore(kvstore)

    async def run() -> tuple[bytes | None, list[str], bool, bool, bytes | None]:
        await store.aput(NS, "a", b"alpha")
        await store.aput(NS, "b", "béta".encode())
        got = await store.aget(NS, "b")
        keys = await store.akeys(NS)
        gone = await store.adelete(NS, "a")
        again = await store.adelete(NS, "a")
        return got, keys, gone, again, await store.aget(NS, "a")

    got, keys, gone, again, missing = asyncio.run(run())
    assert (got, keys, gone, again, missing) == ("béta".encode(), ["a", "b"], True, False, None)
    assert store.get(NS, "b") == "béta".encode()


def test_a_foreign_value_in_the_collection_is_reported_not_returned(
        kvstore: BaseKVStore) -> None:
    store = LlamaIndexKVStore(kvstore)
    kvstore.put("k", {"something": "else"}, collection=store.collection(NS))
    with pytest.raises(StoreError, match="not a ctxmgr blob"):
        store.get(NS, "k")


def test_foreign_keys_in_the_collection_are_not_listed(kvstore: BaseKVStore) -> None:
    store = LlamaIndexKVStore(kvstore)
    kvstore.put("not a ctxmgr key", {"encoding": "utf-8", "data": "x"},
                collection=store.collection(NS))
    store.put(NS, "ok", b"x")
    assert store.keys(NS) == ["ok"]


def test_a_database_failure_is_a_store_error_naming_the_collection(
        postgres_kv_database: str) -> None:
    from llama_index.storage.kvstore.postgres import PostgresKVStore
    from postgres_db import sqlalchemy_urls

    sync_url, async_url = sqlalchemy_urls(postgres_kv_database)
    wrong = PostgresKVStore(table_name="never_set_up", connection_string=sync_url,
                            async_connection_string=async_url, perform_setup=False)
    with pytest.raises(StoreError, match=r"cannot read PostgresKVStore ctxmgr/-work-main/"
                                         r"offload/s1/k: \(psycopg2.errors.UndefinedTable\)"):
        LlamaIndexKVStore(wrong).get(NS, "k")
    wrong._engine.dispose()  # type: ignore[union-attr]


@pytest.mark.parametrize("prefix", ["", "a/b", 5])
def test_a_bad_prefix_is_refused(prefix: object) -> None:
    with pytest.raises(ConfigError, match="prefix must be"):
        LlamaIndexKVStore(SimpleKVStore(), prefix=prefix)  # type: ignore[arg-type]


def test_only_key_value_stores_are_accepted() -> None:
    with pytest.raises(TypeError, match="BaseKVStore"):
        LlamaIndexKVStore({})  # type: ignore[arg-type]


def test_offloads_and_memos_live_in_the_key_value_store(
        kvstore: BaseKVStore, swe_trajectories: list[Trajectory]) -> None:
    store = LlamaIndexKVStore(kvstore)
    memory = AutoContextMemory(AutoContextConfig(max_tokens=16_000), store=store,
                               session="run-1")
    run = swe_trajectories[0]
    for m in run.messages:
        memory.add(m)
        memory.compress_if_needed()
    offload = OffloadStore(store, project=memory.offload.namespace.project, session="run-1")
    ids = offload.ids()
    assert ids
    originals = {m.id: m for m in run.messages}
    for oid in ids:
        for m in offload.load(oid):
            if m.id in originals and CompressedMarker.of(m) is None:  # not a nested stand-in
                assert json.dumps(message_to_dict(m)) == json.dumps(
                    message_to_dict(originals[m.id]))
    memos = MemoStore(store, session="run-1", project="p")
    assert "saved" in memos.handle_memo_call(
        {"action": "write", "key": "plan", "summary": "the plan", "content": "1. fix"})
    assert MemoStore(LlamaIndexKVStore(kvstore), session="run-1",
                     project="p").read("plan") == "1. fix"


class _UnlockableKVStore(BaseKVStore):
    """A key-value store ctxmgr has no lock across processes for (as on Redis or MongoDB)."""

    def __init__(self) -> None:
        self._inner = SimpleKVStore()

    def put(self, key: str, val: dict[str, Any], collection: str = "data") -> None:
        self._inner.put(key, val, collection)

    async def aput(self, key: str, val: dict[str, Any], collection: str = "data") -> None:
        self._inner.put(key, val, collection)

    def get(self, key: str, collection: str = "data") -> dict[str, Any] | None:
        return self._inner.get(key, collection)

    async def aget(self, key: str, collection: str = "data") -> dict[str, Any] | None:
        return self._inner.get(key, collection)

    def get_all(self, collection: str = "data") -> dict[str, dict[str, Any]]:
        return self._inner.get_all(collection)

    async def aget_all(self, collection: str = "data") -> dict[str, dict[str, Any]]:
        return self._inner.get_all(collection)

    def delete(self, key: str, collection: str = "data") -> bool:
        return self._inner.delete(key, collection)

    async def adelete(self, key: str, collection: str = "data") -> bool:
        return self._inner.delete(key, collection)


def test_a_kv_store_it_cannot_lock_across_processes_warns_once_what_memo_writers_keep(
        caplog: pytest.LogCaptureFixture) -> None:
    memos = MemoStore(LlamaIndexKVStore(_UnlockableKVStore()), project="p", session="s")

    memos.write("a", "content a", "summary a")
    memos.write("b", "content b", "summary b")

    (warning,) = [r.getMessage() for r in caplog.records if "cannot lock" in r.getMessage()]
    assert "cannot lock a _UnlockableKVStore across processes" in warning
    assert "lose no memo and no summary" in warning and "may both be refused" in warning
    assert [(e.key, e.summary) for e in memos.list_memos()] == [("b", "summary b"),
                                                                ("a", "summary a")]
