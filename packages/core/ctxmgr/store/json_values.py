"""Blobs as JSON values, for backends that store JSON documents (LangGraph and
LlamaIndex key-value stores, PostgreSQL ``json`` / ``jsonb`` columns).

Offloads and memos are UTF-8 text, kept readable in the database as
``{"encoding": "utf-8", "data": <text>}``; any other blob, and text holding NUL
(PostgreSQL's ``jsonb`` cannot store it), as ``{"encoding": "base64", "data": ...}``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

__all__ = ["BLOB_SHAPE", "blob_from_json", "blob_to_json"]

BLOB_SHAPE = "{'encoding': 'utf-8' | 'base64', 'data': str}"
"""The shape of a stored blob, for error messages."""


def blob_to_json(data: bytes) -> dict[str, str]:
    """``data`` as a JSON object (readable text when it is UTF-8 without NUL)."""
    if b"\x00" not in data:
        try:
            return {"encoding": "utf-8", "data": data.decode("utf-8")}
        except UnicodeDecodeError:
            pass
    return {"encoding": "base64", "data": base64.b64encode(data).decode("ascii")}


def blob_from_json(value: Any) -> bytes | None:
    """The blob :func:`blob_to_json` made, or ``None`` when ``value`` is not one."""
    if not isinstance(value, Mapping):
        return None
    encoding, data = value.get("encoding"), value.get("data")
    if isinstance(data, str):
        if encoding == "utf-8":
            return data.encode("utf-8")
        if encoding == "base64":
            try:
                return base64.b64decode(data.encode("ascii"), validate=True)
            except (binascii.Error, UnicodeEncodeError):
                return None
    return None
