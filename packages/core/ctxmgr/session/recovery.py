"""``context_reload`` and ``context_search`` for a session: one room rule, pages that
line up, and one scope.

The room an answer may take and the paging are the rules of
:mod:`ctxmgr.autocontext.reload`; what a session adds is memory across calls.
The page size a range's first answer had is kept in the session state
(``reload_pages``), and every later page of that range is cut to it, however full
the prompt is by then: page N starts where page N-1 ended, and following the
pages gives back the range byte for byte.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ctxmgr.autocontext.hidden import Passage
from ctxmgr.autocontext.processor import ContextProcessor
from ctxmgr.autocontext.reload import (
    answer_reload,
    reload_floor,
    reload_room,
    render_reloaded,
)
from ctxmgr.autocontext.search import handle_search_call
from ctxmgr.errors import CtxmgrError
from ctxmgr.memo.store import MemoStore
from ctxmgr.messages import Message, ToolResultBlock
from ctxmgr.session.state import SessionState, ToolAnswer

__all__ = ["memo_passages", "reload_answer", "search_answer"]

logger = logging.getLogger(__name__)


def reload_answer(processor: ContextProcessor, tool_input: Any, *, state: SessionState,
                  used_tokens: int) -> ToolAnswer:
    """Answer one ``context_reload`` call of the session ``processor`` serves.

    Args:
        tool_input: the call's arguments (never raises on them).
        state: the session state (its ``reload_pages``).
        used_tokens: the prompt as it stands, counted by ``processor.counter``, with
            what is sent beside the history.
    """
    answer = answer_reload(processor.offload, tool_input, counter=processor.counter,
                           reload_room=reload_room(processor.config, used_tokens),
                           page_tokens=state.reload_pages)
    if answer.uuid is None or answer.page_tokens is None or answer.uuid in state.reload_pages:
        return ToolAnswer(text=answer.text)
    return ToolAnswer(text=answer.text, update={"reload_pages": {answer.uuid: answer.page_tokens}})


def search_answer(processor: ContextProcessor, tool_input: Any, *, state: SessionState,
                  view: Sequence[Message], used_tokens: int,
                  memos: MemoStore | None = None) -> ToolAnswer:
    """Answer one ``context_search`` call of the session ``processor`` serves.

    Args:
        tool_input: the call's arguments (never raises on them).
        state: the session state (its stand-ins, archive and ``reload_pages``).
        view: the working view (:meth:`ContextProcessor.view`); archived results are
            read from it, where the originals stay.
        used_tokens: the prompt as it stands (see :func:`reload_answer`).
        memos: the session's memos, when the memo tool is on.
    """
    extra = [*_archived(view, state), *memo_passages(memos)]
    answer = handle_search_call(processor.hidden, tool_input, view=view,
                                room=reload_room(processor.config, used_tokens),
                                page_size=reload_floor(processor.config),
                                counter=processor.counter, page_tokens=state.reload_pages,
                                extra=extra)
    if not answer.page_tokens:
        return ToolAnswer(text=answer.text)
    # the pages the answer named stay those pages when the range is reloaded
    return ToolAnswer(text=answer.text, update={"reload_pages": dict(answer.page_tokens)})


def _archived(history: Sequence[Message], state: SessionState) -> list[Passage]:
    """The originals of the archived tool results (the history keeps them)."""
    if not state.archive.entries:
        return []
    wanted = {(e.message_id, e.tool_use_id) for e in state.archive.entries}
    out = []
    for m in history:
        for b in m.content:
            if isinstance(b, ToolResultBlock) and (m.id, b.tool_use_id) in wanted:
                text = render_reloaded([Message(role=m.role, content=(b,), id=m.id)])
                out.append(Passage(text=text, source=f"archived:{b.tool_use_id}",
                                   label=f"tool result id={b.tool_use_id}"))
    return out


def memo_passages(memos: MemoStore | None) -> list[Passage]:
    """Each memo's content (a memo the store cannot give is left out)."""
    if memos is None:
        return []
    out = []
    try:
        for info, content in memos.contents():
            if content:
                out.append(Passage(text=content, source=f"memo:{info.key}",
                                   label=f"memo: {info.summary}"))
    except (CtxmgrError, OSError) as exc:
        logger.warning("context_search could not read the memos: %s", exc)
    return out
