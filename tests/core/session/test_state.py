"""The session state: typed, plain JSON, merged key by key, and never raised at the agent."""

from __future__ import annotations

import json
import logging

import pytest

from ctxmgr.archive import ArchiveState
from ctxmgr.session import (
    MAX_RELOAD_PAGES,
    MemoElision,
    SessionState,
    archive_changes,
    merge_session_state,
)
from ctxmgr.session.calibration import Calibration


def entry(tid: str, mid: str, summary: str | None = None) -> dict:
    return {"tool_use_id": tid, "message_id": mid, "summary": summary}


def test_a_state_round_trips_through_plain_json() -> None:
    state = SessionState(
        compression={"version": 2, "stand_ins": []},
        archive=ArchiveState.from_dict({"archived": [entry("c1", "m1", "logs")]}),
        memos=(MemoElision(message_id="a1", tool_use_id="m1", placeholder="P"),),
        calibration=Calibration(ratio=1.3, samples=2), overhead=120, sent_tokens=900,
        reload_pages={"0" * 32: 400})
    data = json.loads(json.dumps(state.to_json()))
    assert SessionState.from_json(data) == state
    assert SessionState().to_json() == {}


@pytest.mark.parametrize("damage", [
    {"compression": {"version": 9, "stand_ins": []}},
    {"compression": {"version": 2, "stand_ins": [{"id": "x"}]}},
    {"archive": {"archived": [{"tool_use_id": 5}]}},
    {"memos": [{"message_id": "m"}]},
    {"calibration": {"ratio": "fast"}},
    {"overhead": -3},
    {"reload_pages": ["page"]},
])
def test_a_damaged_part_is_left_out_with_a_warning_and_the_rest_is_read(
        damage: dict, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="ctxmgr.session")
    good = {"overhead": 77, "sent_tokens": 5}
    state = SessionState.from_json({**good, **damage})
    [name] = damage
    assert f"{name} is damaged" in caplog.text
    assert state.sent_tokens == 5 and (name == "overhead" or state.overhead == 77)
    assert getattr(state, name) == getattr(SessionState(), name)


def test_a_state_that_is_not_a_dict_is_a_new_session(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="ctxmgr.session")
    assert SessionState.from_json(["not", "a", "state"]) == SessionState()  # type: ignore[arg-type]
    assert "the whole state is damaged" in caplog.text


def test_a_key_of_the_update_replaces_the_same_key_and_none_removes_it() -> None:
    left = {"compression": {"version": 2, "stand_ins": []}, "overhead": 10}
    merged = merge_session_state(left, {"overhead": 12, "compression": None})
    assert merged == {"overhead": 12}
    assert left == {"compression": {"version": 2, "stand_ins": []}, "overhead": 10}


def test_two_archive_changes_in_one_step_both_count() -> None:
    before = ArchiveState.from_dict({"archived": [entry("a", "m1")]})
    one = archive_changes(before, ArchiveState.from_dict(
        {"archived": [entry("a", "m1"), entry("b", "m2")]}))
    two = archive_changes(before, ArchiveState.from_dict(
        {"archived": [entry("a", "m1"), entry("c", "m3")]}))
    merged = merge_session_state(merge_session_state({"archive": before.to_dict()}, one), two)
    assert [e["tool_use_id"] for e in merged["archive"]["archived"]] == ["a", "b", "c"]


def test_unarchive_and_a_new_summary_are_changes_too() -> None:
    before = ArchiveState.from_dict({"archived": [entry("a", "m1"), entry("b", "m2")]})
    after = ArchiveState.from_dict({"archived": [entry("b", "m2", "short")]})
    change = archive_changes(before, after)
    assert change == {"archive_add": [entry("b", "m2", "short")],
                      "archive_remove": [entry("a", "m1")]}
    merged = merge_session_state({"archive": before.to_dict()}, change)
    assert merged["archive"]["archived"] == [entry("b", "m2", "short")]


def test_memo_elisions_accumulate_and_change_lists_are_not_stored() -> None:
    first = merge_session_state(None, {"memos_add": [{"message_id": "m", "tool_use_id": "t",
                                                      "placeholder": "P"}]})
    second = merge_session_state(first, {"memos_add": [{"message_id": "n", "tool_use_id": "u",
                                                        "placeholder": "Q"}]})
    assert [m["tool_use_id"] for m in second["memos"]] == ["t", "u"]
    assert set(second) == {"memos"}


def test_reload_page_sizes_are_merged_and_bounded() -> None:
    state: dict = {}
    for k in range(MAX_RELOAD_PAGES + 5):
        state = merge_session_state(state, {"reload_pages": {f"{k:032x}": 300 + k}})
    pages = state["reload_pages"]
    assert len(pages) == MAX_RELOAD_PAGES and f"{0:032x}" not in pages
    assert pages[f"{MAX_RELOAD_PAGES + 4:032x}"] == 304 + MAX_RELOAD_PAGES
