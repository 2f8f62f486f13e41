"""Fidelity measures on hand-made histories and recorded runs: the fact rule, what a
dropped tool result loses, recency, reloadable and searchable facts, and what recovering
a lost fact costs each policy."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import pytest
from builders import Scripted

from ctxmgr.messages import Message, ToolResultBlock, ToolUseBlock, text_message
from ctxmgr.replay import Policy, Trajectory, replay
from ctxmgr.replay.fidelity import (
    AGE_BUCKETS,
    TrajectoryFacts,
    distinctive_strings,
    is_plain_word,
    visible_text,
)
from ctxmgr.replay.metrics import CACHED_PRICE, CallRecord
from ctxmgr.tokens import ApproximateCounter, default_counter

COUNTER = ApproximateCounter()
TAG = "<!-- CONTEXT_OFFLOAD: uuid={} -->"


def _step(i: int, text: str, command: str) -> Message:
    use = ToolUseBlock(id=f"call_{i}", name="bash", input={"command": command})
    return text_message("assistant", text, id=f"a{i}", tool_uses=[use])


def _result(i: int, text: str) -> Message:
    return Message(role="tool", content=(ToolResultBlock(tool_use_id=f"call_{i}", content=text),),
                   id=f"r{i}")


def _history() -> Trajectory:
    """Each tool result holds facts that exactly one later step uses."""
    messages = [
        text_message("system", "You are a coding agent. Use the bash tool.", id="s"),
        text_message("user", "Fix the crash in src/pkg/parser.py when headers are empty.",
                     id="u"),
        _step(0, "Let me search.", "grep -rn header src"),
        _result(0, "src/pkg/parser.py:120: def parse_header(data):\n"
                   "src/pkg/util.py:8: from .parser import HeaderValue"),
        _step(1, "The function parse_header is at line 120.", "sed -n 110,140p src/pkg/parser.py"),
        _result(1, "    if not data:\n        raise EmptyHeaderError(MAX_HEADER_LEN)"),
        _step(2, "It raises EmptyHeaderError; checking the limit.", "grep -n LIMIT src/pkg"),
        _result(2, "src/pkg/limits.py:3: MAX_HEADER_LEN = 8192"),
        _step(3, "The limit is MAX_HEADER_LEN in src/pkg/limits.py.", "cat setup.cfg"),
        _result(3, "[metadata]\nversion = 2.4.1"),
        text_message("assistant", "HeaderValue is imported from the parser; done.", id="final"),
    ]
    return Trajectory(id="hand-made", source="test", messages=tuple(messages), raw=())


def _calls(trajectories: Sequence[Trajectory], policy: str | Policy, budget: int = 100_000,
           counter=COUNTER) -> tuple[dict, list[CallRecord]]:
    report = replay(trajectories, [policy], budget=budget, counter=counter)
    name = next(iter(report.runs))
    calls = [c for r in report.runs[name].results for c in r.calls]
    return report.aggregate(name), calls


def _cleared(m: Message) -> Message:
    """``m`` with its tool output replaced (pairing kept)."""
    blocks = tuple(dataclasses.replace(b, content="[cleared]") if isinstance(b, ToolResultBlock)
                   else b for b in m.content)
    return dataclasses.replace(m, content=blocks)


def _drop_result(message_id: str) -> Callable[[list[Message]], list[Message]]:
    return lambda h: [_cleared(m) if m.id == message_id else m for m in h]


# --- the fact rule ----------------------------------------------------------------------


def test_fact_rule_keeps_identifiers_paths_and_numbers_and_drops_plain_words() -> None:
    text = ("Traceback: return value FAILED in Django, see lint_path and src/app/models.py: "
            "QuerySet getValue 123456 3f2a9c1e x_y ./manage.py --verbose /tmp/out/ os.path.")
    assert list(distinctive_strings(text)) == [
        "lint_path", "src/app/models.py", "QuerySet", "getValue", "123456", "3f2a9c1e",
        "manage.py", "tmp/out", "os.path"]


@pytest.mark.parametrize(("token", "plain"), [
    ("function", True), ("FAILED", True), ("Traceback", True),
    ("QuerySet", False), ("getValue", False), ("lint_path", False), ("abc123", False),
])
def test_plain_word_is_letters_in_one_case_or_capitalised(token: str, plain: bool) -> None:
    assert is_plain_word(token) is plain


def test_needed_facts_come_from_tool_output_not_from_the_task() -> None:
    t = _history()
    facts = TrajectoryFacts(t.messages)
    needs = {t.messages[i].id: {n.fact: AGE_BUCKETS[n.bucket] for n in ns}
             for i, ns in facts.needs.items()}
    # "src/pkg/parser.py" is in the user's task, so never a needed fact
    assert needs["a0"] == {}
    assert needs["a1"] == {"parse_header": "1"}
    assert needs["a2"] == {"EmptyHeaderError": "1"}
    # "setup.cfg" (its tool call) was in no earlier tool output
    assert needs["a3"] == {"MAX_HEADER_LEN": "1", "src/pkg/limits.py": "1"}
    # HeaderValue was printed four tool results back
    assert needs["final"] == {"HeaderValue": "4-10"}


def test_tool_call_argument_values_are_part_of_the_next_step() -> None:
    use = ToolUseBlock(id="c", name="edit", input={"path": "src/pkg/limits.py",
                                                   "lines": [120, 1234567], "dry": True})
    m = text_message("assistant", "", tool_uses=[use])
    assert list(distinctive_strings(visible_text(m))) == ["src/pkg/limits.py", "1234567"]


# --- measures on hand-made histories ----------------------------------------------------


def test_none_scores_one_on_every_fidelity_measure() -> None:
    agg, _ = _calls([_history()], "none")
    assert agg["needed_facts"] == 5
    assert agg["fact_availability"] == 1.0
    assert agg["fact_reloadable"] == 1.0
    assert agg["recency"] == 1.0
    assert set(agg["fact_availability_by_age"].values()) == {1.0}
    assert agg["cost_with_recovery"] == agg["effective_cost"]
    assert agg["cost_with_recovery_ratio"] == 1.0
    assert agg["recovery_calls"] == 0


def test_dropping_one_tool_result_loses_exactly_that_results_facts() -> None:
    agg, calls = _calls([_history()], Scripted("drop_r2", _drop_result("r2")))
    # r2 held "src/pkg/limits.py" and "MAX_HEADER_LEN"; r1 holds the latter too
    assert [c.fidelity.missing for c in calls] == [(), (), (), ("src/pkg/limits.py",), ()]
    assert agg["facts_available"] == agg["needed_facts"] - 1


def test_a_policy_without_reload_has_nothing_reloadable() -> None:
    agg, _ = _calls([_history()], Scripted("drop_r1", _drop_result("r1")))
    assert agg["fact_availability"] == round(4 / 5, 4)
    assert agg["fact_reloadable"] == 0.0
    assert agg["fact_availability_by_age"] == {"1": 0.75, "2": 1.0, "3": 1.0, "4-10": 1.0,
                                               "11+": 1.0}
    assert agg["fact_searchable"] == 0.0


def test_a_policy_that_cannot_recover_pays_for_running_the_tool_again() -> None:
    agg, calls = _calls([_history()], Scripted("drop_r1", _drop_result("r1")))
    lost = [c for c in calls if c.fidelity.missing]
    assert len(lost) == agg["recovery_calls"] == 1
    rerun = COUNTER.count_text(_history().messages[5].tool_results[0].text)
    assert agg["recovery_tokens"] == rerun
    assert agg["recovered_by"] == {"search": 0, "reload": 0, "tool_again": 1}
    extra = CACHED_PRICE * lost[0].prompt_tokens + rerun
    assert agg["cost_with_recovery"] == round(agg["effective_cost"] + extra, 1)


def test_recency_counts_calls_that_lost_one_of_the_last_three_tool_results() -> None:
    agg, calls = _calls([_history()], Scripted("drop_r0", _drop_result("r0")))
    # calls a1, a2, a3 have r0 among their last three results; the final call does not
    assert [c.fidelity.recent_kept for c in calls] == [True, False, False, False, True]
    assert agg["recency_calls"] == 4
    assert agg["recency"] == 0.25


class _OffloadingPolicy(Scripted):
    """Replaces r0 by a tagged stand-in and can reload it, as ctxmgr's store does."""

    OID = "0" * 32

    def __init__(self) -> None:
        def make(h: list[Message]) -> list[Message]:
            return [self.stand_in(m) if m.id == "r0" else m for m in h]
        super().__init__("offloading", make)
        self.original = _history().messages[3]

    def stand_in(self, m: Message) -> Message:
        text = "grep output " + TAG.format(self.OID)
        block = dataclasses.replace(m.tool_results[0], content=text)
        return dataclasses.replace(m, content=(block,))

    def reload(self, offload_id: str) -> list[Message]:
        if offload_id != self.OID:
            raise KeyError(offload_id)
        return [self.original]


