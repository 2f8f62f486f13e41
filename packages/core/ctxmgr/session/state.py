"""One session's state: typed, validated, plain JSON in a checkpoint, and its merge.

An integration keeps this next to the framework's history (a LangGraph channel,
fields of a LlamaIndex memory) and hands it back on every call. It holds what
ctxmgr knows about the session beyond the history itself:

``compression``
    the stand-in record of the compressor (:attr:`~ctxmgr.ProcessResult.state`);
``archive``
    which tool results the model archived (:class:`~ctxmgr.ArchiveState`);
``memos``
    memo writes whose ``content`` argument the model is shown elided;
``calibration``
    the measured ratio of the model's token counts to ctxmgr's;
``overhead``
    tokens the latest call sent beside the history (system prompt, tool schemas);
``unseen_overhead``
    tokens the model received beyond what the integration saw when it prepared the
    latest call (middleware inside it, a chat engine's own text), measured at the
    model and counted from the next call on;
``sent_tokens``
    what the latest call sent, counted, until the model's usage report is read;
``sent_after``
    the id of the last message that call was sent with: the model's answer is the
    first answer after it (a new user turn may follow before the report is read);
``reload_pages``
    the page size of each range being reloaded, so that its pages line up.

Only lists, dicts, strings, numbers and ``None``: any checkpointer serialises it
without registering a type. Updates are dicts too, merged key by key by
:func:`merge_session_state` (LangGraph's reducer for the channel). Tools that run in
parallel in one step send *changes* (``archive_add`` / ``archive_remove`` /
``memos_add``) rather than whole values, so two archive calls in one step both count.

A damaged or foreign value is never raised at the agent: :meth:`SessionState.from_json`
drops that one part with a warning naming it and carries on. Nothing is lost by it:
originals are in the offload store and stand-ins in the history, so at worst an
archived result or an elided memo is shown whole again, or a range is compressed anew.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ctxmgr.archive import ArchiveState
from ctxmgr.autocontext.standins import StandIns
from ctxmgr.errors import CtxmgrError
from ctxmgr.session.calibration import Calibration

__all__ = ["MAX_RELOAD_PAGES", "MemoElision", "SessionState", "ToolAnswer", "archive_changes",
           "merge_session_state"]

logger = logging.getLogger(__name__)

MAX_RELOAD_PAGES = 100
"""Page sizes kept for ranges being reloaded (the oldest are dropped)."""
_DELTAS = ("archive_add", "archive_remove", "memos_add")


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolAnswer:
    """What one of ctxmgr's tools answered, and the change it makes to the session state."""

    text: str
    """The tool result for the model."""
    update: Mapping[str, Any] = field(default_factory=dict)
    """Merge into the session state with :func:`merge_session_state` ({} when none)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoElision:
    """A memo write the model is shown with its ``content`` replaced by a placeholder."""

    message_id: str
    """The assistant message that made the call."""
    tool_use_id: str
    placeholder: str

    def to_json(self) -> dict[str, str]:
        return {"message_id": self.message_id, "tool_use_id": self.tool_use_id,
                "placeholder": self.placeholder}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MemoElision:
        message_id, tool_use_id, placeholder = (
            data.get(k) for k in ("message_id", "tool_use_id", "placeholder"))
        if not (isinstance(message_id, str) and isinstance(tool_use_id, str)
                and isinstance(placeholder, str)):
            raise ValueError(f"a memo elision needs three strings, got {dict(data)!r:.120}")
        return cls(message_id=message_id, tool_use_id=tool_use_id, placeholder=placeholder)


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionState:
    """What ctxmgr knows about one session beyond its history (see the module doc)."""

    compression: Mapping[str, Any] | None = None
    archive: ArchiveState = field(default_factory=ArchiveState)
    memos: tuple[MemoElision, ...] = ()
    calibration: Calibration = field(default_factory=Calibration)
    overhead: int = 0
    unseen_overhead: int = 0
    sent_tokens: int | None = None
    sent_after: str | None = None
    reload_pages: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> SessionState:
        """Read a state as :func:`merge_session_state` keeps it (``None``: a new session).

        A part that is damaged or from another version is dropped with a warning that
        names it; the rest is read (see the module doc for why nothing is lost).
        """
        if not data:
            return cls()
        if not isinstance(data, Mapping):
            _dropped("the whole state", TypeError(f"not a dict: {type(data).__name__}"))
            return cls()
        values: dict[str, Any] = {}
        for name, read in _READERS.items():
            if data.get(name) is None:
                continue
            try:
                values[name] = read(data[name])
            except (CtxmgrError, ValueError, TypeError, KeyError, AttributeError,
                    RecursionError, ArithmeticError) as exc:
                _dropped(name, exc)
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        """The plain-JSON form (what :meth:`from_json` reads), without empty parts."""
        out: dict[str, Any] = {}
        if self.compression:
            out["compression"] = dict(self.compression)
        if self.archive.entries:
            out["archive"] = self.archive.to_dict()
        if self.memos:
            out["memos"] = [m.to_json() for m in self.memos]
        if self.calibration.samples:
            out["calibration"] = self.calibration.to_json()
        if self.overhead:
            out["overhead"] = self.overhead
        if self.unseen_overhead:
            out["unseen_overhead"] = self.unseen_overhead
        if self.sent_tokens is not None:
            out["sent_tokens"] = self.sent_tokens
        if self.sent_after is not None:
            out["sent_after"] = self.sent_after
        if self.reload_pages:
            out["reload_pages"] = dict(self.reload_pages)
        return out


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"expected an int >= 0, got {value!r:.40}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r:.40}")
    return value


def _compression(value: Any) -> Mapping[str, Any]:
    StandIns.from_json(value)  # raises InvalidMessageError when damaged
    return MappingProxyType(dict(value))


def _memos(value: Any) -> tuple[MemoElision, ...]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {type(value).__name__}")
    return tuple(MemoElision.from_json(v) for v in value)


def _pages(value: Any) -> Mapping[str, int]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ValueError(f"expected a dict of page sizes, got {value!r:.80}")
    return MappingProxyType({k: _count(v) for k, v in value.items()})


_READERS = {
    "compression": _compression,
    "archive": ArchiveState.from_dict,
    "memos": _memos,
    "calibration": Calibration.from_json,
    "overhead": _count,
    "unseen_overhead": _count,
    "sent_tokens": _count,
    "sent_after": _text,
    "reload_pages": _pages,
}


def _dropped(name: str, exc: BaseException) -> None:
    logger.warning("ctxmgr session state: %s is damaged or from another version (%s: %.200s);"
                   " it is left out and the session goes on without it", name,
                   type(exc).__name__, exc)


def _archive_key(entry: Any) -> tuple[str | None, str | None]:
    if not isinstance(entry, Mapping):
        return None, None
    ids = entry.get("tool_use_id"), entry.get("message_id")
    return ids[0] if isinstance(ids[0], str) else None, ids[1] if isinstance(ids[1], str) else None


def _listed(value: Any) -> list[Any]:
    """``value`` when it is a list, else nothing: a damaged part merges as if absent
    (:meth:`SessionState.from_json` warns about it when it is read)."""
    return value if isinstance(value, list) else []


def merge_session_state(left: Mapping[str, Any] | None,
                        right: Mapping[str, Any] | None) -> dict[str, Any]:
    """The state after update ``right`` (LangGraph's reducer for ctxmgr's channel).

    A key of ``right`` replaces the same key of ``left``, and ``None`` for a key removes
    it; ``reload_pages`` is merged entry by entry (the newest :data:`MAX_RELOAD_PAGES`
    kept). Three change lists are applied, never stored: ``archive_add`` (entries to
    add to the archive, replacing one with the same tool_use_id and message id),
    ``archive_remove`` (entries to drop) and ``memos_add`` (memo elisions to add).
    A damaged part of ``left`` (a checkpoint edited by hand, another version) never
    makes the merge raise: a change to it starts that part afresh.
    """
    out: dict[str, Any] = dict(left) if isinstance(left, Mapping) else {}
    if not isinstance(right, Mapping) or not right:
        return out
    for key, value in right.items():
        if key in _DELTAS:
            continue
        if key == "reload_pages" and isinstance(value, Mapping):
            before = out.get(key)
            merged = {**(before if isinstance(before, Mapping) else {}), **value}
            out[key] = dict(list(merged.items())[-MAX_RELOAD_PAGES:])
        elif value is None:
            out.pop(key, None)
        else:
            out[key] = value
    removed = {_archive_key(e) for e in _listed(right.get("archive_remove"))}
    added = _listed(right.get("archive_add"))
    if removed or added:
        archive = out.get("archive")
        archive = (dict(archive) if isinstance(archive, Mapping)
                   else {"version": 1, "archived": []})
        replaced = removed | {_archive_key(e) for e in added}
        archive["archived"] = [e for e in _listed(archive.get("archived"))
                               if _archive_key(e) not in replaced] + added
        out["archive"] = archive
    if memos := _listed(right.get("memos_add")):
        out["memos"] = [*_listed(out.get("memos")), *memos]
    return out


def archive_changes(before: ArchiveState, after: ArchiveState) -> dict[str, Any]:
    """The update that turns archive ``before`` into ``after``, as changes, so that
    parallel archive calls in one step do not overwrite each other."""
    old = {_archive_key(e): e for e in before.to_dict()["archived"]}
    new = {_archive_key(e): e for e in after.to_dict()["archived"]}
    update: dict[str, Any] = {}
    if added := [e for k, e in new.items() if old.get(k) != e]:
        update["archive_add"] = added
    if removed := [e for k, e in old.items() if k not in new]:
        update["archive_remove"] = removed
    return update
