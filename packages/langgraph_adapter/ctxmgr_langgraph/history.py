"""Incremental conversion of a LangGraph ``messages`` channel to ctxmgr messages and back.

Before every model call the whole history is handed to ctxmgr. Converting it
afresh each time would cost time in proportion to the history, so each message
is converted once and remembered by its id: a message that is the same object
as last time (within a run) or an equal one (after a checkpoint restore) reuses
its conversion, which also keeps its cached token count. Going back, a ctxmgr
message that came from LangChain messages returns those very objects, so the
prompt's unchanged prefix is the objects already in the state, byte for byte.

One ctxmgr message can stand for several LangChain messages (a message holding
several tool results becomes one ``ToolMessage`` per result, ids ``ID``,
``ID#1``, ...); the cache keeps those parts together.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from ctxmgr import Message
from ctxmgr_langgraph.convert import from_langchain, to_langchain

try:
    from langchain_core.messages import BaseMessage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangChain: pip install ".[langgraph]"') from exc

__all__ = ["MessageCache"]

DEFAULT_MAX_ENTRIES = 200_000
_ANONYMOUS_KEPT = 256

Parts = tuple[BaseMessage, ...]


class MessageCache:
    """Conversions of LangChain messages, by message id, in both directions.

    Args:
        max_entries: conversions kept per direction; past it the older half is
            dropped (and converted again if they come back).
    """

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._in: dict[str, tuple[Parts, Message]] = {}
        self._out: dict[str, tuple[Message, Parts]] = {}
        self._anonymous: dict[Any, tuple[BaseMessage, Message]] = {}
        """Messages without an id, by type and text (a request's system prompt, made anew
        for every call with the same text)."""
        self._lock = threading.Lock()

    def to_neutral(self, messages: Sequence[BaseMessage]) -> list[Message]:
        """ctxmgr messages for ``messages`` (ids kept), converting only what is new.

        A message without an id (LangGraph's reducer gives every message in the state
        one; a request may add some) gets the converter's content-derived id; an equal
        one again (a request's system prompt) reuses that conversion. A message
        :meth:`to_langchain` made that comes back as the same object (what the model was
        sent) reuses its source.
        """
        out: list[Message] = []
        run: list[BaseMessage] = []
        known = self._in
        i, n = 0, len(messages)
        while i < n:
            lc = messages[i]
            hit = known.get(lc.id) if lc.id else None
            if hit is not None and not run and hit[0][0] is lc and len(hit[0]) == 1:
                out.append(hit[1])  # the common case: the very object seen last time
                i += 1
                continue
            given = self._given_out(lc)
            if given is not None:  # a message this cache made, back as the same object
                if run:
                    out.extend(self._convert_in(run))
                    run = []
                out.append(given)
                i += 1
                continue
            same = _same(hit[0], messages, i) if hit is not None else None
            if hit is not None and same is not None:
                if run:
                    out.extend(self._convert_in(run))
                    run = []
                if not same:  # equal, not identical (restored): remember the new objects
                    self._in[hit[1].id] = (tuple(messages[i:i + len(hit[0])]), hit[1])
                out.append(hit[1])
                i += len(hit[0])
            else:
                run.append(lc)
                i += 1
        if run:
            out.extend(self._convert_in(run))
        return out

    def _given_out(self, lc: BaseMessage) -> Message | None:
        """The ctxmgr message ``lc`` was made from, when ``lc`` is the very object
        :meth:`parts` gave out for it (a stand-in, a hint), or an equal message without
        an id was converted before (a request's system prompt); else ``None``."""
        if lc.id:
            back = self._out.get(lc.id)
            if back is not None and len(back[1]) == 1 and back[1][0] is lc:
                return back[0]
            return None
        anonymous = self._anonymous.get(_anonymous_key(lc))
        return (anonymous[1] if anonymous is not None
                and (anonymous[0] is lc or anonymous[0] == lc) else None)

    def _convert_in(self, run: list[BaseMessage]) -> list[Message]:
        converted = from_langchain(run)
        entries: list[tuple[Parts, Message]] = []
        k = 0
        for m in converted:
            parts = [run[k]] if k < len(run) else []
            k += 1
            while k < len(run) and run[k].id == f"{m.id}#{len(parts)}":
                parts.append(run[k])
                k += 1
            entries.append((tuple(parts), m))
        if k == len(run):  # the parts line up: remember each message that kept its id
            with self._lock:
                _trim(self._in, self.max_entries)
                for parts_, m in entries:
                    if parts_ and parts_[0].id == m.id:
                        self._in[m.id] = (parts_, m)
                    elif len(parts_) == 1 and not parts_[0].id:
                        if len(self._anonymous) >= _ANONYMOUS_KEPT:
                            self._anonymous.clear()
                        self._anonymous[_anonymous_key(parts_[0])] = (parts_[0], m)
        return converted

    def to_langchain(self, messages: Sequence[Message]) -> list[BaseMessage]:
        """LangChain messages for ``messages``: the original objects for a message that
        came from them unchanged, a remembered conversion for one seen before."""
        out: list[BaseMessage] = []
        for m in messages:
            out.extend(self.parts(m))
        return out

    def parts(self, message: Message) -> Parts:
        """The LangChain messages ``message`` is written as (usually one)."""
        hit = self._in.get(message.id)
        if hit is not None and (hit[1] is message or hit[1] == message):
            return hit[0]
        back = self._out.get(message.id)
        if back is not None and (back[0] is message or back[0] == message):
            return back[1]
        parts = tuple(to_langchain([message]))
        with self._lock:
            _trim(self._out, self.max_entries)
            self._out[message.id] = (message, parts)
        return parts

    def langchain_ids(self, message_id: str) -> list[str]:
        """Ids of the LangChain messages the history holds for a ctxmgr message id."""
        hit = self._in.get(message_id)
        if hit is None:
            return [message_id]
        return [p.id for p in hit[0] if p.id]

    def __len__(self) -> int:
        return len(self._in)


def _anonymous_key(message: BaseMessage) -> Any:
    """What finds a message without an id again: its type and text (an equal message is
    checked on a hit), or the object itself when its content is not plain text."""
    content = message.content
    return (message.type, content) if isinstance(content, str) else id(message)


def _same(parts: Parts, messages: Sequence[BaseMessage], i: int) -> bool | None:
    """``True`` when ``messages`` holds ``parts`` at ``i`` (the same objects), ``False``
    when it holds equal ones, ``None`` when it does not."""
    if i + len(parts) > len(messages):
        return None
    identical = True
    for k, p in enumerate(parts):
        m = messages[i + k]
        if m is not p:
            if m != p:
                return None
            identical = False
    return identical


def _trim(table: dict[str, Any], limit: int) -> None:
    if len(table) >= limit:
        for key in list(table)[: len(table) // 2]:
            del table[key]
