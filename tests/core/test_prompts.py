"""Prompt text: tool descriptions, the system-prompt fragment and the context-usage note."""

from __future__ import annotations

import pytest

from ctxmgr.archive import ARCHIVE_TOOL
from ctxmgr.errors import ConfigError
from ctxmgr.memo import MEMO_TOOL
from ctxmgr.prompts import (
    ARCHIVE_SYSTEM_PROMPT,
    MEMO_SYSTEM_PROMPT,
    context_usage_note,
    system_prompt_fragment,
)


@pytest.mark.parametrize(("used", "window", "note"), [
    (78_000, 128_000, "context: 61% of 128k used"),
    (0, 128_000, "context: 0% of 128k used"),
    (200_000, 200_000, "context: 100% of 200k used"),
    (140_000, 128_000, "context: 109% of 128k used"),
    (1_000, 8_192, "context: 12% of 8.2k used"),
    (500_000, 1_000_000, "context: 50% of 1M used"),
    (10, 500, "context: 2% of 500 used"),
])
def test_context_usage_note_gives_the_share_of_the_window(used: int, window: int,
                                                          note: str) -> None:
    assert context_usage_note(used, window) == note


@pytest.mark.parametrize(("used", "window"), [(-1, 100), (1, 0), (1, -5), (1.5, 100),
                                              (True, 100)])
def test_context_usage_note_rejects_nonsense_numbers(used: object, window: object) -> None:
    with pytest.raises(ConfigError):
        context_usage_note(used, window)  # type: ignore[arg-type]


def test_system_prompt_fragment_covers_only_the_tools_switched_on() -> None:
    both = system_prompt_fragment()

    assert both == f"{ARCHIVE_SYSTEM_PROMPT}\n\n{MEMO_SYSTEM_PROMPT}"
    assert system_prompt_fragment(memo=False) == ARCHIVE_SYSTEM_PROMPT
    assert system_prompt_fragment(message_archiving=False) == MEMO_SYSTEM_PROMPT
    assert system_prompt_fragment(message_archiving=False, memo=False) == ""


def test_the_fragment_says_when_to_archive_and_when_to_write_a_memo() -> None:
    archive, memo = ARCHIVE_SYSTEM_PROMPT.lower(), MEMO_SYSTEM_PROMPT.lower()

    for phrase in ("message_archiving", "finished", "long", "no longer needed", "summary",
                   "unarchive"):
        assert phrase in archive, phrase
    for phrase in ("memo", "conclusions", "plan", "errors", "memo read", "stale"):
        assert phrase in memo, phrase


def test_tool_descriptions_state_the_rules_the_tools_enforce() -> None:
    assert "100 characters or fewer" in ARCHIVE_TOOL.description
    assert "tool_use_id" in ARCHIVE_TOOL.description
    for phrase in ("1-300 characters", "At most 50 memos", "1-100 characters", 'no "/"',
                   "placeholder"):
        assert phrase in MEMO_TOOL.description, phrase
