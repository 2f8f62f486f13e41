"""Where rounds begin and end, and which part of the history is "current".

A round is a user turn, the agent's work on it and its final answer. A final
answer is an assistant message with no tool blocks that is not a compression
summary (AgentScope counted its own summaries as answers); an answer cut to an
offload preview is still one. A summary of earlier rounds also closes its
round, so a later summary can absorb it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxmgr.autocontext.config import TAIL_ROOM_SHARE, AutoContextConfig
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.pins import is_user_turn, pinned_indices
from ctxmgr.messages import Message
from ctxmgr.pairing import ToolGroup, tool_groups
from ctxmgr.tokens import TokenCounter

__all__ = ["Layout", "closes_round", "is_compressed", "is_final_answer", "is_range_stand_in",
           "layout"]


def is_compressed(m: Message) -> bool:
    """True for a message ctxmgr wrote in place of others (summary or offload preview)."""
    return CompressedMarker.of(m) is not None


def is_range_stand_in(m: Message) -> bool:
    """True for a summary or note ctxmgr wrote for a whole range of messages."""
    marker = CompressedMarker.of(m)
    return marker is not None and marker.range


def closes_round(m: Message) -> bool:
    """True for a stand-in of finished rounds (it ends its round, like an answer)."""
    marker = CompressedMarker.of(m)
    return marker is not None and marker.closes_round


def is_final_answer(m: Message) -> bool:
    return m.role == "assistant" and not m.has_tool_blocks and not is_range_stand_in(m)


@dataclass(frozen=True, slots=True, kw_only=True)
class Layout:
    """The structure of one history, computed once per compression step."""

    size: int
    pinned: frozenset[int]
    """Never touched by any strategy: system messages, the task, the latest user
    message, pinned ids and tools."""
    user_turns: frozenset[int]
    """The other user turns: the user's words go last, so only the user-turn strategy,
    the very last resort, may touch them."""
    groups: tuple[ToolGroup, ...]
    latest_user: int
    """Index of the latest user turn, -1 if none."""
    latest_final: int
    """Index of the latest final answer, -1 if none."""
    in_flight: ToolGroup | None
    """The latest tool group when no final answer follows it: only strategy 8 may cut its
    result, when it alone does not fit."""
    working_start: int
    """First index of the working set (the last ``keep_tool_results`` tool groups and
    the latest assistant message): strategies 1-7 leave it verbatim."""
    tail_start: int
    """First index of the protected tail (the last ``last_keep`` messages)."""
    rounds: tuple[tuple[int, int], ...]
    """Finished rounds as (user index, index of its final answer or of the strategy-4
    summary standing for it), oldest first."""

    @property
    def kept(self) -> frozenset[int]:
        """What every strategy but the last leaves alone: the pinned messages and the
        user's turns."""
        return self.pinned | self.user_turns

    @property
    def frozen_from(self) -> int:
        """Strategies 1-7 touch nothing from this index on: the working set and the
        in-flight tool call (only the last resort, strategy 8, may)."""
        return min(self.in_flight.start if self.in_flight else self.size, self.working_start)


def layout(
    messages: Sequence[Message], config: AutoContextConfig, counter: TokenCounter
) -> Layout:
    n = len(messages)
    users = [i for i, m in enumerate(messages) if is_user_turn(m)]
    finals = [i for i, m in enumerate(messages) if is_final_answer(m)]
    latest_final = finals[-1] if finals else -1
    groups = tuple(tool_groups(messages))
    in_flight = groups[-1] if groups and groups[-1].start > latest_final else None
    ends = [i for i, m in enumerate(messages)
            if is_final_answer(m) or closes_round(m)]
    rounds: list[tuple[int, int]] = []
    bounds = [*users, n]
    k = 0  # ends are sorted: one pass pairs each user turn with its last round end
    for u, nxt in zip(bounds, bounds[1:], strict=False):
        while k < len(ends) and ends[k] <= u:
            k += 1
        end = -1
        while k < len(ends) and ends[k] < nxt:
            end = ends[k]
            k += 1
        if end >= 0:
            rounds.append((u, end))
    pinned = pinned_indices(messages, config)
    return Layout(
        working_start=_working_start(messages, groups, config.tuning.keep_tool_results),
        size=n,
        pinned=frozenset(pinned),
        user_turns=frozenset(users) - frozenset(pinned),
        groups=groups,
        latest_user=users[-1] if users else -1,
        latest_final=latest_final,
        in_flight=in_flight,
        tail_start=_tail_start(messages, config, counter, pinned),
        rounds=tuple(rounds),
    )


def _working_start(messages: Sequence[Message], groups: Sequence[ToolGroup], keep: int) -> int:
    """Where the working set begins: the last ``keep`` tool groups and the latest
    assistant message, which the agent is most likely to use next (none when ``keep`` is 0)."""
    start = len(messages)
    if not keep:
        return start
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "assistant":
            start = i
            break
    if groups:
        start = min(start, groups[max(0, len(groups) - keep)].start)
    return start


def _tail_start(messages: Sequence[Message], config: AutoContextConfig,
                counter: TokenCounter, pinned: set[int]) -> int:
    """The last ``last_keep`` messages, cut short where they would not fit in
    :data:`TAIL_ROOM_SHARE` of the room the target leaves beside the pinned messages
    (the rest is for summaries)."""
    room = config.target_tokens - sum(counter.count(messages[i]) for i in pinned)
    budget = int(room * TAIL_ROOM_SHARE)
    start = len(messages)
    floor = max(0, len(messages) - config.tuning.last_keep)
    while start > floor:
        budget -= counter.count(messages[start - 1])
        if budget < 0:
            break
        start -= 1
    return start
