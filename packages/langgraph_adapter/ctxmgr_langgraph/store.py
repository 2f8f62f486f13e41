"""ctxmgr's storage on a LangGraph ``BaseStore``, so many workers share one database.

Offloads and memos of every worker land in the graph's own store
(``InMemoryStore``, ``SqliteStore``, ``AsyncSqliteStore``, ``PostgresStore``,
``AsyncPostgresStore`` or any other ``BaseStore``), namespaced by project, kind
and session (the graph's thread id, when an adapter derives it)::

    ("ctxmgr", <project>, <kind>, <session>)  key: <ctxmgr key>

Three things differ from ctxmgr's own stores, and are handled here:

* LangGraph namespace labels may not contain ``.``, ctxmgr labels may: each
  ``.`` becomes ``~``, a character no ctxmgr label holds, so the mapping is
  one-to-one and :meth:`LangGraphStore.namespaces` reads it back.
* Values are JSON dicts: a blob that is UTF-8 text without NUL (what offloads
  and memos are) is kept as ``{"encoding": "utf-8", "data": <text>}``, readable
  in the database; any other blob as ``{"encoding": "base64", "data": ...}``.
  PostgreSQL's ``jsonb`` cannot hold NUL, hence the exception.
* Each memo's index entry is an item of its own, so workers never lose each other's
  memos or summaries on any backend. Memo writes hold :meth:`LangGraphStore.lock`, which
  keeps the memo cap exact and two writes of one key whole. On ``PostgresStore`` and
  ``AsyncPostgresStore`` that is a PostgreSQL advisory lock
  (:class:`~ctxmgr.store.AdvisoryLock`), for workers in every process on every machine,
  and on ``RedisStore`` and ``AsyncRedisStore`` a lock key with a lease
  (:class:`~ctxmgr.store.RedisLock`); on a ``SqliteStore`` or ``AsyncSqliteStore`` opened
  on a file, lock files next to it
  (:class:`~ctxmgr.store.FileLocks`, ``<database>.ctxmgr-locks/``) do the same for the
  processes of that machine. ``InMemoryStore`` lives in one process, where the default
  lock is enough. On any other backend the lock covers this process only, and a warning
  says once what that leaves open (see ``MemoStore``: the cap is re-counted after each
  write, so it is not passed, but two racers for the last place may both be refused).
* LangGraph's ``RedisStore`` (langgraph-checkpoint-redis 0.5) finds no item whose
  namespace is longer than 125 characters (:data:`REDIS_NAMESPACE_CHARS`): ctxmgr refuses
  such a namespace with a ``StoreError`` saying to shorten the project, rather than write
  what could not be read back; and it answers at most 10 gets of one batch
  (:data:`REDIS_BATCH_GETS`): ctxmgr asks it 10 at a time.
* A store's TTL (``ttl={"default_ttl": minutes, "refresh_on_read": ...}``) applies to
  ctxmgr's items as to the graph's own: an offload not read for that long expires, and
  ``context_reload`` then says it is gone. Without one, items stay until deleted
  (``ContextMiddleware.delete_thread``).
* ctxmgr's :class:`~ctxmgr.Store` is synchronous. Sync calls on an async-only
  store (``AsyncSqliteStore``, ``AsyncPostgresStore``) follow LangGraph's own
  rule: they are handed to the loop the store was created on, so they work from
  any thread but the one running that loop. Inside the loop, await the twins
  (``aget``, ``aput``, ``adelete``, ``akeys``) or move the sync code to a thread
  (``await asyncio.to_thread(...)``); a sync call there raises a ``StoreError``
  saying so instead of deadlocking. The twins work on every store: on a
  sync-only one (``SqliteStore`` has no async) they run in a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import Any, TypeVar

from ctxmgr import ConfigError, Store
from ctxmgr.session import choose_store, in_process_store
from ctxmgr.session.kit import (
    BLOB_SHAPE,
    MEMO_WRITES_WITHOUT_SHARED_LOCK,
    AdvisoryLock,
    FileLocks,
    Namespace,
    RedisLock,
    SharedLockChoice,
    StoreError,
    blob_from_json,
    blob_to_json,
    check_lock_timeout,
    home,
)

try:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.config import get_config
    from langgraph.store.base import BaseStore, GetOp, Item, PutOp
    from langgraph.store.base.batch import AsyncBatchedBaseStore
    from langgraph.store.memory import InMemoryStore as GraphInMemoryStore
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangGraph: pip install ".[langgraph]"') from exc

__all__ = ["DEFAULT_PREFIX", "LangGraphStore", "ephemeral_store", "postgres_lock",
           "redis_lock", "resolve_store", "run_keeps_history_in_memory", "sqlite_lock"]

DEFAULT_PREFIX: tuple[str, ...] = ("ctxmgr",)
"""The namespace labels in front of ctxmgr's, apart from the graph's own data."""

logger = logging.getLogger(__name__)

_T = TypeVar("_T")
_PAGE = 1000


_BACKEND_ERRORS = (Exception,)
"""What a store call may raise that is the backend's failure: anything (psycopg, sqlite3,
a redis-style client, ``ConnectionError``, ``TimeoutError``); it reaches ctxmgr as one
``StoreError`` naming the store and the exception."""


def _escape(label: str) -> str:
    return label.replace(".", "~")


def _unescape(label: str) -> str:
    return label.replace("~", ".")


class LangGraphStore(Store):
    """A ctxmgr :class:`~ctxmgr.Store` on any LangGraph ``BaseStore``.

    Args:
        store: the LangGraph store, set up (``PostgresStore`` and the SQLite
            stores need ``setup()`` once per database; an error naming a missing
            table says so).
        prefix: namespace labels put in front of ctxmgr's (non-empty, no ``.``,
            not starting with ``"langgraph"``); give each application sharing
            one database its own.
        lock_timeout_s: how long :meth:`lock` waits for another holder before it
            raises :class:`~ctxmgr.StoreError`.

    Raises:
        ConfigError: an invalid prefix.
        TypeError: ``store`` is not a LangGraph ``BaseStore``.
    """

    def __init__(self, store: BaseStore, *, prefix: Sequence[str] = DEFAULT_PREFIX,
                 lock_timeout_s: float = 10.0) -> None:
        if not isinstance(store, BaseStore):
            raise TypeError(f"store must be a LangGraph BaseStore, got {type(store).__name__}")
        labels = tuple(prefix) if not isinstance(prefix, str) else (prefix,)
        if not labels or labels[0] == "langgraph" or not all(
                isinstance(p, str) and p and "." not in p and "\x00" not in p for p in labels):
            raise ConfigError("prefix must be one or more non-empty labels without '.' or NUL, "
                              f"not starting with 'langgraph', got {prefix!r}")
        self._store = store
        self._prefix = labels
        self._lock_timeout_s = check_lock_timeout(lock_timeout_s)
        self._sync_only = False  # set once the store's async methods say they do not exist
        self._shared_lock = SharedLockChoice(self._choose_lock)
        self._max_path_chars = _max_namespace_chars(store)
        self._max_batch_gets = REDIS_BATCH_GETS if self._max_path_chars is not None else None

    @property
    def base_store(self) -> BaseStore:
        """The LangGraph store underneath."""
        return self._store

    @property
    def prefix(self) -> tuple[str, ...]:
        return self._prefix

    def __repr__(self) -> str:
        return f"LangGraphStore({type(self._store).__name__}, prefix={self._prefix!r})"

    # --- the mapping ------------------------------------------------------------------

    def path(self, namespace: Namespace) -> tuple[str, ...]:
        """The LangGraph namespace of a ctxmgr one: prefix, project, kind, session."""
        return (*self._prefix, *(_escape(label) for label in
                                 (namespace.project, namespace.kind, namespace.session)))

    def _data_path(self, namespace: Namespace) -> tuple[str, ...]:
        """:meth:`path`, refused when the backend would lose items under it (a RedisStore
        finds no item whose namespace is longer than its RediSearch tags hold)."""
        path = self.path(namespace)
        if self._max_path_chars is not None and len(".".join(path)) > self._max_path_chars:
            raise StoreError(
                f"{type(self._store).__name__} cannot find items under a namespace longer "
                f"than {self._max_path_chars} characters (its search index's tags are cut "
                f"there), and {'/'.join(path)} has {len('.'.join(path))}: give a shorter "
                "project (AutoContextConfig(project=...)) or prefix")
        return path

    def namespace_of(self, path: Sequence[str]) -> Namespace | None:
        """The ctxmgr namespace a LangGraph one stands for, or ``None`` if it is not one."""
        path = tuple(path)
        if len(path) != len(self._prefix) + 3 or path[: len(self._prefix)] != self._prefix:
            return None
        project, kind, session = (_unescape(label) for label in path[len(self._prefix):])
        try:
            namespace = Namespace(project=project, session=session, kind=kind)
        except ValueError:  # ConfigError: a foreign label ('.' or other characters)
            return None
        return namespace if self.path(namespace) == path else None

    def _decode(self, item: Item | None, namespace: Namespace, key: str) -> bytes | None:
        if item is None:
            return None
        blob = blob_from_json(item.value)
        if blob is None:
            raise StoreError(f"{self._where(namespace, key)} holds {str(item.value)[:80]!r}, "
                             f"which is not a ctxmgr blob ({BLOB_SHAPE})")
        return blob

    def _keys_of(self, items: Sequence[Item], path: tuple[str, ...]) -> list[str]:
        # A prefix search also returns deeper namespaces: keep this one's, and only keys
        # that are ctxmgr keys (as FileStore skips foreign file names).
        return sorted({i.key for i in items if tuple(i.namespace) == path
                       and self.is_valid_key(i.key)})

    def _where(self, namespace: Namespace, key: str | None = None) -> str:
        where = "/".join(self.path(namespace)) + (f"/{key}" if key is not None else "")
        return f"{type(self._store).__name__} {where}"

    # --- sync -------------------------------------------------------------------------

    def get(self, namespace: Namespace, key: str) -> bytes | None:
        self.check_key(key)
        path = self._data_path(namespace)
        item = self._sync("read", namespace, key,
                          lambda s: s.get(path, key))
        return self._decode(item, namespace, key)

    def get_many(self, namespace: Namespace, keys: Sequence[str]) -> dict[str, bytes | None]:
        """:meth:`get` of each of ``keys``, in one ``batch`` call (one round trip)."""
        for key in keys:
            self.check_key(key)
        if not keys:
            return {}
        path = self._data_path(namespace)
        refresh = (getattr(self._store, "ttl_config", None) or {}).get("refresh_on_read", True)
        size = self._max_batch_gets or len(keys)
        items: list[Any] = []
        for start in range(0, len(keys), size):
            ops = [GetOp(path, key, refresh) for key in keys[start:start + size]]
            items += self._sync("read", namespace, None, partial(_batch, ops=ops))
        return {key: self._decode(item, namespace, key)
                for key, item in zip(keys, items, strict=True)}

    def put(self, namespace: Namespace, key: str, data: bytes) -> None:
        self.check_key(key)
        value = blob_to_json(bytes(memoryview(data)))  # TypeError for str and int
        path = self._data_path(namespace)
        # index=False: never embed a blob, even in a store set up for semantic search;
        # no ttl: the store's own default applies (none unless the user set one)
        self._sync("write", namespace, key, lambda s: s.put(path, key, value, index=False))

    batches_writes = True

    def put_many(self, namespace: Namespace, items: Mapping[str, bytes]) -> None:
        """:meth:`put` of each of ``items``, in one ``batch`` call (one round trip: on
        the LangGraph server a worker thread waits for the store's loop once, not twice)."""
        path = self._data_path(namespace)
        ttl = (getattr(self._store, "ttl_config", None) or {}).get("default_ttl")  # as put's
        ops = [PutOp(path, self.check_key(key), blob_to_json(bytes(memoryview(data))),
                     index=False, ttl=ttl) for key, data in items.items()]
        if ops:
            self._sync("write", namespace, None, partial(_batch, ops=ops))

    def delete(self, namespace: Namespace, key: str) -> bool:
        self.check_key(key)
        path = self._data_path(namespace)
        if self._sync("read", namespace, key,
                      lambda s: s.get(path, key)) is None:
            return False
        self._sync("delete", namespace, key, lambda s: s.delete(path, key))
        return True

    def keys(self, namespace: Namespace) -> list[str]:
        path = self._data_path(namespace)
        items = self._all(lambda limit: self._sync(
            "list", namespace, None, lambda s: s.search(path, limit=limit)))
        return self._keys_of(items, path)

    def namespaces(self, *, project: str | None = None) -> list[Namespace]:
        """Every ctxmgr namespace in the store (of one ``project`` if given), sorted."""
        prefix = (*self._prefix, *(() if project is None else (_escape(project),)))
        paths = self._all(lambda limit: self._sync(
            "list namespaces of", None, None,
            lambda s: s.list_namespaces(prefix=prefix, limit=limit)))
        return self._namespaces_of(paths)

    def lock(self, namespace: Namespace) -> AbstractContextManager[None]:
        """Hold off other writers of ``namespace``: on PostgreSQL and Redis, in every process
        and on every machine (an advisory lock; a lock key with a lease); on a SQLite file,
        in every process of the machine (lock files); on other backends, in this process
        only (see the module doc).

        Raises:
            StoreError: the lock could not be taken.
        """
        shared = self._shared_lock.get()
        return super().lock(namespace) if shared is None else shared.hold(namespace)

    def _choose_lock(self) -> AdvisoryLock | FileLocks | RedisLock | None:
        scope = "/".join(self._prefix)
        chosen = (postgres_lock(self._store, scope=scope, timeout_s=self._lock_timeout_s)
                  or sqlite_lock(self._store, scope=scope, timeout_s=self._lock_timeout_s)
                  or redis_lock(self._store, scope=scope, timeout_s=self._lock_timeout_s))
        in_one_process = (isinstance(self._store, GraphInMemoryStore)
                          or _sqlite_file(self._store) == "")
        if chosen is None and not in_one_process:
            logger.warning(
                "%s: ctxmgr cannot lock a %s across processes. %s To rule that out, give "
                "workers that share one session a PostgresStore, a RedisStore, a SqliteStore "
                "on a file (one machine) or one process",
                self, type(self._store).__name__, MEMO_WRITES_WITHOUT_SHARED_LOCK)
        return chosen

    # --- async twins ------------------------------------------------------------------

    async def aget(self, namespace: Namespace, key: str) -> bytes | None:
        """Async twin of :meth:`get`."""
        self.check_key(key)
        path = self._data_path(namespace)
        item = await self._async("read", namespace, key,
                                 lambda s: s.aget(path, key),
                                 lambda: self._store.get(path, key))
        return self._decode(item, namespace, key)

    async def aput(self, namespace: Namespace, key: str, data: bytes) -> None:
        """Async twin of :meth:`put`."""
        self.check_key(key)
        value = blob_to_json(bytes(memoryview(data)))
        path = self._data_path(namespace)
        await self._async("write", namespace, key,
                          lambda s: s.aput(path, key, value, index=False),
                          lambda: self._store.put(path, key, value, index=False))

    async def adelete(self, namespace: Namespace, key: str) -> bool:
        """Async twin of :meth:`delete`."""
        self.check_key(key)
        path = self._data_path(namespace)
        if await self._async("read", namespace, key,
                             lambda s: s.aget(path, key),
                             lambda: self._store.get(path, key)) is None:
            return False
        await self._async("delete", namespace, key, lambda s: s.adelete(path, key),
                          lambda: self._store.delete(path, key))
        return True

    async def akeys(self, namespace: Namespace) -> list[str]:
        """Async twin of :meth:`keys`."""
        path = self._data_path(namespace)
        items = await self._aall(lambda limit: self._async(
            "list", namespace, None,
            lambda s: s.asearch(path, limit=limit),
            lambda: self._store.search(path, limit=limit)))
        return self._keys_of(items, path)

    # --- plumbing ---------------------------------------------------------------------

    def _namespaces_of(self, paths: Sequence[tuple[str, ...]]) -> list[Namespace]:
        found = (self.namespace_of(p) for p in paths)
        return sorted({n for n in found if n is not None},
                      key=lambda n: (n.project, n.kind, n.session))

    @staticmethod
    def _all(fetch: Callable[[int], Sequence[_T]]) -> list[_T]:
        """Everything a paged query returns, in one statement (so one snapshot).

        Paging with an offset could skip rows that tie on the store's sort order or
        move while paging; instead the limit grows until a reply comes back short.
        """
        limit = _PAGE
        while len(rows := fetch(limit)) >= limit:
            limit *= 4
        return list(rows)

    @staticmethod
    async def _aall(fetch: Callable[[int], Awaitable[Sequence[_T]]]) -> list[_T]:
        limit = _PAGE
        while len(rows := await fetch(limit)) >= limit:
            limit *= 4
        return list(rows)

    def _failure(self, action: str, namespace: Namespace | None, key: str | None,
                 exc: BaseException) -> StoreError:
        where = (self._where(namespace, key) if namespace is not None
                 else f"{type(self._store).__name__} {'/'.join(self._prefix)}")
        # psycopg adds the SQL and a caret on further lines: one line is enough here
        text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        hint = ("; set the store up once before first use (store.setup(), or await "
                "store.setup() on an async store)"
                if "does not exist" in text or "no such table" in text else "")
        return StoreError(f"cannot {action} {where}: {text}{hint}")

    def _owner_loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop an async-only store was created on (its sync methods run there)."""
        if isinstance(self._store, AsyncBatchedBaseStore):
            loop: asyncio.AbstractEventLoop | None = getattr(self._store, "_loop", None)
            return loop
        return None

    def _sync(self, action: str, namespace: Namespace | None, key: str | None,
              call: Callable[[BaseStore], _T]) -> _T:
        loop = self._owner_loop()
        if loop is not None:
            try:
                running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            name = type(self._store).__name__
            if running is loop:
                raise StoreError(
                    f"cannot {action} synchronously on {name} from inside its own event loop "
                    "(the call would wait for the loop it blocks): await the async method "
                    "(aget, aput, adelete, akeys) or run the sync code in a thread with "
                    "`await asyncio.to_thread(...)`")
            if not loop.is_running():
                raise StoreError(
                    f"cannot {action} synchronously on {name}: the event loop it was created "
                    "on is not running; keep that loop running (e.g. in a thread) or use a "
                    "sync store (SqliteStore, PostgresStore)")
        try:
            return call(self._store)
        except _BACKEND_ERRORS as exc:
            raise self._failure(action, namespace, key, exc) from exc

    async def _async(self, action: str, namespace: Namespace | None, key: str | None,
                     call: Callable[[BaseStore], Coroutine[Any, Any, _T]],
                     sync_call: Callable[[], _T]) -> _T:
        try:
            if self._sync_only:
                return await asyncio.to_thread(sync_call)
            loop = self._owner_loop()
            if loop is not None and loop is not asyncio.get_running_loop():
                # An async-only store's connection belongs to its own loop: run there.
                if not loop.is_running():
                    raise StoreError(f"cannot {action} on {type(self._store).__name__}: the "
                                     "event loop it was created on is not running")
                future = asyncio.run_coroutine_threadsafe(call(self._store), loop)
                return await asyncio.wrap_future(future)
            try:
                return await call(self._store)
            except NotImplementedError:  # a sync-only store, e.g. SqliteStore
                self._sync_only = True
                return await asyncio.to_thread(sync_call)
        except _BACKEND_ERRORS as exc:
            if isinstance(exc, StoreError):
                raise
            raise self._failure(action, namespace, key, exc) from exc


def postgres_lock(store: BaseStore, *, scope: str,
                  timeout_s: float = 10.0) -> AdvisoryLock | None:
    """An advisory lock on the database of a ``PostgresStore`` / ``AsyncPostgresStore``
    (``None`` for any other store): its connections are opened from the store's own
    connection settings, password included."""
    try:
        import psycopg
        from langgraph.store.postgres import AsyncPostgresStore, PostgresStore
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:  # pragma: no cover - langgraph-checkpoint-postgres not installed
        return None
    if not isinstance(store, PostgresStore | AsyncPostgresStore):
        return None
    conninfo = _conninfo(store.conn)
    if conninfo is None:
        return None
    info = conninfo_to_dict(conninfo)
    where = (f"PostgreSQL {info.get('host', 'localhost')}:{info.get('port', 5432)}/"
             f"{info.get('dbname', '')}")
    return AdvisoryLock(lambda: psycopg.connect(conninfo, autocommit=True), scope=scope,
                        where=where, timeout_s=timeout_s)


REDIS_NAMESPACE_CHARS = 125
"""The longest namespace (labels joined by ``.``) whose items LangGraph's RedisStore finds
again (langgraph-checkpoint-redis 0.5.2 on RediSearch 2.10: at 126 characters a put
succeeds and every get, search and delete misses the item)."""


REDIS_BATCH_GETS = 10
"""The most gets of one namespace LangGraph's RedisStore answers in one ``batch`` (0.5.2:
one search per namespace, at RediSearch's default limit of 10 results; the other gets
come back ``None``), so :meth:`LangGraphStore.get_many` asks it 10 at a time."""


def _batch(store: BaseStore, *, ops: Sequence[GetOp | PutOp]) -> list[Any]:
    """``store.batch(ops)``; on an async-only store, its ``abatch`` on the loop it was made
    on, as LangGraph's own sync methods do (``AsyncRedisStore.batch`` in
    langgraph-checkpoint-redis 0.5.2 looks for a loop in the calling thread and fails)."""
    loop = getattr(store, "_loop", None) if isinstance(store, AsyncBatchedBaseStore) else None
    if loop is None:
        return list(store.batch(ops))
    return list(asyncio.run_coroutine_threadsafe(store.abatch(ops), loop).result())


def _max_namespace_chars(store: BaseStore) -> int | None:
    try:
        from langgraph.store.redis import AsyncRedisStore, RedisStore
    except ImportError:  # langgraph-checkpoint-redis not installed
        return None
    return REDIS_NAMESPACE_CHARS if isinstance(store, RedisStore | AsyncRedisStore) else None


def redis_lock(store: BaseStore, *, scope: str, timeout_s: float = 10.0) -> RedisLock | None:
    """A lock key with a lease on the server of a ``RedisStore`` or ``AsyncRedisStore``
    (langgraph-checkpoint-redis; ``None`` for any other store), taken with a sync client
    on the store's connection settings."""
    try:
        import redis
        from langgraph.store.redis import AsyncRedisStore, RedisStore
    except ImportError:  # langgraph-checkpoint-redis not installed
        return None
    if not isinstance(store, RedisStore | AsyncRedisStore):
        return None
    client = getattr(store, "_redis", None)
    if client is None:
        return None
    info = dict(client.connection_pool.connection_kwargs)
    if not isinstance(client, redis.Redis):  # an async client: a sync one beside it
        kept = ("host", "port", "db", "username", "password", "path", "ssl")
        client = redis.Redis(**{k: v for k, v in info.items() if k in kept})
    where = (f"Redis {info['path']}" if "path" in info else
             f"Redis {info.get('host', 'localhost')}:{info.get('port', 6379)}/{info.get('db', 0)}")
    return RedisLock(client, scope=scope, where=where, timeout_s=timeout_s)


