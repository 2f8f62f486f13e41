"""Who wrote what: the agent name an assistant message carries, and on its stand-in.

In a multi-agent graph every agent's answers carry its name: LangChain's
``create_agent(name=...)`` and ``create_react_agent`` set ``AIMessage.name``, and a
supervisor or a swarm (or a model that reads names, as OpenAI's does) tells the agents
apart by it. A converter keeps that name in the message's ``extra`` under its format
(``extra["langchain"]["fields"]["name"]``, ``extra["openai"]["fields"]["name"]``), so it
comes back with the message. A stand-in that replaces one agent's messages carries the
same name, in the same formats, so "who said what" survives compression.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ctxmgr.messages import Message

__all__ = ["author_of", "sole_author", "with_author_of"]

_FORMATS = ("langchain", "openai")
"""The formats whose ``fields`` carry an assistant message's ``name``."""


def _name_in(m: Message, fmt: str) -> str | None:
    data = m.extra.get(fmt)
    fields = data.get("fields") if isinstance(data, Mapping) else None
    name = fields.get("name") if isinstance(fields, Mapping) else None
    return name if isinstance(name, str) and name else None


def author_of(m: Message) -> str | None:
    """The name of the agent that wrote ``m`` (an assistant message), if it carries one."""
    if m.role != "assistant":
        return None
    return next((n for n in (_name_in(m, f) for f in _FORMATS) if n is not None), None)


def sole_author(messages: Sequence[Message]) -> Message | None:
    """An assistant message of ``messages`` naming their one author, when every named
    assistant message of them names the same agent (``None`` when none or several do)."""
    source: Message | None = None
    for m in messages:
        name = author_of(m)
        if name is None:
            continue
        if source is None:
            source = m
        elif author_of(source) != name:
            return None
    return source


def with_author_of(stand_in: Message, source: Message | None) -> Message:
    """``stand_in`` carrying the author name of ``source`` in each format ``source``
    carries it (nothing changes when ``source`` is ``None`` or names no one)."""
    if source is None or stand_in.role != "assistant":
        return stand_in
    names = {f: n for f in _FORMATS if (n := _name_in(source, f)) is not None}
    if not names:
        return stand_in
    extra = dict(stand_in.extra)
    for fmt, name in names.items():
        kept = extra.get(fmt)
        own = dict(kept) if isinstance(kept, Mapping) else {}
        fields = own.get("fields")
        own["fields"] = {**(fields if isinstance(fields, Mapping) else {}), "name": name}
        extra[fmt] = own
    return replace(stand_in, extra=extra)
