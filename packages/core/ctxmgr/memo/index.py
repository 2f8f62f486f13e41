"""``index.json``: one entry per memo (key, summary, size, times), newest-updated first.

The memo files are the truth; the index adds what a file cannot hold (the
summary, the times). Loading reconciles the two: a crash between writing a
memo and its index, or an index damaged by hand, an unlucky disk or a hostile
neighbour, costs at most the summaries that cannot be read back. Damage is
reported (:attr:`Index.problems`), never raised: entries that still parse are
kept, a value that does not is replaced, and the damaged bytes are kept aside
(``index.damaged-<time>.json``) before the next write replaces them.
"""

from __future__ import annotations

import errno
import json
import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ctxmgr.memo.keys import validate_memo_key
from ctxmgr.store.base import Namespace, Store

__all__ = ["INDEX_KEY", "Index", "MemoInfo", "find_entry", "load_index", "now", "save_index"]

logger = logging.getLogger(__name__)

INDEX_KEY = "index.json"
UNINDEXED = "(not in index.json)"
"""The summary of a memo file that the index does not list."""
LOST = "(summary lost: index.json is damaged)"
_SALVAGE_LIMIT = 4 << 20  # characters of a broken index searched for entries that still parse
_ENTRY_START = re.compile(r'\{\s*"key"\s*:')
# What a store reports when something other than a file stands where index.json should be
# (a link, a FIFO, a device: see FileStore.get): damage to replace, unlike a failing read.
_NOT_A_FILE = frozenset({errno.ELOOP, errno.EINVAL})


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoInfo:
    """One memo's index entry."""

    key: str
    summary: str
    size: int
    """Characters of content."""
    created: str
    """ISO 8601, UTC."""
    updated: str

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "summary": self.summary, "size": self.size,
                "created": self.created, "updated": self.updated}


@dataclass(frozen=True, slots=True, kw_only=True)
class Index:
    """The index as loaded: entries reconciled with the memo files, and what was wrong."""

    entries: list[MemoInfo]
    problems: tuple[str, ...] = ()
    """One line per kind of damage found, for the log and the tool result."""
    damaged: bytes | None = None
    """The index bytes when they did not parse whole: kept aside before a rewrite."""
    read_error: OSError | None = None
    """Why ``index.json`` could not be read, when the store failed (not when a link,
    FIFO or device stood in its place): rewriting it then would lose its summaries."""


def now() -> str:
    """The current time as the index writes it (ISO 8601, UTC, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def load_index(store: Store, namespace: Namespace) -> Index:
    """The index, newest-updated first, reconciled with the memo files present.

    Raises:
        StoreError: the store cannot list the session folder (a damaged or
            unreadable ``index.json`` is reported in ``problems`` instead).
    """
    files = {k[:-3]: k for k in store.keys(namespace) if k.endswith(".md")}
    problems: list[str] = []
    damaged: bytes | None = None
    read_error: OSError | None = None
    try:
        raw = store.get(namespace, INDEX_KEY)
    except OSError as exc:
        raw = None
        read_error = None if exc.errno in _NOT_A_FILE else exc
        problems.append(f"index.json cannot be read ({exc}); memos are listed from their files")
    entries: list[MemoInfo] = []
    if raw is not None:
        entries, problem = _parse(raw)
        if problem is not None:
            problems.append(f"index.json is damaged ({problem}); entries that could not be "
                            "read back are listed from their memo files")
            damaged = raw
    # A crash between writing a memo and its index leaves them out of step: trust the files.
    kept: list[MemoInfo] = []
    seen: set[str] = set()
    for e in entries:
        if e.key in files and e.key.lower() not in seen:
            seen.add(e.key.lower())
            kept.append(e if e.size >= 0 else _with_size(e, _file_size(store, namespace, e.key)))
    for key in sorted(k for k in files if k.lower() not in seen):
        seen.add(key.lower())
        kept.append(MemoInfo(key=key, summary=UNINDEXED, size=_file_size(store, namespace, key),
                             created="", updated=""))
    for problem in problems:
        logger.warning("memo session %s of project %s: %s", namespace.session,
                       namespace.project, problem)
    return Index(entries=kept, problems=tuple(problems), damaged=damaged, read_error=read_error)


def save_index(store: Store, namespace: Namespace, entries: list[MemoInfo]) -> None:
    data = {"version": 1, "memos": [e.to_dict() for e in entries]}
    store.put(namespace, INDEX_KEY, json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8"))


def keep_damaged(store: Store, namespace: Namespace, damaged: bytes) -> str:
    """Save a damaged index under ``index.damaged-<UTC time>.json``; returns that key."""
    key = f"index.damaged-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%fZ')}.json"
    store.put(namespace, key, damaged)
    logger.warning("memo session %s of project %s: the damaged index.json is kept as %s",
                   namespace.session, namespace.project, key)
    return key


def find_entry(entries: list[MemoInfo], key: str) -> int | None:
    """The position of ``key``'s entry, ignoring case, or ``None``."""
    # Keys differing only in case would share a file on macOS and Windows: one memo.
    folded = key.lower()
    return next((i for i, e in enumerate(entries) if e.key.lower() == folded), None)


