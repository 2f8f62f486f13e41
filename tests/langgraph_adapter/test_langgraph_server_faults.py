"""The LangGraph server under load when things break: a worker killed with SIGKILL, and a
store that refuses or stalls writes for a while.

The server is ``langgraph dev`` serving the example app (``examples/langgraph_server``),
driven with langgraph-sdk, as in ``test_langgraph_server.py``. For the kill, checkpoints
and the store are in PostgreSQL (``examples/langgraph_server/postgres.py``, named in
``langgraph.json``), so they outlive the process; a new server on the same database takes
the threads over. For the store faults, the server's store is
``tests/faulty_server_store.py``: an in-memory store whose writes under ctxmgr's prefix
fail (or hang) from one write count to another.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph.store.postgres import PostgresStore
from langgraph_sdk import get_client
from langgraph_server import EXAMPLE_APP, LangGraphServer, serve
from postgres_db import create_database, drop_database

from ctxmgr import AutoContextConfig, MemoStore
from ctxmgr.autocontext import OffloadStore
from ctxmgr_langgraph import LangGraphStore

TAG = re.compile(r"CONTEXT_OFFLOAD: uuid=([0-9a-f]+)")
THREAD_MARK = re.compile(r"\[([0-9a-f-]{36})\]")
FAULTY_STORE = Path(__file__).resolve().parents[1] / "faulty_server_store.py"
APP = json.loads((EXAMPLE_APP / "langgraph.json").read_text())


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content or [])


def ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


@pytest.fixture
def database(postgres_admin_uri: str) -> Iterator[str]:
    """A database of its own for one server's checkpoints and store."""
    name = f"ctxmgr_server_{uuid.uuid4().hex[:8]}"
    uri = create_database(postgres_admin_uri, name)
    yield uri
    drop_database(postgres_admin_uri, name)


def stored_keys(uri: str) -> dict[str, set[tuple[str, str]]]:
    """ctxmgr's items in the database's store, by thread: (kind, key)."""
    found: dict[str, set[tuple[str, str]]] = {}
    with psycopg.connect(uri) as conn:
        rows = conn.execute("SELECT prefix, key FROM store WHERE prefix LIKE 'ctxmgr.%'")
        for prefix, key in rows:
            _, project, kind, thread = prefix.split(".")
            assert project == "build-log-agent"
            found.setdefault(thread, set()).add((kind, key))
    return found


