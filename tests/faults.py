"""A store that fails or lies on cue: the fault injection the fault tests share.

It wraps a real store (the code under test runs unchanged on top of it) and
raises ``OSError`` for the operations a test picks, or hands back the bytes a
test plants, the way a full disk, a flaky network volume or a damaged file would.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from contextlib import AbstractContextManager

from ctxmgr.autocontext.offload import INDEX_SUFFIX
from ctxmgr.store import InMemoryStore, Namespace, Store

__all__ = ["FaultyStore", "enospc"]

Pick = Callable[[str, int], bool]
"""(key, how many of that operation ran before) -> fail this one?"""


def enospc(key: str = "") -> OSError:
    return OSError(errno.ENOSPC, "No space left on device", key or None)


class FaultyStore(Store):
    """``inner`` (default: in memory) with faults: ``fail_put``/``fail_get``/``fail_delete``
    pick the calls that raise ``error`` (ENOSPC by default); ``planted`` maps keys to
    what ``get`` returns instead of the stored bytes.

    The search indexes saved beside offloaded ranges (keys ending ``.search``) are
    written, read and deleted past the faults and the counts, unless ``index_faults``:
    a pick then numbers the calls for messages and memos alone, as it did before there
    were indexes, and the index's own faults are tested where they are meant."""

    def __init__(self, inner: Store | None = None, *, fail_put: Pick | None = None,
                 fail_get: Pick | None = None, fail_delete: Pick | None = None,
                 planted: dict[str, object] | None = None,
                 error: Callable[[str], BaseException] = enospc,
                 index_faults: bool = False) -> None:
        self.inner = inner if inner is not None else InMemoryStore()
        self.index_faults = index_faults
        self.fail_put, self.fail_get, self.fail_delete = fail_put, fail_get, fail_delete
        self.planted = dict(planted or {})
        self.error = error
        self.puts = self.gets = self.deletes = 0

    def _past(self, key: str) -> bool:
        return not self.index_faults and key.endswith(INDEX_SUFFIX)

    def get(self, namespace: Namespace, key: str) -> bytes | None:
        if self._past(key):
            return self.inner.get(namespace, key)
        n, self.gets = self.gets, self.gets + 1
        if self.fail_get is not None and self.fail_get(key, n):
            raise self.error(key)
        if key in self.planted:
            return self.planted[key]  # type: ignore[return-value]
        return self.inner.get(namespace, key)

    def put(self, namespace: Namespace, key: str, data: bytes) -> None:
        if self._past(key):
            self.inner.put(namespace, key, data)
            return
        n, self.puts = self.puts, self.puts + 1
        if self.fail_put is not None and self.fail_put(key, n):
            raise self.error(key)
        self.inner.put(namespace, key, data)

    def delete(self, namespace: Namespace, key: str) -> bool:
        if self._past(key):
            return self.inner.delete(namespace, key)
        n, self.deletes = self.deletes, self.deletes + 1
        if self.fail_delete is not None and self.fail_delete(key, n):
            raise self.error(key)
        return self.inner.delete(namespace, key)

    def keys(self, namespace: Namespace) -> list[str]:
        return self.inner.keys(namespace)

    def lock(self, namespace: Namespace) -> AbstractContextManager[None]:
        return self.inner.lock(namespace)
