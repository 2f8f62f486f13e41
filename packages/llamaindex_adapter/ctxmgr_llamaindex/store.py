"""ctxmgr's storage on a LlamaIndex ``BaseKVStore``, so any LlamaIndex key-value
backend (``SimpleKVStore``, PostgreSQL, Redis, MongoDB, ...) holds offloads and memos.

Each ctxmgr namespace is one collection of the key-value store::

    collection: "<prefix>/<project>/<kind>/<session>"    key: <ctxmgr key>

ctxmgr labels never hold ``/``, so the mapping is one-to-one. Values are JSON
objects: UTF-8 text (what offloads and memos are) stays readable in the
database as ``{"encoding": "utf-8", "data": <text>}``; other bytes are base64.

Each memo's index entry is a key of its own, so workers never lose each other's memos or
summaries on any backend. Memo writes hold :meth:`LlamaIndexKVStore.lock`, which keeps
the memo cap exact and two writes of one key whole. On a ``PostgresKVStore`` that is a
PostgreSQL advisory lock (:class:`~ctxmgr.store.AdvisoryLock`), on a ``RedisKVStore`` a
lock key with a lease (:class:`~ctxmgr.store.RedisLock`), for workers in every process
on every machine; the in-memory stores live in one process, where the default lock is
enough. On any other backend the lock covers this process only, and a warning
says once what that leaves open (see ``MemoStore``: the cap is re-counted after each
write, so it is not passed, but two racers for the last place may both be refused).

ctxmgr's :class:`~ctxmgr.Store` is synchronous; ``aget`` / ``aput`` /
``adelete`` / ``akeys`` use the key-value store's own async methods. LlamaIndex's
in-memory stores are not safe under threads (two writers can each create a
collection and one write is lost), so calls on them go through a lock; other
stores set themselves up on first use (``PostgresKVStore`` creates its table, and
two threads doing so at once collide), so the first call goes through it alone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar

from ctxmgr import ConfigError, Store
from ctxmgr.session.kit import (
    BLOB_SHAPE,
    MEMO_WRITES_WITHOUT_SHARED_LOCK,
    AdvisoryLock,
    Namespace,
    RedisLock,
    SharedLockChoice,
    StoreError,
    blob_from_json,
    blob_to_json,
    check_lock_timeout,
)

try:
    from llama_index.core.storage.kvstore.types import BaseKVStore, MutableMappingKVStore
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["DEFAULT_KV_PREFIX", "LlamaIndexKVStore", "postgres_kv_lock", "redis_kv_lock"]

DEFAULT_KV_PREFIX = "ctxmgr"
"""The first part of every collection name, apart from the application's own data."""

logger = logging.getLogger(__name__)

_T = TypeVar("_T")


_BACKEND_ERRORS = (Exception,)
"""What a key-value call may raise that is the backend's failure: anything (SQLAlchemy,
redis, pymongo, ``ConnectionError``, ``TimeoutError``); it reaches ctxmgr as one
``StoreError`` naming the store and the exception."""


