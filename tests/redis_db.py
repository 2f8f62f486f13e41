"""A real Redis for the tests: the server's URI, and a database of it per xdist worker.

``bash scripts/test.sh`` (and so ``.ci/run``) starts a throwaway Debian ``redis-server``
(``CTXMGR_TEST_REDIS_URI``); each xdist worker starts a Valkey with the RedisJSON and
RediSearch modules for LangGraph's ``RedisStore`` (``scripts/valkey.sh``). Without them the
Redis tests fail saying what to run, never skip.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REDIS_ENV = "CTXMGR_TEST_REDIS_URI"
VALKEY_ENV = "CTXMGR_TEST_VALKEY_URI"
"""A Valkey (or Redis Stack) with the RedisJSON and RediSearch modules, which LangGraph's
RedisStore needs."""
SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


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


def valkey_for_this_worker() -> Iterator[str]:
    """The URI of a Valkey with RedisJSON and RediSearch for this worker (database 0: the
    only one RediSearch indexes), stopped when the generator closes: the server of
    ``CTXMGR_TEST_VALKEY_URI`` if set, else one started with ``scripts/valkey.sh``."""
    given = os.environ.get(VALKEY_ENV)
    if given:
        yield given
        return
    started = subprocess.run(["bash", str(SCRIPTS / "valkey.sh"), "start"],
                             capture_output=True, text=True, timeout=600, check=False)
    if started.returncode != 0:
        pytest.fail("cannot start a Valkey with RedisJSON and RediSearch for LangGraph's "
                    f"RedisStore (scripts/valkey.sh start):\n{started.stderr}", pytrace=False)
    found = dict(re.findall(r"export (\w+)='([^']*)'", started.stdout))
    try:
        yield found[VALKEY_ENV]
    finally:
        subprocess.run(["bash", str(SCRIPTS / "valkey.sh"), "stop",
                        found["CTXMGR_TEST_VALKEY_DIR"]], check=False, timeout=60)
