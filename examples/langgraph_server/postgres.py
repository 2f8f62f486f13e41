"""PostgreSQL under the server: checkpoints, and ctxmgr's offloads and memos in the store,
outlive the server process (a crash, a restart, another worker).

In langgraph.json::

    "checkpointer": {"path": "./postgres.py:checkpointer"},
    "store": {"path": "./postgres.py:store"}

and the database in ``POSTGRES_URI`` (``postgresql://user@host:5432/db``). Each is set
up once (``setup()`` creates its tables) and shares a connection pool.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.store.postgres.aio import AsyncPostgresStore
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

POOL_SIZE = int(os.environ.get("POSTGRES_POOL_SIZE", "10"))


@asynccontextmanager
async def _pool() -> AsyncIterator[AsyncConnectionPool]:
    kwargs = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    async with AsyncConnectionPool(os.environ["POSTGRES_URI"], max_size=POOL_SIZE,
                                   kwargs=kwargs, open=False) as pool:
        yield pool


@asynccontextmanager
async def checkpointer() -> AsyncIterator[AsyncPostgresSaver]:
    """The graphs' checkpointer."""
    async with _pool() as pool:
        saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type]
        await saver.setup()
        yield saver


@asynccontextmanager
async def store() -> AsyncIterator[AsyncPostgresStore]:
    """The server's store (``runtime.store`` in the graphs: ctxmgr's offloads go there)."""
    async with _pool() as pool:
        postgres = AsyncPostgresStore(pool)  # type: ignore[arg-type]
        await postgres.setup()
        yield postgres
