"""A real PostgreSQL for the LlamaIndex key-value store tests (see tests/postgres_db.py).

Each xdist worker gets its own database and one table, emptied before each test.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from postgres_db import admin_uri, create_database, drop_database, sqlalchemy_urls


@pytest.fixture(scope="session")
def postgres_kv_database() -> Iterator[str]:
    """This worker's own database, as a libpq URI."""
    admin = admin_uri()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    dbname = f"ctxmgr_kv_{worker}_{uuid.uuid4().hex[:8]}"
    uri = create_database(admin, dbname)
    yield uri
    drop_database(admin, dbname)


@pytest.fixture(scope="session")
def _postgres_kvstore(postgres_kv_database: str) -> Iterator[Any]:
    from llama_index.storage.kvstore.postgres import PostgresKVStore
    from sqlalchemy.pool import NullPool

    sync_url, async_url = sqlalchemy_urls(postgres_kv_database)
    # No pool: each test's event loop closes the connections it opened. A pooled async
    # connection outlives its loop, and closing it when the worker exits printed a
    # traceback (a KeyboardInterrupt from sqlalchemy) into the test output.
    kv = PostgresKVStore(table_name="kv", connection_string=sync_url,
                         async_connection_string=async_url,
                         create_engine_kwargs={"poolclass": NullPool})
    kv._initialize()  # creates the table once for the worker
    yield kv
    kv._engine.dispose()
    asyncio.run(kv._async_engine.dispose())


@pytest.fixture
def postgres_kvstore(_postgres_kvstore: Any, postgres_kv_database: str) -> Any:
    """The worker's ``PostgresKVStore``, its table emptied."""
    with psycopg.connect(postgres_kv_database, autocommit=True) as conn:
        conn.execute("TRUNCATE public.data_kv")
    return _postgres_kvstore


@pytest.fixture(scope="session")
def redis_kv_uri() -> str:
    """This worker's Redis database (Debian's redis-server, started by scripts/test.sh)."""
    from redis_db import redis_uri

    return redis_uri()


@pytest.fixture
def redis_kvstore(redis_kv_uri: str) -> Iterator[Any]:
    """A ``RedisKVStore`` on the worker's database, emptied before the test."""
    import redis
    from llama_index.storage.kvstore.redis import RedisKVStore

    with redis.Redis.from_url(redis_kv_uri) as client:
        client.flushdb()
    kv = RedisKVStore(redis_uri=redis_kv_uri)  # a sync and an async client, as users make it
    yield kv
    kv._redis_client.close()
