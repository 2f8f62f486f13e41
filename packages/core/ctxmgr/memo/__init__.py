"""Memos: the model offloads its own notes to disk and recalls them later.

A memo is Markdown under a key, one per file (``<key>.md``), with its index entry
(summary, size, times) in a key of its own beside it (``<key>.entry.json``), in the
session's ``notes`` folder of a :class:`~ctxmgr.store.Store` (with the default
:class:`~ctxmgr.store.FileStore`:
``<CTXMGR_HOME or ~/.ctxmgr>/projects/<project-dir>/notes/<session>/``). One key per
entry means writers in different processes never overwrite each other's entries,
even on a store whose lock covers one process only. Sessions written by earlier
versions keep every entry in one ``index.json``, which is still read, never written.

One module per job: ``keys`` (the key rule), ``placeholder`` (what stands for a
saved memo in the history, and the guard against writing it back), ``entry`` (one
memo's entry key), ``legacy`` (the old ``index.json``), ``index`` (the entries
reconciled with the memo files), ``store`` (:class:`MemoStore`, the developer API) and
``tool`` (the tool schema and its handler).

An adapter needs two calls::

    result = memos.run_memo_call(tool_input)          # the tool; result.text for the model
    if result.placeholder:                            # a write succeeded
        messages = elide_memo_content(messages, tool_use_id, result.placeholder)
"""

from __future__ import annotations

from ctxmgr.memo.entry import MemoInfo
from ctxmgr.memo.keys import MAX_KEY_CHARS, validate_memo_key
from ctxmgr.memo.placeholder import (
    PLACEHOLDER_MARKER,
    contains_placeholder,
    elide_memo_content,
    memo_placeholder,
)
from ctxmgr.memo.store import (
    DEFAULT_MAX_MEMOS,
    MEMO_KIND,
    MEMO_WRITES_WITHOUT_SHARED_LOCK,
    MemoStore,
    memo_sessions,
)
from ctxmgr.memo.tool import MAX_SUMMARY_CHARS, MEMO_TOOL, MEMO_TOOL_NAME, MemoCallResult

__all__ = [
    "DEFAULT_MAX_MEMOS",
    "MAX_KEY_CHARS",
    "MAX_SUMMARY_CHARS",
    "MEMO_KIND",
    "MEMO_TOOL",
    "MEMO_TOOL_NAME",
    "MEMO_WRITES_WITHOUT_SHARED_LOCK",
    "PLACEHOLDER_MARKER",
    "MemoCallResult",
    "MemoInfo",
    "MemoStore",
    "contains_placeholder",
    "elide_memo_content",
    "memo_placeholder",
    "memo_sessions",
    "validate_memo_key",
]
