"""MemoStore: the memos of one session, on any store (the developer API, which raises)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxmgr.errors import ConfigError, HalfWrittenMemoError, MemoWriteError, StoreError
from ctxmgr.memo.index import (
    Index,
    MemoInfo,
    find_entry,
    keep_damaged,
    load_index,
    now,
    save_index,
)
from ctxmgr.memo.keys import validate_memo_key
from ctxmgr.memo.placeholder import PLACEHOLDER_MARKER, contains_placeholder
from ctxmgr.memo.tool import MAX_SUMMARY_CHARS, MemoCallResult, run_memo_call
from ctxmgr.store.base import Namespace, Store

if TYPE_CHECKING:
    from ctxmgr.settings import Settings

__all__ = ["DEFAULT_MAX_MEMOS", "MEMO_KIND", "MemoStore", "memo_sessions"]

logger = logging.getLogger(__name__)

MEMO_KIND = "notes"
"""The store kind memos live under (``.../projects/<project>/notes/<session>/``)."""
DEFAULT_MAX_MEMOS = 50


def memo_sessions(root: str | Path, project: str) -> list[str]:
    """Sessions of ``project`` that have a memo folder under a FileStore ``root``, sorted.

    Raises:
        ConfigError: ``project`` is not a valid folder name (the same rule as a session's).
        StoreError: the project's memo folder cannot be listed, or a link leads out of it.
    """
    from ctxmgr.store.files import FileStore

    store = FileStore(root)
    # Any session name does: the check is the project's, and the folder is its parent.
    folder = store.folder(Namespace(project=project, session="-", kind=MEMO_KIND)).parent
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries
                     if e.is_dir(follow_symlinks=False) and Store.is_valid_key(e.name)]
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StoreError(exc.errno, f"cannot list {folder}: {exc.strerror or exc}") from exc
    return sorted(n for n in names if _lists(store, Namespace(project, n, MEMO_KIND)))


def _lists(store: Store, namespace: Namespace) -> bool:
    try:
        store.keys(namespace)
    except StoreError:  # a link leads out of the store: not a session of this project
        return False
    return True


class MemoStore:
    """The memos of one session, on any :class:`~ctxmgr.store.Store`.

    Args:
        store: where memos live; defaults to ``FileStore()`` (``$CTXMGR_HOME``
            or ``~/.ctxmgr``).
        session: the session id (a folder name: 1-200 of ``[A-Za-z0-9._-]``).
        project: the project folder name; defaults to ``project_dir_name()``
            of the working directory at construction.
        max_memos: memos allowed per session; a write of a new key beyond it
            is refused.

    Raises:
        ConfigError: an invalid session, project or ``max_memos``.
    """

    def __init__(
        self,
        store: Store | None = None,
        *,
        session: str = "default",
        project: str | None = None,
        max_memos: int = DEFAULT_MAX_MEMOS,
    ) -> None:
        from ctxmgr.store.files import FileStore, project_dir_name

        if isinstance(max_memos, bool) or not isinstance(max_memos, int) or max_memos < 1:
            raise ConfigError(f"max_memos must be an int >= 1, got {max_memos!r}")
        self.store: Store = FileStore() if store is None else store
        self.namespace = Namespace(project=project if project is not None else project_dir_name(),
                                   session=session, kind=MEMO_KIND)
        self.max_memos = max_memos

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        session: str = "default",
        project: str | None = None,
        store: Store | None = None,
        max_memos: int = DEFAULT_MAX_MEMOS,
    ) -> MemoStore:
        """A store under ``settings.home`` (unless ``store`` is given)."""
        from ctxmgr.store.files import FileStore

        return cls(store if store is not None else FileStore(settings.home), session=session,
                   project=project, max_memos=max_memos)

    def __repr__(self) -> str:
        ns = self.namespace
        return f"MemoStore({self.store!r}, project={ns.project!r}, session={ns.session!r})"

    # --- developer API (raises) --------------------------------------------------------

    def list_memos(self) -> list[MemoInfo]:
        """Every memo of the session, most recently updated first.

        Reads take no lock (every file is replaced atomically): a memo being
        written at that moment may show as not yet in the index. A damaged
        ``index.json`` is logged as a warning and the memos are listed from
        their files.
        """
        return self._index().entries

    def info(self, key: str) -> MemoInfo | None:
        """The index entry of ``key``, or ``None``."""
        validate_memo_key(key)
        entries = self._index().entries
        i = find_entry(entries, key)
        return None if i is None else entries[i]

    def read(self, key: str) -> str | None:
        """The content saved under ``key``, or ``None``.

        A memo file that does not match its index entry (truncated, edited
        outside ctxmgr, not UTF-8) is read as far as it goes, with a warning in
        the log; undecodable bytes become U+FFFD.
        """
        found = self._read(key)
        return None if found is None else found[1]

    def _index(self) -> Index:
        return load_index(self.store, self.namespace)

    def _index_to_rewrite(self) -> Index:
        """The index, for a write that replaces it: refused while the store cannot read
        it, since rewriting it from the memo files would drop every summary."""
        index = self._index()
        if index.read_error is not None:
            raise StoreError(index.read_error.errno,
                             f"cannot update index.json: {index.read_error}")
        return index

    def _read(self, key: str) -> tuple[MemoInfo, str, str | None] | None:
        """The entry, the content and what looks damaged about the file (or ``None``)."""
        info = self.info(key)
        if info is None:
            return None
        blob = self.store.get(self.namespace, f"{info.key}.md")
        if blob is None:
            return None
        warning = None
        try:
            content = blob.decode("utf-8")
        except UnicodeDecodeError:
            content = blob.decode("utf-8", "replace")
            warning = ("the memo file is not valid UTF-8 (it was changed outside ctxmgr); "
                       "bytes that could not be decoded are shown as \ufffd")
        if warning is None and len(content) != info.size:
            warning = (f"the memo file holds {len(content)} chars but index.json recorded "
                       f"{info.size}; it may have been truncated or edited outside ctxmgr")
        if warning is not None:
            logger.warning("memo %r in %s: %s", info.key, self.namespace, warning)
        return info, content, warning

    def write(self, key: str, content: str, summary: str) -> tuple[MemoInfo, bool]:
        """Save ``content`` under ``key``; returns the entry and whether it overwrote one.

        Raises:
            InvalidMemoKeyError: an unsafe key.
            MemoWriteError: a summary outside 1-300 characters, empty content,
                content holding the placeholder, or a new key past ``max_memos``.
            StoreError: the store could not write; the memo is as it was.
            HalfWrittenMemoError: (a ``StoreError``) the memo file changed but its
                index entry could not be written nor the file restored; the
                message says what is on disk.
        """
        validate_memo_key(key)
        if not isinstance(summary, str) or not summary.strip():
            raise MemoWriteError("summary is required: one line (1-300 characters) saying "
                                 "what the memo holds")
        summary = summary.strip()
        if len(summary) > MAX_SUMMARY_CHARS:
            raise MemoWriteError(f"summary is {len(summary)} characters; keep it to "
                                 f"{MAX_SUMMARY_CHARS} or fewer and put the detail in content")
        if not isinstance(content, str) or not content.strip():
            raise MemoWriteError("content is empty; send the full text to save as content")
        if contains_placeholder(content):
            raise MemoWriteError(
                f"content is (or contains) the placeholder {PLACEHOLDER_MARKER!r}, which only "
                "stands for a memo already saved on disk; it is not real content. Send the "
                "real text you want to save as content (memo read shows a saved memo)")
        # The store's lock spans reading the index and writing it back, so writers in
        # other threads and processes neither lose each other's entries nor pass the cap.
        try:
            with self.store.lock(self.namespace):
                info, old = self._write_locked(key, content, summary)
        except StoreError:
            raise
        except OSError as exc:  # a store that raises plain OSError: one error type for callers
            raise StoreError(exc.errno, f"memo store failed: {exc}") from exc
        logger.info("memo %r saved (%d chars) in %s", info.key, info.size, self.namespace)
        return info, old is not None

    def _write_locked(self, key: str, content: str,
                      summary: str) -> tuple[MemoInfo, MemoInfo | None]:
        index = self._index_to_rewrite()
        entries = index.entries
        i = find_entry(entries, key)
        if i is None and len(entries) >= self.max_memos:
            raise MemoWriteError(
                f"this session already has {len(entries)} memos, the maximum of "
                f"{self.max_memos}. Delete memos that are stale (see memo list; then "
                "memo delete key=\"...\") or overwrite an existing key, and write again")
        stamp = now()
        old = None if i is None else entries.pop(i)
        info = MemoInfo(key=old.key if old else key, summary=summary, size=len(content),
                        created=old.created if old and old.created else stamp, updated=stamp)
        file = f"{info.key}.md"
        previous = self.store.get(self.namespace, file) if old else None  # to roll back to
        if index.damaged is not None:  # the rewrite below replaces it: keep it first
            keep_damaged(self.store, self.namespace, index.damaged)
        # the memo first: a crash before the index is written is repaired by load_index
        self.store.put(self.namespace, file, content.encode("utf-8"))
        try:
            save_index(self.store, self.namespace, [info, *entries])
        except OSError as exc:
            self._roll_back(info, previous, exc)
            raise
        return info, old

    def _roll_back(self, info: MemoInfo, previous: bytes | None, cause: OSError) -> None:
        """Put the memo file back as it was after its index entry could not be written;
        when that fails too, raise an error that says what is on disk."""
        file = f"{info.key}.md"
        try:
            if previous is None:
                self.store.delete(self.namespace, file)
            else:
                self.store.put(self.namespace, file, previous)
        except OSError as undo:
            raise HalfWrittenMemoError(
                f"memo {info.key!r} is only half written: {file} holds the new content "
                f"({info.size} chars) but index.json could not be updated ({cause}), and "
                f"restoring the previous content failed too ({undo}); memo list shows "
                "the old summary and size (or none) until the memo is written again",
            ) from cause

    def delete(self, key: str) -> bool:
        """Remove the memo; ``True`` when there was one.

        The memo file goes first: once it is gone the memo is deleted, even when
        the index cannot be updated (reading the index skips entries without a file).
        """
        validate_memo_key(key)
        with self.store.lock(self.namespace):
            index = self._index_to_rewrite()
            entries = index.entries
            i = find_entry(entries, key)
            if i is None:
                return False
            info = entries.pop(i)
            if index.damaged is not None:
                keep_damaged(self.store, self.namespace, index.damaged)
            self.store.delete(self.namespace, f"{info.key}.md")
            try:
                save_index(self.store, self.namespace, entries)
            except OSError as exc:
                logger.warning("memo %r deleted from %s, but index.json could not be updated "
                               "(%s); it is repaired on the next write", info.key,
                               self.namespace, exc)
        logger.info("memo %r deleted from %s", info.key, self.namespace)
        return True

    # --- the tool (never raises on the model's input) ---------------------------------

    def handle_memo_call(self, tool_input: Any) -> str:
        """Run one memo tool call; the tool result for the model. Never raises on its input."""
        return run_memo_call(self, tool_input).text

    def run_memo_call(self, tool_input: Any) -> MemoCallResult:
        """Run one memo tool call. Never raises on the model's input.

        Args:
            tool_input: the call's arguments, as a dict or as its JSON text.

        Returns:
            The tool result text, whether the call succeeded, and after a
            successful write the placeholder for :func:`elide_memo_content`.
        """
        return run_memo_call(self, tool_input)
