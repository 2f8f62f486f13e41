"""A dict-backed store: no I/O, so tests and short-lived agents need no disk."""

from __future__ import annotations

import threading

from ctxmgr.store.base import Namespace, Store

__all__ = ["InMemoryStore"]


class InMemoryStore(Store):
    """Blobs in a dict guarded by a lock; gone when the process ends."""

    def __init__(self) -> None:
        self._blobs: dict[Namespace, dict[str, bytes]] = {}
        self._lock = threading.Lock()

    def get(self, namespace: Namespace, key: str) -> bytes | None:
        self.check_key(key)
        with self._lock:
            return self._blobs.get(namespace, {}).get(key)

    def put(self, namespace: Namespace, key: str, data: bytes) -> None:
        self.check_key(key)
        # memoryview rejects str and int (bytes(5) would store five zero bytes) and
        # the copy keeps a caller's later edits to a bytearray out of the store.
        blob = bytes(memoryview(data))
        with self._lock:
            self._blobs.setdefault(namespace, {})[key] = blob

    def delete(self, namespace: Namespace, key: str) -> bool:
        self.check_key(key)
        with self._lock:
            blobs = self._blobs.get(namespace)
            if blobs is None or key not in blobs:
                return False
            del blobs[key]
            if not blobs:
                del self._blobs[namespace]
            return True

    def keys(self, namespace: Namespace) -> list[str]:
        with self._lock:
            return sorted(self._blobs.get(namespace, ()))
