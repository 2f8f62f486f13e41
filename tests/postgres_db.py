"""A real PostgreSQL for the tests: the server's URI and throwaway databases on it.

``bash scripts/test.sh`` (and so ``.ci/run``) starts a throwaway server and
exports ``CTXMGR_TEST_POSTGRES_URI``; without it the Postgres tests fail with
the command to run, never skip. Shared by the LangGraph and LlamaIndex tests.
"""

from __future__ import annotations

import os

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

POSTGRES_ENV = "CTXMGR_TEST_POSTGRES_URI"


def admin_uri() -> str:
    """The server's URI, from ``CTXMGR_TEST_POSTGRES_URI``; fails the test loudly without
    one or when the server cannot be reached."""
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


def database_uri(uri: str, dbname: str) -> str:
    """``uri`` pointing at another database of the same server."""
    return make_conninfo(**{**conninfo_to_dict(uri), "dbname": dbname})


def sqlalchemy_urls(uri: str) -> tuple[str, str]:
    """The psycopg2 and asyncpg SQLAlchemy URLs of a libpq ``uri`` (trust auth, no TLS)."""
    info = conninfo_to_dict(uri)
    user = info.get("user", "postgres")
    where = f"{user}@{info.get('host', '127.0.0.1')}:{info.get('port', 5432)}/{info['dbname']}"
    return f"postgresql+psycopg2://{where}", f"postgresql+asyncpg://{where}"


def create_database(admin: str, dbname: str) -> str:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{dbname}"')
    return database_uri(admin, dbname)


def drop_database(admin: str, dbname: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
