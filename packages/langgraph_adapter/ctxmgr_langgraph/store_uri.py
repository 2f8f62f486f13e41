"""Open a LangGraph store named by a URI, to read the offloads and memos agents wrote there.

``ctxmgr reload`` and ``ctxmgr search`` take ``--store URI``; the core names no framework,
so it finds these openers through the ``ctxmgr.store_uris`` entry-point group, keyed by
the URI's scheme:

* ``postgresql://…`` / ``postgres://…``: a ``PostgresStore`` (``".[postgres]"``);
* ``sqlite:///PATH`` or a SQLite file's path: a ``SqliteStore``, opened read-only, so
  looking never changes the file (nor creates one where there was none).

Neither calls ``setup()``: the store must be one an agent has used (a database without
the store's table says so in one line).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from ctxmgr import ConfigError
from ctxmgr_langgraph.store import DEFAULT_PREFIX, LangGraphStore

__all__ = ["open_postgres_store", "open_sqlite_store"]


@contextmanager
def open_postgres_store(uri: str, *, prefix: Sequence[str] = DEFAULT_PREFIX
                        ) -> Iterator[LangGraphStore]:
    """The ctxmgr store on the ``PostgresStore`` at ``uri``, connected while in use.

    Raises:
        ConfigError: the postgres extra is not installed.
        psycopg.OperationalError: the server cannot be reached.
    """
    try:
        from langgraph.store.postgres import PostgresStore
    except ImportError as exc:
        raise ConfigError(f'a PostgreSQL store needs the postgres extra: pip install '
                          f'".[postgres]" ({exc})') from None
    with PostgresStore.from_conn_string(uri) as store:
        yield LangGraphStore(store, prefix=prefix)


@contextmanager
def open_sqlite_store(uri: str, *, prefix: Sequence[str] = DEFAULT_PREFIX
                      ) -> Iterator[LangGraphStore]:
    """The ctxmgr store on the ``SqliteStore`` file ``uri`` names (``sqlite:///PATH``,
    ``sqlite:PATH`` or a plain path), opened read-only.

    Raises:
        ConfigError: no such file, or a SQLite file without a LangGraph store in it.
    """
    from langgraph.store.sqlite import SqliteStore

    path = Path(_sqlite_path(uri)).expanduser()
    if not path.is_file():
        raise ConfigError(f"{uri}: no such SQLite file")
    conn = sqlite3.connect(f"file:{quote(str(path.absolute()))}?mode=ro", uri=True,
                           check_same_thread=False, isolation_level=None)
    try:
        tables = _tables(conn, uri)
        if "store" not in tables:
            what = ("it holds LangGraph checkpoints, not a store: offloads are in the store "
                    "the graph was compiled with (store=...)" if "checkpoints" in tables
                    else "it has no table named store")
            raise ConfigError(f"{uri}: not a LangGraph SqliteStore database ({what})")
        store = SqliteStore(conn)
        store.is_setup = True  # read only: setup() would write its migrations
        yield LangGraphStore(store, prefix=prefix)
    finally:
        conn.close()


def _sqlite_path(uri: str) -> str:
    """The file of ``sqlite:///PATH`` (SQLAlchemy's form: ``sqlite:////abs`` is absolute,
    ``sqlite:///rel`` relative), ``sqlite:PATH``, or a plain path."""
    for scheme in ("sqlite:///", "sqlite:"):
        if uri.startswith(scheme):
            return uri[len(scheme):]
    return uri


def _tables(conn: sqlite3.Connection, uri: str) -> set[str]:
    try:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.DatabaseError as exc:  # not a database at all
        raise ConfigError(f"{uri}: not a SQLite database ({exc})") from None
    return {r[0] for r in rows}