def sqlite_lock(store: BaseStore, *, scope: str, timeout_s: float = 10.0) -> FileLocks | None:
    """Lock files next to the database file of a ``SqliteStore`` or ``AsyncSqliteStore``
    (``None`` for any other store, and for a database in memory, which no other process
    can open)."""
    database = _sqlite_file(store)
    if not database:
        return None
    return FileLocks(f"{database}.ctxmgr-locks", scope=scope, timeout_s=timeout_s)


def _sqlite_file(store: BaseStore) -> str | None:
    """The database file of a ``SqliteStore`` or ``AsyncSqliteStore`` (``""`` in memory;
    ``None``: not one, or an async one asked from its own loop, which cannot wait)."""
    try:
        from langgraph.store.sqlite import SqliteStore
        from langgraph.store.sqlite.aio import AsyncSqliteStore
    except ImportError:  # pragma: no cover - langgraph-checkpoint-sqlite not installed
        return None
    if isinstance(store, SqliteStore):
        with store.lock:
            rows = store.conn.execute("PRAGMA database_list").fetchall()
    elif isinstance(store, AsyncSqliteStore):
        loop: asyncio.AbstractEventLoop | None = getattr(store, "_loop", None)
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or loop is running or not loop.is_running():
            return None
        rows = list(asyncio.run_coroutine_threadsafe(
            store.conn.execute_fetchall("PRAGMA database_list"), loop).result(timeout=30))
    else:
        return None
    return str(next((row[2] for row in rows if row[1] == "main"), "") or "")


