"""``index.json``: where earlier versions kept every memo's entry, now only read.

Sessions written before entries had keys of their own (:mod:`ctxmgr.memo.entry`) hold
one ``index.json`` listing them all, newest-updated first. It is read for the memos that
have no entry key yet, and never written: rewriting it from several processes is what
lost entries. A damaged one costs at most the summaries that cannot be read back: the
entries that still parse, alone or one by one, are kept.
"""

from __future__ import annotations

import json
import re

from ctxmgr.memo.entry import MemoInfo, entry_from

__all__ = ["LEGACY_INDEX_KEY", "parse_legacy_index"]

LEGACY_INDEX_KEY = "index.json"
_SALVAGE_LIMIT = 4 << 20  # characters of a broken index searched for entries that still parse
_ENTRY_START = re.compile(r'\{\s*"key"\s*:')


def parse_legacy_index(raw: bytes) -> tuple[list[MemoInfo], str | None]:
    """The entries ``raw`` holds, newest-updated first, and what was wrong with it
    (``None``: nothing)."""
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
    entries = [entry_from(e) for e in memos]
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
        entry, ok = entry_from(value)
        if entry is not None and ok:
            found.append(entry)
    return found