def test_facts_behind_an_offload_id_are_reloadable_and_recovered_the_cheapest_way() -> None:
    policy = _OffloadingPolicy()
    agg, calls = _calls([_history()], policy)
    # parse_header (call a1) and HeaderValue (final call) were only in r0
    assert [c.fidelity.missing for c in calls] == [(), ("parse_header",), (), (),
                                                   ("HeaderValue",)]
    assert agg["fact_availability"] == round(3 / 5, 4)
    assert agg["fact_reloadable"] == 1.0
    assert agg["recovery_calls"] == 2
    # a reload brings back the whole message; running grep again brings back its output,
    # which is smaller: that is the cheapest recovery, and what is charged
    reload_tokens = COUNTER.count(policy.original)
    rerun = COUNTER.count_text(policy.original.tool_results[0].text)
    assert rerun < reload_tokens and agg["reload_tokens"] == 2 * reload_tokens
    assert agg["recovered_by"] == {"search": 0, "reload": 0, "tool_again": 2}
    extra = sum(CACHED_PRICE * c.prompt_tokens + rerun for c in calls if c.fidelity.missing)
    assert agg["cost_with_recovery"] == round(agg["effective_cost"] + extra, 1)
    assert agg["cost_with_recovery_ratio"] > agg["effective_cost_ratio"]


