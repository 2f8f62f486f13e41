"""Tool-call / tool-result pairing: zero violations on real runs, exact ones on broken ones."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import openai_conversations

from ctxmgr.convert import from_anthropic, from_openai
from ctxmgr.errors import PairingError
from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from ctxmgr.pairing import (
    PairingViolation,
    ToolGroup,
    assert_valid_pairing,
    tool_groups,
    validate_pairing,
)
from ctxmgr.replay.trajectories import Trajectory

JSON = dict[str, Any]
RULES = ["openai", "anthropic"]


# Tiny OpenAI-format builders: histories below read like the transcripts they model.
def system(text: str = "be helpful") -> JSON:
    return {"role": "system", "content": text}


def user(text: str = "please") -> JSON:
    return {"role": "user", "content": text}


def answer(text: str = "done") -> JSON:
    return {"role": "assistant", "content": text}


def calls(*ids: str) -> JSON:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": i, "type": "function", "function": {"name": "bash", "arguments": "{}"}}
        for i in ids]}


def result(call_id: str) -> JSON:
    return {"role": "tool", "content": f"output of {call_id}", "tool_call_id": call_id}


def v(kind: str, index: int, tool_use_id: str) -> PairingViolation:
    return PairingViolation(kind=kind, index=index, tool_use_id=tool_use_id)  # type: ignore[arg-type]


def check(raw: list[JSON], **kwargs: Any) -> list[tuple[str, int, str]]:
    return [(x.kind, x.index, x.tool_use_id)
            for x in validate_pairing(from_openai(raw), **kwargs)]


# --- real runs ----------------------------------------------------------------------------


@pytest.mark.parametrize("rules", RULES)
def test_fixture_runs_have_no_violations(fixture_trajectories: list[Trajectory], rules: str
                                         ) -> None:
    for t in fixture_trajectories:
        assert validate_pairing(t.messages, rules=rules) == [], t.id  # type: ignore[arg-type]
        assert_valid_pairing(t.messages, rules=rules)  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES)
def test_shared_runs_have_no_violations(shared_trajectories: list[Trajectory], rules: str
                                        ) -> None:
    for t in shared_trajectories:
        assert validate_pairing(t.messages, rules=rules) == [], t.id  # type: ignore[arg-type]
        # every recorded run ends answered, so this holds without the in-flight allowance
        assert validate_pairing(t.messages, rules=rules,  # type: ignore[arg-type]
                                allow_in_flight=False) == [], t.id


@pytest.mark.slow
def test_shared_tau_runs_that_reuse_tool_call_ids_are_valid(
    shared_trajectories: list[Trajectory],
) -> None:
    reusing = []
    for t in shared_trajectories:
        ids = [u.id for m in t.messages for u in m.tool_uses]
        if len(ids) != len(set(ids)):
            reusing.append(t.id)
            assert validate_pairing(t.messages) == [], t.id
    assert len(reusing) == 25  # SPEC §3: 25 of the 100 tau-bench runs reuse an id


def test_fixture_runs_that_reuse_tool_call_ids_are_valid(
    fixture_trajectories: list[Trajectory],
) -> None:
    reusing = [t for t in fixture_trajectories
               if len({u.id for m in t.messages for u in m.tool_uses})
               < sum(len(m.tool_uses) for m in t.messages)]
    assert reusing, "the fixtures should include a run that reuses a tool-call id"
    for t in reusing:
        assert validate_pairing(t.messages) == [], t.id


# --- valid shapes ---------------------------------------------------------------------------


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(
    "raw",
    [
        [],
        [system(), user(), answer()],
        [user(), calls("a"), result("a"), answer()],
        [user(), calls("a", "b"), result("b"), result("a"), answer()],
        [user(), calls("a"), result("a"), calls("b"), result("b"), answer(), user()],
        # the same id in two different turns: each result answers its own turn
        [user(), calls("a"), result("a"), calls("a"), result("a"), answer()],
        [user(), calls("a"), result("a"), answer(), user(), calls("a"), result("a")],
    ],
    ids=["empty", "no-tools", "one-call", "answered-out-of-order", "two-turns",
         "id-repeated-across-turns", "id-repeated-across-rounds"],
)
def test_valid_histories_have_no_violations(raw: list[JSON], rules: str) -> None:
    assert check(raw, rules=rules) == []


# --- broken shapes: the exact violation list ----------------------------------------------


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param([user(), result("x"), answer()],
                     [("orphan_result", 1, "x")], id="orphan-result-after-user"),
        pytest.param([system(), result("x")],
                     [("orphan_result", 1, "x")], id="orphan-result-after-system"),
        pytest.param([user(), calls("a"), result("b"), result("a"), answer()],
                     [("orphan_result", 2, "b")], id="result-for-an-unknown-id"),
        pytest.param([user(), calls("a", "b"), result("a"), user("next")],
                     [("unanswered_call", 1, "b")], id="call-unanswered-before-next-user"),
        pytest.param([user(), calls("a"), answer("too early"), result("a")],
                     [("unanswered_call", 1, "a"), ("orphan_result", 3, "a")],
                     id="call-unanswered-before-assistant-text"),
        pytest.param([user(), calls("a"), calls("b"), result("b")],
                     [("unanswered_call", 1, "a")], id="call-unanswered-before-next-call"),
        pytest.param([user(), calls("a"), result("a"), result("a"), answer()],
                     [("duplicate_result", 3, "a")], id="duplicate-result"),
        pytest.param([user(), calls("a", "a"), result("a"), answer()],
                     [("duplicate_call", 1, "a")], id="duplicate-call-id-in-one-turn"),
        pytest.param([user(), calls("a", "b"), result("a"), user("hurry"), result("b"),
                      answer()],
                     [("unanswered_call", 1, "b"), ("orphan_result", 4, "b")],
                     id="result-placed-after-the-next-user-turn"),
        pytest.param([user(), calls("a"), result("a"), calls("b"), result("a"), answer()],
                     [("unanswered_call", 3, "b"), ("orphan_result", 4, "a")],
                     id="result-answers-an-earlier-turn-not-the-nearest"),
        pytest.param([user(), calls("a"), result("a"), system("late"), result("a")],
                     [("orphan_result", 4, "a")], id="result-after-a-system-message"),
        pytest.param([user(), calls("a", "b", "c"), user(), calls("d"), result("d"), answer()],
                     [("unanswered_call", 1, "a"), ("unanswered_call", 1, "b"),
                      ("unanswered_call", 1, "c")], id="every-call-of-a-turn-unanswered"),
    ],
)
def test_broken_histories_report_exact_violations(
    raw: list[JSON], expected: list[tuple[str, int, str]], rules: str
) -> None:
    assert check(raw, rules=rules) == expected


def test_trailing_calls_in_flight_are_allowed_by_default() -> None:
    raw = [user(), calls("a"), result("a"), calls("b", "c"), result("c")]
    assert check(raw) == []
    assert check(raw, rules="anthropic") == []


def test_trailing_calls_in_flight_are_reported_when_not_allowed() -> None:
    raw = [user(), calls("a"), result("a"), calls("b", "c"), result("c")]
    assert check(raw, allow_in_flight=False) == [("unanswered_call", 3, "b")]
    assert check([user(), calls("x", "y")], allow_in_flight=False) == [
        ("unanswered_call", 1, "x"), ("unanswered_call", 1, "y")]


def test_in_flight_allowance_covers_only_the_last_turn() -> None:
    raw = [user(), calls("a"), calls("b")]
    assert check(raw) == [("unanswered_call", 1, "a")]


def test_violations_are_pairing_violation_values_in_message_order() -> None:
    raw = [user(), calls("a"), result("z"), answer(), result("y")]
    assert validate_pairing(from_openai(raw)) == [
        v("unanswered_call", 1, "a"), v("orphan_result", 2, "z"), v("orphan_result", 4, "y")]


# --- Anthropic-only rule: results first in their user turn ---------------------------------


def _anthropic(turn: list[JSON]) -> list[Message]:
    return from_anthropic([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]},
        {"role": "user", "content": turn},
    ])


_T1 = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
_TEXT = {"type": "text", "text": "note"}


def test_result_after_text_in_a_user_turn_is_reported_under_anthropic_rules() -> None:
    messages = _anthropic([_TEXT, _T1])
    assert validate_pairing(messages, rules="anthropic") == [v("result_not_first", 2, "t1")]
    assert validate_pairing(messages, rules="openai") == []


def test_results_followed_by_text_in_a_user_turn_are_valid_under_both_rules() -> None:
    messages = _anthropic([_T1, _TEXT])
    assert validate_pairing(messages, rules="anthropic") == []
    assert validate_pairing(messages, rules="openai") == []


def test_a_user_turn_with_text_closes_the_tool_group() -> None:
    messages = from_anthropic([
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
            {"type": "tool_use", "id": "t2", "name": "f", "input": {}}]},
        {"role": "user", "content": [_T1, _TEXT]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2",
                                      "content": "late"}]},
    ])
    assert validate_pairing(messages, rules="anthropic") == [
        v("unanswered_call", 0, "t2"), v("orphan_result", 2, "t2")]


def test_several_results_in_one_neutral_message_pair_with_their_calls() -> None:
    messages = [
        Message(role="assistant", content=(ToolUseBlock(id="a", name="f", input={}),
                                           ToolUseBlock(id="b", name="f", input={}))),
        Message(role="tool", content=(ToolResultBlock(tool_use_id="a", content="1"),
                                      ToolResultBlock(tool_use_id="b", content="2"))),
        Message(role="assistant", content=(TextBlock(text="done"),)),
    ]
    for rules in RULES:
        assert validate_pairing(messages, rules=rules) == []  # type: ignore[arg-type]


# --- assert_valid_pairing / PairingError ----------------------------------------------------


def test_assert_valid_pairing_returns_quietly_on_a_valid_history() -> None:
    assert assert_valid_pairing(from_openai([user(), calls("a"), result("a")])) is None


def test_pairing_error_lists_at_most_three_ids_and_states_the_rule() -> None:
    raw = [user(), *(result(f"orphan{i}") for i in range(1, 6))]
    with pytest.raises(PairingError) as info:
        assert_valid_pairing(from_openai(raw))
    err = info.value
    assert isinstance(err, ValueError)
    text = str(err)
    for shown in ("'orphan1'", "'orphan2'", "'orphan3'"):
        assert shown in text
    for hidden in ("orphan4", "orphan5"):
        assert hidden not in text
    assert "5 tool-pairing violation(s) under openai rules" in text
    assert "(and 2 more)" in text
    assert "Rule: every tool call must be answered" in text
    assert len(err.violations) == 5
    assert err.rules == "openai"


def test_pairing_error_names_the_message_index_and_the_kind_of_break() -> None:
    with pytest.raises(PairingError, match=r"message 1: tool call is not answered") as info:
        assert_valid_pairing(from_openai([user(), calls("a"), user()]), rules="anthropic")
    assert "under anthropic rules" in str(info.value)
    assert "(and" not in str(info.value)


def test_assert_valid_pairing_honours_allow_in_flight() -> None:
    messages = from_openai([user(), calls("a")])
    assert_valid_pairing(messages)
    with pytest.raises(PairingError, match="'a'"):
        assert_valid_pairing(messages, allow_in_flight=False)


# --- tool groups ---------------------------------------------------------------------------


def test_tool_groups_span_each_call_and_the_results_after_it() -> None:
    raw = [system(), user(), calls("a", "b"), result("a"), result("b"), calls("a"), result("a"),
           answer(), user(), calls("c")]
    assert tool_groups(from_openai(raw)) == [ToolGroup(2, 5), ToolGroup(5, 7), ToolGroup(9, 10)]


def test_a_user_turn_holding_results_ends_its_tool_group() -> None:
    messages = _anthropic([_T1, _TEXT])
    assert tool_groups(messages) == [ToolGroup(1, 3)]


# --- properties ----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(openai_conversations(in_flight=None))
def test_generated_histories_have_no_violations_under_either_rule(raw: list[JSON]) -> None:
    messages = from_openai(raw)
    assert validate_pairing(messages, rules="openai") == []
    assert validate_pairing(messages, rules="anthropic") == []


@settings(max_examples=30, deadline=None)
@given(openai_conversations(in_flight=True, odd=False))
def test_generated_in_flight_calls_are_reported_only_when_not_allowed(raw: list[JSON]) -> None:
    messages = from_openai(raw)
    assert validate_pairing(messages) == []
    last = len(raw) - 1
    expected = [v("unanswered_call", last, c["id"]) for c in raw[-1]["tool_calls"]]
    assert validate_pairing(messages, allow_in_flight=False) == expected


def _tool_positions(raw: list[JSON]) -> list[int]:
    return [i for i, m in enumerate(raw) if m["role"] == "tool"]


@settings(max_examples=30, deadline=None)
@given(openai_conversations(min_rounds=2, odd=False), st.data())
def test_dropping_one_result_reports_exactly_that_call(raw: list[JSON], data: st.DataObject
                                                        ) -> None:
    positions = _tool_positions(raw)
    if not positions:
        return
    i = data.draw(st.sampled_from(positions))
    call_id = raw[i]["tool_call_id"]
    turn = max(k for k in range(i) if raw[k]["role"] == "assistant")
    end = i
    while end + 1 < len(raw) and raw[end + 1]["role"] == "tool":
        end += 1
    broken = raw[:i] + raw[i + 1:]
    expected = [] if end + 1 == len(raw) else [v("unanswered_call", turn, call_id)]
    assert validate_pairing(from_openai(broken)) == expected
    assert validate_pairing(from_openai(broken), allow_in_flight=False) == [
        v("unanswered_call", turn, call_id)]


@settings(max_examples=30, deadline=None)
@given(openai_conversations(odd=False), st.data())
def test_repeating_one_result_reports_a_duplicate_result(raw: list[JSON], data: st.DataObject
                                                          ) -> None:
    positions = _tool_positions(raw)
    if not positions:
        return
    i = data.draw(st.sampled_from(positions))
    broken = raw[:i + 1] + [raw[i]] + raw[i + 1:]
    assert validate_pairing(from_openai(broken)) == [
        v("duplicate_result", i + 1, raw[i]["tool_call_id"])]
