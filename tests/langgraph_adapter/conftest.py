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
    POSTGRES_ENV,
    Backend,
    LoopThread,
    create_database,
    drop_database,
    open_async,
)


@pytest.fixture(scope="session")
def postgres_admin_uri() -> str:
    """The server's URI, from ``CTXMGR_TEST_POSTGRES_URI``; fails loudly without one."""
    uri = os.environ.get(POSTGRES_ENV)
    if not uri:
        pytest.fail(
            f"{POSTGRES_ENV} is not set, and the Postgres tests need a server. Run the suite "
            "with `bash scripts/test.sh` (it starts a throwaway PostgreSQL), or start one "
            'with `eval "$(bash scripts/postgres.sh start)"` and run pytest again',
            pytrace=False)
    try:
        psycopg.connect(uri, connect_timeout=10).close()
    except psycopg.Error as exc:
        pytest.fail(f"cannot reach PostgreSQL at {POSTGRES_ENV}={uri}: {exc}", pytrace=False)
    return uri


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
        else:
            target = (str(tmp_path / "s.db") if name == "async-sqlite"
                      else request.getfixturevalue("postgres_uri"))
            base = loop.run(open_async(stack, loop, name, target))
        yield Backend(name=name, base=base, loop=loop)
