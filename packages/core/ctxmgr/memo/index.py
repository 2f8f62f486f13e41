"""``index.json``: one entry per memo (key, summary, size, times), newest-updated first.

The memo files are the truth; the index adds what a file cannot hold (the
summary, the times). A crash between writing a memo and its index leaves them
out of step, so loading reconciles the index with the files present.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ctxmgr.store.base import Namespace, Store

__all__ = ["INDEX_KEY", "MemoInfo", "find_entry", "load_index", "now", "save_index"]

logger = logging.getLogger(__name__)

INDEX_KEY = "index.json"


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


def now() -> str:
    """The current time as the index writes it (ISO 8601, UTC, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def load_index(store: Store, namespace: Namespace) -> list[MemoInfo]:
    """The index, newest-updated first, reconciled with the memo files present."""
    files = {k[:-3]: k for k in store.keys(namespace) if k.endswith(".md")}
    raw = store.get(namespace, INDEX_KEY)
    entries: list[MemoInfo] = []
    if raw is not None:
        try:
            data = json.loads(raw.decode("utf-8"))
            for e in data.get("memos", []):
                entries.append(MemoInfo(key=str(e["key"]), summary=str(e["summary"]),
                                        size=int(e["size"]), created=str(e["created"]),
                                        updated=str(e["updated"])))
        except (ValueError, TypeError, KeyError, AttributeError):
            logger.warning("memo index %s/%s is unreadable; rebuilding it from the memo "
                           "files", namespace, INDEX_KEY)
            entries = []
    # A crash between writing a memo and its index leaves them out of step: trust the files.
    entries = [e for e in entries if e.key in files]
    known = {e.key for e in entries}
    for key in sorted(files.keys() - known):
        blob = store.get(namespace, files[key]) or b""
        entries.append(MemoInfo(key=key, summary="(not in index.json)",
                                size=len(blob.decode("utf-8", "replace")), created="",
                                updated=""))
    return entries


def save_index(store: Store, namespace: Namespace, entries: list[MemoInfo]) -> None:
    data = {"version": 1, "memos": [e.to_dict() for e in entries]}
    store.put(namespace, INDEX_KEY, json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8"))


def find_entry(entries: list[MemoInfo], key: str) -> int | None:
    """The position of ``key``'s entry, ignoring case, or ``None``."""
    # Keys differing only in case would share a file on macOS and Windows: one memo.
    folded = key.lower()
    return next((i for i, e in enumerate(entries) if e.key.lower() == folded), None)