class LlamaIndexKVStore(Store):
    """A ctxmgr :class:`~ctxmgr.Store` on any LlamaIndex ``BaseKVStore``.

    Example::

        from llama_index.storage.kvstore.postgres import (  # type: ignore[import-untyped]
            PostgresKVStore,
        )

        store = LlamaIndexKVStore(PostgresKVStore.from_uri(uri, table_name="ctxmgr"))
        memory = ContextMemory.from_defaults(store=store, session_id="ticket-42")

    Args:
        kvstore: the key-value store (set up as its documentation says).
        prefix: the first part of every collection name (non-empty, no ``/``); give
            each application sharing one database its own.
        lock_timeout_s: how long :meth:`lock` waits for another holder before it
            raises :class:`~ctxmgr.StoreError`.

    Raises:
        ConfigError: an invalid prefix.
        TypeError: ``kvstore`` is not a LlamaIndex ``BaseKVStore``.
    """

    def __init__(self, kvstore: BaseKVStore, *, prefix: str = DEFAULT_KV_PREFIX,
                 lock_timeout_s: float = 10.0) -> None:
        if not isinstance(kvstore, BaseKVStore):
            raise TypeError(
                f"kvstore must be a LlamaIndex BaseKVStore, got {type(kvstore).__name__}")
        if not isinstance(prefix, str) or not prefix or "/" in prefix or "\x00" in prefix:
            raise ConfigError(f"prefix must be a non-empty string without '/' or NUL, "
                              f"got {prefix!r}")
        self._kv = kvstore
        self._prefix = prefix
        self._lock_timeout_s = check_lock_timeout(lock_timeout_s)
        self._lock = threading.Lock()
        self._always_lock = isinstance(kvstore, MutableMappingKVStore)
        self._ready = False  # True once a call went through: the store has set itself up
        self._shared_lock = SharedLockChoice(self._choose_lock)

    @property
    def kvstore(self) -> BaseKVStore:
        """The LlamaIndex key-value store underneath."""
        return self._kv

    @property
    def prefix(self) -> str:
        return self._prefix

    def __repr__(self) -> str:
        return f"LlamaIndexKVStore({type(self._kv).__name__}, prefix={self._prefix!r})"

    def collection(self, namespace: Namespace) -> str:
        """The collection a ctxmgr namespace maps to."""
        return "/".join((self._prefix, namespace.project, namespace.kind, namespace.session))

    # --- sync -------------------------------------------------------------------------

    def get(self, namespace: Namespace, key: str) -> bytes | None:
        self.check_key(key)
        where = self.collection(namespace)
        value = self._call("read", where, key, lambda: self._kv.get(key, collection=where))
        return self._decode(value, where, key)

    def put(self, namespace: Namespace, key: str, data: bytes) -> None:
        self.check_key(key)
        value = blob_to_json(bytes(memoryview(data)))  # TypeError for str and int
        where = self.collection(namespace)
        self._call("write", where, key, lambda: self._kv.put(key, value, collection=where))

    def delete(self, namespace: Namespace, key: str) -> bool:
        self.check_key(key)
        where = self.collection(namespace)
        return bool(self._call("delete", where, key,
                               lambda: self._kv.delete(key, collection=where)))

    def keys(self, namespace: Namespace) -> list[str]:
        where = self.collection(namespace)
        found = self._call("list", where, None, lambda: self._kv.get_all(collection=where))
        return sorted(k for k in found if self.is_valid_key(k))

    def lock(self, namespace: Namespace) -> AbstractContextManager[None]:
        """Hold off other writers of ``namespace``: on PostgreSQL and Redis, in every process
        and on every machine (an advisory lock; a lock key with a lease); on other backends,
        in this process only (see the module doc).

        Raises:
            StoreError: the lock could not be taken.
        """
        shared = self._shared_lock.get()
        return super().lock(namespace) if shared is None else shared.hold(namespace)

    def _choose_lock(self) -> AdvisoryLock | RedisLock | None:
        chosen = (postgres_kv_lock(self._kv, scope=self._prefix, timeout_s=self._lock_timeout_s)
                  or redis_kv_lock(self._kv, scope=self._prefix,
                                   timeout_s=self._lock_timeout_s))
        if chosen is None and not self._always_lock:
            logger.warning(
                "%s: ctxmgr cannot lock a %s across processes. %s To rule that out, give "
                "workers that share one session a PostgresKVStore or a RedisKVStore (or one "
                "process)", self, type(self._kv).__name__, MEMO_WRITES_WITHOUT_SHARED_LOCK)
        return chosen

    # --- async twins ------------------------------------------------------------------

    async def aget(self, namespace: Namespace, key: str) -> bytes | None:
        """Async twin of :meth:`get`."""
        self.check_key(key)
        where = self.collection(namespace)
        value = await self._acall("read", where, key,
                                  lambda: self._kv.aget(key, collection=where))
        return self._decode(value, where, key)

    async def aput(self, namespace: Namespace, key: str, data: bytes) -> None:
        """Async twin of :meth:`put`."""
        self.check_key(key)
        value = blob_to_json(bytes(memoryview(data)))
        where = self.collection(namespace)
        await self._acall("write", where, key,
                          lambda: self._kv.aput(key, value, collection=where))

    async def adelete(self, namespace: Namespace, key: str) -> bool:
        """Async twin of :meth:`delete`."""
        self.check_key(key)
        where = self.collection(namespace)
        return bool(await self._acall("delete", where, key,
                                      lambda: self._kv.adelete(key, collection=where)))

    async def akeys(self, namespace: Namespace) -> list[str]:
        """Async twin of :meth:`keys`."""
        where = self.collection(namespace)
        found = await self._acall("list", where, None,
                                  lambda: self._kv.aget_all(collection=where))
        return sorted(k for k in found if self.is_valid_key(k))

    # --- plumbing ---------------------------------------------------------------------

    def _decode(self, value: Any, where: str, key: str) -> bytes | None:
        if value is None:
            return None
        blob = blob_from_json(value)
        if blob is None:
            raise StoreError(f"{type(self._kv).__name__} {where}/{key} holds "
                             f"{str(value)[:80]!r}, which is not a ctxmgr blob ({BLOB_SHAPE})")
        return blob

    def _failure(self, action: str, where: str, key: str | None,
                 exc: BaseException) -> StoreError:
        target = f"{where}/{key}" if key is not None else where
        text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return StoreError(f"cannot {action} {type(self._kv).__name__} {target}: {text}")

    def _guard(self) -> AbstractContextManager[Any]:
        return self._lock if self._always_lock or not self._ready else nullcontext()

    def _call(self, action: str, where: str, key: str | None, call: Callable[[], _T]) -> _T:
        try:
            with self._guard():
                result = call()
                self._ready = True
                return result
        except _BACKEND_ERRORS as exc:
            raise self._failure(action, where, key, exc) from exc

    async def _acall(self, action: str, where: str, key: str | None,
                     call: Callable[[], Awaitable[_T]]) -> _T:
        # The lock is held across an await only around in-memory stores, whose async
        # methods never yield (a coroutine waiting on it would block its own loop).
        try:
            with self._lock if self._always_lock else nullcontext():
                result = await call()
                self._ready = True
                return result
        except _BACKEND_ERRORS as exc:
            raise self._failure(action, where, key, exc) from exc