async def wait_for_progress(uri: str, threads: list[str], *, memos: int,
                            timeout_s: float = 60) -> None:
    """Until every thread has written at least ``memos`` memos (so it is well into its run)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while loop.time() < deadline:
        keys = await asyncio.to_thread(stored_keys, uri)
        if all(sum(kind == "notes" and k.endswith(".md") for kind, k in keys.get(t, ()))
               >= memos for t in threads):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the threads did not reach {memos} memos in {timeout_s} s")


def test_a_server_killed_under_load_resumes_every_thread_and_loses_no_offload_or_memo(
        tmp_path: Path, database: str) -> None:
    config = {**APP, "checkpointer": {"path": "./postgres.py:checkpointer"},
              "store": {"path": "./postgres.py:store"}}
    env = {"POSTGRES_URI": database, "CTXMGR_MEMO": "true", "POSTGRES_POOL_SIZE": "4"}
    parts = 30
    request = ask(f"read the build log, {parts} parts, keep notes")

    async def start_load(server: LangGraphServer) -> list[str]:
        client = get_client(url=server.url, timeout=300)
        threads = [(await client.threads.create())["thread_id"] for _ in range(8)]
        for thread_id in threads:
            await client.runs.create(thread_id, "agent", input=request)
        await wait_for_progress(database, threads, memos=2)
        return threads

    with serve(tmp_path / "first", config=config, env=env) as first:
        threads = asyncio.run(start_load(first))
        first.kill()  # kill -9 of the whole server, mid-run
    before = stored_keys(database)

    async def take_over(server: LangGraphServer) -> dict[str, list[dict[str, Any]]]:
        client = get_client(url=server.url, timeout=300)
        finals: dict[str, list[dict[str, Any]]] = {}
        interrupted = 0
        for thread_id in threads:  # the new server finds each thread by its checkpoints
            await client.threads.create(thread_id=thread_id, if_exists="do_nothing",
                                        metadata={"graph_id": "agent"})
            state = await client.threads.get_state(thread_id)
            messages = state["values"]["messages"]
            if not text_of(messages[-1]).startswith("Read all"):
                interrupted += 1
        assert interrupted >= len(threads) // 2, "the kill came after most runs had ended"
        results = await asyncio.gather(*(client.runs.wait(t, "agent", input=None)
                                         for t in threads))
        for thread_id, result in zip(threads, results, strict=True):
            finals[thread_id] = result["messages"]
        return finals

    with serve(tmp_path / "second", config=config, env=env) as second:
        finals = asyncio.run(take_over(second))

    after = stored_keys(database)
    project = "build-log-agent"  # the example's: every worker's offloads in one place
    budget = AutoContextConfig(max_tokens=8_000).budget_tokens
    with PostgresStore.from_conn_string(database) as postgres:
        store = LangGraphStore(postgres)
        for thread_id, messages in finals.items():
            assert text_of(messages[-1]) == f"Read all {parts} parts of the build log.", (
                thread_id, text_of(messages[-1]))
            assert before.get(thread_id, set()) <= after[thread_id], "an item was lost"
            offloads = OffloadStore(store, project=project, session=thread_id)
            tags = set(TAG.findall("\n".join(text_of(m) for m in messages)))
            assert tags
            for offload_id in tags:  # every stand-in of the thread reloads
                assert offloads.load(offload_id)
            memos = MemoStore(store, project=project, session=thread_id)
            keys = {m.key for m in memos.list_memos()}
            assert keys == {f"part-{k}" for k in range(5, parts + 1, 5)}
            for key in keys:
                assert f"[{thread_id}] step {key.removeprefix('part-')}.0:" in memos.read(key)
            usage = [m["usage_metadata"]["input_tokens"] for m in messages
                     if m.get("type") == "ai" and m.get("usage_metadata")]
            assert max(usage) <= budget
            seen = "\n".join(text_of(m) for m in messages)
            assert set(THREAD_MARK.findall(seen)) <= {thread_id}


@pytest.mark.parametrize("fault", ["refuse", "stall"])
def test_a_store_that_refuses_or_stalls_writes_for_a_while_costs_steps_not_runs(
        tmp_path: Path, fault: str) -> None:
    """Refused writes skip the compressions that needed them (each says why, in the run's
    stream) and later ones catch up; stalled writes only slow the runs. Either way every
    run finishes within budget, every stand-in's original is in the store, and no thread
    sees another's data. (A 32,000-token window leaves room to skip a few steps.)"""
    window, parts = 32_000, 40
    config = {**APP, "store": {"path": "./faulty_server_store.py:store"}}
    env = {"MODEL_WINDOW": str(window), "FAULT": fault, "FAULT_FROM": "10",
           "FAULT_UNTIL": "40", "FAULT_STALL_S": "0.3"}
    budget = AutoContextConfig(max_tokens=window).budget_tokens

    async def run_thread(client: Any, thread_id: str) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        async for chunk in client.runs.stream(thread_id, "agent",
                                              input=ask(f"read the build log, {parts} parts"),
                                              stream_mode="events",
                                              config={"recursion_limit": 1_000}):
            data = chunk.data
            if (chunk.event == "events" and data.get("event") == "on_custom_event"
                    and data.get("name") == "ctxmgr.compression"):
                events.append(data["data"])
        return events

    async def main(server: LangGraphServer) -> None:
        client = get_client(url=server.url, timeout=300)
        threads = [(await client.threads.create())["thread_id"] for _ in range(6)]
        streams = await asyncio.gather(*(run_thread(client, t) for t in threads))
        events = [e for stream in streams for e in stream]
        skipped = [e for e in events if e["status"] == "skipped"
                   and "FaultyStore" in (e.get("reason") or "")
                   and "the store refuses writes" in (e.get("reason") or "")]
        assert bool(skipped) == (fault == "refuse"), skipped[:3]
        assert any(e["status"] == "applied" for e in events)
        for thread_id, stream in zip(threads, streams, strict=True):
            assert all(e["session"] == thread_id for e in stream)
            messages = (await client.threads.get_state(thread_id))["values"]["messages"]
            assert text_of(messages[-1]) == f"Read all {parts} parts of the build log."
            usage = [m["usage_metadata"]["input_tokens"] for m in messages
                     if m.get("type") == "ai" and m.get("usage_metadata")]
            assert max(usage) <= budget
            found = await client.store.list_namespaces(prefix=["ctxmgr"], suffix=[thread_id])
            items = [i for n in found["namespaces"]
                     for i in (await client.store.search_items(n, limit=10_000))["items"]]
            kept = {i["key"].removesuffix(".json") for i in items if i["key"].endswith(".json")}
            seen = "\n".join(text_of(m) for m in messages)
            assert set(TAG.findall(seen)) <= kept, "a stand-in's original is missing"
            stored = "\n".join(str(i["value"].get("data", "")) for i in items)
            assert set(THREAD_MARK.findall(seen + stored)) <= {thread_id}

    with serve(tmp_path, config=config, env=env, extra_files=[FAULTY_STORE]) as server:
        asyncio.run(main(server))
