"""A real PostgreSQL and every LangGraph store, for the LangGraph-backed ctxmgr store.

The Postgres tests never skip: ``bash scripts/test.sh`` (and so ``.ci/run``)
starts a throwaway server and exports ``CTXMGR_TEST_POSTGRES_URI``; a bare
``pytest`` without it fails here with the command to run. Each xdist worker
gets its own database, emptied before each test.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import psycopg
import pytest
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.store.postgres import PostgresStore
from langgraph.store.sqlite import SqliteStore
from langgraph_stores import (
    BACKENDS,
    Backend,
    LoopThread,
    create_database,
    drop_database,
    open_async,
)
from postgres_db import admin_uri


@pytest.fixture(scope="session")
def postgres_admin_uri() -> str:
    """The server's URI, from ``CTXMGR_TEST_POSTGRES_URI``; fails loudly without one."""
    return admin_uri()


@pytest.fixture(scope="session")
def postgres_database(postgres_admin_uri: str) -> Iterator[str]:
    """This worker's own database, set up (``PostgresStore.setup()``) once."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    dbname = f"ctxmgr_test_{worker}_{uuid.uuid4().hex[:8]}"
    uri = create_database(postgres_admin_uri, dbname)
    with PostgresStore.from_conn_string(uri) as store:
        store.setup()
    yield uri
    drop_database(postgres_admin_uri, dbname)


@pytest.fixture
def postgres_uri(postgres_database: str) -> str:
    """The worker's database with the store table emptied: each test starts clean."""
    with psycopg.connect(postgres_database, autocommit=True) as conn:
        conn.execute("TRUNCATE store")
    return postgres_database


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Each LangGraph store, opened and set up as its documentation says."""
    name: str = request.param
    loop = LoopThread()
    with ExitStack() as stack:
        stack.callback(loop.close)
        base: BaseStore
        if name == "memory":
            base = InMemoryStore()
        elif name == "sqlite":
            base = stack.enter_context(SqliteStore.from_conn_string(str(tmp_path / "s.db")))
            base.setup()
        elif name == "postgres":
            uri = request.getfixturevalue("postgres_uri")
            base = stack.enter_context(PostgresStore.from_conn_string(uri))
            base.setup()
        elif name == "redis":
            from langgraph.store.redis import RedisStore

            uri = request.getfixturevalue("valkey_uri")
            base = stack.enter_context(RedisStore.from_conn_string(uri))
            base.setup()
        else:
            target = (str(tmp_path / "s.db") if name == "async-sqlite"
                      else request.getfixturevalue("postgres_uri"))
            base = loop.run(open_async(stack, loop, name, target))
        yield Backend(name=name, base=base, loop=loop)


@pytest.fixture(scope="session")
def valkey_server() -> Iterator[str]:
    """A Valkey with RedisJSON and RediSearch (what LangGraph's RedisStore needs) for this
    worker alone: RediSearch indexes only database 0, so workers cannot share a server by
    database number. Started with scripts/valkey.sh (it fetches Valkey and the modules
    once); ``CTXMGR_TEST_VALKEY_URI`` names a server of your own instead (one worker)."""
    from redis_db import valkey_for_this_worker

    yield from valkey_for_this_worker()


@pytest.fixture
def valkey_uri(valkey_server: str) -> str:
    """The worker's Valkey, emptied before the test."""
    import redis

    with redis.Redis.from_url(valkey_server) as client:
        client.flushdb()
    return valkey_server
