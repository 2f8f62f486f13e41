"""``context_reload`` for a session: one room rule, and pages that line up.

The room an answer may take and the paging are the rules of
:mod:`ctxmgr.autocontext.reload`; what a session adds is memory across calls.
The page size a range's first answer had is kept in the session state
(``reload_pages``), and every later page of that range is cut to it, however full
the prompt is by then: page N starts where page N-1 ended, and following the
pages gives back the range byte for byte.
"""

from __future__ import annotations

from typing import Any

from ctxmgr.autocontext.processor import ContextProcessor
from ctxmgr.autocontext.reload import answer_reload, reload_room
from ctxmgr.session.state import SessionState, ToolAnswer

__all__ = ["reload_answer"]


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
