"""Which tool results are archived: an immutable, plain-JSON state."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxmgr.errors import ConfigError

__all__ = ["ArchiveState", "ArchivedResult"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchivedResult:
    """One archived tool result, pinned by the message that holds it."""

    tool_use_id: str
    message_id: str
    """Id of the message holding the result (tool-call ids alone are not unique)."""
    summary: str | None = None


@dataclass(frozen=True, slots=True)
class ArchiveState:
    """Which tool results are archived. Immutable; every change returns a new state.

    ``to_dict()`` gives plain JSON (lists, dicts, strings, null) and
    ``from_dict()`` reads it back, so the state can live in a checkpoint.
    """

    entries: tuple[ArchivedResult, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.entries, tuple):
            object.__setattr__(self, "entries", tuple(self.entries))

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def archived(self) -> dict[str, str | None]:
        """tool_use_id -> summary of every archived result (latest entry wins for a repeated id)."""
        return {e.tool_use_id: e.summary for e in self.entries}

    def is_archived(self, tool_use_id: str, message_id: str | None = None) -> bool:
        """True when a result with this id (in this message, if given) is archived."""
        return any(e.tool_use_id == tool_use_id and message_id in (None, e.message_id)
                   for e in self.entries)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form: ``{"version": 1, "archived": [{tool_use_id, message_id, summary}]}``."""
        return {
            "version": 1,
            "archived": [
                {"tool_use_id": e.tool_use_id, "message_id": e.message_id, "summary": e.summary}
                for e in self.entries
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> ArchiveState:
        """Read :meth:`to_dict` output (``None`` or ``{}`` give the empty state).

        Raises:
            ConfigError: data that :meth:`to_dict` did not produce.
        """
        if not data:
            return cls()
        if not isinstance(data, Mapping) or not isinstance(data.get("archived", []), list):
            raise ConfigError(f"archive state must be a dict with an 'archived' list, got {data!r}")
        entries = []
        for raw in data.get("archived", []):
            if not (isinstance(raw, Mapping) and isinstance(raw.get("tool_use_id"), str)
                    and isinstance(raw.get("message_id"), str)
                    and isinstance(raw.get("summary"), str | None)):
                raise ConfigError(
                    "archive state entries must be {tool_use_id: str, message_id: str, "
                    f"summary: str | null}}, got {raw!r}")
            entries.append(ArchivedResult(tool_use_id=raw["tool_use_id"],
                                          message_id=raw["message_id"],
                                          summary=raw.get("summary")))
        return cls(tuple(entries))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> ArchiveState:
        return cls.from_dict(json.loads(text))
