"""What a request sends beside the history, counted: the system prompt and tool schemas.

The budget is the whole request, so a framework's system prompt and the schemas
of every tool it binds count as much as the history. A system prompt counts as
the system message it is sent as; a tool as the OpenAI-style function schema its
framework sends (keys sorted, so the count does not depend on the order a
framework writes them in). The model's own count of the request comes in through
calibration. Counts are cached by text: a prompt or schema sent again costs a
dictionary lookup.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from ctxmgr.messages import text_message
from ctxmgr.tokens import TokenCounter

__all__ = ["OverheadCounter"]

_MAX_CACHED = 1024


class OverheadCounter:
    """Counts system prompts and tool schemas with one counter, caching by text."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def system(self, text: str) -> int:
        """Tokens of ``text`` sent as a system message."""
        return self._cached("system\0" + text,
                            lambda: self.counter.count(text_message("system", text)))

    def tool(self, schema: Mapping[str, Any]) -> int:
        """Tokens of one tool's schema (``{"type": "function", "function": {...}}``)."""
        text = json.dumps(schema, ensure_ascii=False, sort_keys=True, default=str)
        return self._cached("tool\0" + text, lambda: self.counter.count_text(text))

    def total(self, *, system: Iterable[str] = (),
              tools: Iterable[Mapping[str, Any]] = ()) -> int:
        """Tokens of every system prompt and tool schema a request sends."""
        return sum(map(self.system, system)) + sum(map(self.tool, tools))

    def _cached(self, key: str, count: Any) -> int:
        n = self._counts.get(key)
        if n is None:
            n = count()
            with self._lock:
                if len(self._counts) >= _MAX_CACHED:
                    self._counts.clear()
                self._counts[key] = n
        return n
