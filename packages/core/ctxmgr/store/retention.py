"""Retention: what a session stored goes when the session goes.

A session's offloads (kind ``offload``) and memos (kind ``notes``) are worth keeping
exactly as long as its history: a stand-in in the history needs its original, and
nothing else does. Two ways to let them go:

* :func:`delete_session` removes every blob of one session from any store (what the
  adapters' ``delete_thread`` calls, beside the framework's own checkpointer delete),
  and of the sessions of the agents registered under it
  (:func:`register_agent_session`: a subagent's, a swarm member's);
* :func:`prune_file_store` removes, from a :class:`~ctxmgr.store.FileStore` folder, the
  sessions nothing was written to for a while (``ctxmgr prune --older-than``).
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from ctxmgr.store.base import Namespace, Store
from ctxmgr.store.files import FileStore

__all__ = ["AGENTS_KIND", "SESSION_KINDS", "PruneReport", "delete_session", "prune_file_store",
           "register_agent_session"]

AGENTS_KIND = "agents"
"""Where a thread's session lists the sessions of its agents (one key per agent label)."""
SESSION_KINDS: tuple[str, ...] = ("offload", "notes", AGENTS_KIND)
"""The kinds a session writes: offloaded originals, memos (``MEMO_KIND``), its agents."""


def register_agent_session(store: Store, *, project: str, session: str, agent: str) -> None:
    """Note in ``session`` (a thread's) that the session labelled ``agent`` is one of its
    agents', so deleting the thread deletes it too (written once; idempotent).

    Raises:
        StoreError: the store failed.
    """
    namespace = Namespace(project=project, session=session, kind=AGENTS_KIND)
    if store.get(namespace, agent) is None:
        store.put(namespace, agent, b"{}")


def delete_session(store: Store, *, project: str, session: str) -> int:
    """Remove every offload and memo of one session, and of the sessions of the agents
    registered under it; the number of blobs removed.

    Memos are removed under the store's lock, so a memo write racing the delete
    finishes before it or after it, never half way.

    Raises:
        ConfigError: ``project`` or ``session`` is not a valid label.
        StoreError: the store failed (what was removed before stays removed).
    """
    removed = 0
    agents = Namespace(project=project, session=session, kind=AGENTS_KIND)
    for agent in store.keys(agents):
        if agent != session:
            removed += delete_session(store, project=project, session=agent)
    for kind in SESSION_KINDS:
        namespace = Namespace(project=project, session=session, kind=kind)
        if store.keys(namespace):  # else nothing to lock for (a FileStore lock makes a file)
            with store.lock(namespace):
                for key in store.keys(namespace):
                    removed += store.delete(namespace, key)
        if isinstance(store, FileStore):  # the empty folder too (the lock file stays)
            with contextlib.suppress(OSError):
                store.folder(namespace).rmdir()
    return removed


@dataclass(frozen=True, slots=True, kw_only=True)
class PruneReport:
    """What :func:`prune_file_store` removed (or would remove, on a dry run)."""

    sessions: tuple[tuple[str, str], ...]
    """``(project, session)`` of every session pruned, sorted."""
    files: int
    bytes: int


def prune_file_store(root: str | os.PathLike[str], *, older_than_s: float,
                     now: float | None = None, dry_run: bool = False) -> PruneReport:
    """Remove the sessions of a FileStore folder that nothing was written to for
    ``older_than_s`` seconds: all their offloads and memos, their folders and lock files.

    A session is judged whole, by the newest of its files and folders across kinds, so a
    live session never loses its old offloads. Links are removed, never followed.

    Args:
        root: the store's root (``CTXMGR_HOME``).
        older_than_s: idle time, in seconds, past which a session goes.
        now: the time to measure from (default: now).
        dry_run: report only; remove nothing.

    Raises:
        OSError: the projects folder cannot be listed.
    """
    cutoff = (time.time() if now is None else now) - older_than_s
    projects = Path(root).expanduser().absolute() / "projects"
    pruned: list[tuple[str, str]] = []
    files = size = 0
    for project in _folders(projects):
        sessions: dict[str, list[Path]] = {}  # session -> its paths in every kind
        for kind in _folders(project):
            with os.scandir(kind) as entries:
                for entry in entries:
                    name = _session_of(entry)
                    if name is not None:
                        sessions.setdefault(name, []).append(Path(entry.path))
        for session, paths in sorted(sessions.items()):
            contents = [c for p in paths if _is_folder(p) for c in _files(p)]
            if max(_stat(p)[0] for p in (*paths, *contents)) >= cutoff:
                continue
            pruned.append((project.name, session))
            files += len(contents)
            size += sum(_stat(c)[1] for c in contents)
            if not dry_run:
                _remove(paths, contents)
        if not dry_run:
            for kind in _folders(project):
                with contextlib.suppress(OSError):
                    kind.rmdir()
            with contextlib.suppress(OSError):
                project.rmdir()
    return PruneReport(sessions=tuple(sorted(pruned)), files=files, bytes=size)


def _folders(parent: Path) -> list[Path]:
    """Sub-folders of ``parent`` with label names (links are not folders here)."""
    try:
        with os.scandir(parent) as entries:
            return sorted(Path(e.path) for e in entries
                          if e.is_dir(follow_symlinks=False) and Store.is_valid_key(e.name))
    except FileNotFoundError:
        return []


def _session_of(entry: os.DirEntry[str]) -> str | None:
    """The session a kind folder's entry belongs to: its folder, or its lock file."""
    name = entry.name
    if name.startswith(".~") and name.endswith(".lock"):
        name = name[2:-5]
        return name if Store.is_valid_key(name) and entry.is_file(follow_symlinks=False) \
            else None
    return name if Store.is_valid_key(name) and entry.is_dir(follow_symlinks=False) else None


def _is_folder(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def _files(folder: Path) -> list[Path]:
    """What a session folder holds: files and links (FileStore makes no sub-folders)."""
    with os.scandir(folder) as entries:
        return [Path(e.path) for e in entries if not e.is_dir(follow_symlinks=False)]


def _stat(path: Path) -> tuple[float, int]:
    """(mtime, size) of ``path`` itself, not of what a link points at."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return 0.0, 0
    return st.st_mtime, st.st_size


def _remove(paths: list[Path], contents: list[Path]) -> None:
    for path in contents:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    for path in paths:  # a folder still holding something unexpected stays
        with contextlib.suppress(OSError):
            path.rmdir() if _is_folder(path) else path.unlink()
