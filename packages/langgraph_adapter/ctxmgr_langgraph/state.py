"""ctxmgr's channel in the graph state: one plain-JSON dict under the ``ctxmgr`` key.

It holds the session state (:mod:`ctxmgr.session.state`: the compression record,
the archive, memo elisions, calibration, page sizes of reloads), next to
``messages``; its reducer is the core's :func:`~ctxmgr.session.merge_session_state`,
which merges updates key by key and applies the change lists that tools running in
parallel in one step send. Only lists, dicts, strings, numbers and ``None``, so any
checkpointer serialises it without registering a type.
"""

from __future__ import annotations

from ctxmgr.session import merge_session_state

__all__ = ["CONTEXT_KEY", "merge_context_state"]

CONTEXT_KEY = "ctxmgr"
"""The state key of ctxmgr's dict in every schema this package defines."""

merge_context_state = merge_session_state
"""The reducer of the ``ctxmgr`` key (:func:`ctxmgr.session.merge_session_state`)."""
