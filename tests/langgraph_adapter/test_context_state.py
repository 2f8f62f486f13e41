"""ctxmgr's graph state: plain JSON, merged by its reducer, and counts calibrated from usage."""

from __future__ import annotations

import json

from ctxmgr import ApproximateCounter, text_message
from ctxmgr_langgraph.calibration import ScaledCounter, ratio_of, updated_calibration
from ctxmgr_langgraph.state import archive_changes, merge_context_state


def entry(tid: str, mid: str, summary: str | None = None) -> dict:
    return {"tool_use_id": tid, "message_id": mid, "summary": summary}


def test_a_key_of_the_update_replaces_the_same_key_and_none_removes_it() -> None:
    left = {"compression": {"version": 1, "stand_ins": []}, "overhead": 10}
    merged = merge_context_state(left, {"overhead": 12, "compression": None})
    assert merged == {"overhead": 12}
    assert left == {"compression": {"version": 1, "stand_ins": []}, "overhead": 10}


def test_two_archive_changes_in_one_step_both_count() -> None:
    before = {"archive": {"version": 1, "archived": [entry("a", "m1")]}}
    one = archive_changes(before["archive"], {"archived": [entry("a", "m1"), entry("b", "m2")]})
    two = archive_changes(before["archive"], {"archived": [entry("a", "m1"), entry("c", "m3")]})
    merged = merge_context_state(merge_context_state(before, one), two)
    assert [e["tool_use_id"] for e in merged["archive"]["archived"]] == ["a", "b", "c"]


def test_unarchive_and_a_new_summary_are_changes_too() -> None:
    before = {"version": 1, "archived": [entry("a", "m1"), entry("b", "m2")]}
    after = {"version": 1, "archived": [entry("b", "m2", "short")]}
    change = archive_changes(before, after)
    assert change == {"archive_add": [entry("b", "m2", "short")],
                      "archive_remove": [entry("a", "m1")]}
    merged = merge_context_state({"archive": before}, change)
    assert merged["archive"]["archived"] == [entry("b", "m2", "short")]


def test_memo_elisions_accumulate_and_change_lists_are_not_stored() -> None:
    first = merge_context_state(None, {"memos_add": [{"message_id": "m", "tool_use_id": "t",
                                                      "placeholder": "P"}]})
    second = merge_context_state(first, {"memos_add": [{"message_id": "n", "tool_use_id": "u",
                                                        "placeholder": "Q"}]})
    assert [m["tool_use_id"] for m in second["memos"]] == ["t", "u"]
    assert set(second) == {"memos"}
    assert json.loads(json.dumps(second)) == second


def test_calibration_follows_the_reported_input_tokens() -> None:
    record = updated_calibration(None, counted=1000, reported=1500)
    assert record == {"ratio": 1.5, "samples": 1}
    assert ratio_of(record) == 1.5
    record = updated_calibration(record, counted=1000, reported=1300)
    assert record is not None and abs(record["ratio"] - 1.4) < 1e-9
    assert ratio_of(record) == 1.4


def test_calibration_ignores_tiny_requests_and_missing_reports() -> None:
    assert updated_calibration(None, counted=50, reported=400) is None
    assert updated_calibration(None, counted=1000, reported=None) is None
    assert updated_calibration(None, counted=1000, reported=True) is None


def test_ratios_are_rounded_up_to_five_percent_and_bounded() -> None:
    assert ratio_of({"ratio": 1.01}) == 1.05
    assert ratio_of({"ratio": 9}) == 4.0
    assert ratio_of({"ratio": "nonsense"}) == 1.0
    assert ratio_of(None) == 1.0


def test_a_scaled_counter_scales_every_count_and_caches_apart() -> None:
    base = ApproximateCounter()
    scaled = ScaledCounter(base, 1.5)
    m = text_message("user", "x" * 400)
    assert scaled.count(m) == -(-base.count(m) * 3 // 2)
    assert scaled.cache_key != base.cache_key
    assert m._token_cache[base.cache_key] == base.count(m)
