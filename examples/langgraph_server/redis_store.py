"""Redis under the server: ctxmgr's offloads and memos in a Redis that every worker shares.

In langgraph.json::

    "store": {"path": "./redis_store.py:store"}

and the server's address in ``REDIS_URL`` (``redis://host:6379``; not ``REDIS_URI``, which
``langgraph dev`` sets for itself). LangGraph's Redis store needs the RedisJSON and
RediSearch modules (Redis 8, Redis Stack, or Valkey with both loaded).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.store.redis.aio import AsyncRedisStore


@asynccontextmanager
async def store() -> AsyncIterator[AsyncRedisStore]:
    """The server's store (``runtime.store`` in the graphs: ctxmgr's offloads go there)."""
    async with AsyncRedisStore.from_conn_string(os.environ["REDIS_URL"]) as redis_store:
        await redis_store.setup()
        yield redis_store
