"""Retention measures on hand-made histories: which earlier user messages a prompt still
holds (verbatim or by their standing sentences) and which earlier tool calls it still
names (tool name and key argument, whitespace aside)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from builders import Scripted

from ctxmgr.autocontext.actions import collapse_whitespace, key_argument, name_parts
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.pins import is_user_turn
from ctxmgr.autocontext.standing import standing_content
from ctxmgr.messages import Message, ToolResultBlock, ToolUseBlock, text_message
from ctxmgr.replay import (
    FakeSummarizer,
    Policy,
    PolicyContext,
    PolicyResult,
    Trajectory,
    create_policy,
    replay,
)
from ctxmgr.replay.fidelity import FidelityChecker, TrajectoryFacts
from ctxmgr.replay.retention import CallRetention
from ctxmgr.replay.visible import named_text, visible_text
from ctxmgr.tokens import ApproximateCounter, default_counter

COUNTER = ApproximateCounter()

TASK = "Book a flight from SFO to JFK on 2024-05-17 for two adults."
RULES = "Never book a red-eye. My budget is $450 per ticket. Thanks!"
CARD = "Please use the card ending in 4242 for the payment."
TEST_COMMAND = "cd /repo &&   pytest -q\n  tests/test_booking.py"


def _call(i: int, name: str, args: dict[str, object]) -> Message:
    use = ToolUseBlock(id=f"call_{i}", name=name, input=args)
    return Message(role="assistant", content=(use,), id=f"a{i}")


def _result(i: int, text: str) -> Message:
    return Message(role="tool", content=(ToolResultBlock(tool_use_id=f"call_{i}", content=text),),
                   id=f"r{i}")


def _history() -> list[Message]:
    """Four user turns (the task, a courtesy, rules, a card) between three tool calls."""
    return [
        text_message("system", "You are a travel agent.", id="s"),
        text_message("user", TASK, id="u_task"),
        _call(0, "search_flights", {"origin": "SFO", "destination": "JFK",
                                    "date": "2024-05-17"}),
        _result(0, "UA 512 dep 07:10 $420; DL 88 dep 23:55 $380"),
        text_message("user", "ok thanks", id="u_thanks"),
        _call(1, "list_reservations", {}),
        _result(1, "no reservations"),
        text_message("user", RULES, id="u_rules"),
        _call(2, "run", {"command": TEST_COMMAND}),
        _result(2, "3 passed"),
        text_message("user", CARD, id="u_card"),
        text_message("assistant", "Booked UA 512.", id="final"),
    ]


def _at(history: list[Message], message_id: str) -> int:
    return next(i for i, m in enumerate(history) if m.id == message_id)


def _retention(prompt_of: Callable[[list[Message]], list[Message]],
               call: str = "final") -> CallRetention:
    """What ``prompt_of(history before the call)`` kept, for the call with id ``call``."""
    history = _history()
    k = _at(history, call)
    checker = FidelityChecker(TrajectoryFacts(history), COUNTER)
    return checker.check(k, prompt_of(history[:k])).retention


def _without(*ids: str) -> Callable[[list[Message]], list[Message]]:
    return lambda h: [m for m in h if m.id not in ids]


def _note(text: str) -> Message:
    return text_message("user", text, id="note")


# --- user messages ------------------------------------------------------------------------


def test_every_earlier_user_message_kept_verbatim_is_retained() -> None:
    r = _retention(lambda h: h)
    assert (r.user_messages, r.users_retained, r.users_verbatim) == (4, 4, 4)


def test_a_user_message_copied_into_a_rewritten_message_counts_as_verbatim() -> None:
    r = _retention(lambda h: [_note(f"Earlier the user said: {CARD}") if m.id == "u_card"
                              else m for m in h])
    assert (r.users_retained, r.users_verbatim) == (4, 4)


def test_a_compressed_message_whose_standing_sentences_are_in_a_note_is_retained() -> None:
    # "Thanks!" is a courtesy, not standing content; whitespace differences do not matter
    note = _note("What the user asked for:\n- Never book   a red-eye.\n"
                 "- My budget is $450 per ticket.")
    r = _retention(lambda h: [note if m.id == "u_rules" else m for m in h])
    assert (r.user_messages, r.users_retained, r.users_verbatim) == (4, 4, 3)


def test_a_note_missing_one_standing_sentence_does_not_retain_the_message() -> None:
    note = _note("What the user asked for:\n- Never book a red-eye.")
    r = _retention(lambda h: [note if m.id == "u_rules" else m for m in h])
    assert (r.users_retained, r.users_verbatim) == (3, 3)


def test_a_lost_user_message_is_not_retained() -> None:
    r = _retention(_without("u_card"))
    assert (r.user_messages, r.users_retained, r.users_verbatim) == (4, 3, 3)


def test_a_dropped_courtesy_is_retained_but_not_verbatim() -> None:
    r = _retention(_without("u_thanks"))
    assert (r.users_retained, r.users_verbatim) == (4, 3)


def test_the_first_user_message_counts_like_any_other() -> None:
    r = _retention(_without("u_task"))
    assert (r.user_messages, r.users_retained) == (4, 3)


def test_only_user_messages_before_the_call_count_and_tool_result_carriers_do_not() -> None:
    carrier = Message(role="user", id="carrier", content=(
        ToolResultBlock(tool_use_id="call_1", content="no reservations"),))
    history = _history()
    history[_at(history, "r1")] = carrier  # Anthropic style: the result in a user turn
    checker = FidelityChecker(TrajectoryFacts(history), COUNTER)
    k = _at(history, "a2")
    r = checker.check(k, history[:k]).retention
    assert r.user_messages == 3  # task, thanks, rules; not the carrier, not the card


# --- tool calls ---------------------------------------------------------------------------


def test_every_earlier_tool_call_kept_verbatim_is_named() -> None:
    r = _retention(lambda h: h)
    assert (r.tool_calls, r.calls_named) == (3, 3)


def test_a_record_naming_the_call_with_other_whitespace_keeps_it() -> None:
    # the key argument is the command's first line: "cd /repo && pytest -q"
    record = _note("Tool calls in this range (oldest first):\n- run:  cd /repo\n&& pytest  -q")
    r = _retention(lambda h: [record if m.id in ("a2", "r2") else m for m in h])
    assert (r.tool_calls, r.calls_named) == (3, 3)


def test_a_call_needs_both_its_name_and_its_key_argument() -> None:
    only_key = _note("Ran cd /repo && pytest -q: 3 passed.")
    only_name = _note("Ran run: the tests passed.")
    for note in (only_key, only_name):
        r = _retention(lambda h, n=note: [n if m.id in ("a2", "r2") else m for m in h])
        assert r.calls_named == 2


LONG_GREP = 'grep -n -B20 "def test_reindl" ./pvlib/tests/test_irradiance.py'
"""A command of more than 60 characters whose last word is the file it reads."""


def _grep_named(*stand_in: str) -> int:
    """Of a grep on a long path and one on another file, the calls named by a prompt
    that holds ``stand_in`` (one message each) instead of them."""
    h = [text_message("user", "Fix reindl.", id="u"),
         _call(0, "bash", {"command": LONG_GREP}), _result(0, "206: def test_reindl():"),
         _call(1, "bash", {"command": 'grep -n -B20 "def test_reindl" ./pvlib/other.py'}),
         _result(1, "no match"), text_message("assistant", "Done.", id="final")]
    checker = FidelityChecker(TrajectoryFacts(h), COUNTER)
    prompt = [h[0], *(_note(text) for text in stand_in)]
    retention = checker.check(len(h) - 1, prompt).retention
    assert retention.tool_calls == 2
    return retention.calls_named


def test_a_long_command_is_named_by_its_start_and_the_file_it_ends_on() -> None:
    # the first line in at most 60 characters: its start and its path, not its start alone
    assert key_argument(ToolUseBlock(id="c", name="bash", input={"command": LONG_GREP})) \
        == 'grep -n -B20 "def test_reindl" … tests/test_irradiance.py'
    assert _grep_named('bash:\ngrep -n -B20 "def test_reindl" … tests/test_irradiance.py') == 1
    assert _grep_named(f"Earlier I ran bash: {LONG_GREP}, which found line 206.") == 1
    # the start alone names neither grep: they differ only in their file
    assert _grep_named('bash: grep -n -B20 "def test_reindl"') == 0


def test_the_parts_of_a_name_count_only_in_one_message() -> None:
    assert _grep_named('bash: grep -n -B20 "def test_reindl"', "tests/test_irradiance.py") == 0


def test_a_call_without_arguments_is_named_by_its_tool_name_alone() -> None:
    dropped = _retention(_without("a1", "r1"))
    named = _retention(lambda h: [_note("list_reservations: none") if m.id == "a1" else m
                                  for m in h if m.id != "r1"])
    assert (dropped.calls_named, named.calls_named) == (2, 3)


# --- sums over calls ----------------------------------------------------------------------


def _aggregate(make: Callable[[list[Message]], list[Message]]) -> dict:
    t = Trajectory(id="hand-made", source="test", messages=tuple(_history()), raw=())
    report = replay([t], [Scripted("p", make)], budget=100_000, counter=COUNTER)
    return report.to_json()["policies"]["p"]["aggregate"]


def test_shares_sum_over_calls_and_a_policy_that_drops_everything_keeps_nothing() -> None:
    # calls a0, a1, a2, final: 1 + 2 + 3 + 4 earlier user messages, 0 + 1 + 2 + 3 calls
    kept = _aggregate(lambda h: h)
    assert (kept["earlier_user_messages"], kept["earlier_tool_calls"]) == (10, 6)
    assert kept["user_retention"] == kept["user_verbatim"] == kept["actions_retained"] == 1.0
    empty = _aggregate(lambda h: [])
    # only the courtesy, before a1, a2 and the final call, counts as retained
    assert (empty["user_messages_retained"], empty["tool_calls_named"]) == (3, 0)
    assert empty["user_retention"] == 0.3
    assert empty["user_verbatim"] == 0.0 and empty["actions_retained"] == 0.0


def test_dropping_one_user_message_costs_it_at_every_later_call() -> None:
    agg = _aggregate(_without("u_rules"))
    # u_rules comes before a2 and the final call: lost twice of 10
    assert agg["user_messages_retained"] == 8
    assert agg["user_retention"] == 0.8


def test_a_share_with_nothing_earlier_is_one() -> None:
    t = Trajectory(id="t", source="test", raw=(), messages=(
        text_message("system", "sys", id="s"), text_message("assistant", "hello", id="a")))
    report = replay([t], [Scripted("p", lambda h: [])], budget=1000, counter=COUNTER)
    row = report.to_json()["policies"]["p"]["trajectories"][0]
    assert (row["earlier_user_messages"], row["earlier_tool_calls"]) == (0, 0)
    assert row["user_retention"] == row["user_verbatim"] == row["actions_retained"] == 1.0


# --- recorded runs ------------------------------------------------------------------------


def _naive(history: Sequence[Message], prompt: Sequence[Message]) -> CallRetention:
    """The rules applied by brute force on the whole prompt: the reference the indexed
    version (kept messages answered from the trajectory's sets) must match."""
    visible = [visible_text(m) for m in prompt]
    named = [named_text(m) for m in prompt]
    users = [m for m in history if is_user_turn(m)]
    verbatim = [u for u in users if any(visible_text(u) in t for t in visible)]
    standing = [u for u in users if u not in verbatim and all(
        any(collapse_whitespace(s) in t for t in named)
        for s in standing_content(visible_text(u)))]
    calls = [use for m in history for use in m.tool_uses]
    kept = [use for use in calls if any(use.name in t for t in named) and any(
        all(part in t for part in name_parts(key_argument(use))) for t in named)]
    return CallRetention(user_messages=len(users), users_retained=len(verbatim) + len(standing),
                         users_verbatim=len(verbatim), tool_calls=len(calls),
                         calls_named=len(kept))


class _Recording:
    """A policy that records the prompts another one sends."""

    def __init__(self, inner: Policy) -> None:
        self.inner, self.name = inner, inner.name
        self.prompts: list[tuple[int, tuple[Message, ...]]] = []

    def reset(self) -> None:
        self.inner.reset()

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        out = self.inner.prompt(history)
        self.prompts.append((len(history), out.messages))
        return out


def test_retention_on_recorded_runs_matches_the_rules_applied_by_brute_force(
        fixture_trajectories: list[Trajectory], swe_trajectories: list[Trajectory]) -> None:
    swe = min(swe_trajectories, key=lambda t: len(t.messages))
    tau = [t for t in fixture_trajectories if t.id.startswith("tau")][:4]
    counter = default_counter()
    compressed = 0
    for runs, budget in (([swe], 8_000), (tau, 4_000)):
        summarizer = FakeSummarizer(counter)
        context = PolicyContext(budget=budget, counter=counter, summarizer=summarizer)
        policy = _Recording(create_policy("ctxmgr", context))
        report = replay(runs, [policy], budget=budget, counter=counter, summarizer=summarizer)
        calls = [c for r in report.runs["ctxmgr"].results for c in r.calls]
        histories = [t.messages for t in runs for m in t.messages if m.role == "assistant"]
        assert len(calls) == len(policy.prompts) == len(histories)
        for call, (k, prompt), messages in zip(calls, policy.prompts, histories, strict=True):
            assert call.fidelity.retention == _naive(messages[:k], prompt)
            compressed += any(CompressedMarker.of(m) is not None for m in prompt)
    assert compressed > 0  # the comparison saw compressed prompts, not just whole histories
