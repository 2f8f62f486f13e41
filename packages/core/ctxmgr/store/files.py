"""The default store: one file per blob under ``CTXMGR_HOME``, no server needed.

Layout: ``<root>/projects/<project>/<kind>/<session>/<key>``, so memos (kind
``"notes"``) land at SPEC §4.2's ``<home>/projects/<project-dir>/notes/<session>/``.
Every path part is a validated label (see ``ctxmgr.store.base``), so no namespace
or key can reach outside the root; and since a folder or file below the root may
have been replaced by a link (a careless copy, a hostile neighbour), every
operation checks that its folder resolves to where it should and opens files
without following links, so nothing is read or written outside the root, and
no FIFO or device is opened. (A race that swaps a folder for a link between
the check and the write is not covered: guard the root's permissions.)
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ctxmgr._atomic import write_atomic
from ctxmgr.errors import StoreError
from ctxmgr.store.advisory_lock import check_lock_timeout
from ctxmgr.store.base import Namespace, Store
from ctxmgr.store.file_locks import held

if TYPE_CHECKING:
    import filelock

__all__ = ["FileStore", "project_dir_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_MAX_LABEL = 200
_HASH_CHARS = 12
_STALE_TEMP_S = 3600.0  # a temp file this old has no live writer, whoever made it
_SWEEP_EVERY_S = 600.0  # how often one FileStore looks for abandoned temp files in a folder
# No link is followed and no FIFO waited on: a reader must never leave the store or hang.
_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def project_dir_name(path: str | Path | None = None) -> str:
    """The folder name that stands for a working directory: readable, and unique to it.

    Args:
        path: the working directory; defaults to ``Path.cwd()``. Relative paths
            are made absolute first.

    Returns:
        The absolute path with every character outside ``[A-Za-z0-9._-]`` replaced
        by ``-``, then ``-`` and 12 hex digits of the path's SHA-256
        (``/work/main`` -> ``-work-main-<hash>``). The hash keeps paths that read
        alike apart (``/x/pa/b``, ``/x/pa-b``, ``/x/pa b`` and ``/x/paéb`` would
        otherwise share one folder, and so one project's memos); long names keep
        a prefix, so the result is always a valid ``Namespace`` label.
    """
    absolute = os.path.abspath(os.fspath(Path.cwd() if path is None else path))
    digest = hashlib.sha256(absolute.encode("utf-8", "surrogatepass")).hexdigest()
    readable = _UNSAFE.sub("-", absolute)[: _MAX_LABEL - _HASH_CHARS - 1]
    return f"{readable}-{digest[:_HASH_CHARS]}"


class FileStore(Store):
    """Blobs as files, written atomically (temp file, fsync, rename).

    Safe across threads and processes: a reader sees the old blob or the new
    one. Files are created with mode 0600 (``ctxmgr._atomic.write_atomic``), as memos and
    offloads may hold private data. On case-insensitive file systems keys that
    differ only in case share a file.

    :meth:`lock` is an OS file lock (``flock`` on POSIX, through the
    ``filelock`` library) on ``.~<session>.lock`` beside the namespace's folder
    (so the folder holds only blobs), so writers in other processes and threads
    exclude each other; the OS drops it when a holder dies.

    Args:
        root: the folder to store under; defaults to ``$CTXMGR_HOME`` or
            ``~/.ctxmgr``, read once here and made absolute, so a later
            ``chdir`` or environment change does not move the store.
        lock_timeout_s: how long :meth:`lock` waits for another holder before
            it raises :class:`~ctxmgr.errors.StoreError` (a stuck writer never
            hangs this one).
    """

    def __init__(self, root: str | Path | None = None, *, lock_timeout_s: float = 10.0) -> None:
        if root is None:
            root = os.environ.get("CTXMGR_HOME") or Path.home() / ".ctxmgr"
        self._root = Path(root).expanduser().absolute()
        self._lock_timeout_s = check_lock_timeout(lock_timeout_s)
        self._file_locks: dict[Path, filelock.BaseFileLock] = {}
        self._file_locks_guard = threading.Lock()
        self._swept: dict[Path, float] = {}  # folder -> when its temp files were last checked

    @property
    def root(self) -> Path:
        return self._root

    def __repr__(self) -> str:
        return f"FileStore(root={str(self._root)!r})"

    def folder(self, namespace: Namespace) -> Path:
        """The folder holding the namespace's blobs (it may not exist yet)."""
        return self._root / "projects" / namespace.project / namespace.kind / namespace.session

    def path(self, namespace: Namespace, key: str) -> Path:
        """The file that holds (or would hold) the blob."""
        return self.folder(namespace) / self.check_key(key)

    def _checked(self, folder: Path, action: str, target: Path) -> None:
        """Refuse ``folder`` (below the root) when a link makes it resolve elsewhere."""
        expected = os.path.join(os.path.realpath(self._root), folder.relative_to(self._root))
        actual = os.path.realpath(folder)
        if actual != expected:
            raise StoreError(errno.ELOOP, f"cannot {action} {target}: a symbolic link below "
                                          f"the store root leads to {actual}; FileStore never "
                                          "follows links below its root")

    def get(self, namespace: Namespace, key: str) -> bytes | None:
        """The blob, or ``None``; a link, FIFO, device or folder in its place is refused
        (:class:`~ctxmgr.errors.StoreError`), as FileStore writes only regular files."""
        path = self.path(namespace, key)
        self._checked(path.parent, "read", path)
        return self._read(path)

    def get_many(self, namespace: Namespace, keys: Sequence[str]) -> dict[str, bytes | None]:
        """:meth:`get` of each key, the folder checked for links once for all of them
        (a search reads every range's index at once)."""
        folder = self.folder(namespace)
        paths = {key: folder / self.check_key(key) for key in keys}
        if paths:
            self._checked(folder, "read", folder)
        return {key: self._read(path) for key, path in paths.items()}

    def _read(self, path: Path) -> bytes | None:
        try:
            fd = os.open(path, _READ_FLAGS)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise StoreError(exc.errno, f"cannot read {path}: it is a symbolic link, "
                                            "which FileStore never follows") from exc
            raise _store_error("read", path, exc) from exc
        try:
            with os.fdopen(fd, "rb") as file:
                if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                    raise StoreError(errno.EINVAL, f"cannot read {path}: it is not a regular "
                                                   "file (a folder, FIFO or device)")
                return file.read()
        except StoreError:
            raise
        except OSError as exc:
            raise _store_error("read", path, exc) from exc

    def put(self, namespace: Namespace, key: str, data: bytes) -> None:
        path = self.path(namespace, key)
        self._checked(path.parent, "write", path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._checked(path.parent, "write", path)  # again: mkdir may have met a link
            self._sweep(path.parent)
            # "~" is not allowed in keys, so keys() never lists a temp file, even one left
            # behind by a writer killed between write and rename; the pid in its name lets
            # a later writer see that it was abandoned and remove it.
            write_atomic(path, data, temp_prefix=f".~{key}.{os.getpid()}.", private=True)
        except OSError as exc:
            raise _store_error("write", path, exc) from exc

    def delete(self, namespace: Namespace, key: str) -> bool:
        path = self.path(namespace, key)
        self._checked(path.parent, "delete", path)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise _store_error("delete", path, exc) from exc
        return True

    def _sweep(self, folder: Path) -> None:
        """Remove temp files that writers killed mid-write left in ``folder`` (best effort;
        at most every ten minutes per folder and store object)."""
        now = time.monotonic()
        with self._file_locks_guard:
            last = self._swept.get(folder)
            if last is not None and now - last < _SWEEP_EVERY_S:
                return
            self._swept[folder] = now
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith(".~") and entry.name.endswith(".tmp") \
                        and _abandoned(entry):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)

    @contextlib.contextmanager
    def lock(self, namespace: Namespace) -> Iterator[None]:
        folder = self.folder(namespace)
        # "~" is not allowed in labels: the lock file is never taken for a session folder.
        path = folder.parent / f".~{namespace.session}.lock"
        self._checked(folder, "lock", path)
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _store_error("lock", path, exc) from exc
        self._checked(folder, "lock", path)
        import filelock  # on the first lock, not at ``import ctxmgr``

        with self._file_locks_guard:
            # One object per file: filelock is reentrant per object and thread, and
            # two threads holding their own contexts still exclude each other (flock).
            file_lock = self._file_locks.setdefault(
                path, filelock.FileLock(path, timeout=self._lock_timeout_s, mode=0o600))
        with held(file_lock, self._lock_timeout_s):
            yield

    def keys(self, namespace: Namespace) -> list[str]:
        """Every key in the namespace, sorted; links, FIFOs and folders are not keys."""
        folder = self.folder(namespace)
        self._checked(folder, "list", folder)
        try:
            with os.scandir(folder) as entries:
                return sorted(e.name for e in entries
                              if self.is_valid_key(e.name) and e.is_file(follow_symlinks=False))
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise _store_error("list", folder, exc) from exc

    def namespaces(self, *, project: str | None = None) -> list[Namespace]:
        """Every namespace with a folder in the store (of one ``project`` if given), sorted
        by project, kind and session, as ``LangGraphStore.namespaces`` lists its own.
        Folders whose names are not labels, and links, are left out."""
        projects = self._root / "projects"
        if project is not None:
            Namespace(project, "-", "-")  # a clear error for a bad label, now
        found: list[Namespace] = []
        for p in [project] if project is not None else self._subfolders(projects):
            for kind in self._subfolders(projects / p):
                found.extend(Namespace(p, session, kind)
                             for session in self._subfolders(projects / p / kind))
        return sorted(found, key=lambda n: (n.project, n.kind, n.session))

    def _subfolders(self, folder: Path) -> list[str]:
        """The names of ``folder``'s sub-folders that are valid labels (no links)."""
        try:
            with os.scandir(folder) as entries:
                return sorted(e.name for e in entries
                              if self.is_valid_key(e.name) and e.is_dir(follow_symlinks=False))
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            raise _store_error("list", folder, exc) from exc


def _abandoned(entry: os.DirEntry[str]) -> bool:
    """Whether a temp file ``.~<key>.<pid>.<random>.tmp`` has no writer any more: its
    process is gone (POSIX, same host), or it is over an hour old."""
    parts = entry.name[: -len(".tmp")].rsplit(".", 2)
    pid = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None
    if pid is not None and pid != os.getpid() and os.name == "posix" and not _alive(pid):
        return True
    return time.time() - entry.stat(follow_symlinks=False).st_mtime > _STALE_TEMP_S


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists (POSIX)
    except ProcessLookupError:
        return False
    except OSError:  # it exists but belongs to someone else
        return True
    return True


def _store_error(action: str, path: Path, exc: OSError) -> StoreError:
    # (errno, strerror) keeps .errno for handlers and prints "[Errno N] cannot ...";
    # no filename argument, as OSError would then print the path a second time.
    message = f"cannot {action} {path}: {exc.strerror or exc}"
    return StoreError(message) if exc.errno is None else StoreError(exc.errno, message)
