"""A :meth:`Store.lock <ctxmgr.store.Store.lock>` that spans the processes of one machine:
a lock file per namespace, for stores kept in one database file.

Workers in several processes may share a SQLite database (a LangGraph ``SqliteStore``
opened on one file). The default lock covers the threads of one process only, so two
processes writing memos to one session could each count a free place under the memo cap
and both write, or interleave two writes of one memo's content and index entry. An OS
file lock (``flock`` through
`filelock <https://py-filelock.readthedocs.io>`_, which ctxmgr's own ``FileStore``
uses) excludes every process on the machine and is dropped by the kernel when its holder
dies, so a killed worker never leaves it behind. The lock files live in one folder next
to the database, named by a hash of the namespace (labels may hold any character).

**Turns.** An OS file lock is not fair: a writer that releases and takes it again at
once (a loop of memo writes) can keep a waiting process out until it is done, past any
timeout. :func:`acquire_fairly` takes turns: a waiter leaves its name in a marker file
beside the lock, and a writer that sees another's fresh marker lets it in first, waiting
until the waiter has taken the lock (and removed its marker).
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ctxmgr.errors import StoreError
from ctxmgr.store.advisory_lock import advisory_key, check_lock_timeout
from ctxmgr.store.base import Namespace, process_lock

if TYPE_CHECKING:
    import filelock

__all__ = ["FileLocks", "acquire_fairly", "held"]

_POLL_S = 0.005
_MARKER_REFRESH_S = 0.1
_MARKER_FRESH_S = 0.5
"""A marker older than this is a waiter gone (it refreshes it every
:data:`_MARKER_REFRESH_S`)."""


def acquire_fairly(lock: filelock.BaseFileLock, timeout_s: float) -> None:
    """``lock.acquire()`` within ``timeout_s``, taking turns with waiters in other
    processes and threads (see the module doc); reentrant like the lock.

    Raises:
        filelock.Timeout: another writer held it for ``timeout_s``.
        OSError: the lock file cannot be opened.
    """
    import filelock  # loaded by whoever made ``lock``; not at ``import ctxmgr``

    if lock.is_locked:  # this thread holds it: only the count goes up
        lock.acquire()
        return
    marker = Path(f"{lock.lock_file}.wait")
    me = f"{os.getpid()}:{threading.get_ident()}"
    deadline = time.monotonic() + timeout_s
    # until the waiter has had its turn (its marker gone) or is gone (its marker stale):
    # a pause of fixed length lost the turn whenever the waiter was not scheduled in it
    while _another_waits(marker, me) and time.monotonic() < deadline:
        time.sleep(_POLL_S)
    announced = None
    try:
        while True:
            try:
                lock.acquire(timeout=0)  # one try
                return
            except filelock.Timeout:
                now = time.monotonic()
                if now >= deadline:
                    raise
                if announced is None or now - announced > _MARKER_REFRESH_S:
                    with contextlib.suppress(OSError):
                        marker.write_text(me)
                    announced = now
                time.sleep(_POLL_S)
    finally:
        if announced is not None:
            with contextlib.suppress(OSError):
                if marker.read_text() == me:
                    marker.unlink()


@contextlib.contextmanager
def held(lock: filelock.BaseFileLock, timeout_s: float) -> Iterator[None]:
    """Hold ``lock`` (taken by :func:`acquire_fairly`) for the ``with`` block.

    Raises:
        StoreError: another writer held it for ``timeout_s``, or its file cannot be
            opened (the message names the file).
    """
    import filelock  # loaded by whoever made ``lock``; not at ``import ctxmgr``

    path = lock.lock_file
    try:
        acquire_fairly(lock, timeout_s)
    except filelock.Timeout as exc:
        raise StoreError(errno.EAGAIN, f"cannot lock {path}: another writer has held it "
                                       f"for over {timeout_s:g} s") from exc
    except OSError as exc:
        message = f"cannot lock {path}: {exc.strerror or exc}"
        raise (StoreError(message) if exc.errno is None
               else StoreError(exc.errno, message)) from exc
    try:
        yield
    finally:
        lock.release()


def _another_waits(marker: Path, me: str) -> bool:
    try:
        fresh = time.time() - marker.stat().st_mtime < _MARKER_FRESH_S
        return fresh and marker.read_text() != me
    except OSError:
        return False


class FileLocks:
    """Namespace locks as lock files in ``folder`` (created on first use).

    Args:
        folder: where the lock files go; every store sharing the database must name the
            same folder (:func:`ctxmgr_langgraph.LangGraphStore` uses
            ``<database file>.ctxmgr-locks``).
        scope: what the store's keys are under (its prefix): stores with different
            scopes never wait for each other.
        timeout_s: how long a writer waits for another holder before a
            :class:`~ctxmgr.errors.StoreError`.
    """

    def __init__(self, folder: str | Path, *, scope: str, timeout_s: float = 10.0) -> None:
        self._folder = Path(folder)
        self._scope = scope
        self._timeout_s = check_lock_timeout(timeout_s)
        self._locks: dict[Path, filelock.FileLock] = {}
        self._guard = threading.Lock()

    def __repr__(self) -> str:
        return f"FileLocks({str(self._folder)!r}, scope={self._scope!r})"

    def path(self, namespace: Namespace) -> Path:
        """The lock file of ``namespace``."""
        return self._folder / f"{advisory_key(self._scope, namespace) & (2**64 - 1):016x}.lock"

    @contextlib.contextmanager
    def hold(self, namespace: Namespace) -> Iterator[None]:
        """Hold ``namespace`` against every other process on this machine; reentrant
        within a thread.

        Raises:
            StoreError: the lock could not be taken (timeout, or the folder cannot be
                written).
        """
        path = self.path(namespace)
        with process_lock(namespace):  # threads of this process first, one at a time
            with self._guard:
                lock = self._locks.get(path)
                if lock is None:
                    import filelock  # on the first lock, not at ``import ctxmgr``

                    lock = self._locks[path] = filelock.FileLock(
                        path, timeout=self._timeout_s, mode=0o600)
            try:
                self._folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(exc.errno or errno.EIO,
                                 f"cannot lock {path}: {exc.strerror or exc}") from exc
            with held(lock, self._timeout_s):
                yield
