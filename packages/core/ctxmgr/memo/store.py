"""MemoStore: the memos of one session, on any store (the developer API, which raises)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from ctxmgr.errors import ConfigError, HalfWrittenMemoError, MemoWriteError, StoreError
from ctxmgr.memo.entry import MemoInfo, encode_entry, entry_key, memo_file, now
from ctxmgr.memo.index import Index, load_index, memo_files
from ctxmgr.memo.keys import validate_memo_key
from ctxmgr.memo.placeholder import PLACEHOLDER_MARKER, contains_placeholder
from ctxmgr.memo.tool import MAX_SUMMARY_CHARS, MemoCallResult, run_memo_call
from ctxmgr.store.base import Namespace, Store

__all__ = ["DEFAULT_MAX_MEMOS", "MEMO_KIND", "MEMO_WRITES_WITHOUT_SHARED_LOCK", "MemoStore",
           "memo_sessions"]

logger = logging.getLogger(__name__)

MEMO_KIND = "notes"
"""The store kind memos live under (``.../projects/<project>/notes/<session>/``)."""
DEFAULT_MAX_MEMOS = 50
MEMO_WRITES_WITHOUT_SHARED_LOCK = (
    "Memo writes from other processes still lose no memo and no summary, but two that write "
    "or delete one memo key at the same moment may leave its content and summary out of "
    "step, and two racing for the last place under the memo cap may both be refused.")
"""What a store whose lock covers one process leaves open to memo writers in several
(for the warning of a store that cannot do better; see docs/guarantees.md)."""


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

    def __repr__(self) -> str:
        ns = self.namespace
        return f"MemoStore({self.store!r}, project={ns.project!r}, session={ns.session!r})"

    # --- developer API (raises) --------------------------------------------------------

    def list_memos(self) -> list[MemoInfo]:
        """Every memo of the session, most recently updated first.

        Reads take no lock (every key is replaced atomically): a memo being
        written at that moment may show without its summary. A damaged entry is
        logged as a warning and its memo listed from its file.
        """
        return self._index().entries

    def info(self, key: str) -> MemoInfo | None:
        """The index entry of ``key``, or ``None``."""
        validate_memo_key(key)
        entries = self._index(key).entries
        return entries[0] if entries else None

    def read(self, key: str) -> str | None:
        """The content saved under ``key``, or ``None``.

        A memo file that does not match its index entry (truncated, edited
        outside ctxmgr, not UTF-8) is read as far as it goes, with a warning in
        the log; undecodable bytes become U+FFFD.
        """
        found = self._read(key)
        return None if found is None else found[1]

    def _index(self, only: str | None = None) -> Index:
        return load_index(self.store, self.namespace, only=only)

    def contents(self) -> list[tuple[MemoInfo, str]]:
        """Every memo with its content, most recently updated first: :meth:`list_memos`
        and :meth:`read` of each, with the session listed once (one read per memo, not
        three: on a remote store each is a round trip)."""
        out = []
        for info in self.list_memos():
            found = self._content(info)
            if found is not None:
                out.append((info, found[0]))
        return out

    def _read(self, key: str) -> tuple[MemoInfo, str, str | None] | None:
        """The entry, the content and what looks damaged about the file (or ``None``)."""
        info = self.info(key)
        if info is None:
            return None
        found = self._content(info)
        return None if found is None else (info, *found)

    def _content(self, info: MemoInfo) -> tuple[str, str | None] | None:
        """The content of ``info``'s memo and what looks damaged about its file (``None``:
        no file)."""
        blob = self.store.get(self.namespace, memo_file(info.key))
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
            warning = (f"the memo file holds {len(content)} chars but its index entry recorded "
                       f"{info.size}; it may have been truncated or edited outside ctxmgr")
        if warning is not None:
            logger.warning("memo %r in %s: %s", info.key, self.namespace, warning)
        return content, warning

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
        # A write touches only this memo's keys, so no writer can lose another's entry. The
        # lock keeps the cap exact and same-key writes whole where it spans processes;
        # elsewhere a re-count after the write keeps the cap (see _over_cap).
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
        index = self._index(key)
        if index.read_error is not None:
            raise StoreError(index.read_error.errno,
                             f"cannot read the index entry of memo {key!r}: {index.read_error}")
        old = index.entries[0] if index.entries else None
        if old is None and index.total >= self.max_memos:
            raise self._full(index.total)
        stamp = now()
        info = MemoInfo(key=old.key if old else key, summary=summary, size=len(content),
                        created=old.created if old and old.created else stamp, updated=stamp)
        file = memo_file(info.key)
        previous = self.store.get(self.namespace, file) if old else None  # to roll back to
        # the memo first: a crash before its entry is written is repaired by load_index
        self.store.put(self.namespace, file, content.encode("utf-8"))
        try:
            self.store.put(self.namespace, entry_key(info.key), encode_entry(info))
        except OSError as exc:
            self._roll_back(info, previous, exc)
            raise
        if old is None and (total := self._over_cap()) is not None:
            self._back_out(info, total)
            raise self._full(total - 1)
        return info, old

    def _over_cap(self) -> int | None:
        """The memos now in the session if they are more than ``max_memos``, else ``None``.

        Under a lock that spans every writer this never finds more. Where the store's lock
        covers one process only, writers in others may each have found a free place and
        written: every writer re-counts after writing and backs out when the count is over,
        so the last to count sees all that stayed and the cap holds (two writers racing for
        the last place may both back out). A failing count keeps the memo, with a warning.
        """
        try:
            total = len(memo_files(self.store.keys(self.namespace)))
        except OSError as exc:
            logger.warning("memo session %s: cannot re-count its memos after a write (%s); "
                           "the cap is not checked again", self.namespace, exc)
            return None
        return total if total > self.max_memos else None

    def _full(self, total: int) -> MemoWriteError:
        return MemoWriteError(
            f"this session already has {total} memos, the maximum of {self.max_memos}. Delete "
            "memos that are stale (see memo list; then memo delete key=\"...\") or overwrite "
            "an existing key, and write again")

    def _roll_back(self, info: MemoInfo, previous: bytes | None, cause: OSError) -> None:
        """Put the memo file back as it was after its index entry could not be written;
        when that fails too, raise an error that says what is on disk."""
        file = memo_file(info.key)
        try:
            if previous is None:
                self.store.delete(self.namespace, file)
            else:
                self.store.put(self.namespace, file, previous)
        except OSError as undo:
            raise HalfWrittenMemoError(
                f"memo {info.key!r} is only half written: {file} holds the new content "
                f"({info.size} chars) but its index entry could not be written ({cause}), and "
                f"restoring the previous content failed too ({undo}); memo list shows the old "
                "summary and size (or none) until the memo is written again",
            ) from cause

    def _back_out(self, info: MemoInfo, total: int) -> None:
        """Remove a new memo that took the session past its cap; when that fails, raise an
        error that says it stayed."""
        try:
            self.store.delete(self.namespace, memo_file(info.key))
        except OSError as exc:
            raise HalfWrittenMemoError(
                f"memo {info.key!r} was saved as writers elsewhere filled the session past "
                f"its cap of {self.max_memos} memos, and removing it again failed ({exc}); "
                f"the session holds {total} memos until one is deleted",
            ) from exc
        self._forget_entry(info.key)

    def _forget_entry(self, key: str) -> None:
        """Remove a memo's entry once its file is gone; one left behind is never listed
        (an entry without its file is ignored) and the next write of the key replaces it."""
        try:
            self.store.delete(self.namespace, entry_key(key))
        except OSError as exc:
            logger.warning("memo %r removed from %s, but its index entry could not be "
                           "(%s); it is ignored without its file", key, self.namespace, exc)

    def delete(self, key: str) -> bool:
        """Remove the memo; ``True`` when there was one.

        The memo file goes first: once it is gone the memo is deleted, even when
        its entry cannot be removed (the index skips entries without a file).
        """
        validate_memo_key(key)
        with self.store.lock(self.namespace):
            found = memo_files(self.store.keys(self.namespace)).get(key.lower())
            if found is None:
                return False
            self.store.delete(self.namespace, memo_file(found))
            self._forget_entry(found)
        logger.info("memo %r deleted from %s", found, self.namespace)
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
