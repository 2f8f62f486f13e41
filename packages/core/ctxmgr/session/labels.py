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
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["NO_THREAD_SESSION", "session_label"]

NO_THREAD_SESSION = "__no-thread"
"""The session of a call without a thread id (a graph run without ``thread_id``)."""

_MAX = 200
_PLAIN = re.compile(r"[A-Za-z0-9._-]{1,200}")
_KEPT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")
_ESCAPED = "__"
_DIGEST = "__sha256-"


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
