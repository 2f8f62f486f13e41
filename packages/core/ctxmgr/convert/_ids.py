"""Stable message ids for formats whose messages carry none."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from ctxmgr.errors import InvalidMessageError


class StableIds:
    """Derive ids from message content, so converting the same history twice
    gives the same ids; repeated identical messages get ``-2``, ``-3``… suffixes."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._seen: dict[str, int] = {}

    def __call__(self, raw: Mapping[str, Any]) -> str:
        if isinstance(raw.get("id"), str) and raw["id"]:
            return raw["id"]
        try:
            blob = json.dumps(raw, sort_keys=True, ensure_ascii=False, default=str)
        except RecursionError as exc:
            raise InvalidMessageError("the message nests too deeply to read") from exc
        digest = hashlib.blake2b(blob.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()
        n = self._seen.get(digest, 0) + 1
        self._seen[digest] = n
        return f"{self._prefix}{digest}" if n == 1 else f"{self._prefix}{digest}-{n}"
