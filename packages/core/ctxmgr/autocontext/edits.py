"""Compressions as data: which ids a range had, and the message standing in for it.

A framework that owns the history (a LangGraph ``messages`` channel, a
LlamaIndex scratchpad) persists a compression with its own reducer: the stand-in
keeps the id of the range's first message, so a same-id update replaces it in
place, and the rest of the range is removed by id. The compressed prefix then
stays byte-identical from one model call to the next, which keeps the
provider's prompt cache warm.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass

from ctxmgr.errors import InvalidMessageError
from ctxmgr.messages import Message

__all__ = ["Edit", "apply_edits", "diff_edits"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Edit:
    """One range of the history and what takes its place.

    Apply it as LangGraph's ``add_messages`` would: ``stand_in`` replaces the message
    with the same id (``ids[0]``), and every id of :attr:`removed_ids` is deleted.
    """

    ids: tuple[str, ...]
    """Ids of the history messages in the range, in order (never empty)."""
    stand_in: Message | None
    """The message that takes the range's place, with id ``ids[0]``; ``None`` when the
    range is only removed."""

    def __post_init__(self) -> None:
        if not self.ids:
            raise ValueError("an Edit needs at least one id")
        if self.stand_in is not None and self.stand_in.id != self.ids[0]:
            raise ValueError(f"a stand-in keeps its range's first id {self.ids[0]!r}, "
                             f"got {self.stand_in.id!r}")

    @property
    def removed_ids(self) -> tuple[str, ...]:
        """Ids to delete: the whole range, less the first when a stand-in replaces it."""
        return self.ids[1:] if self.stand_in is not None else self.ids


def diff_edits(before: Sequence[Message], after: Sequence[Message]) -> list[Edit]:
    """The edits that turn ``before`` into ``after``, where ``after`` keeps a subsequence
    of ``before``'s ids in the same order (what every compression produces).

    Each message of ``after`` heads a range: itself plus the ``before`` messages up to the
    next kept id. A range gives an edit when its head changed or it lost messages.

    Raises:
        InvalidMessageError: ``after`` holds an id that ``before`` lacks, or reorders them.
    """
    if len(before) == len(after) and all(map(operator.is_, before, after)):
        return []  # the same messages: nothing to diff (the common case, in C)
    position = {m.id: i for i, m in enumerate(before)}
    kept: list[int] = []  # where each message of ``after`` sits in ``before``
    for k, m in enumerate(after):
        i = position.get(m.id)
        if i is None or (kept and i <= kept[-1]):
            raise InvalidMessageError(
                f"message {k} (id {m.id!r}) is not in the history it was derived from, or "
                "is out of order: a stand-in must keep the id of its range's first message")
        kept.append(i)
    if not kept:
        return [Edit(ids=tuple(m.id for m in before), stand_in=None)] if before else []
    edits: list[Edit] = []
    if kept[0] > 0:
        edits.append(Edit(ids=tuple(m.id for m in before[:kept[0]]), stand_in=None))
    for k, i in enumerate(kept):
        end = kept[k + 1] if k + 1 < len(kept) else len(before)
        if end > i + 1 or (before[i] is not after[k] and before[i] != after[k]):
            edits.append(Edit(ids=tuple(m.id for m in before[i:end]), stand_in=after[k]))
    return edits


def apply_edits(history: Sequence[Message], edits: Sequence[Edit]) -> list[Message]:
    """``history`` with ``edits`` applied by id, as LangGraph's ``add_messages`` does.

    Raises:
        InvalidMessageError: an edit names an id that is not in ``history``.
    """
    out = list(history)
    index = {m.id: i for i, m in enumerate(out)}
    gone: set[int] = set()
    for edit in edits:
        for mid in edit.ids:
            if mid not in index:
                raise InvalidMessageError(f"edit names id {mid!r}, which is not in the history")
        if edit.stand_in is not None:
            out[index[edit.ids[0]]] = edit.stand_in
        gone.update(index[mid] for mid in edit.removed_ids)
    return [m for i, m in enumerate(out) if i not in gone]
