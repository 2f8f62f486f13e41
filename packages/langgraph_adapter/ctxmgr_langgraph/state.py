"""ctxmgr's own graph state: one plain-JSON dict under the ``ctxmgr`` key, and its reducer.

Everything a checkpoint must carry for ctxmgr lives in this dict, next to
``messages``: the compression record of the working view (the stand-ins, not
the originals, which are in the offload store), the archived tool results, the
memo writes whose ``content`` the model sees elided, and the token-count
calibration. Only lists, dicts, strings, numbers and ``None``, so any
checkpointer serialises it without registering a type.

The reducer merges updates key by key. Tools that run in parallel in one step
send *changes* (``archive_add`` / ``archive_remove`` / ``memos_add``) rather than
whole values, so two archive calls in one step both count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "CONTEXT_KEY",
    "archive_changes",
    "merge_context_state",
]

CONTEXT_KEY = "ctxmgr"
"""The state key of ctxmgr's dict in every schema this package defines."""

_DELTAS = ("archive_add", "archive_remove", "memos_add")
_MERGED = ("reload_pages",)
"""Keys whose dict value is merged key by key (an update adds entries)."""
MAX_RELOAD_PAGES = 100
"""Page sizes kept for ranges being reloaded (the oldest are dropped)."""


def _archive_key(entry: Mapping[str, Any]) -> tuple[Any, Any]:
    return entry.get("tool_use_id"), entry.get("message_id")


def merge_context_state(left: Mapping[str, Any] | None,
                        right: Mapping[str, Any] | None) -> dict[str, Any]:
    """The reducer of the ``ctxmgr`` key: ``right`` is an update of ``left``.

    A key of ``right`` replaces the same key of ``left`` (``reload_pages``, the page
    size of each range being reloaded, is merged instead), except three change lists
    that are applied and not stored: ``archive_add`` (entries to add to the archive,
    replacing one with the same tool_use_id and message id), ``archive_remove``
    (entries to drop) and ``memos_add`` (memo elisions to add). ``None`` for a key
    removes it.
    """
    out: dict[str, Any] = dict(left or {})
    if not right:
        return out
    for key, value in right.items():
        if key in _DELTAS:
            continue
        if key in _MERGED and isinstance(value, Mapping):
            merged = {**(out.get(key) or {}), **value}
            out[key] = dict(list(merged.items())[-MAX_RELOAD_PAGES:])
        elif value is None:
            out.pop(key, None)
        else:
            out[key] = value
    removed = {_archive_key(e) for e in right.get("archive_remove") or ()}
    added = list(right.get("archive_add") or ())
    if removed or added:
        archive = dict(out.get("archive") or {"version": 1, "archived": []})
        replaced = removed | {_archive_key(e) for e in added}
        archive["archived"] = [e for e in archive.get("archived", [])
                               if _archive_key(e) not in replaced] + added
        out["archive"] = archive
    if memos := right.get("memos_add"):
        out["memos"] = [*(out.get("memos") or []), *memos]
    return out


def archive_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The update that turns archive state ``before`` into ``after`` (both ``to_dict`` form),
    as changes, so that parallel archive calls in one step do not overwrite each other."""
    old = {_archive_key(e): e for e in before.get("archived", [])}
    new = {_archive_key(e): e for e in after.get("archived", [])}
    update: dict[str, Any] = {}
    if added := [e for k, e in new.items() if old.get(k) != e]:
        update["archive_add"] = added
    if removed := [e for k, e in old.items() if k not in new]:
        update["archive_remove"] = removed
    return update
