"""A :meth:`Store.lock <ctxmgr.store.Store.lock>` that spans processes and machines on
Redis: one lock key per namespace, set only if absent and with a lease.

Stores on a Redis that many workers share (a LlamaIndex ``RedisKVStore``, a LangGraph
``RedisStore``) need more than the default lock, which covers the threads of one process
(see :mod:`ctxmgr.store.advisory_lock` for what two unlocked memo writers can do). The
lock is the usual single-instance Redis lock (redis-py's ``Lock``): ``SET key token NX
PX lease``, released by a script that deletes the key only if it still holds the token.
Redis has no session to drop a dead holder's lock with, so each lock has a lease
(``lease_s``, 30 s by default): a worker killed while holding one holds it off no longer
than that. A memo write holds it for a few store calls; a holder slower than its lease
loses it, and the memo cap's re-count after each write still keeps the cap.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
from collections.abc import Iterator
from typing import Any

from ctxmgr.errors import StoreError
from ctxmgr.store.advisory_lock import check_lock_timeout
from ctxmgr.store.base import Namespace, process_then_shared_lock

__all__ = ["RedisLock", "redis_lock_key"]

logger = logging.getLogger(__name__)

DEFAULT_LEASE_S = 30.0
POLL_S = 0.01
"""How often a waiting writer tries the lock again. A writer that writes memo after memo
frees it for a moment between two; at redis-py's default (0.1 s) a waiter could miss
every such moment on a busy machine and give up though no write held it long."""


def redis_lock_key(scope: str, namespace: Namespace) -> str:
    """The Redis key a lock of ``namespace`` is held on (a digest: labels are escaped
    nowhere, and two namespaces sharing a key would only wait for each other)."""
    text = "\x00".join((scope, namespace.project, namespace.kind, namespace.session))
    return f"ctxmgr-lock:{hashlib.sha256(text.encode()).hexdigest()[:32]}"


class RedisLock:
    """Namespace locks as Redis lock keys with a lease.

    Args:
        client: a redis-py ``Redis`` client (sync) on the store's server.
        scope: what the store's keys are under (its prefix): stores with different
            scopes never wait for each other.
        where: names the server in errors (no password).
        timeout_s: how long a writer waits for another holder before a
            :class:`~ctxmgr.errors.StoreError`.
        lease_s: how long a lock outlives a holder that never releases it (a killed
            worker).
    """

    def __init__(self, client: Any, *, scope: str, where: str, timeout_s: float = 10.0,
                 lease_s: float = DEFAULT_LEASE_S) -> None:
        self._client = client
        self._scope = scope
        self._where = where
        self._timeout_s = check_lock_timeout(timeout_s)
        self._lease_s = check_lock_timeout(lease_s)
        self._held: dict[Namespace, int] = {}  # depth, changed only by the thread holding it

    def __repr__(self) -> str:
        return f"RedisLock({self._where}, scope={self._scope!r})"

    @contextlib.contextmanager
    def hold(self, namespace: Namespace) -> Iterator[None]:
        """Hold ``namespace`` against every other holder; reentrant within a thread.

        Raises:
            StoreError: the lock could not be taken (timeout, or Redis failed).
        """
        with process_then_shared_lock(namespace, self._held, self._acquire, self._release):
            yield

    def _acquire(self, namespace: Namespace) -> Any:
        lock = self._client.lock(redis_lock_key(self._scope, namespace), timeout=self._lease_s,
                                 blocking_timeout=self._timeout_s, sleep=POLL_S,
                                 thread_local=False)
        try:
            taken = lock.acquire()
        except Exception as exc:
            raise self._failure("lock", namespace, exc) from exc
        if not taken:
            raise StoreError(errno.EAGAIN, f"cannot lock {self._target(namespace)}: another "
                                           f"writer has held it for over {self._timeout_s:g} s")
        return lock

    def _release(self, lock: Any, namespace: Namespace) -> None:
        try:
            lock.release()
        except Exception as exc:  # what was written under it stands: say so, do not raise
            logger.warning("could not unlock %s (%s); its lease frees it within %g s (if the "
                           "lease ran out first, another writer may have held it too)",
                           self._target(namespace), exc, self._lease_s)

    def _target(self, namespace: Namespace) -> str:
        return (f"{self._where} {self._scope}/{namespace.project}/{namespace.kind}/"
                f"{namespace.session}")

    def _failure(self, action: str, namespace: Namespace, exc: BaseException) -> StoreError:
        text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return StoreError(f"cannot {action} {self._target(namespace)}: {text}")
