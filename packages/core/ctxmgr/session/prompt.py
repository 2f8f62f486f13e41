"""The prompt a session sends: the working view as the model is to see it.

The working view holds the history as compressed, with every original the model
archived and every memo it wrote still whole (the history keeps them). What the
model is sent differs in three ways, each a pure function of the session state,
so consecutive prompts stay byte-identical between compressions:

* an archived tool result shows as its placeholder (:func:`~ctxmgr.render_archived`);
* a written memo's ``content`` argument shows as its placeholder, and so does an
  oversized argument of a call a ctxmgr tool refused (:mod:`ctxmgr.session.refused`);
* ctxmgr's own system messages, the tool guidance and, once anything is
  compressed, the reload hint, go right after the leading system messages.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxmgr.archive import render_archived
from ctxmgr.memo import elide_memo_content
from ctxmgr.messages import Message, TextBlock
from ctxmgr.prompts import after_system, system_prompt_fragment
from ctxmgr.session.refused import elide_refused
from ctxmgr.session.state import MemoElision, SessionState

__all__ = ["GUIDANCE_ID", "after_system", "guidance_message", "render_view"]
# after_system lives with the prompt text (ctxmgr.prompts) so that the compressor, which
# inserts the reload hint, uses the very same rule.

GUIDANCE_ID = "ctxmgr-tool-guidance"
"""Id of the system message that tells the model when to archive and to write memos."""


def guidance_message(*, message_archiving: bool, memo: bool) -> Message | None:
    """The system message that says when to archive and to write memos (``None`` when
    neither tool is offered)."""
    text = system_prompt_fragment(message_archiving=message_archiving, memo=memo)
    return Message(role="system", content=(TextBlock(text=text),), id=GUIDANCE_ID) if text \
        else None


def render_view(messages: Sequence[Message], state: SessionState) -> list[Message]:
    """``messages`` as the model sees them: archived results, written memos' content and
    oversized arguments of refused calls as placeholders. Messages nothing applies to are
    returned as the same objects."""
    return elide_refused(elide_memos(render_archived(messages, state.archive), state.memos))


def elide_memos(messages: Sequence[Message], memos: Sequence[MemoElision]) -> list[Message]:
    """``messages`` with each written memo's ``content`` as its placeholder (the memo is
    in the store). Messages nothing applies to are returned as the same objects."""
    out = list(messages)
    if not memos:
        return out
    by_message: dict[str, list[MemoElision]] = {}
    for entry in memos:
        by_message.setdefault(entry.message_id, []).append(entry)
    for i, m in enumerate(out):
        for entry in by_message.get(m.id, ()):
            out[i] = m = elide_memo_content([m], entry.tool_use_id, entry.placeholder)[0]
    return out
