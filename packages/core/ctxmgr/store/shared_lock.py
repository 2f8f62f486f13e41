"""The lock a shared store holds across processes, chosen once, at its first use.

``LangGraphStore`` and ``LlamaIndexKVStore`` lock memo writes with what their backend
offers (an advisory lock on PostgreSQL, lock files beside a SQLite file, nothing
elsewhere). Choosing may open a connection, and many stores are never locked, so the
choice waits for the first :meth:`~ctxmgr.store.Store.lock` and is made once, however
many threads ask at that moment.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol

from ctxmgr.store.base import Namespace

__all__ = ["CrossProcessLock", "SharedLockChoice"]


class CrossProcessLock(Protocol):
    """What :class:`~ctxmgr.store.AdvisoryLock` and :class:`~ctxmgr.store.FileLocks` do."""

    def hold(self, namespace: Namespace) -> AbstractContextManager[None]: ...


class SharedLockChoice:
    """``choose()`` called once, at the first :meth:`get`; its answer every time after.

    ``choose`` returns the backend's cross-process lock, or ``None`` when it has none
    (and says so, if it should: it runs once).
    """

    def __init__(self, choose: Callable[[], CrossProcessLock | None]) -> None:
        self._choose = choose
        self._guard = threading.Lock()
        self._chosen = False
        self._lock: CrossProcessLock | None = None

    def get(self) -> CrossProcessLock | None:
        if not self._chosen:
            with self._guard:
                if not self._chosen:
                    self._lock = self._choose()
                    self._chosen = True
        return self._lock
