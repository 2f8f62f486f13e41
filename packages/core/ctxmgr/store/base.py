"""The storage contract shared by offloads, memos and adapters' stores.

A store holds small byte blobs under ``(namespace, key)``. A namespace is
``(project, session, kind)``: ``kind`` separates what is stored ("offload",
"notes", …) so one store serves every mechanism of one agent session. Only
four operations are required, so a backend (files, SQLite, a LangGraph
``BaseStore``) is a few dozen lines. A fifth, :meth:`Store.lock`, serialises
read-modify-write sequences (a memo write counts the session's memos against the
cap, then writes); its default covers the threads of one process, and a backend
that processes share overrides it.
"""

from __future__ import annotations

import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from ctxmgr.errors import ConfigError

__all__ = ["Namespace", "Store", "process_lock", "process_then_shared_lock"]

_Token = TypeVar("_Token")

_LABEL = re.compile(r"[A-Za-z0-9._-]{1,200}")


def _is_label(value: object) -> bool:
    # fullmatch, not match + "$": "$" also matches before a trailing newline.
    return isinstance(value, str) and value not in (".", "..") and bool(_LABEL.fullmatch(value))


@dataclass(frozen=True, slots=True)
class Namespace:
    """Where a blob lives: ``project`` / ``session`` / ``kind``.

    Each label must be 1–200 characters of ``[A-Za-z0-9._-]`` and not ``.`` or
    ``..``, so that it is safe as a folder name on any backend.
    """

    project: str
    session: str
    kind: str

    def __post_init__(self) -> None:
        for name in ("project", "session", "kind"):
            value = getattr(self, name)
            if not _is_label(value):
                raise ConfigError(
                    f"namespace {name} must be 1-200 characters of letters, digits, '.', '_' "
                    f"or '-' (and not '.' or '..'), got {value!r}"
                )


class Store(ABC):
    """Byte blobs by namespace and key. Keys obey the same rule as namespace labels."""

    batches_writes: bool = False
    """:meth:`put_many` writes in one round trip (an offload's blob and its search index
    go together); ``False``: they are written one by one."""

    @abstractmethod
    def get(self, namespace: Namespace, key: str) -> bytes | None:
        """The blob, or ``None`` when there is none."""

    @abstractmethod
    def put(self, namespace: Namespace, key: str, data: bytes) -> None:
        """Store ``data`` atomically: a reader sees the old blob or the new one, never a mix."""

    @abstractmethod
    def delete(self, namespace: Namespace, key: str) -> bool:
        """Remove the blob; ``True`` when there was one."""

    @abstractmethod
    def keys(self, namespace: Namespace) -> list[str]:
        """Every key in the namespace, sorted."""

    def get_many(self, namespace: Namespace, keys: Sequence[str]) -> dict[str, bytes | None]:
        """The blob of each of ``keys`` (``None``: none), as :meth:`get` gives it. A
        remote store reads them in one round trip where it can (the memo index reads
        one entry per memo); the default reads them one by one.

        Raises:
            OSError: any of them cannot be read (read them one by one to know which).
        """
        return {key: self.get(namespace, key) for key in keys}

    def put_many(self, namespace: Namespace, items: Mapping[str, bytes]) -> None:
        """:meth:`put` of each of ``items`` (key -> data). A remote store writes them in
        one round trip where it can (an offload's blob and its search index); the default
        writes them one by one.

        Raises:
            OSError: any of them may not be written (write them one by one to know which).
        """
        for key, data in items.items():
            self.put(namespace, key, data)

    def lock(self, namespace: Namespace) -> AbstractContextManager[None]:
        """Hold off other writers of ``namespace`` while a read-modify-write runs.

        Reentrant within a thread. The default excludes the threads of this
        process only; a backend that several processes share must override it
        (:class:`~ctxmgr.store.FileStore` locks a file in the namespace's folder).

        Raises:
            StoreError: the lock could not be taken.
        """
        return process_lock(namespace)

    @staticmethod
    def is_valid_key(key: object) -> bool:
        """Whether ``key`` obeys the key rule (backends use it to skip foreign entries)."""
        return _is_label(key)

    @staticmethod
    def check_key(key: str) -> str:
        """Validate a key (same rule as namespace labels) and return it."""
        if not _is_label(key):
            raise ConfigError(
                "store keys must be 1-200 characters of letters, digits, '.', '_' or '-' "
                f"(and not '.' or '..'), got {key!r}"
            )
        return key

    def get_json(self, namespace: Namespace, key: str) -> Any:
        """The blob decoded as UTF-8 JSON, or ``None`` when there is none.

        Raises:
            json.JSONDecodeError: the blob is not valid JSON (a ``ValueError``).
        """
        data = self.get(namespace, key)
        return None if data is None else json.loads(data)

    def put_json(self, namespace: Namespace, key: str, value: Any) -> None:
        """Store ``value`` as indented UTF-8 JSON (readable on disk, e.g. ``index.json``)."""
        self.put(namespace, key, json.dumps(value, ensure_ascii=False, indent=2).encode())


_PROCESS_LOCKS: dict[Namespace, threading.RLock] = {}
_PROCESS_LOCKS_GUARD = threading.Lock()


@contextmanager
def process_then_shared_lock(namespace: Namespace, held: dict[Namespace, int],
                             acquire: Callable[[Namespace], _Token],
                             release: Callable[[_Token, Namespace], None]) -> Iterator[None]:
    """Hold ``namespace`` against this process's threads (:func:`process_lock`), then
    against other processes with ``acquire`` / ``release``, once per outermost hold: a
    thread that holds it already holds it again at no cost. ``held`` counts the depth per
    namespace (changed only by the thread holding it)."""
    with process_lock(namespace):  # threads of this process first, one at a time
        depth = held.get(namespace, 0)
        token = None if depth else acquire(namespace)
        held[namespace] = depth + 1
        try:
            yield
        finally:
            if depth:
                held[namespace] = depth
            else:
                del held[namespace]
                release(token, namespace)  # type: ignore[arg-type]  # acquired above


@contextmanager
def process_lock(namespace: Namespace) -> Iterator[None]:
    """Hold ``namespace`` against the other threads of this process (reentrant): the
    default :meth:`Store.lock`, and the first step of a lock that spans processes."""
    # One lock per namespace for the whole process: two store objects over the same
    # data (two InMemoryStore views of one dict are not possible, but two FileStores
    # are) must exclude each other, and a namespace costs one small object.
    with _PROCESS_LOCKS_GUARD:
        lock = _PROCESS_LOCKS.setdefault(namespace, threading.RLock())
    with lock:
        yield
