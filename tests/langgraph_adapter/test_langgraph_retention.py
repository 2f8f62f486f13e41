"""Offloads and memos follow the thread's life: delete_thread, the store's TTL, and a
history kept in memory (InMemorySaver, or no checkpointer) keeps its offloads in memory."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.memory import InMemoryStore as GraphStore
from langgraph.store.postgres import PostgresStore
from test_context_tools import call, offload_ids, read_file, run

from ctxmgr import AutoContextConfig, ConfigError
from ctxmgr.store import Namespace
from ctxmgr_langgraph import ContextMiddleware, LangGraphStore
from ctxmgr_langgraph.store import ephemeral_store
from ctxmgr_langgraph.testing import ScriptedChatModel


def _agent(answers: list[Any], *, store: Any = None, checkpointer: Any = None,
           **options: Any) -> tuple[Any, ScriptedChatModel, ContextMiddleware]:
    model = ScriptedChatModel(messages=iter(answers))
    middleware = ContextMiddleware(AutoContextConfig(max_tokens=12_000, project="proj",
                                                     reserve_output_tokens=500, memo=True),
                                                     **options)
    graph = create_agent(model, [read_file], system_prompt="You are a coding agent.",
                         middleware=[middleware], store=store,
                         checkpointer=checkpointer if checkpointer is not None
                         else InMemorySaver())
    return graph, model, middleware


def _work(thread: str) -> list[Any]:
    """Answers for one thread: a memo, then reads that get compressed (offloads)."""
    memo = call("memo", {"action": "write", "key": "plan", "summary": f"plan of {thread}",
                         "content": f"the plan of {thread}"}, f"{thread}-m", 0)
    reads = [call("read_file", {"path": "big.py"}, f"{thread}-c{n}", n + 1) for n in range(4)]
    return [memo, *reads, "done"]


def _blobs(store: LangGraphStore, thread: str) -> dict[str, int]:
    return {kind: len(store.keys(Namespace(project="proj", session=thread, kind=kind)))
            for kind in ("offload", "notes")}


def test_delete_thread_removes_that_threads_offloads_and_memos_only() -> None:
    base = GraphStore()
    graph, model, middleware = _agent([*_work("a"), *_work("b")], store=base)
    run(graph, thread="a")
    run(graph, thread="b")
    store = LangGraphStore(base)
    before = _blobs(store, "a")
    assert before["offload"] > 0 and before["notes"] == 2, before

    removed = middleware.delete_thread("a", store=base)

    assert removed == sum(before.values())
    assert _blobs(store, "a") == {"offload": 0, "notes": 0}
    assert _blobs(store, "b")["notes"] == 2 and _blobs(store, "b")["offload"] > 0
    assert asyncio.run(middleware.adelete_thread("b", store=base)) > 0
    assert _blobs(store, "b") == {"offload": 0, "notes": 0}


def test_delete_thread_is_refused_when_every_thread_shares_one_session() -> None:
    middleware = ContextMiddleware(session="shared")
    with pytest.raises(ConfigError, match="every thread shares the session 'shared'"):
        middleware.delete_thread("a")


def test_with_in_memory_saver_and_no_store_offloads_stay_in_memory(
        _isolated_home: Path) -> None:
    graph, model, middleware = _agent(_work("t"))
    run(graph, thread="t")

    ids = [i for p in model.received for i in offload_ids(p)]
    assert ids, "the reads were compressed"
    assert not _isolated_home.exists()  # nothing under CTXMGR_HOME
    assert middleware.sessions.processor("t").reload(ids[0])  # reloadable, from memory
    assert middleware.delete_thread("t") > 0
    assert ephemeral_store().keys(Namespace(project="proj", session="t", kind="offload")) == []


def test_with_a_durable_checkpointer_and_no_store_offloads_go_under_ctxmgr_home(
        _isolated_home: Path, tmp_path: Path) -> None:
    with SqliteSaver.from_conn_string(str(tmp_path / "checkpoints.db")) as saver:
        graph, model, middleware = _agent(_work("t"), checkpointer=saver)
        run(graph, thread="t")

    assert list((_isolated_home / "projects" / "proj" / "offload" / "t").glob("*.json"))
    assert middleware.delete_thread("t") > 0
    assert not (_isolated_home / "projects" / "proj" / "offload" / "t").exists()


def test_a_postgres_store_ttl_set_by_the_user_applies_to_offloads_and_memos(
        postgres_uri: str) -> None:
    with PostgresStore.from_conn_string(postgres_uri, ttl={"default_ttl": 60}) as base:
        graph, _, _ = _agent(_work("t"), store=base)
        run(graph, thread="t")
    with psycopg.connect(postgres_uri) as conn:
        rows = conn.execute("SELECT count(*), count(expires_at) FROM store "
                            "WHERE prefix LIKE 'ctxmgr.proj.%'").fetchone()

    assert rows is not None and rows[0] > 2 and rows[0] == rows[1]
