"""The stand-ins of a history the framework owns, and how a new history is matched to them.

A framework hands ctxmgr its whole history on every model call. That history
holds either the stand-ins ctxmgr asked it to persist (LangGraph applies the
edits to its ``messages`` channel) or, when the framework kept the originals,
the original ranges they replaced. :class:`StandIns` remembers, for each stand-in
in the working view, just enough to recognise both cases by id: a digest of the
stand-in, a digest of its range's first original, its last original id and the
range's length. The stand-in itself is kept only while the framework does not
hold it (an edit it could not persist): each stand-in is stored once, in the
history or in this record. Originals live once, in the offload store; this record
grows with the working view, never with the history, and is plain JSON.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ctxmgr.autocontext.edits import Edit
from ctxmgr.errors import InvalidMessageError, InvalidStateError
from ctxmgr.messages import Message, message_from_dict, message_to_dict

__all__ = ["StandIn", "StandIns", "message_digest"]

STATE_VERSION = 2
"""Version 1 kept every stand-in in full; it is still read."""


def message_digest(message: Message) -> str:
    """A short fingerprint of a message's full content (id, blocks, metadata, extras),
    computed once per message: a stand-in's is taken when it is recorded and again on
    every later call that recognises it."""
    digest: str | None = message._derived.get("digest")
    if digest is None:
        blob = json.dumps(message_to_dict(message), sort_keys=True, ensure_ascii=True)
        digest = message._derived["digest"] = hashlib.sha256(blob.encode("ascii")).hexdigest()[:32]
    return digest


@dataclass(frozen=True, slots=True, kw_only=True)
class StandIn:
    """One message of the working view that stands in for a range of originals."""

    id: str
    """The stand-in's id: the id of its range's first original."""
    digest: str
    """Digest of the stand-in (:func:`message_digest`): recognises it in a history."""
    message: Message | None
    """The stand-in, while no history given since holds it (``None`` once one does)."""
    head: str
    """Digest of the range's first original (it has the stand-in's id)."""
    last_id: str
    """Id of the range's last original."""
    count: int
    """Originals in the range (earlier stand-ins it absorbed expanded)."""
    calls: int
    """Assistant messages among the originals: model calls the range stands for."""

    def held(self) -> StandIn:
        """This record once a history holds the stand-in (it is not kept twice)."""
        return self if self.message is None else replace(self, message=None)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "digest": self.digest, "head": self.head,
                                "last_id": self.last_id, "count": self.count,
                                "calls": self.calls}
        if self.message is not None:
            data["message"] = message_to_dict(self.message)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StandIn:
        """Read :meth:`to_json` output, every field checked (a checkpoint can be edited).

        Raises:
            ValueError: a field is missing or of the wrong type or range (it is named).
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"is {type(data).__name__}, not an object")
        message = message_from_dict(data["message"]) if "message" in data else None
        if message is None:
            mid, digest = _text(data, "id"), _text(data, "digest")
        else:  # version 1 has neither: the stand-in is there
            mid, digest = message.id, str(data.get("digest") or message_digest(message))
        return cls(id=mid, digest=digest, message=message, head=_text(data, "head"),
                   last_id=_text(data, "last_id"), count=_whole(data, "count", 1),
                   calls=_whole(data, "calls", 0))


def _text(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {value!r:.40}")
    return value


def _whole(data: Mapping[str, Any], name: str, least: int) -> int:
    """An int field of at least ``least``: a count of 0 or less would never move past the
    range it counts (the reconcile loop would not end), and a float is not a count."""
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be an int >= {least}, got {value!r:.40}")
    return value


Expander = Callable[[Message], "set[str] | None"]
"""Ids of every original behind a stand-in (read from the offload store), or ``None``."""
Digest = Callable[[Message], str]
"""A message's :func:`message_digest`."""