_NOT_CONNINFO = frozenset({"autocommit", "prepare_threshold", "row_factory", "cursor_factory",
                           "context", "connection_class"})


def _conninfo(conn: Any) -> str | None:
    """The connection string of a psycopg connection or pool (the password kept); ``None``
    for a pool that computes it on each connect."""
    from psycopg.conninfo import make_conninfo

    info = getattr(conn, "info", None)
    if info is not None and hasattr(info, "get_parameters"):  # a connection
        password = info.password
        return make_conninfo(**info.get_parameters(), **({"password": password}
                                                          if password else {}))
    conninfo = getattr(conn, "conninfo", "")  # a pool: what it connects with
    if not isinstance(conninfo, str):
        return None
    kwargs = getattr(conn, "kwargs", None)
    extra = {k: v for k, v in kwargs.items() if k not in _NOT_CONNINFO} \
        if isinstance(kwargs, dict) else {}
    return make_conninfo(conninfo, **extra)


def resolve_store(runtime_store: BaseStore | Store | None, fallback: Store | None = None, *,
                  prefix: Sequence[str] = DEFAULT_PREFIX) -> Store:
    """The store ctxmgr should use in a graph: the graph's own, else the embedded default.

    Args:
        runtime_store: ``runtime.store`` (``None`` when the graph was compiled
            without a store); a ctxmgr ``Store`` is returned as it is.
        fallback: used when there is no graph store; default: when the graph run this
            call is part of keeps its history in this process only (``InMemorySaver``,
            or no checkpointer), :func:`ephemeral_store`, so offloads live no longer
            than the history; else (a durable checkpointer, or outside a run) a
            ``FileStore`` under ``CTXMGR_HOME`` (environment or ``.env``; else
            ``~/.ctxmgr``).
        prefix: see :class:`LangGraphStore`.
    """
    if isinstance(runtime_store, Store):
        return runtime_store
    if runtime_store is not None:
        return LangGraphStore(runtime_store, prefix=prefix)
    if fallback is not None:
        return fallback
    return choose_store(None, durable=not run_keeps_history_in_memory(), home=home())


_CHECKPOINTER_KEY = "__pregel_checkpointer"


def ephemeral_store() -> Store:
    """The in-memory store of this process for graphs whose history is in memory too
    (``InMemorySaver`` or no checkpointer) and that have no store of their own: it goes
    with the process, as their history does (``delete_thread`` empties a thread of it):
    the core's :func:`~ctxmgr.session.in_process_store`."""
    return in_process_store()


def run_keeps_history_in_memory() -> bool | None:
    """Whether the graph run this call is part of keeps its history in this process only:
    no checkpointer, or LangGraph's ``InMemorySaver``. ``None`` outside a graph run."""
    try:
        configurable = get_config().get("configurable") or {}
    except RuntimeError:  # not inside a run
        return None
    # LangGraph passes the run's checkpointer (None without one) to its nodes under this
    # key (langgraph._internal._constants.CONFIG_KEY_CHECKPOINTER); outside a graph run
    # (a plain LangChain runnable) it is absent
    if _CHECKPOINTER_KEY not in configurable:
        return None
    saver = configurable[_CHECKPOINTER_KEY]
    return saver is None or isinstance(saver, InMemorySaver)

