"""LangGraphStore: ctxmgr's Store contract on every LangGraph store, sync and async."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from doc_pages import blocks_with, run_block
from hypothesis import given
from hypothesis import strategies as st
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore as LangGraphInMemoryStore
from langgraph.store.postgres import PostgresStore
from langgraph.store.sqlite.aio import AsyncSqliteStore
from langgraph_stores import Backend, create_database, drop_database
from store_conformance import NS, StoreConformance

import ctxmgr_langgraph
import ctxmgr_langgraph.store as store_module
from ctxmgr import (
    AutoContextConfig,
    AutoContextMemory,
    ConfigError,
    FileStore,
    InMemoryStore,
    MemoStore,
    Message,
    Store,
)
from ctxmgr.autocontext import OffloadStore
from ctxmgr.errors import StoreError
from ctxmgr.messages import message_to_dict
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.store import Namespace
from ctxmgr_langgraph import DEFAULT_PREFIX, LangGraphStore, resolve_store
from ctxmgr_langgraph.store import ephemeral_store

ASYNC_ONLY = ("async-sqlite", "async-postgres")


@pytest.fixture
def store(backend: Backend) -> Store:
    return LangGraphStore(backend.base)


class TestLangGraphStoreConformance(StoreConformance):
    """The core's Store suite (tests/store_conformance.py) over all six LangGraph stores
    (RedisStore on a Valkey with RedisJSON and RediSearch).

    The async-only stores live on their own loop in a thread (as in an application
    whose graph runs on a loop) and are called here from the test's thread.
    """

    def test_labels_and_keys_of_200_characters_are_accepted(self, store: Store) -> None:
        if "RedisStore" not in repr(store):
            super().test_labels_and_keys_of_200_characters_are_accepted(store)
            return
        # RedisStore finds no item under a namespace over 125 characters: refused, not lost
        long = Namespace(project="p" * 200, session="s" * 200, kind="k" * 200)
        with pytest.raises(StoreError, match="longer than 125 characters.*shorter project"):
            store.put(long, "x" * 200, b"long")
        fits = Namespace(project="p" * 60, session="s" * 36, kind="offload")
        store.put(fits, "x" * 200, b"long")
        assert store.get(fits, "x" * 200) == b"long"


# --- layout in the LangGraph store ------------------------------------------------


def test_blobs_live_under_prefix_project_kind_session_with_dots_as_tildes(
        backend: Backend) -> None:
    store = LangGraphStore(backend.base)
    ns = Namespace(project="-home-me-v1.2", session="thread.7", kind="notes")
    store.put(ns, "plan.md", "# plan ✓".encode())
    item = backend.base.get(("ctxmgr", "-home-me-v1~2", "notes", "thread~7"), "plan.md")
    assert item is not None
    assert item.value == {"encoding": "utf-8", "data": "# plan ✓"}
    assert store.namespace_of(item.namespace) == ns


def test_bytes_that_are_not_utf8_text_are_stored_as_base64(backend: Backend) -> None:
    store = LangGraphStore(backend.base)
    store.put(NS, "bin", b"\xff\x00\x01")
    store.put(NS, "nul", b"text with \x00 NUL")
    path = store.path(NS)
    assert backend.base.get(path, "bin").value == {"encoding": "base64",
                                                   "data": "/wAB"}  # type: ignore[union-attr]
    assert backend.base.get(path, "nul").value["encoding"] == "base64"  # type: ignore[union-attr]
    assert store.get(NS, "nul") == b"text with \x00 NUL"


def test_namespaces_reads_every_ctxmgr_namespace_back(backend: Backend) -> None:
    store = LangGraphStore(backend.base)
    wanted = [Namespace(project="p.1", session="t.a", kind="offload"),
              Namespace(project="p.1", session="t-b", kind="notes"),
              Namespace(project="p2", session="t.a", kind="offload")]
    for ns in wanted:
        store.put(ns, "k", b"x")
    backend.base.put(("ctxmgr", "not", "ours"), "k", {"x": 1})
    backend.base.put(("app", "memories"), "k", {"x": 1})
    assert store.namespaces() == sorted(wanted, key=lambda n: (n.project, n.kind, n.session))
    assert store.namespaces(project="p.1") == wanted[:2][::-1]


def test_keys_skip_deeper_namespaces_and_foreign_keys(backend: Backend) -> None:
    store = LangGraphStore(backend.base)
    store.put(NS, "k", b"x")
    path = store.path(NS)
    backend.base.put((*path, "deeper"), "d", {"encoding": "utf-8", "data": "x"})
    backend.base.put(path, "has space", {"encoding": "utf-8", "data": "x"})
    sibling = Namespace(project=NS.project, session=NS.session + "x", kind=NS.kind)
    store.put(sibling, "s", b"x")
    assert store.keys(NS) == ["k"]


def test_keys_beyond_one_reply_are_all_listed(backend: Backend,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "_PAGE", 4)  # the first reply is full: ask for more
    store = LangGraphStore(backend.base)
    for i in range(13):
        store.put(NS, f"k{i:02d}", b"x")
    assert store.keys(NS) == [f"k{i:02d}" for i in range(13)]
    assert backend.run(store.akeys(NS)) == store.keys(NS)


def test_a_foreign_value_under_a_ctxmgr_key_raises_store_error_naming_it(
        backend: Backend) -> None:
    store = LangGraphStore(backend.base)
    backend.base.put(store.path(NS), "k", {"theme": "dark"})
    with pytest.raises(StoreError, match=r"ctxmgr/-work-main/offload/s1/k holds .*theme"):
        store.get(NS, "k")
    assert store.delete(NS, "k") is True


def test_two_prefixes_share_one_store_without_seeing_each_other(backend: Backend) -> None:
    app_a = LangGraphStore(backend.base, prefix=("app-a", "ctxmgr"))
    app_b = LangGraphStore(backend.base, prefix="app-b")
    app_a.put(NS, "k", b"a")
    app_b.put(NS, "k", b"b")
    assert (app_a.get(NS, "k"), app_b.get(NS, "k")) == (b"a", b"b")
    assert app_a.namespaces() == app_b.namespaces() == [NS]
    assert LangGraphStore(backend.base).keys(NS) == []


@pytest.mark.parametrize("prefix", [(), ("langgraph",), ("a.b",), ("",), ("ok", 5)])
def test_invalid_prefix_raises_config_error(prefix: tuple[object, ...]) -> None:
    with pytest.raises(ConfigError, match="prefix must be"):
        LangGraphStore(LangGraphInMemoryStore(), prefix=prefix)  # type: ignore[arg-type]


def test_wrapping_something_that_is_not_a_langgraph_store_raises_type_error() -> None:
    with pytest.raises(TypeError, match="LangGraph BaseStore, got InMemoryStore"):
        LangGraphStore(InMemoryStore())  # type: ignore[arg-type]


_LABEL = st.from_regex(r"[A-Za-z0-9._-]{1,30}", fullmatch=True).filter(
    lambda s: s not in (".", ".."))


@given(project=_LABEL, session=_LABEL, kind=_LABEL)
def test_the_label_mapping_is_one_to_one_and_never_holds_a_dot(
        project: str, session: str, kind: str) -> None:
    store = LangGraphStore(LangGraphInMemoryStore())
    ns = Namespace(project=project, session=session, kind=kind)
    path = store.path(ns)
    assert not any("." in label for label in path)
    assert store.namespace_of(path) == ns


# --- async twins -------------------------------------------------------------------


def test_async_twins_behave_like_the_sync_methods(backend: Backend) -> None:
    store = LangGraphStore(backend.base)

    async def scenario() -> None:
        await store.aput(NS, "a", bytes(range(256)))
        await store.aput(NS, "b.md", "ünïcødé".encode())
        assert await store.aget(NS, "a") == bytes(range(256))
        assert await store.aget(NS, "missing") is None
        assert await store.akeys(NS) == ["a", "b.md"]
        assert await store.adelete(NS, "a") is True
        assert await store.adelete(NS, "a") is False
        with pytest.raises(ConfigError, match="store keys must be"):
            await store.aget(NS, "../x")
        with pytest.raises(TypeError):
            await store.aput(NS, "k", "text")  # type: ignore[arg-type]

    backend.run(scenario())
    assert store.get(NS, "b.md") == "ünïcødé".encode()  # what the twins wrote, read sync
    assert store.keys(NS) == ["b.md"]


@pytest.mark.parametrize("backend", ASYNC_ONLY, indirect=True)
def test_sync_call_inside_the_stores_own_loop_raises_store_error_naming_the_fix(
        backend: Backend) -> None:
    store = LangGraphStore(backend.base)

    async def inside_the_loop() -> bytes | None:
        with pytest.raises(StoreError, match=r"await the async method .*asyncio\.to_thread"):
            store.put(NS, "k", b"x")
        # the documented way out: the same sync code in a worker thread
        await asyncio.to_thread(store.put, NS, "k", b"from a thread")
        return await asyncio.to_thread(store.get, NS, "k")

    assert backend.run(inside_the_loop()) == b"from a thread"


@pytest.mark.parametrize("backend", ASYNC_ONLY, indirect=True)
def test_async_twins_work_from_another_event_loop(backend: Backend) -> None:
    store = LangGraphStore(backend.base)
    asyncio.run(store.aput(NS, "k", b"from another loop"))
    assert asyncio.run(store.aget(NS, "k")) == b"from another loop"
    assert store.get(NS, "k") == b"from another loop"


def test_sync_call_on_an_async_store_whose_loop_is_gone_raises_instead_of_hanging(
        tmp_path: Path) -> None:
    async def make() -> AsyncSqliteStore:
        async with AsyncSqliteStore.from_conn_string(str(tmp_path / "s.db")) as base:
            await base.setup()
            return base

    store = LangGraphStore(asyncio.run(make()))
    with pytest.raises(StoreError, match="event loop it was created on is not running"):
        store.get(NS, "k")


def test_offloads_and_memos_of_an_async_store_work_from_sync_code_in_a_thread(
        tmp_path: Path, swe_trajectories: list[Trajectory]) -> None:
    messages = swe_trajectories[0].messages[:12]

    async def app() -> tuple[str, list[dict[str, object]], str | None]:
        async with AsyncSqliteStore.from_conn_string(str(tmp_path / "s.db")) as base:
            await base.setup()
            store = LangGraphStore(base)
            offloads = OffloadStore(store, project="p", session="thread-1")
            memos = MemoStore(store, project="p", session="thread-1")
            offload_id = await asyncio.to_thread(offloads.save, messages)
            await asyncio.to_thread(memos.write, "plan", "step 1", "the plan")
            loaded = await asyncio.to_thread(offloads.load, offload_id)
            return (offload_id, [message_to_dict(m) for m in loaded],
                    await asyncio.to_thread(memos.read, "plan"))

    offload_id, loaded, memo = asyncio.run(app())
    assert loaded == [message_to_dict(m) for m in messages]
    assert memo == "step 1"


@pytest.mark.parametrize("backend", ASYNC_ONLY, indirect=True)
def test_autocontext_memory_on_an_async_store_compresses_from_a_thread_inside_its_loop(
        backend: Backend, swe_trajectories: list[Trajectory]) -> None:
    run = max(swe_trajectories, key=lambda t: len(t.messages))
    memory = AutoContextMemory(AutoContextConfig(max_tokens=16_000),
                               store=LangGraphStore(backend.base), session="thread-1")
    memory.add(run.messages)

    async def in_the_graphs_loop() -> list[list[Message]]:
        events = await asyncio.to_thread(memory.compress_if_needed)
        assert events
        return [await asyncio.to_thread(memory.reload, e.offload_id) for e in events]

    originals = backend.run(in_the_graphs_loop())
    by_id = {m.id: m for m in run.messages}
    assert all(m == by_id[m.id] for batch in originals for m in batch)


# --- ctxmgr's own stores on every backend --------------------------------------------


def test_offloads_reload_byte_for_byte_and_memos_round_trip(
        backend: Backend, swe_trajectories: list[Trajectory]) -> None:
    store = LangGraphStore(backend.base)
    offloads = OffloadStore(store, project="-work-main", session="thread-1")
    memos = MemoStore(store, project="-work-main", session="thread-1")
    run = swe_trajectories[0].messages
    ids = [offloads.save(run[i:i + 10]) for i in range(0, 40, 10)]
    for n, offload_id in enumerate(ids):
        assert json.dumps([message_to_dict(m) for m in offloads.load(offload_id)]) == \
            json.dumps([message_to_dict(m) for m in run[n * 10:n * 10 + 10]])
    assert offloads.ids() == sorted(ids)
    assert store.batches_writes and all(offloads.load_index(i) for i in ids)  # in one batch
    memos.write("plan", "# Plan\n1. reproduce ✓\n", "the fix plan")
    memos.write("notes.v2", "second", "more")
    assert [m.key for m in memos.list_memos()] == ["notes.v2", "plan"]
    assert memos.read("plan") == "# Plan\n1. reproduce ✓\n"
    assert memos.delete("plan") is True
    assert store.keys(memos.namespace) == ["notes.v2.entry.json", "notes.v2.md"]


# --- errors from the database ----------------------------------------------------------


def test_postgres_store_not_set_up_gives_a_store_error_saying_to_call_setup(
        postgres_admin_uri: str) -> None:
    dbname = f"ctxmgr_nosetup_{uuid.uuid4().hex[:8]}"
    uri = create_database(postgres_admin_uri, dbname)
    try:
        with (PostgresStore.from_conn_string(uri) as base,
              pytest.raises(StoreError, match=r"cannot write .*store\.setup\(\)")):
            LangGraphStore(base).put(NS, "k", b"x")
    finally:
        drop_database(postgres_admin_uri, dbname)


def test_a_database_error_becomes_a_store_error_naming_the_namespace(postgres_uri: str) -> None:
    with PostgresStore.from_conn_string(postgres_uri) as base:
        store = LangGraphStore(base)
        store.put(NS, "k", b"x")
    with pytest.raises(StoreError, match=r"cannot read PostgresStore ctxmgr/-work-main/"
                                         r"offload/s1/k: .*closed") as info:
        store.get(NS, "k")
    assert isinstance(info.value.__cause__, Exception)


# --- resolve_store -----------------------------------------------------------------------


def test_resolve_store_wraps_the_graph_store_and_passes_ctxmgr_stores_through() -> None:
    base = LangGraphInMemoryStore()
    resolved = resolve_store(base, prefix=("mine",))
    assert isinstance(resolved, LangGraphStore)
    assert resolved.base_store is base and resolved.prefix == ("mine",)
    own = InMemoryStore()
    assert resolve_store(own) is own
    assert resolve_store(None, own) is own


def test_resolve_store_without_a_graph_store_is_a_file_store_under_ctxmgr_home(
        _isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fallback = resolve_store(None)
    assert isinstance(fallback, FileStore) and fallback.root == _isolated_home
    monkeypatch.delenv("CTXMGR_HOME")
    Path(".env").write_text(f"CTXMGR_HOME={tmp_path / 'from-dotenv'}\n")
    from_dotenv = resolve_store(None)
    assert isinstance(from_dotenv, FileStore) and from_dotenv.root == tmp_path / "from-dotenv"


def _offloading_graph(**compile_kwargs: object):  # type: ignore[no-untyped-def]
    """A real StateGraph whose node offloads its messages where resolve_store says."""

    def node(state: MessagesState, runtime: Runtime[None]) -> dict[str, object]:
        offloads = OffloadStore(resolve_store(runtime.store), project="p", session="thread-9")
        offloads.save([], offload_id="0" * 32)
        return {}

    graph = StateGraph(MessagesState)
    graph.add_node("offload", node)
    graph.add_edge(START, "offload")
    graph.add_edge("offload", END)
    return graph.compile(**compile_kwargs)  # type: ignore[arg-type]


def test_a_graph_with_a_store_gets_its_offloads_in_that_store(_isolated_home: Path) -> None:
    base = LangGraphInMemoryStore()
    _offloading_graph(store=base).invoke({"messages": []})
    assert base.get((*DEFAULT_PREFIX, "p", "offload", "thread-9"), "0" * 32 + ".json")
    assert not _isolated_home.exists()


def test_a_graph_without_a_store_but_a_durable_checkpointer_offloads_under_ctxmgr_home(
        _isolated_home: Path, tmp_path: Path) -> None:
    with SqliteSaver.from_conn_string(str(tmp_path / "checkpoints.db")) as saver:
        _offloading_graph(checkpointer=saver).invoke(
            {"messages": []}, {"configurable": {"thread_id": "thread-9"}})
    assert (_isolated_home / "projects" / "p" / "offload" / "thread-9" / ("0" * 32 + ".json")
            ).is_file()


def test_a_graph_without_a_store_or_a_durable_checkpointer_offloads_in_memory(
        _isolated_home: Path) -> None:
    _offloading_graph().invoke({"messages": []})
    assert ephemeral_store().get(Namespace(project="p", session="thread-9", kind="offload"),
                                 "0" * 32 + ".json") is not None
    assert not _isolated_home.exists()


def test_the_guides_example_shares_offloads_and_memos_through_postgres(
        postgres_uri: str, monkeypatch: pytest.MonkeyPatch) -> None:
    [example] = blocks_with("LangGraphStore(pg)")  # the stores guide's
    monkeypatch.setenv("DATABASE_URL", postgres_uri)
    scope = run_block(example)
    messages = scope["messages"]
    assert isinstance(messages, list)
    with PostgresStore.from_conn_string(postgres_uri) as pg:  # another worker
        store = LangGraphStore(pg)
        offloads = OffloadStore(store, project="-srv-app", session="thread-1")
        assert [message_to_dict(m) for m in offloads.load(scope["offload_id"])] == \
            [message_to_dict(m) for m in messages[:10]]
        assert MemoStore(store, project="-srv-app", session="thread-1").read("plan")


def test_the_package_exports_the_store_names() -> None:
    assert ctxmgr_langgraph.__all__ == sorted(ctxmgr_langgraph.__all__)
    assert {"LangGraphStore", "resolve_store"} <= set(ctxmgr_langgraph.__all__)


class _UnlockableStore(BaseStore):
    """A BaseStore ctxmgr has no lock across processes for (as on Redis or MongoDB)."""

    def __init__(self) -> None:
        self._inner = LangGraphInMemoryStore()

    def batch(self, ops: Any) -> Any:
        return self._inner.batch(ops)

    async def abatch(self, ops: Any) -> Any:
        return await self._inner.abatch(ops)


def test_a_store_it_cannot_lock_across_processes_warns_once_what_memo_writers_keep(
        caplog: pytest.LogCaptureFixture) -> None:
    memos = MemoStore(LangGraphStore(_UnlockableStore()), project="p", session="s")

    memos.write("a", "content a", "summary a")
    memos.write("b", "content b", "summary b")

    (warning,) = [r.getMessage() for r in caplog.records if "cannot lock" in r.getMessage()]
    assert "cannot lock a _UnlockableStore across processes" in warning
    assert "lose no memo and no summary" in warning and "may both be refused" in warning
    assert [(e.key, e.summary) for e in memos.list_memos()] == [("b", "summary b"),
                                                                ("a", "summary a")]


def test_the_memo_index_is_read_in_one_batch_on_a_langgraph_store() -> None:
    """On a remote store each read is a round trip: listing 20 memos reads their 20
    entries in one ``batch`` call, not twenty."""
    from langgraph.store.memory import InMemoryStore as GraphStore

    class Counting(GraphStore):
        gets: list[int] = []

        def batch(self, ops: Any) -> Any:
            ops = list(ops)
            Counting.gets.append(sum(type(op).__name__ == "GetOp" for op in ops))
            return super().batch(ops)

    memos = MemoStore(LangGraphStore(Counting()), session="s", project="p")
    for k in range(20):
        memos.write(f"m{k}", f"content {k}", f"summary {k}")
    Counting.gets.clear()

    listed = memos.list_memos()

    assert [m.summary for m in listed] == [f"summary {k}" for k in reversed(range(20))]
    assert 20 in Counting.gets and sum(Counting.gets) == 20  # one batch of the 20 entries