# --- reading damaged data ---------------------------------------------------------------------


def _parse(raw: bytes) -> tuple[list[MemoInfo], str | None]:
    """The entries ``raw`` holds, and what was wrong with it (``None``: nothing)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _salvage(raw.decode("utf-8", "replace")), "it is not UTF-8"
    try:
        data = json.loads(text)
    except RecursionError:
        return [], "it is nested too deeply"
    except ValueError as exc:  # JSONDecodeError, or an integer too long to convert
        return _salvage(text), f"it is not valid JSON: {str(exc)[:80]}"
    memos = data.get("memos") if isinstance(data, dict) else None
    if not isinstance(memos, list):
        return [], "it holds no list of memos"
    entries = [_entry(e) for e in memos]
    good = [e for e, ok in entries if e is not None and ok]
    bad = len(entries) - len(good)
    return ([e for e, _ in entries if e is not None],
            f"{bad} of its {len(entries)} entries are malformed" if bad else None)


def _salvage(text: str) -> list[MemoInfo]:
    """The entries of a broken index that still parse one by one."""
    decoder = json.JSONDecoder()
    text = text[:_SALVAGE_LIMIT]
    found: list[MemoInfo] = []
    for match in _ENTRY_START.finditer(text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except (ValueError, RecursionError):
            continue
        entry, ok = _entry(value)
        if entry is not None and ok:
            found.append(entry)
    return found


def _entry(value: object) -> tuple[MemoInfo | None, bool]:
    """An index entry read defensively: ``(None, False)`` without a valid key, else the
    entry with every unreadable field replaced (size ``-1``: count it from the file) and
    whether every field was sound."""
    if not isinstance(value, dict):
        return None, False
    key = value.get("key")
    try:
        validate_memo_key(key)
    except ValueError:
        return None, False
    assert isinstance(key, str)
    summary, size = value.get("summary"), value.get("size")
    created, updated = value.get("created"), value.get("updated")
    sound_size = isinstance(size, int) and not isinstance(size, bool) and size >= 0
    ok = (isinstance(summary, str) and sound_size and isinstance(created, str)
          and isinstance(updated, str))
    return MemoInfo(key=key, summary=summary if isinstance(summary, str) else LOST,
                    size=size if sound_size else -1,  # type: ignore[arg-type]
                    created=created if isinstance(created, str) else "",
                    updated=updated if isinstance(updated, str) else ""), ok


def _with_size(entry: MemoInfo, size: int) -> MemoInfo:
    return MemoInfo(key=entry.key, summary=entry.summary, size=size, created=entry.created,
                    updated=entry.updated)


def _file_size(store: Store, namespace: Namespace, key: str) -> int:
    """Characters in a memo file (0 when it cannot be read: reading it reports why)."""
    try:
        blob = store.get(namespace, f"{key}.md")
    except OSError:
        return 0
    return len((blob or b"").decode("utf-8", "replace"))