def postgres_kv_lock(kvstore: BaseKVStore, *, scope: str,
                     timeout_s: float = 10.0) -> AdvisoryLock | None:
    """An advisory lock on the database of a ``PostgresKVStore`` (``None`` for any other
    key-value store): its connections come from the store's sync connection string, or
    from the engine it was given."""
    try:
        from llama_index.storage.kvstore.postgres import (  # type: ignore[import-untyped]
            PostgresKVStore,
        )
        from sqlalchemy import create_engine
        from sqlalchemy.pool import NullPool
    except ImportError:  # llama-index-storage-kvstore-postgres not installed
        return None
    if not isinstance(kvstore, PostgresKVStore):
        return None
    # a pool of its own would hold idle connections twice: AdvisoryLock keeps its own
    engine = (create_engine(kvstore.connection_string, poolclass=NullPool)
              if kvstore.connection_string else getattr(kvstore, "_engine", None))
    if engine is None:
        return None

    def connect() -> Any:
        connection = engine.raw_connection()
        connection.driver_connection.autocommit = True  # type: ignore[union-attr]
        return connection

    url = engine.url
    return AdvisoryLock(connect, scope=scope, timeout_s=timeout_s,
                        where=f"PostgreSQL {url.host}:{url.port or 5432}/{url.database}")


def redis_kv_lock(kvstore: BaseKVStore, *, scope: str,
                  timeout_s: float = 10.0) -> RedisLock | None:
    """A lock key with a lease on the server of a ``RedisKVStore`` (``None`` for any other
    key-value store), taken through the store's own sync client."""
    try:
        from llama_index.storage.kvstore.redis import (  # type: ignore[import-untyped]
            RedisKVStore,
        )
    except ImportError:  # llama-index-storage-kvstore-redis not installed
        return None
    if not isinstance(kvstore, RedisKVStore):
        return None
    client = getattr(kvstore, "_redis_client", None)
    if client is None:
        return None
    info = client.connection_pool.connection_kwargs
    where = (f"Redis {info.get('host', 'localhost')}:{info.get('port', 6379)}/"
             f"{info.get('db', 0)}" if "path" not in info else f"Redis {info['path']}")
    return RedisLock(client, scope=scope, where=where, timeout_s=timeout_s)