class _SearchingPolicy(_OffloadingPolicy):
    """Also answers a search, with a short answer that holds the fact when it has it."""

    def search(self, query: str) -> str:
        text = self.original.tool_results[0].text
        line = next((x for x in text.splitlines() if query in x), None)
        return f"> {line}" if line else f"No match for {query}"


def test_a_search_that_finds_the_fact_is_charged_its_answer_once_per_fact() -> None:
    agg, calls = _calls([_history()], _SearchingPolicy())
    assert agg["fact_searchable"] == 1.0 and agg["facts_searchable"] == 2
    answers = [COUNTER.count_text("> src/pkg/parser.py:120: def parse_header(data):"),
               COUNTER.count_text("> src/pkg/util.py:8: from .parser import HeaderValue")]
    assert agg["recovery_tokens"] == sum(answers)
    assert agg["recovered_by"] == {"search": 2, "reload": 0, "tool_again": 0}
    lost = [c for c in calls if c.fidelity.missing]
    extra = sum(CACHED_PRICE * c.prompt_tokens + a for c, a in zip(lost, answers, strict=True))
    assert agg["cost_with_recovery"] == round(agg["effective_cost"] + extra, 1)


def test_a_fact_that_a_search_misses_falls_back_to_the_cheapest_other_way() -> None:
    class Blind(_SearchingPolicy):
        def search(self, query: str) -> str:
            return "No match" + "." * 400  # long, and without the fact: never chosen

    agg, _ = _calls([_history()], Blind())
    assert agg["fact_searchable"] == 0.0
    assert agg["recovered_by"] == {"search": 0, "reload": 0, "tool_again": 2}