class StandIns:
    """The stand-ins of one working view, by id."""

    def __init__(self, records: Mapping[str, StandIn] | None = None) -> None:
        self.by_id: dict[str, StandIn] = dict(records or {})

    # -- JSON state --------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"version": STATE_VERSION,
                "stand_ins": [r.to_json() for r in self.by_id.values()]}

    @classmethod
    def from_json(cls, state: Mapping[str, Any] | None) -> StandIns:
        """Rebuild from :meth:`to_json`; ``None`` or ``{}`` is a fresh start.

        Raises:
            InvalidStateError: (an ``InvalidMessageError``) the state is not what
                :meth:`to_json` writes; it names the damaged field.
        """
        if not state:
            return cls()
        if not isinstance(state, Mapping):
            raise InvalidStateError("compression", f"is {type(state).__name__}, not an "
                                    "object; pass the state a ContextProcessor returned, or "
                                    "None to start over")
        if state.get("version") not in (1, STATE_VERSION):
            raise InvalidStateError("compression.version", f"is {state.get('version')!r:.40},"
                                    " a version this ctxmgr does not read")
        raw = state.get("stand_ins")
        if not isinstance(raw, list):
            raise InvalidStateError("compression.stand_ins", f"is {raw!r:.40}, not a list")
        records = []
        for i, d in enumerate(raw):
            try:
                records.append(StandIn.from_json(d))
            except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
                raise InvalidStateError(f"compression.stand_ins[{i}]", f"is damaged: {exc}; "
                                        "pass the state a ContextProcessor returned, or None "
                                        "to start over") from exc
        return cls({r.id: r for r in records})

    # -- matching a history ------------------------------------------------------------

    def reconcile(self, history: Sequence[Message], expand: Expander,
                  digest: Digest = message_digest) -> tuple[list[Message], int]:
        """The working view for ``history``, and the model calls it stands for.

        A message with a stand-in's id is kept when it is that stand-in (the framework
        persisted it: the record stops keeping a copy); when it is the range's original
        first message and the record still has the stand-in, the range of originals is
        replaced by it (the framework kept the originals). Any other message with that
        id is someone else's edit, and so are originals handed back after the framework
        held their stand-in: they are kept as they are and the record forgotten (the
        originals stay reloadable, and are compressed again when the budget needs it).
        """
        view: list[Message] = []
        calls = 0
        i, n = 0, len(history)
        while i < n:
            m = history[i]
            record = self.by_id.get(m.id)
            if record is None:
                view.append(m)
                calls += m.role == "assistant"
                i += 1
            elif m is record.message or m == record.message or digest(m) == record.digest:
                view.append(m)
                self.by_id[m.id] = record.held()
                calls += record.calls
                i += 1
            elif record.message is not None and digest(m) == record.head:
                view.append(record.message)
                calls += record.calls
                i = self._skip_originals(history, i, record, expand)
            else:
                del self.by_id[m.id]
                view.append(m)
                calls += m.role == "assistant"
                i += 1
        return view, calls

    @staticmethod
    def _skip_originals(history: Sequence[Message], i: int, record: StandIn,
                        expand: Expander) -> int:
        """Index after the originals of ``record`` that start at ``i``."""
        end = i + max(1, record.count)  # at least one step: the loop always moves on
        if end <= len(history) and history[end - 1].id == record.last_id:
            return end  # the whole range is there, as it was
        assert record.message is not None
        ids = expand(record.message) or {record.id}  # someone removed part of the range
        j = i + 1
        while j < len(history) and history[j].id in ids:
            j += 1
        return j

    # -- recording a compression -------------------------------------------------------

    def record(self, view: Sequence[Message], edits: Sequence[Edit],
               persisted: Callable[[Edit], bool] | None = None) -> None:
        """Remember the stand-ins of ``edits`` (made on ``view``); forget absorbed ones.

        Args:
            persisted: tells which edits the framework persists with the prompt (their
                stand-in is then kept only by a digest); ``None``: none is known to be.
        """
        by_id = {m.id: m for m in view}
        for edit in edits:
            if edit.stand_in is None:
                for mid in edit.ids:
                    self.by_id.pop(mid, None)
                continue
            # a plain message joins as a range of one; only the first one's digest is kept
            parts = [self.by_id.pop(mid, None) for mid in edit.ids]
            first, last = parts[0], parts[-1]
            kept = None if persisted is not None and persisted(edit) else edit.stand_in
            self.by_id[edit.stand_in.id] = StandIn(
                id=edit.stand_in.id, digest=message_digest(edit.stand_in), message=kept,
                head=first.head if first is not None else message_digest(by_id[edit.ids[0]]),
                last_id=last.last_id if last is not None else edit.ids[-1],
                count=sum(p.count if p is not None else 1 for p in parts),
                calls=sum(p.calls if p is not None else int(by_id[mid].role == "assistant")
                          for p, mid in zip(parts, edit.ids, strict=True)))

    def prune(self, view: Sequence[Message]) -> None:
        """Forget records whose stand-in is no longer in ``view``."""
        present = {m.id for m in view}
        for mid in [k for k in self.by_id if k not in present]:
            del self.by_id[mid]


def check_unique_ids(history: Sequence[Message]) -> None:
    """Raise when two messages share an id: a history owned elsewhere is matched by id.

    Raises:
        InvalidMessageError: names both positions.
    """
    seen: dict[str, int] = {}
    for i, m in enumerate(history):
        j = seen.setdefault(m.id, i)
        if j != i:
            raise InvalidMessageError(
                f"messages {j} and {i} share the id {m.id!r}; ctxmgr matches a history it "
                "does not own by message id, so every message needs its own", index=i)
