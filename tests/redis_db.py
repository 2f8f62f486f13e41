"""A real Redis for the tests: the server's URI, and a database of it per xdist worker.

``bash scripts/test.sh`` (and so ``.ci/run``) starts a throwaway Debian ``redis-server``
and exports ``CTXMGR_TEST_REDIS_URI``; without it the Redis tests fail with the command
to run, never skip.
"""

from __future__ import annotations

import os

import pytest

REDIS_ENV = "CTXMGR_TEST_REDIS_URI"


def redis_uri() -> str:
    """This worker's database on the server of ``CTXMGR_TEST_REDIS_URI`` (one of Redis's
    numbered databases per xdist worker); fails the test loudly without a server."""
    import redis

    uri = os.environ.get(REDIS_ENV)
    if not uri:
        pytest.fail(
            f"{REDIS_ENV} is not set, and the Redis tests need a server. Run the suite with "
            "`bash scripts/test.sh` (it starts a throwaway Redis), or start one with "
            '`eval "$(bash scripts/redis.sh start)"` and run pytest again', pytrace=False)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw15")
    database = f"{uri.rstrip('/')}/{1 + int(worker.removeprefix('gw')) % 15}"
    try:
        redis.Redis.from_url(database, socket_connect_timeout=10).ping()
    except redis.RedisError as exc:
        pytest.fail(f"cannot reach Redis at {REDIS_ENV}={uri}: {exc}", pytrace=False)
    return database
