"""One memo's index entry, in a store key of its own beside the memo file.

A session holds ``<key>.md`` (the content) and ``<key>.entry.json`` (summary, size,
times) per memo. Each writer writes only its own memo's entry, so writers in processes
that no lock spans cannot overwrite each other's entries, as they did when one
``index.json`` held them all (see :mod:`ctxmgr.memo.legacy`).

The names cannot collide: a memo file ends in ``.md`` and an entry in ``.entry.json``,
so neither is ever the other, nor ``index.json``; and ``<key>`` + suffix is one to one,
so a memo named ``x.entry`` (``x.entry.md``, ``x.entry.entry.json``) stays apart from
``x`` (``x.md``, ``x.entry.json``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ctxmgr.memo.keys import validate_memo_key

__all__ = ["ENTRY_SUFFIX", "LOST", "MEMO_SUFFIX", "MemoInfo", "decode_entry", "encode_entry",
           "entry_from", "entry_key", "memo_file", "memo_key_of", "now"]

MEMO_SUFFIX = ".md"
ENTRY_SUFFIX = ".entry.json"
LOST = "(summary lost: its index entry is damaged)"


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
    """The current time as entries record it (ISO 8601, UTC, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def memo_file(key: str) -> str:
    """The store key of a memo's content."""
    return key + MEMO_SUFFIX


def entry_key(key: str) -> str:
    """The store key of a memo's index entry."""
    return key + ENTRY_SUFFIX


def memo_key_of(store_key: str, suffix: str) -> str | None:
    """The memo key a store key of that kind (``MEMO_SUFFIX`` or ``ENTRY_SUFFIX``) belongs
    to, or ``None`` for any other key (``index.json``, a file put there by hand)."""
    if not store_key.endswith(suffix):
        return None
    key = store_key[: -len(suffix)]
    try:
        return validate_memo_key(key)
    except ValueError:
        return None


def encode_entry(info: MemoInfo) -> bytes:
    # written_ns orders entries written within one second (updated counts seconds)
    value = {**info.to_dict(), "written_ns": time.time_ns()}
    return json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8")


def decode_entry(raw: bytes, key: str) -> tuple[MemoInfo | None, int, str | None]:
    """The entry ``raw`` holds for memo ``key`` (``None`` when nothing could be read back),
    when it was written (``written_ns``, 0 if unknown), and what was wrong (``None``:
    nothing). The key comes from the store key, whatever the entry says."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, 0, "it is not UTF-8"
    except RecursionError:
        return None, 0, "it is nested too deeply"
    except ValueError as exc:  # JSONDecodeError, or an integer too long to convert
        return None, 0, f"it is not valid JSON: {str(exc)[:80]}"
    if not isinstance(value, dict):
        return None, 0, "it is not a JSON object"
    info, ok = entry_from({**value, "key": key})
    stamp = value.get("written_ns")
    stamp = stamp if isinstance(stamp, int) and not isinstance(stamp, bool) else 0
    return info, stamp, None if ok else "some of its fields are malformed"


def entry_from(value: object) -> tuple[MemoInfo | None, bool]:
    """An entry read defensively: ``(None, False)`` without a valid key, else the entry
    with every unreadable field replaced (size ``-1``: count it from the file) and
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