def test_two_facts_of_one_tool_output_pay_for_running_it_again_once() -> None:
    messages = list(_history().messages)
    messages[4] = _step(1, "Both parse_header and HeaderValue matter.", "true")
    t = dataclasses.replace(_history(), messages=tuple(messages))
    agg, calls = _calls([t], Scripted("drop_r0", _drop_result("r0")))
    first = next(c for c in calls if len(c.fidelity.missing) == 2)
    assert first.fidelity.recovered_by == (0, 0, 2)
    assert first.fidelity.recovery_tokens == COUNTER.count_text(messages[3].tool_results[0].text)


# --- recorded runs ----------------------------------------------------------------------


def _naive_missing(history: Sequence[Message], step: Message, prompt: Sequence[Message]
                   ) -> set[str]:
    """The fact rule applied by brute force: the reference the indexed version must match."""
    results = [b.text for m in history for b in m.tool_results]
    context = [m.text for m in history if m.role in ("system", "user")]
    prompt_text = [visible_text(m) for m in prompt]
    missing = set()
    for fact in distinctive_strings(visible_text(step, results=False)):
        needed = any(fact in r for r in results) and not any(fact in c for c in context)
        if needed and not any(fact in p for p in prompt_text):
            missing.add(fact)
    return missing


def test_dropping_one_tool_result_of_a_recorded_run_loses_only_facts_it_alone_held(
        fixture_trajectories: list[Trajectory]) -> None:
    checked = lost = 0
    for t in fixture_trajectories:
        tool_messages = [m for m in t.messages if m.tool_results]
        if len(tool_messages) < 4:
            continue
        victim = tool_messages[len(tool_messages) // 3]
        make = _drop_result(victim.id)
        _, calls = _calls([t], Scripted("drop", make))
        steps = [i for i, m in enumerate(t.messages) if m.role == "assistant"]
        for i, call in zip(steps, calls, strict=True):
            history = list(t.messages[:i])
            expected = _naive_missing(history, t.messages[i], make(history))
            assert set(call.fidelity.missing) == expected, (t.id, i)
            assert all(f in victim.tool_results[0].text for f in expected)
            checked += call.fidelity.needed
            lost += len(expected)
    assert checked > 100 and lost > 0


def test_none_scores_one_on_recorded_runs(fixture_trajectories: list[Trajectory]) -> None:
    data = replay(fixture_trajectories, ["none"], budget=32_000,
                  counter=default_counter()).to_json()
    rows = [data["policies"]["none"]["aggregate"], *data["policies"]["none"]["trajectories"]]
    assert rows[0]["needed_facts"] > 100
    for row in rows:
        assert (row["fact_availability"], row["fact_reloadable"], row["recency"]) == (1, 1, 1)
        assert set(row["fact_availability_by_age"].values()) == {1.0}
        assert row["cost_with_recovery_ratio"] == row["effective_cost_ratio"] == 1.0


def test_ctxmgr_finds_every_fact_its_prompts_miss_with_one_small_search(
        swe_trajectories: list[Trajectory]) -> None:
    run = max(swe_trajectories, key=lambda t: len(t.messages))
    agg, calls = _calls([run], "ctxmgr", budget=16_000, counter=default_counter())
    assert agg["fact_availability"] < 1.0
    assert agg["fact_reloadable"] == 1.0
    assert agg["fact_searchable"] == 1.0  # each answer holds its fact, within 1,000 tokens
    assert agg["recovery_calls"] == sum(bool(c.fidelity.missing) for c in calls) > 0
    assert agg["recovered_by"]["search"] > 0
    assert agg["cost_with_recovery"] > agg["effective_cost"]
