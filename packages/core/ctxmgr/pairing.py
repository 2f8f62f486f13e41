"""Tool-call / tool-result pairing: groups and validation.

A *group* is an assistant message with tool calls plus the run of tool-result
messages right after it. A result answers a call of the nearest preceding
assistant turn only: real histories reuse tool-call ids across turns, so ids
are never matched globally.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from ctxmgr.errors import PairingError
from ctxmgr.messages import Message, ToolResultBlock, ToolUseBlock

__all__ = [
    "PairingRules",
    "PairingViolation",
    "ToolGroup",
    "assert_valid_pairing",
    "tool_groups",
    "validate_pairing",
]

PairingRules: TypeAlias = Literal["openai", "anthropic"]
ViolationKind: TypeAlias = Literal[
    "orphan_result", "unanswered_call", "duplicate_result", "duplicate_call",
    "result_not_first",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class PairingViolation:
    """One broken pairing rule, located by message index and tool-call id."""

    kind: ViolationKind
    index: int
    """Index of the offending message (the result, or the call left unanswered)."""
    tool_use_id: str

    def __str__(self) -> str:
        what = {
            "orphan_result": "tool result answers no call of the preceding assistant turn",
            "unanswered_call": "tool call is not answered before the next non-tool message",
            "duplicate_result": "tool call is answered more than once",
            "duplicate_call": "the same tool-call id appears twice in one assistant turn",
            "result_not_first": "tool result follows other content in its user turn",
        }[self.kind]
        return f"message {self.index}: {what} (tool_use_id {self.tool_use_id!r})"


@dataclass(frozen=True, slots=True)
class ToolGroup:
    """``messages[start]`` is the assistant call; ``messages[start + 1:end]`` the results."""

    start: int
    end: int


def _is_result_message(m: Message) -> bool:
    return m.role in ("tool", "user") and any(isinstance(b, ToolResultBlock) for b in m.content)


def tool_groups(messages: Sequence[Message]) -> list[ToolGroup]:
    """Every assistant tool-call message with the run of result messages after it."""
    groups: list[ToolGroup] = []
    i, n = 0, len(messages)
    while i < n:
        m = messages[i]
        if m.role == "assistant" and any(isinstance(b, ToolUseBlock) for b in m.content):
            j = i + 1
            while j < n and _is_result_message(messages[j]):
                j += 1
                if messages[j - 1].role == "user":  # a user turn closes the group
                    break
            groups.append(ToolGroup(i, j))
            i = j
        else:
            i += 1
    return groups


def validate_pairing(
    messages: Sequence[Message],
    *,
    rules: PairingRules = "openai",
    allow_in_flight: bool = True,
) -> list[PairingViolation]:
    """Return every pairing violation, in message order (empty when valid).

    Args:
        messages: the history as it would be sent to the model.
        rules: ``"openai"`` (every call answered by tool messages before the next
            non-tool message) or ``"anthropic"`` (additionally, results come first
            in their user turn).
        allow_in_flight: accept calls at the very end of the history that have no
            result yet (the tool is still running).
    """
    violations: list[PairingViolation] = []
    pending: dict[str, int] = {}  # open call id -> index of its assistant message
    answered: set[str] = set()
    for i, m in enumerate(messages):
        results = [b for b in m.content if isinstance(b, ToolResultBlock)]
        if results:
            if rules == "anthropic":
                first_other = next((k for k, b in enumerate(m.content)
                                    if not isinstance(b, ToolResultBlock)), None)
                if first_other is not None and any(
                        isinstance(b, ToolResultBlock) for b in m.content[first_other:]):
                    violations.append(PairingViolation(
                        kind="result_not_first", index=i, tool_use_id=results[-1].tool_use_id))
            for r in results:
                if r.tool_use_id in pending:
                    del pending[r.tool_use_id]
                    answered.add(r.tool_use_id)
                elif r.tool_use_id in answered:
                    violations.append(PairingViolation(
                        kind="duplicate_result", index=i, tool_use_id=r.tool_use_id))
                else:
                    violations.append(PairingViolation(
                        kind="orphan_result", index=i, tool_use_id=r.tool_use_id))
            if m.role == "tool" or not any(
                    not isinstance(b, ToolResultBlock) for b in m.content):
                continue
            # a user turn that also carries other content closes the group
        _close(pending, violations)
        answered.clear()
        uses = [b for b in m.content if isinstance(b, ToolUseBlock)]
        if m.role == "assistant" and uses:
            for u in uses:
                if u.id in pending:
                    violations.append(PairingViolation(
                        kind="duplicate_call", index=i, tool_use_id=u.id))
                pending[u.id] = i
    if not allow_in_flight:
        _close(pending, violations)
    violations.sort(key=lambda v: v.index)
    return violations


def _close(pending: dict[str, int], violations: list[PairingViolation]) -> None:
    for call_id, idx in pending.items():
        violations.append(PairingViolation(kind="unanswered_call", index=idx, tool_use_id=call_id))
    pending.clear()


def assert_valid_pairing(
    messages: Sequence[Message], *, rules: PairingRules = "openai", allow_in_flight: bool = True
) -> None:
    """Raise :class:`PairingError` listing the first violations, if there are any."""
    violations = validate_pairing(messages, rules=rules, allow_in_flight=allow_in_flight)
    if violations:
        raise PairingError(violations, rules=rules)
