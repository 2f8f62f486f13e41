"""Memo keys: the rule that keeps every key a safe file name inside its session folder."""

from __future__ import annotations

import re

from ctxmgr.errors import InvalidMemoKeyError

__all__ = ["KEY_PATTERN", "MAX_KEY_CHARS", "validate_memo_key"]

MAX_KEY_CHARS = 100
KEY_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9._-]*$"
"""The key rule as a JSON-schema pattern (the tool's schema shows it to the model)."""

_KEY_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
# Device names Windows reserves whatever the extension: "con.md" cannot be created there.
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
                       *(f"lpt{i}" for i in range(10))})
_KEY_RULE = (f"keys are 1-{MAX_KEY_CHARS} characters of letters, digits, '.', '_' or '-', "
             "start with a letter, digit or '_', and contain no '..' (no path separators)")


def validate_memo_key(key: object) -> str:
    """Return ``key`` if it is safe as a file name inside the session folder.

    Raises:
        InvalidMemoKeyError: naming the key (shortened when long) and the rule.
    """
    if not isinstance(key, str):
        raise InvalidMemoKeyError(f"memo key must be a string, got {type(key).__name__}")
    shown = repr(key) if len(key) <= 60 else f"{key[:40]!r}... ({len(key)} characters)"
    if not key:
        raise InvalidMemoKeyError(f"memo key is empty; {_KEY_RULE}")
    if len(key) > MAX_KEY_CHARS:
        raise InvalidMemoKeyError(f"memo key {shown} is too long; {_KEY_RULE}")
    if not _KEY_RE.fullmatch(key) or ".." in key:
        raise InvalidMemoKeyError(f"memo key {shown} is not allowed; {_KEY_RULE}")
    if key.split(".")[0].lower() in _RESERVED:
        raise InvalidMemoKeyError(f"memo key {shown} is a reserved device name on Windows")
    return key
