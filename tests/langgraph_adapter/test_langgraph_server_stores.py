"""The two deployment recipes of docs/guides/deploy.md, served: the example app on
``langgraph dev`` with its store on PostgreSQL (``postgres.py``, checkpoints there too) and
on Redis (``redis_store.py``: a Valkey with RedisJSON and RediSearch).

Threads run at once; their offloads and memos land in that database, where another
process reads them; ``context_search`` answers from it inside the server; deleting a
thread removes its items and no other thread's.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import BaseStore
from langgraph_sdk import get_client
from langgraph_server import EXAMPLE_APP, serve
from postgres_db import create_database, drop_database

from ctxmgr import MemoStore
from ctxmgr.autocontext import OffloadStore
from ctxmgr_langgraph import LangGraphStore

APP = json.loads((EXAMPLE_APP / "langgraph.json").read_text())
PROJECT = "build-log-agent"  # the example's
THREAD_MARK = re.compile(r"\[([0-9a-f-]{36})\]")


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else json.dumps(content)


def ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


@contextmanager
def recipe(name: str, request: pytest.FixtureRequest) -> Iterator[tuple[dict[str, Any],
                                                                        dict[str, str],
                                                                        BaseStore]]:
    """The recipe's langgraph.json, its environment, and the same database opened here."""
    with ExitStack() as stack:
        if name == "postgres":
            from langgraph.store.postgres import PostgresStore

            admin = request.getfixturevalue("postgres_admin_uri")
            dbname = f"ctxmgr_recipe_{uuid.uuid4().hex[:8]}"
            uri = create_database(admin, dbname)
            stack.callback(drop_database, admin, dbname)
            config = {**APP, "checkpointer": {"path": "./postgres.py:checkpointer"},
                      "store": {"path": "./postgres.py:store"}}
            env = {"POSTGRES_URI": uri}
            base: BaseStore = stack.enter_context(PostgresStore.from_conn_string(uri))
        else:
            from langgraph.store.redis import RedisStore

            uri = request.getfixturevalue("valkey_uri")
            config = {**APP, "store": {"path": "./redis_store.py:store"}}
            env = {"REDIS_URL": uri}
            base = stack.enter_context(RedisStore.from_conn_string(uri))
        yield config, {**env, "CTXMGR_MEMO": "true"}, base


@pytest.mark.parametrize("backend", ["postgres", "redis"])
def test_a_deployment_recipe_keeps_each_threads_offloads_and_memos_in_its_database(
        backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    with recipe(backend, request) as (config, env, base), \
            serve(tmp_path, config=config, env=env) as server:

        async def main() -> list[str]:
            client = get_client(url=server.url, timeout=300)
            threads = [(await client.threads.create())["thread_id"] for _ in range(4)]
            results = await asyncio.gather(*(
                client.runs.wait(t, "agent", input=ask("read the build log, 12 parts, "
                                                       "keep notes")) for t in threads))
            assert all(text_of(r["messages"][-1]) == "Read all 12 parts of the build log."
                       for r in results)
            found = await client.runs.wait(threads[0], "agent", input=ask("search mod_3_4"))
            assert f"{threads[0]}] step 3.4: compiled mod_3_4 " in text_of(
                found["messages"][-1])
            await client.threads.delete(threads[1])
            return threads

        threads = asyncio.run(main())
        store = LangGraphStore(base)  # what any other process of the deployment reads
        for thread_id in threads:
            offloads = OffloadStore(store, project=PROJECT, session=thread_id)
            memos = MemoStore(store, project=PROJECT, session=thread_id)
            if thread_id == threads[1]:  # deleted with its thread
                assert offloads.ids() == [] and memos.list_memos() == []
                continue
            assert offloads.ids()
            stored = "\n".join(text for i in offloads.ids() for m in offloads.load(i)
                               for text in (m.text, *(r.text for r in m.tool_results)))
            assert set(THREAD_MARK.findall(stored)) == {thread_id}  # its own, no other's
            assert {m.key for m in memos.list_memos()} == {"part-5", "part-10"}
            assert memos.read("part-5") is not None
            assert f"[{thread_id}] step 5.0:" in (memos.read("part-5") or "")
