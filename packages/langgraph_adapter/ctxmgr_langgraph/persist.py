"""Compressions persisted LangGraph's way: an update of ``messages`` for ``add_messages``.

The stand-in of a range keeps the id of the range's first message, so it replaces
that message in place; the rest of the range goes by ``RemoveMessage``. Once
persisted, the compressed prefix is the state itself, byte-identical on every
later call until the next compression, so the provider's prompt cache stays warm.

An edit is persisted only when the reducer can apply it exactly: every message it
names is in the state (a request an outer middleware rewrote may hold others), and
the stand-in is written as LangChain messages that replace messages of the range
(one with a new id would be appended at the end). Otherwise it stays view-only, and
the engine keeps the stand-in in ctxmgr's state to apply it again on the next call.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ctxmgr.session.kit import Edit
from ctxmgr_langgraph.history import MessageCache

try:
    from langchain_core.messages import BaseMessage, RemoveMessage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangChain: pip install ".[langgraph]"') from exc

__all__ = ["messages_update", "persistable"]

logger = logging.getLogger(__name__)


def persistable(edit: Edit, cache: MessageCache, state_ids: set[str] | None) -> bool:
    """Whether ``add_messages`` can apply ``edit`` to a state holding ``state_ids``
    (``None``: the history given is the state's)."""
    ids = [i for mid in edit.ids for i in cache.langchain_ids(mid)]
    if state_ids is not None and not state_ids.issuperset(ids):
        return False
    if edit.stand_in is None:
        return True
    return {p.id for p in cache.parts(edit.stand_in)}.issubset(ids)


def messages_update(edits: Sequence[Edit], cache: MessageCache,
                    state_ids: set[str] | None) -> list[BaseMessage]:
    """The ``messages`` update that applies the :func:`persistable` ``edits``."""
    update: list[BaseMessage] = []
    for edit in edits:
        if not persistable(edit, cache, state_ids):
            logger.warning("compression of %d message(s) kept view-only: the state cannot "
                           "take it as same-id replacements and removals", len(edit.ids))
            continue
        ids = [i for mid in edit.ids for i in cache.langchain_ids(mid)]
        stand_in = cache.parts(edit.stand_in) if edit.stand_in is not None else ()
        keep = {p.id for p in stand_in}
        update.extend(RemoveMessage(id=i) for i in ids if i not in keep)
        update.extend(stand_in)
    return update
