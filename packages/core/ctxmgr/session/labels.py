"""Session labels: every thread or session id gets its own store label, never another's.

A store label is 1-200 characters of ``[A-Za-z0-9._-]`` (see :class:`~ctxmgr.store.Namespace`),
while a framework's thread id is any string (an e-mail address, a path, 10 KB of text).
The mapping is injective, so two ids never share a session's offloads and memos:

* a *plain* id (already a label, not ``.`` or ``..``, not starting with ``__``) is its
  own label, as before (``"ticket-42"`` -> ``"ticket-42"``);
* any other string is *escaped*: ``__`` then its UTF-8 bytes, each byte outside
  ``[A-Za-z0-9.-]`` written ``_`` plus two lowercase hex digits (``"a b"`` ->
  ``"__a_20b"``, ``""`` -> ``"__"``, ``"__x"`` -> ``"___5f_5fx"``). Escaping is
  one-to-one, and no plain id starts with ``__``;
* an escaped label longer than 200 characters becomes ``__sha256-`` and the 64 hex digits
  of the id's SHA-256 (ids this long are told apart by the full digest);
* a missing id (``None``) is :data:`NO_THREAD_SESSION`, ``__no-thread``.

The three kinds of ``__`` label never meet: an escaped label holds a ``_`` after its
``__`` unless it is ``__``, ``__.`` or ``__..`` (the ids ``""``, ``"."``, ``".."``), and
neither ``__sha256-...`` nor ``__no-thread`` holds one. Non-string ids (a UUID, an int)
are labelled by ``str(id)``, as LangGraph's checkpointers key them.

An agent of a thread (a subagent, a supervisor's specialist, a swarm member, a
workflow's agent) has its own session under the thread's, :func:`agent_session_label`:
``__``, the thread's label, ``_-``, the agent's name, each byte of both outside
``[A-Za-z0-9.-]`` written ``_`` plus two hex digits (thread ``ticket-42``, agent
``researcher`` -> ``__ticket-42_-researcher``). In an escaped text every ``_`` is
followed by two hex digits, so the first ``_-`` after the leading ``__`` is where the
thread ends: two (thread, agent) pairs never share a label, and no thread's label
(none of which holds ``_-`` after its ``__``) is an agent's. A label longer than 200
characters becomes ``__sha256-`` and the SHA-256 of the thread's label, a byte ``0xff``
(which no UTF-8 text holds, so no thread id hashes the same) and the agent's name.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["NO_THREAD_SESSION", "agent_session_label", "session_label", "split_agent_label"]

NO_THREAD_SESSION = "__no-thread"
"""The session of a call without a thread id (a graph run without ``thread_id``)."""

_MAX = 200
_PLAIN = re.compile(r"[A-Za-z0-9._-]{1,200}")
_KEPT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")
_ESCAPED = "__"
_DIGEST = "__sha256-"
_AGENT = "_-"
_HEX = frozenset("0123456789abcdef")


def session_label(thread_id: object) -> str:
    """The store label of a session or thread id: distinct ids get distinct labels.

    Args:
        thread_id: the framework's thread or session id; ``None`` when there is none.

    Returns:
        A valid namespace label (see the module doc for the rule).
    """
    if thread_id is None:
        return NO_THREAD_SESSION
    text = thread_id if isinstance(thread_id, str) else str(thread_id)
    if (_PLAIN.fullmatch(text) and text not in (".", "..")
            and not text.startswith(_ESCAPED)):
        return text
    raw = text.encode("utf-8", "surrogatepass")
    if len(_ESCAPED) + len(raw) <= _MAX:  # each byte takes one character or three
        escaped = _ESCAPED + "".join(chr(b) if b in _KEPT else f"_{b:02x}" for b in raw)
        if len(escaped) <= _MAX:
            return escaped
    return _DIGEST + hashlib.sha256(raw).hexdigest()


def _escape(raw: bytes) -> str:
    return "".join(chr(b) if b in _KEPT else f"_{b:02x}" for b in raw)


def agent_session_label(session: str, agent: str) -> str:
    """The store label of one agent's session under a thread's: distinct (thread, agent)
    pairs get distinct labels, and none is a thread's (see the module doc).

    Args:
        session: the thread's session label (:func:`session_label`).
        agent: the agent's name, any string (``"researcher"``, ``"team/writer"``).
    """
    thread, name = session.encode("utf-8", "surrogatepass"), agent.encode(
        "utf-8", "surrogatepass")
    if len(_ESCAPED) + len(_AGENT) + len(thread) + len(name) <= _MAX:
        label = f"{_ESCAPED}{_escape(thread)}{_AGENT}{_escape(name)}"
        if len(label) <= _MAX:
            return label
    return _DIGEST + hashlib.sha256(thread + b"\xff" + name).hexdigest()


def split_agent_label(label: str) -> tuple[str, str] | None:
    """(thread label, agent name) of an agent's session label, ``None`` for any other
    label (a thread's, or an agent's too long to read back: see the module doc)."""
    if not label.startswith(_ESCAPED) or _AGENT not in label[len(_ESCAPED):]:
        return None
    parts: list[bytearray] = [bytearray()]
    i, n = len(_ESCAPED), len(label)
    while i < n:
        c = label[i]
        if c != "_":
            parts[-1].append(ord(c))
            i += 1
        elif label[i + 1:i + 2] == "-" and len(parts) == 1:
            parts.append(bytearray())
            i += 2
        elif len(label) >= i + 3 and set(label[i + 1:i + 3]) <= _HEX:
            parts[-1].append(int(label[i + 1:i + 3], 16))
            i += 3
        else:
            return None
    if len(parts) != 2:
        return None
    try:
        return (parts[0].decode("utf-8", "surrogatepass"),
                parts[1].decode("utf-8", "surrogatepass"))
    except UnicodeDecodeError:
        return None
