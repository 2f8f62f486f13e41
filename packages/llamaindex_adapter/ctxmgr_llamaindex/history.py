"""The neutral history of a LlamaIndex conversation, split between the places that hold it.

During a ``FunctionAgent`` run the messages the model sees live in three places:
the memory (earlier turns), the agent's scratchpad (this run's tool calls and
results) and the workflow's own additions (the system prompt). ctxmgr compresses
them as one history and hands each compression back to the place holding the
messages it touched. Two helpers make that work:

* :func:`admit` reads ``ChatMessage`` s as neutral messages: one ctxmgr converted
  before comes back as that very message (id, metadata and all); a new one gets
  the converter's content-derived id, made unique against every id already held
  (a repeated tool output would otherwise collide with an earlier one).
* :func:`persist` applies a compression's edits to one holder's messages: the
  stand-in goes where its range starts, the rest of the range is removed, and
  messages the edit did not name stay, even ones that were not in the history.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from ctxmgr import Message
from ctxmgr.session.kit import Edit
from ctxmgr_llamaindex.convert import LlamaIndexConverter

try:
    from llama_index.core.base.llms.types import ChatMessage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["admit", "persist"]


def admit(chats: Sequence[ChatMessage], known: Iterable[Message], taken: set[str]
          ) -> list[Message]:
    """``chats`` as neutral messages, known ones as themselves, new ones with unique ids.

    Args:
        chats: LlamaIndex messages, in order.
        known: neutral messages they may be conversions of.
        taken: ids already in use elsewhere; the ids of new messages are added to it.
    """
    known = list(known)
    mine = {id(m) for m in known}
    out = LlamaIndexConverter(known).from_llamaindex(chats)
    taken.update(m.id for m in out if id(m) in mine)
    for k, m in enumerate(out):
        if id(m) in mine:
            continue
        if m.id in taken:
            n = 2
            while f"{m.id}.{n}" in taken:
                n += 1
            m = out[k] = replace(m, id=f"{m.id}.{n}")
        taken.add(m.id)
    return out


def persist(held: Sequence[Message], edits: Sequence[Edit],
            holder_of: Callable[[str], str | None], name: str) -> list[Message]:
    """``held`` (the messages of holder ``name``) with ``edits`` applied.

    A stand-in is kept by the holder of its range's first id or, when no holder has
    that id (the workflow's own message), by the holder of the range's first held id.
    """
    out = list(held)
    for edit in edits:
        index = {m.id: i for i, m in enumerate(out)}
        mine = [i for i in edit.ids if i in index]
        if not mine:
            continue
        keeper = next((holder_of(i) for i in edit.ids if holder_of(i) is not None), None)
        gone = set(mine)
        if edit.stand_in is not None and keeper == name:
            out[index[mine[0]]] = edit.stand_in
            gone.discard(mine[0])
        out = [m for m in out if m.id not in gone]
    return out
