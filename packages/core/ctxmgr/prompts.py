"""Text the model reads: tool descriptions, system-prompt fragments, a context-usage note.

Kept apart from the logic so the wording can be tuned (or overridden by a
caller) without touching the tools. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxmgr.errors import ConfigError
from ctxmgr.messages import Message, TextBlock, freeze, thaw

__all__ = [
    "ARCHIVE_SYSTEM_PROMPT",
    "ARCHIVE_TOOL_DESCRIPTION",
    "MEMO_SYSTEM_PROMPT",
    "MEMO_TOOL_DESCRIPTION",
    "RELOAD_HINT_ID",
    "RELOAD_SYSTEM_PROMPT",
    "ToolSpec",
    "after_system",
    "context_usage_note",
    "reload_hint_message",
    "system_prompt_fragment",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """A tool definition (name, description, JSON Schema of its input) in neutral form.

    ``to_openai()`` and ``to_anthropic()`` give the dicts each provider's API
    takes in its ``tools`` list; both are fresh plain dicts, safe to mutate.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    """JSON Schema (draft 2020-12 subset both providers accept) of the tool input."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", freeze(self.parameters))

    def to_openai(self) -> dict[str, Any]:
        """``{"type": "function", "function": {name, description, parameters}}``."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": thaw(self.parameters),
            },
        }

    def to_anthropic(self) -> dict[str, Any]:
        """``{name, description, input_schema}``."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": thaw(self.parameters),
        }


ARCHIVE_TOOL_DESCRIPTION = """\
Message Archiving Tool: hide tool results you no longer need from your context, \
or bring archived ones back.

- action "archive": replaces each listed tool result with a short placeholder that \
names its tool_use_id (plus your summary, if you give one). The original is kept \
and can be restored at any time.
- action "unarchive": restores the original tool results.
- tool_use_ids: the ids of the tool calls whose results to archive or restore \
(at least one). An id that occurs more than once refers to its latest call.
- summary (optional, archive only): one or two sentences of what the results \
contained that you may still need; it is shown inside the placeholder.

Results of 100 characters or fewer are not archived (it would save nothing), and a \
tool call that has no result yet cannot be archived."""

MEMO_TOOL_DESCRIPTION = """\
Memo Tool: save your own notes to disk so they survive context compression, and \
read them back later. Memos belong to this session and stay on disk.

- action "write": store content under key (same key overwrites). Needs key, \
summary (1-300 characters: what the memo holds, shown in list) and content \
(the full text, Markdown welcome). After a successful write only the summary \
stays in the conversation, so put everything you will need into content.
- action "read": return the full content stored under key.
- action "list": keys and summaries of all memos, most recently updated first.
- action "delete": remove the memo under key.

Keys: 1-100 characters of letters, digits, ".", "_" or "-" (no "/" and no \
".."), e.g. "plan", "root-cause_analysis". At most 50 memos per session: delete \
stale ones when you hit the limit. Never write a placeholder as content; always \
send the real text."""

ARCHIVE_SYSTEM_PROMPT = """\
You can keep your context small with the message_archiving tool. Archive tool \
results that are finished with, long and no longer needed (large file reads, \
search output, logs, API payloads you have already acted on); add a short \
summary of anything from them you may still need. Do not archive results you are \
still working from. Archived results show as a placeholder naming their \
tool_use_id; unarchive one if you need its details again."""

MEMO_SYSTEM_PROMPT = """\
You can save notes to disk with the memo tool. Write a memo for what you would \
hate to lose when older messages are compressed: conclusions of your analysis, \
your plan and its progress, and records of errors and how you fixed them. Give \
each memo a clear key and a one-line summary; use memo list to see what you have \
and memo read to recall the full text. Update a memo by writing the same key, and \
delete memos that are stale."""


RELOAD_SYSTEM_PROMPT = """\
Earlier messages were compressed; each ends with <!-- CONTEXT_OFFLOAD: uuid=ID -->. \
context_search finds a detail in them; context_reload with that uuid gives an \
original back. Never show these ids to the user."""

RELOAD_HINT_ID = "ctxmgr-reload-hint"
"""Id of the system message that carries :data:`RELOAD_SYSTEM_PROMPT` in a prompt."""


def system_prompt_fragment(*, message_archiving: bool = True, memo: bool = True,
                           context_reload: bool = False) -> str:
    """The system-prompt guidance for the tools that are switched on ("" when none).

    Args:
        message_archiving: include the guidance for the archiving tool.
        memo: include the guidance for the memo tool.
        context_reload: include what offload tags mean and how to reload them.
    """
    parts = []
    if context_reload:
        parts.append(RELOAD_SYSTEM_PROMPT)
    if message_archiving:
        parts.append(ARCHIVE_SYSTEM_PROMPT)
    if memo:
        parts.append(MEMO_SYSTEM_PROMPT)
    return "\n\n".join(parts)


def after_system(messages: Sequence[Message], inserts: Iterable[Message]) -> list[Message]:
    """``messages`` with ``inserts`` right after their leading system messages: the one
    place ctxmgr's own system messages (the reload hint, the tool guidance) go, so the
    model reads them with the system prompt, before the conversation."""
    extra = list(inserts)
    at = 0
    while at < len(messages) and messages[at].role == "system":
        at += 1
    return [*messages[:at], *extra, *messages[at:]]


def reload_hint_message() -> Message:
    """The system message that tells the model what offload tags are (always the same
    id and text, so it never disturbs a cached prompt prefix)."""
    text = system_prompt_fragment(message_archiving=False, memo=False, context_reload=True)
    return Message(role="system", content=(TextBlock(text=text),), id=RELOAD_HINT_ID)


def _short(n: int) -> str:
    for unit, size in (("M", 1_000_000), ("k", 1_000)):
        if n >= size:
            value = n / size
            text = f"{value:.1f}" if value < 10 else f"{round(value)}"
            return text.removesuffix(".0") + unit
    return str(n)


def context_usage_note(used_tokens: int, max_tokens: int) -> str:
    """A one-line note telling the model how full its context is.

    Example: ``context_usage_note(78_000, 128_000) == "context: 61% of 128k used"``.

    Args:
        used_tokens: tokens of the prompt as it will be sent (0 or more).
        max_tokens: the model's context window (more than 0).

    Raises:
        ConfigError: a negative ``used_tokens`` or a ``max_tokens`` under 1.
    """
    if isinstance(used_tokens, bool) or not isinstance(used_tokens, int) or used_tokens < 0:
        raise ConfigError(f"used_tokens must be an int >= 0, got {used_tokens!r}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ConfigError(f"max_tokens must be an int >= 1, got {max_tokens!r}")
    percent = round(100 * used_tokens / max_tokens)
    return f"context: {percent}% of {_short(max_tokens)} used"
