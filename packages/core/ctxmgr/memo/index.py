"""The memo index: every memo of a session with its entry, newest-updated first.

The memo files are the truth; entries (:mod:`ctxmgr.memo.entry`) add what a file cannot
hold (the summary, the times). Loading reconciles the two: an entry without its file is
left out (a crash between deleting them), and a memo without an entry key takes its
entry from a legacy ``index.json`` that lists it (:mod:`ctxmgr.memo.legacy`), else is
listed as :data:`UNINDEXED` (a crash between writing them, or a file copied in by hand).
Damage costs at most the fields that cannot be read back; it is reported
(:attr:`Index.problems`), never raised.
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Iterable
from dataclasses import dataclass, replace

from ctxmgr.memo.entry import (
    ENTRY_SUFFIX,
    LOST,
    MEMO_SUFFIX,
    MemoInfo,
    decode_entry,
    entry_key,
    memo_file,
    memo_key_of,
)
from ctxmgr.memo.legacy import LEGACY_INDEX_KEY, parse_legacy_index
from ctxmgr.store.base import Namespace, Store

__all__ = ["UNINDEXED", "Index", "load_index", "memo_files"]

logger = logging.getLogger(__name__)

UNINDEXED = "(no index entry)"
"""The summary of a memo file whose entry is missing or cannot be read."""
# What a store reports when something other than a file stands where an entry should be
# (a link, a FIFO, a device: see FileStore.get): damage, unlike a failing read.
_NOT_A_FILE = frozenset({errno.ELOOP, errno.EINVAL})


@dataclass(frozen=True, slots=True, kw_only=True)
class Index:
    """The index as loaded: entries reconciled with the memo files, and what was wrong."""

    entries: list[MemoInfo]
    total: int
    """Memos in the session (also when ``entries`` holds only the one asked for)."""
    problems: tuple[str, ...] = ()
    """One line per kind of damage found, for the log and the tool result."""
    read_error: OSError | None = None
    """Why an entry (or ``index.json``) could not be read, when the store failed (not
    when a link, FIFO or device stood in its place): a write of that memo would replace
    what the store may still hold (its creation time) with a guess."""


def memo_files(keys: Iterable[str]) -> dict[str, str]:
    """The memo key of each memo file among a session's store keys, by its case-folded
    form: keys differing only in case share a file on macOS and Windows, so they are one
    memo (the first in sorted order stands for it)."""
    files: dict[str, str] = {}
    for name in sorted(keys):
        key = memo_key_of(name, MEMO_SUFFIX)
        if key is not None:
            files.setdefault(key.lower(), key)
    return files


def load_index(store: Store, namespace: Namespace, *, only: str | None = None) -> Index:
    """The index, newest-updated first, reconciled with the memo files present.

    Args:
        only: a memo key: read that memo's entry alone (the others are only counted).

    Raises:
        StoreError: the store cannot list the session folder (damaged or unreadable
            entries are reported in ``problems`` instead).
    """
    keys = store.keys(namespace)
    files = memo_files(keys)
    wanted = list(files.values()) if only is None else \
        [files[f] for f in (only.lower(),) if f in files]
    with_entry = {memo_key_of(k, ENTRY_SUFFIX) for k in keys}
    failed: list[tuple[str, OSError]] = []
    try:  # one round trip on a store that batches; one by one (to know which) on a failure
        read = store.get_many(namespace, [entry_key(k) for k in wanted if k in with_entry])
    except OSError:
        read = {}

    def get(key: str) -> bytes | None:
        if key in read:
            return read[key]
        try:
            return store.get(namespace, key)
        except OSError as exc:
            failed.append((key, exc))
            return None

    ranked: list[tuple[tuple[str, int], MemoInfo]] = []
    unranked: list[MemoInfo] = []
    damaged: dict[str, str] = {}  # store key -> what is wrong with it
    missing: list[str] = []
    for key in wanted:
        if key not in with_entry:
            missing.append(key)
            continue
        raw = get(entry_key(key))
        if raw is None:  # it cannot be read, or went since the listing
            unranked.append(_bare(key, UNINDEXED))
            continue
        info, stamp, problem = decode_entry(raw, key)
        if problem is not None:
            damaged[entry_key(key)] = problem
        if info is None:
            unranked.append(_bare(key, LOST))
        else:
            ranked.append(((info.updated, stamp), info))
    if missing:
        legacy = _legacy_entries(get(LEGACY_INDEX_KEY) if LEGACY_INDEX_KEY in keys else None,
                                 damaged)
        for key in missing:
            found = legacy.get(key.lower())
            if found is None:
                unranked.append(_bare(key, UNINDEXED))
            else:
                position, info = found
                ranked.append(((info.updated, -position), _keyed(info, key)))
    ranked.sort(key=lambda pair: pair[0], reverse=True)
    entries = [_sized(store, namespace, info)
               for info in [*(info for _, info in ranked),
                            *sorted(unranked, key=lambda info: info.key)]]
    problems = _problems(failed, damaged)
    for problem in problems:
        logger.warning("memo session %s of project %s: %s", namespace.session,
                       namespace.project, problem)
    read_error = next((exc for _, exc in failed if exc.errno not in _NOT_A_FILE), None)
    return Index(entries=entries, total=len(files), problems=problems, read_error=read_error)


def _legacy_entries(raw: bytes | None, damaged: dict[str, str]) -> dict[str, tuple[int, MemoInfo]]:
    """The legacy index's entries by case-folded key, with their position (newest first)."""
    if raw is None:
        return {}
    entries, problem = parse_legacy_index(raw)
    if problem is not None:
        damaged[LEGACY_INDEX_KEY] = problem
    found: dict[str, tuple[int, MemoInfo]] = {}
    for position, info in enumerate(entries):
        found.setdefault(info.key.lower(), (position, info))
    return found


def _problems(failed: list[tuple[str, OSError]], damaged: dict[str, str]) -> tuple[str, ...]:
    problems = []
    if failed:
        problems.append(f"{_named([k for k, _ in failed])} cannot be read ({failed[0][1]}); "
                        "the memos they index are listed from their files")
    if damaged:
        first = next(iter(damaged.items()))
        problems.append(f"{_named(list(damaged))} {'is' if len(damaged) == 1 else 'are'} "
                        f"damaged ({first[1]}); what could not be read back is listed from "
                        "the memo files")
    return tuple(problems)


def _named(store_keys: list[str]) -> str:
    shown = ", ".join(store_keys[:3])
    return shown if len(store_keys) <= 3 else f"{shown} and {len(store_keys) - 3} more"


def _bare(key: str, summary: str) -> MemoInfo:
    return MemoInfo(key=key, summary=summary, size=-1, created="", updated="")


def _keyed(info: MemoInfo, key: str) -> MemoInfo:
    """``info`` under its memo file's key (a legacy entry may differ in case)."""
    return replace(info, key=key)


def _sized(store: Store, namespace: Namespace, info: MemoInfo) -> MemoInfo:
    """``info`` with a size, counted from the memo file when its entry lacks one."""
    return info if info.size >= 0 else replace(info, size=_file_size(store, namespace, info.key))


def _file_size(store: Store, namespace: Namespace, key: str) -> int:
    """Characters in a memo file (0 when it cannot be read: reading it reports why)."""
    try:
        blob = store.get(namespace, memo_file(key))
    except OSError:
        return 0
    return len((blob or b"").decode("utf-8", "replace"))
