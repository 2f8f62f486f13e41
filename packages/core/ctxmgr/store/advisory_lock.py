"""A :meth:`Store.lock <ctxmgr.store.Store.lock>` that spans processes and machines: a
PostgreSQL advisory lock per namespace.

Stores on a database that many workers share (a LangGraph ``PostgresStore``, a
LlamaIndex ``PostgresKVStore``) need more than the default lock, which covers the threads
of one process: two processes writing memos to one session could each count a free place
under the memo cap and both write, or interleave two writes of one memo's content and
index entry. An advisory lock is held
by a database session, so it excludes every process on every machine, and the server
drops it when its holder's connection ends (a killed worker never leaves it behind).

Each lock is taken with a blocking ``pg_advisory_lock`` (the server queues waiters in
order, so no writer starves) bounded by ``lock_timeout``, on a connection of its own: a
thread waiting for one session never holds up another thread's lock or the store's own
queries. Connections are opened on demand, as many as threads hold locks at once, and
at most two are kept idle. Only the SQL is PostgreSQL's: ``connect`` may return any
DB-API connection (psycopg, psycopg2) in autocommit mode.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from ctxmgr.errors import ConfigError, StoreError
from ctxmgr.store.base import Namespace, process_then_shared_lock

__all__ = ["AdvisoryLock", "advisory_key", "check_lock_timeout"]

logger = logging.getLogger(__name__)

_IDLE_KEPT = 2
_LOCK_NOT_AVAILABLE = "55P03"  # SQLSTATE of a lock wait cut short by lock_timeout


def check_lock_timeout(value: object) -> float:
    """A lock timeout in seconds: a number > 0 (the rule every store's lock follows)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(f"lock_timeout_s must be a number > 0, got {value!r}")
    return float(value)


def advisory_key(scope: str, namespace: Namespace) -> int:
    """The ``bigint`` an advisory lock of ``namespace`` is taken on: 64 bits of a SHA-256
    of the scope and the labels (two namespaces sharing a key would only wait for each
    other, never lose data)."""
    text = "\x00".join((scope, namespace.project, namespace.kind, namespace.session))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big", signed=True)


class AdvisoryLock:
    """Namespace locks as PostgreSQL session-level advisory locks.

    Args:
        connect: opens a new DB-API connection in autocommit mode to the store's database.
        scope: what the store's keys are under (its prefix): stores with different
            scopes never wait for each other.
        where: names the database in errors (no password).
        timeout_s: how long a writer waits for another holder before a
            :class:`~ctxmgr.errors.StoreError`.
    """

    def __init__(self, connect: Callable[[], Any], *, scope: str, where: str,
                 timeout_s: float = 10.0) -> None:
        self._connect = connect
        self._scope = scope
        self._where = where
        self._timeout_ms = max(1, round(check_lock_timeout(timeout_s) * 1000))
        self._idle: list[Any] = []
        self._idle_guard = threading.Lock()
        # idle connections are closed with the lock, not left to the driver's finaliser
        weakref.finalize(self, _close_all, self._idle)
        self._held: dict[Namespace, int] = {}  # depth, changed only by the thread holding it

    def __repr__(self) -> str:
        return f"AdvisoryLock({self._where}, scope={self._scope!r})"

    @contextlib.contextmanager
    def hold(self, namespace: Namespace) -> Iterator[None]:
        """Hold ``namespace`` against every other holder; reentrant within a thread.

        Raises:
            StoreError: the lock could not be taken (timeout, or the database failed).
        """
        with process_then_shared_lock(namespace, self._held, self._acquire, self._release):
            yield

    def _acquire(self, namespace: Namespace) -> Any:
        key = advisory_key(self._scope, namespace)
        conn, reused = self._take()
        while True:
            try:
                _execute(conn, "SELECT pg_advisory_lock(%s::bigint)", (key,))
                return conn
            except Exception as exc:
                self._discard(conn)
                if _sqlstate(exc) == _LOCK_NOT_AVAILABLE:
                    raise StoreError(errno.EAGAIN, f"cannot lock {self._target(namespace)}: "
                                                   "another writer has held it for over "
                                                   f"{self._timeout_ms / 1000:g} s") from exc
                if not reused:
                    raise self._failure("lock", namespace, exc) from exc
                conn, reused = self._open(), False  # an idle connection the server dropped

    def _release(self, conn: Any, namespace: Namespace) -> None:
        try:
            key = advisory_key(self._scope, namespace)
            _execute(conn, "SELECT pg_advisory_unlock(%s::bigint)", (key,))
        except Exception as exc:  # the server drops the lock with the connection
            logger.warning("could not unlock %s (%s); closing its connection releases it",
                           self._target(namespace), exc)
            self._discard(conn)
            return
        with self._idle_guard:
            if len(self._idle) < _IDLE_KEPT:
                self._idle.append(conn)
                return
        self._discard(conn)

    def _take(self) -> tuple[Any, bool]:
        """An idle connection (``True``) or a new one (``False``)."""
        with self._idle_guard:
            if self._idle:
                return self._idle.pop(), True
        return self._open(), False

    def _open(self) -> Any:
        conn = None
        try:
            conn = self._connect()
            _execute(conn, f"SET lock_timeout = {self._timeout_ms}", ())
        except Exception as exc:
            if conn is not None:
                self._discard(conn)
            raise StoreError(f"cannot lock on {self._where}: cannot connect: "
                             f"{_first_line(exc)}") from exc
        return conn

    @staticmethod
    def _discard(conn: Any) -> None:
        with contextlib.suppress(Exception):
            conn.close()

    def close(self) -> None:
        """Close the idle connections (held locks keep theirs until released)."""
        with self._idle_guard:
            _close_all(self._idle)

    def _target(self, namespace: Namespace) -> str:
        return f"{self._where} {self._scope}/{namespace.project}/{namespace.kind}/" \
               f"{namespace.session}"

    def _failure(self, action: str, namespace: Namespace, exc: BaseException) -> StoreError:
        return StoreError(f"cannot {action} {self._target(namespace)}: {_first_line(exc)}")


def _close_all(connections: list[Any]) -> None:
    while connections:
        with contextlib.suppress(Exception):
            connections.pop().close()


def _execute(conn: Any, sql: str, params: tuple[Any, ...]) -> None:
    cursor = conn.cursor()
    try:
        cursor.execute(sql, params) if params else cursor.execute(sql)
        if cursor.description is not None:
            cursor.fetchall()
    finally:
        cursor.close()


def _sqlstate(exc: BaseException) -> str | None:
    code = getattr(exc, "sqlstate", None) or getattr(exc, "pgcode", None)
    orig = getattr(exc, "orig", None)  # SQLAlchemy wraps the driver's error
    if code is None and orig is not None:
        code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return code if isinstance(code, str) else None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
