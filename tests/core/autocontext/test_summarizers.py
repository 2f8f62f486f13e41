"""Summarizers: the extractive one, and the policy for failures (exception, timeout,
empty answer): the strategy is skipped, nothing is lost and the agent goes on."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache, partial

import builders
import pytest
from builders import (
    LARGE,
    C,
    answer,
    call,
    dicts,
    expand,
    groups,
    plain_window,
    result,
    user,
)
from planted import SessionSpec, filler, generate_session

from ctxmgr.autocontext.actions import collapse_whitespace
from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.extractive import WEIGHTY
from ctxmgr.autocontext.identifiers import distinctive_strings
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OFFLOAD_TAG_RE, OffloadStore
from ctxmgr.autocontext.pipeline import CompressionResult, acompress, compress
from ctxmgr.autocontext.processor import ContextProcessor
from ctxmgr.autocontext.prompts import (
    CURRENT_LARGE_PROMPT,
    CURRENT_ROUND_PROMPT,
    PREVIOUS_ROUND_PROMPT,
    SUMMARY_SECTIONS,
    TOOL_RUN_PROMPT,
)
from ctxmgr.autocontext.record import record_lines
from ctxmgr.autocontext.standing import (
    Statement,
    latest,
    scores,
    sentences,
    standing_content,
    statements_of,
    value_kinds,
)
from ctxmgr.autocontext.strategies.base import summary_message
from ctxmgr.autocontext.strategies.tool_runs import ToolRuns
from ctxmgr.autocontext.summarizers import (
    ExtractiveSummarizer,
    SummaryOutcome,
    asummarize_safely,
    clip_for_summary,
    render_transcript,
    summarize_safely,
)
from ctxmgr.convert import from_openai, to_openai
from ctxmgr.messages import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    text_message,
)
from ctxmgr.pairing import validate_pairing
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.store.memory import InMemoryStore


@pytest.fixture(autouse=True)
def _strategies_in_their_own_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise the strategies in their own order (summaries before the
    history notes of strategy 7): ``Tuning.history_notes_first`` is off here."""
    monkeypatch.setenv("CTXMGR_HISTORY_NOTES_FIRST", "false")

TIMEOUT = 0.2


# ---------------------------------------------------------------- builders

# the tool groups these histories were sized with
group = partial(builders.group, command="cat {key}", head="first line")


def history() -> list[Message]:
    """A finished round with a long tool run (large results), then a current round whose
    results are just under the large-payload threshold (only the LLM can shrink them)."""
    h = [text_message("system", "S" * 8000, id="sys"), text_message("user", "the task", id="u1")]
    h += [m for k in range(4) for m in group(f"a{k}", LARGE)]
    h += [text_message("assistant", "first task done", id="f1"),
          text_message("user", "now the second", id="u2")]
    h += [m for k in range(8) for m in group(f"b{k}", 5000)]
    return h


def config() -> AutoContextConfig:
    # trigger 12,000 and target 7,200 tokens; the history is ~18,400, and ~12,600 once
    # the large results of the first round are offloaded; every summary is wanted (no
    # payback gate), so each failing summarizer is actually called
    # (a 48,000 window keeps the large-payload threshold at 5 KiB)
    return plain_window(max_tokens=48_000, token_ratio=0.25, target_ratio=0.15,
                             last_keep=4, min_compression_tokens=0, cached_token_price=None,
                             summary_timeout_s=TIMEOUT)


def assert_valid_and_loss_free(res: CompressionResult, original: Sequence[Message],
                               store: OffloadStore) -> None:
    assert validate_pairing(res.messages) == []
    assert validate_pairing(res.messages, rules="anthropic") == []
    assert dicts(expand(res.messages, store)) == dicts(original)
    for m in res.messages:
        for tag_id in OFFLOAD_TAG_RE.findall(m.text + "".join(b.text for b in m.tool_results)):
            store.load(tag_id)  # every tag the model sees can be reloaded
    assert res.tokens == C.count_messages(res.messages)


# ---------------------------------------------------------------- failing summarizers


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Lets hung summarizers finish once the test is over (no thread outlives the run)."""
    event = threading.Event()
    yield event
    event.set()


class Raising:
    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        raise RuntimeError("model is down")


class Hanging:
    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        self.release.wait(10)
        return "too late"


class Empty:
    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        return ""


class AsyncRaising:
    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        raise RuntimeError("model is down")


class AsyncHanging:
    def __init__(self, release: threading.Event) -> None:
        self.release = release

    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        deadline = time.monotonic() + 10
        while not self.release.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return "too late"


class AsyncEmpty:
    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        return "   \n"


def make(kind: str, release: threading.Event) -> object:
    return {"raises": Raising(), "hangs": Hanging(release), "empty": Empty(),
            "async_raises": AsyncRaising(), "async_hangs": AsyncHanging(release),
            "async_empty": AsyncEmpty()}[kind]


REASONS = {"raises": "summarizer raised RuntimeError: model is down",
           "hangs": f"summarizer timed out after {TIMEOUT:g} s",
           "empty": "summarizer returned an empty summary"}

KINDS = ["raises", "hangs", "empty", "async_raises", "async_hangs", "async_empty"]


# ================================================================= the safe runner


@pytest.mark.parametrize("kind", KINDS)
def test_summarize_safely_turns_every_failure_into_a_reason(
        kind: str, release: threading.Event) -> None:
    started = time.monotonic()
    outcome = summarize_safely(make(kind, release), [], "instr", timeout_s=TIMEOUT)
    assert outcome == SummaryOutcome(None, REASONS[kind.removeprefix("async_")])
    assert time.monotonic() - started < TIMEOUT + 1.0


@pytest.mark.parametrize("kind", KINDS)
def test_asummarize_safely_turns_every_failure_into_a_reason(
        kind: str, release: threading.Event) -> None:
    started = time.monotonic()
    outcome = asyncio.run(asummarize_safely(make(kind, release), [], "instr",
                                            timeout_s=TIMEOUT))
    assert outcome == SummaryOutcome(None, REASONS[kind.removeprefix("async_")])
    assert time.monotonic() - started < TIMEOUT + 1.0


def test_a_summary_that_is_not_a_string_is_a_failure() -> None:
    class ReturnsNone:
        def summarize(self, messages: Sequence[Message], instruction: str) -> object:
            return None

    outcome = summarize_safely(ReturnsNone(), [], "i", timeout_s=1)
    assert outcome == SummaryOutcome(None, "summarizer returned NoneType, not str")


def test_the_safe_runners_pass_a_good_summary_through() -> None:
    class Good:
        def summarize(self, messages: Sequence[Message], instruction: str) -> str:
            return f"{len(messages)} messages: {instruction}"

    class AsyncGood:
        async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
            return f"async {instruction}"

    msgs = [text_message("user", "x")]
    assert summarize_safely(Good(), msgs, "go", timeout_s=1) == SummaryOutcome("1 messages: go")
    assert summarize_safely(AsyncGood(), msgs, "go", timeout_s=1) == SummaryOutcome("async go")
    assert asyncio.run(asummarize_safely(Good(), msgs, "go", timeout_s=1)) == SummaryOutcome(
        "1 messages: go")
    assert asyncio.run(asummarize_safely(AsyncGood(), msgs, "go", timeout_s=1)) == \
        SummaryOutcome("async go")


# ================================================================= failures inside compression


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_failing_summarizer_leaves_valid_loss_free_messages(
        kind: str, mode: str, release: threading.Event) -> None:
    h = history()
    cfg = config()
    assert C.count_messages(h) >= cfg.trigger_tokens
    store = OffloadStore(InMemoryStore())
    kwargs = {"config": cfg, "counter": C, "offload": store,
              "summarizer": make(kind, release)}
    started = time.monotonic()
    res = (compress(h, **kwargs) if mode == "sync"  # type: ignore[arg-type]
           else asyncio.run(acompress(h, **kwargs)))  # type: ignore[arg-type]
    elapsed = time.monotonic() - started

    assert_valid_and_loss_free(res, h, store)
    skipped = [e for e in res.events if e.status == "skipped"]
    applied = [e for e in res.events if e.status == "applied"]
    # every LLM strategy that had work was tried once and skipped, with the reason
    assert [e.strategy for e in skipped] == [1, 4, 6]
    # (a hung call still running makes the later ones skip at once, saying so)
    assert skipped[0].reason == REASONS[kind.removeprefix("async_")]
    for e in skipped:
        assert e.reason is not None and e.reason.startswith(REASONS[kind.removeprefix("async_")])
        assert e.offload_id is None and e.replaced_ids == ()
        assert e.tokens_before == e.tokens_after
    # the cheaper non-LLM strategies still applied
    assert applied and {e.strategy for e in applied} == {2}
    assert res.tokens < C.count_messages(h)
    # A hang guard, not a speed measure: a compress that waited for the hung call would
    # not return until the fixture releases it at teardown (the reasons above say the
    # later calls were skipped at once). Generous, so a loaded machine never trips it.
    assert elapsed < 30


def test_a_skipped_strategy_logs_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="ctxmgr.autocontext"):
        compress(history(), config=config(), counter=C, offload=OffloadStore(InMemoryStore()),
                 summarizer=Raising())
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "strategy 1 (tool_runs) skipped: summarizer raised RuntimeError: model is down" \
        in warnings


def test_a_working_summarizer_applies_the_llm_strategies_on_the_same_history() -> None:
    store = OffloadStore(InMemoryStore())
    h = history()
    res = compress(h, config=config(), counter=C, offload=store,
                   summarizer=ExtractiveSummarizer())
    assert 1 in {e.strategy for e in res.events}
    assert all(e.status == "applied" for e in res.events)
    assert_valid_and_loss_free(res, h, store)


# ================================================================= bounded resources


def _new_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t not in before and t.is_alive()]


class CountingHang:
    """Hangs on its first ``hang`` calls until released, then answers; counts its calls."""

    def __init__(self, release: threading.Event, hang: int = 1_000_000) -> None:
        self.release, self.hang, self.calls = release, hang, 0

    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        self.calls += 1
        if self.calls <= self.hang:
            self.release.wait(30)
        return "a summary of the messages"


def _hung_memory(summarizer: object, **changes: object) -> AutoContextMemory:
    memory = AutoContextMemory(config().evolve(**changes), counter=C, summarizer=summarizer)
    memory.add(history())
    return memory


def test_a_hung_summarizer_holds_at_most_one_thread_per_memory(release: threading.Event) -> None:
    before = set(threading.enumerate())
    hung = CountingHang(release)
    memory = _hung_memory(hung, summary_cooldown_s=0)  # the thread rule alone

    for _ in range(20):
        memory.compress_if_needed(force=True)

    assert len(_new_threads(before)) == 1
    assert hung.calls == 1  # while it hangs, no further call is started
    reasons = [e.reason for e in memory.events if e.status == "skipped"]
    assert reasons[0] == f"summarizer timed out after {TIMEOUT:g} s"
    assert len(reasons) > 20 and all(
        r is not None and r.startswith(f"summarizer timed out after {TIMEOUT:g} s (an earlier "
                                       "call that timed out is still running")
        for r in reasons[1:])


def test_a_hung_summarizer_holds_at_most_one_thread_per_context_processor(
    release: threading.Event,
) -> None:
    before = set(threading.enumerate())
    hung = CountingHang(release)
    processor = ContextProcessor(config(), counter=C, summarizer=hung)
    state = None

    for _ in range(20):
        state = processor.process(history(), state, force=True).state

    assert len(_new_threads(before)) == 1 and hung.calls == 1


def test_two_memories_each_have_their_own_summarizer_worker(release: threading.Event) -> None:
    before = set(threading.enumerate())
    first, second = CountingHang(release), CountingHang(release)

    for memory in (_hung_memory(first), _hung_memory(second)):
        memory.compress_if_needed(force=True)

    assert len(_new_threads(before)) == 2 and first.calls == second.calls == 1


def test_once_a_hung_call_returns_the_summarizer_is_used_again(release: threading.Event) -> None:
    before = set(threading.enumerate())
    summarizer = CountingHang(release, hang=1)
    memory = _hung_memory(summarizer, summary_cooldown_s=0)
    memory.compress_if_needed(force=True)
    assert not any(e.status == "applied" and e.strategy == 1 for e in memory.events)

    release.set()
    for thread in _new_threads(before):
        thread.join(10)
    memory.add(history()[2:])  # more history: more to summarize
    events = memory.compress_if_needed(force=True)

    assert any(e.status == "applied" and e.strategy in (1, 4) for e in events)
    assert summarizer.calls > 1


@pytest.mark.parametrize("kind", ["hangs", "async_hangs"])
def test_after_a_timeout_the_summarizer_rests_for_the_cool_down_sync_and_async(
        kind: str, release: threading.Event) -> None:
    summarizer = make(kind, release)
    memory = _hung_memory(summarizer, summary_cooldown_s=0.6)
    compress = (memory.compress_if_needed if kind == "hangs"
                else lambda **kw: asyncio.run(memory.acompress_if_needed(**kw)))

    started = time.monotonic()
    first = compress(force=True)
    release.set()  # the model answers again, but the cool-down is not over
    memory.add(history()[2:])
    second = compress(force=True)
    waited = time.monotonic() - started

    reasons = [e.reason or "" for e in [*first, *second] if e.status == "skipped"]
    assert reasons[0] == f"summarizer timed out after {TIMEOUT:g} s"
    assert len(reasons) > 3 and all("timed out recently" in r for r in reasons[1:])
    assert waited < TIMEOUT * 3  # one timeout waited for, not one per summary
    time.sleep(0.6)
    memory.add([text_message("user", "and now?", id="u9")])
    third = compress(force=True)
    assert any(e.status == "applied" and e.strategy in (1, 4, 5, 6) for e in third)


class AsyncBlocking:
    """Blocks the event loop (a sync sleep inside ``async def``) past the timeout."""

    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        time.sleep(TIMEOUT * 3)
        return "a late summary"


def test_an_async_summarizer_that_blocks_the_loop_past_the_timeout_is_not_used() -> None:
    outcome = asyncio.run(asummarize_safely(AsyncBlocking(), [], "i", timeout_s=TIMEOUT))

    assert outcome.text is None
    assert outcome.error is not None and outcome.error.startswith(
        "summarizer answered after ") and outcome.error.endswith(
        f"past the {TIMEOUT:g} s timeout (it blocked the event loop); its answer was not used")


def test_acompress_does_not_apply_a_summary_that_came_after_the_timeout() -> None:
    h = history()
    store = OffloadStore(InMemoryStore())

    res = asyncio.run(acompress(h, config=config(), counter=C, offload=store,
                                summarizer=AsyncBlocking()))

    assert {e.strategy for e in res.events if e.status == "applied"} == {2}
    assert "a late summary" not in "".join(m.text for m in res.messages)


class AsyncOwnTimeout:
    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        raise TimeoutError("the upstream gateway timed out")


class OwnTimeout:
    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        raise TimeoutError("the upstream gateway timed out")


@pytest.mark.parametrize("summarizer", [AsyncOwnTimeout(), OwnTimeout()],
                         ids=["async", "sync"])
def test_a_summarizer_raising_its_own_timeout_error_is_reported_as_raising_it(
    summarizer: object,
) -> None:
    expected = SummaryOutcome(None, "summarizer raised TimeoutError: the upstream gateway "
                                    "timed out")

    assert asyncio.run(asummarize_safely(summarizer, [], "i", timeout_s=5)) == expected
    assert summarize_safely(summarizer, [], "i", timeout_s=5) == expected


# ================================================================= the extractive summarizer

# Whole items a summary may show: what the user said, the calls as the record names them,
# result lines (markup out, whitespace collapsed) and the agent's sentences. Written out
# here from the definitions, not from the summarizer's own helpers.

def input_items(messages: Sequence[Message]) -> set[str]:
    items: set[str] = set()
    for m in messages:
        if m.role == "user":  # a sentence, or what of it stands (an opening aside left out)
            items.update(sentences(m.text), standing_content(m.text))
        if m.role == "assistant":
            items.update(sentences(m.text))
        for r in m.tool_results:
            items.update(collapse_whitespace(re.sub(r"<[^>]*>", "", line))
                         for line in r.text.splitlines())
    calls, _, _ = record_lines(messages)
    items.update(f"{name}: {entry}" for name, entry in calls)
    return items


COUNT_LINE = re.compile(r"^\(\+(\d+) more items? in the original\)$")


def sections(summary: str) -> dict[str, list[str]]:
    """The item lines of ``summary`` under each section header, in order of the headers."""
    lines = summary.splitlines()
    assert lines[0] == "Summary of earlier messages:"
    out: dict[str, list[str]] = {}
    current = None
    for line in lines[1:]:
        if line.removesuffix(":") in SUMMARY_SECTIONS:
            current = line.removesuffix(":")
            out[current] = []
        elif line.startswith("- "):
            assert current is not None, line
            out[current].append(line[2:])
        else:
            assert COUNT_LINE.match(line) or line == "(nothing to keep)", line
    return out


def left_out(summary: str) -> int:
    match = COUNT_LINE.match(summary.splitlines()[-1])
    return int(match.group(1)) if match else 0


def shown(summary: str) -> int:
    return sum(map(len, sections(summary).values()))


def shape(line: str) -> str:
    """``line`` with its numbers blanked out."""
    return re.sub(r"\d+(?:[.,:]\d+)*", "#", line.lower())


def has_value(sentence: str) -> bool:
    """A number, a quoted or distinctive string (a path, an id), a name or an amount."""
    return bool(value_kinds(sentence)) or any(distinctive_strings(sentence))


def swe_ranges(runs: Sequence[Trajectory]) -> list[list[Message]]:
    """Ranges of the recorded coding runs a summarizer is given: a short tool run, a
    long one, and everything after the task."""
    return [list(r.messages[a:b]) for r in runs for a, b in ((2, 16), (20, 90), (2, None))]


@cache
def generated(n: int = 3) -> tuple[tuple[Message, ...], ...]:
    """Generated sessions of both kinds and both phrasing families, without the system
    prompt and the task (pinned, never in a summarized range)."""
    return tuple(generate_session(seed, SessionSpec(kind=kind, family=family)).messages[2:]
                 for seed in range(n) for kind in ("chat", "tools")
                 for family in ("design", "heldout"))


WHOLE = ExtractiveSummarizer(max_chars=10**7)
"""Room for everything: what the summarizer finds worth keeping."""


def test_extractive_summary_drops_acknowledgements_and_announced_steps_on_generated_sessions(
) -> None:
    # the generator's own acknowledgements and step announcements, in every phrasing it
    # has, between the user's turns and tool calls (the summarizer knows none of them)
    boilerplate = {s for text in (*filler._ACKS, *filler._INTROS) for s in sentences(text)}
    seen = refrains = 0
    for session in generated():
        said = [s for m in session if m.role == "assistant" for s in sentences(m.text)]
        seen += len(set(said) & boilerplate)
        agent = sections(WHOLE.summarize(session, "i")).get(SUMMARY_SECTIONS[3], [])
        assert not set(agent) & boilerplate
        # an explanation the agent gives again and again, with nothing in it, goes too
        times = Counter(shape(s) for s in said)
        said_again = {s for s in said if times[shape(s)] > 1 and not has_value(s)}
        refrains += len(said_again)
        assert not set(agent) & said_again
        assert agent  # the agent's explanations are there: not everything was dropped
    assert seen > 20 and refrains > 20


def test_extractive_summary_drops_announced_steps_of_recorded_runs_but_keeps_their_findings(
    swe_trajectories: list[Trajectory],
) -> None:
    for run in swe_trajectories:
        messages = list(run.messages[2:])
        agent = sections(WHOLE.summarize(messages, "i"))[SUMMARY_SECTIONS[3]]
        said = [s for m in messages if m.role == "assistant" for s in sentences(m.text)]
        # "Let me check the file:", "Now I'll run the tests." with nothing else in them
        announced = [s for s in said if re.match(r"(\w+,? )?(let me|i'll|i will) ", s, re.I)
                     and not any(distinctive_strings(s)) and not re.search(r"\d", s)]
        assert len(announced) > 5 and not set(announced) & set(agent)
        # a sentence naming an identifier the calls do not show, said once (numbers
        # aside: "line 5 ..." and "line 9 ..." are one line said twice), stays
        calls = "\n".join(entry for _, entry in record_lines(messages)[0])
        times = Counter(shape(s) for s in said)
        once = [s for s in said if times[shape(s)] == 1]
        telling = [s for s in once if any(d not in calls for d in distinctive_strings(s))]
        assert telling and set(telling) <= set(agent)


def test_extractive_summary_keeps_a_recurring_line_once_at_its_latest() -> None:
    steps = [m for k in range(1, 6) for m in (
        call(f"c{k}", f"a{k}", text=f"Step {k} of 5 passed. Let me run the next one.",
             args={"command": f"./check.sh --step {k}"}),
        result(f"c{k}", f"progress: {k * 20}% done\nstep {k} finished in {k}.5s", f"t{k}"))]
    summary = WHOLE.summarize(steps, "i")
    agent, findings = (sections(summary)[SUMMARY_SECTIONS[k]] for k in (3, 2))
    assert agent == ["Step 5 of 5 passed."]
    assert findings == ["progress: 100% done", "step 5 finished in 5.5s"]
    # every call stays, in the record: each did something else
    assert record_lines(steps)[0] == [("bash", f"./check.sh --step {k}") for k in range(1, 6)]


def test_no_two_lines_of_a_summary_differ_only_in_their_numbers(
    swe_trajectories: list[Trajectory],
) -> None:
    for messages in [*swe_ranges(swe_trajectories), *generated(2)]:
        parts = sections(WHOLE.summarize(messages, "i"))
        for name in SUMMARY_SECTIONS[2:]:
            shapes = [shape(line) for line in parts.get(name, [])]
            assert len(shapes) == len(set(shapes)), name


def test_extractive_summary_puts_what_the_user_said_first_verbatim_at_its_latest_value(
) -> None:
    for session in generated():
        history = session[:-1]
        said = [Statement(s.text, (i, *s.order), s.pasted)
                for i, m in enumerate(history) if m.role == "user" for s in statements_of(m)]
        own = [s for s in said if not s.pasted]
        pasted = {s.text for s in said if s.pasted} - {s.text for s in own}
        summary = WHOLE.summarize(history, "i")
        parts = sections(summary)
        assert next(iter(parts)) == SUMMARY_SECTIONS[0]
        lines = parts[SUMMARY_SECTIONS[0]]
        # what they said themselves, each value at its latest; the lines of what they
        # pasted (a log, an email) besides, once each
        assert [line for line in lines if line not in pasted] == [s.text for s in latest(own)]
        assert {line for line in lines if line in pasted} == pasted

    changed = [user("Keep the export under 40 workers. Never touch the prod database.", "u1"),
               *group("g1", 200),
               user("Change of plan: keep the export under 55 workers.", "u2"),
               answer("Got it. The export now runs with a cap of 55 workers.", "a2")]
    assert sections(WHOLE.summarize(changed, "i"))[SUMMARY_SECTIONS[0]] == [
        "Never touch the prod database.", "Change of plan: keep the export under 55 workers."]


def test_when_room_is_short_the_user_statements_that_bind_or_carry_a_value_go_first(
        ) -> None:
    for session in generated():
        history = session[:-1]
        summary = ExtractiveSummarizer(max_chars=1200).summarize(history, "i")
        user_lines = sections(summary).get(SUMMARY_SECTIONS[0], [])
        own = [s for i, m in enumerate(history) if m.role == "user"
               for s in (Statement(x.text, (i, *x.order)) for x in statements_of(m)
                         if not x.pasted)]
        kept = latest(own)
        score = scores(kept, among=own)
        standing = [s.text for s in kept]
        weighty = [s.text for s in kept if score[s.order] >= WEIGHTY]
        assert user_lines and set(user_lines) < set(standing)  # the room was short indeed
        # a remark takes only room no statement that binds or has a value could use
        for remark in (line for line in user_lines if line not in weighty):
            assert all(w in user_lines for w in weighty if len(w) <= len(remark))


def test_extractive_summary_lists_findings_then_the_agents_words_and_no_call(
    swe_trajectories: list[Trajectory],
) -> None:
    for messages in swe_ranges(swe_trajectories):
        summary = WHOLE.summarize(messages, "i")
        assert list(sections(summary)) == [SUMMARY_SECTIONS[k] for k in (2, 3)]
        # the calls are the record's: the stand-in lists them there, once
        stand_in = summary_message(messages, summary, "a" * 32, by=ToolRuns(),
                                   record_chars=10**6).text
        calls, _, _ = record_lines(messages)
        assert calls and all(stand_in.count(f"\n{entry}\n") == 1 for _, entry in calls)


@pytest.mark.parametrize("max_chars", [150, 400, 1000, 2500])
def test_extractive_summary_never_cuts_an_item_and_counts_what_it_left_out(
    swe_trajectories: list[Trajectory], max_chars: int,
) -> None:
    small = ExtractiveSummarizer(max_chars=max_chars)
    counted = 0
    for messages in [*swe_ranges(swe_trajectories), *generated(1)]:
        whole = input_items(messages)
        summary = small.summarize(messages, "i")
        assert len(summary.split("\n", 1)[1]) <= max_chars
        for lines in sections(summary).values():
            assert set(lines) <= whole  # every line is a whole item of the input
        everything = WHOLE.summarize(messages, "i")
        assert left_out(everything) == 0
        assert left_out(summary) == shown(everything) - shown(summary)
        counted += left_out(summary) > 0
    assert counted >= 10  # the room was short for most ranges


def test_the_count_line_says_one_item_when_one_is_left_out() -> None:
    two = [user("Keep the export under 40 workers.", "u1"),
           user("Never touch the prod database.", "u2")]
    summary = ExtractiveSummarizer(max_chars=120).summarize(two, "i")
    lines = summary.splitlines()[1:]
    assert lines[0] == f"{SUMMARY_SECTIONS[0]}:" and lines[2] == "(+1 more item in the original)"
    assert lines[1] in ("- Keep the export under 40 workers.", "- Never touch the prod database.")


def test_extractive_summary_carries_an_earlier_summary_forward_section_by_section() -> None:
    first = [user("Never touch the prod database. Keep the export under 40 workers.", "u1"),
             *group("g1", 300), *group("g2", 300),
             answer("The export fails because src/export/job.py reads BATCH_SIZE twice.",
                    "a1")]
    earlier = WHOLE.summarize(first, "i")
    stand_in = summary_message(first, earlier, "a" * 32, by=ToolRuns(), record_chars=2000,
                               identifiers_chars=300)
    assert "Tool calls in this range" in stand_in.text  # the record, which goes with it
    later = [*group("g3", 300),
             user("Keep the export under 55 workers from now on.", "u2"),
             answer("Fixed: src/export/job.py reads BATCH_SIZE once.", "a2")]
    for carried in (stand_in, *from_openai(to_openai([stand_in]))):  # markers lost too
        summary = WHOLE.summarize([carried, *later], "i")
        parts = sections(summary)
        assert summary.count("Summary of earlier messages:") == 1
        assert "Tool calls in this range" not in summary and "CONTEXT_OFFLOAD" not in summary
        assert "Identifiers in the original" not in summary
        assert parts[SUMMARY_SECTIONS[0]] == [  # the latest value, across the roll
            "Never touch the prod database.", "Keep the export under 55 workers from now on."]
        assert SUMMARY_SECTIONS[1] not in parts  # the calls: in the record, which rolls
        assert record_lines([carried, *later])[0] == [
            ("bash", "cat g1"), ("bash", "cat g2"), ("bash", "cat g3")]
        assert parts[SUMMARY_SECTIONS[3]] == [
            "The export fails because src/export/job.py reads BATCH_SIZE twice.",
            "Fixed: src/export/job.py reads BATCH_SIZE once."]


def test_an_llm_summary_in_the_range_is_carried_as_its_lines() -> None:
    llm = ("Summary of earlier messages:\n"
           "The agent traced the failure to the retry loop in src/common/retry.py.\n"
           "## Findings\n- `MAX_RETRIES` is read from RETRY_LIMIT, unset in CI.\n"
           "Open items:\n- decide whether CI should set RETRY_LIMIT")
    earlier = Message(role="assistant", id="s", content=(TextBlock(text=llm),))
    parts = sections(WHOLE.summarize([earlier, *group("n", 10)], "i"))
    assert parts[SUMMARY_SECTIONS[1]][0] == ("The agent traced the failure to the retry loop "
                                            "in src/common/retry.py.")
    assert "`MAX_RETRIES` is read from RETRY_LIMIT, unset in CI." in parts[SUMMARY_SECTIONS[2]]
    assert parts[SUMMARY_SECTIONS[3]] == ["decide whether CI should set RETRY_LIMIT"]


def test_a_rolled_summary_adds_what_earlier_summaries_left_out_to_its_count(
    swe_trajectories: list[Trajectory],
) -> None:
    messages = list(swe_trajectories[0].messages[2:60])
    small = ExtractiveSummarizer(max_chars=500)
    earlier = small.summarize(messages[:40], "i")
    stand_in = Message(role="assistant", id="s", content=(TextBlock(text=earlier),))
    rolled = small.summarize([stand_in, *messages[40:]], "i")
    assert left_out(earlier) > 0 and left_out(rolled) >= left_out(earlier)


def test_extractive_summary_keeps_a_results_first_lines_and_signal_lines() -> None:
    output = "\n".join(["line one", "line two", *(f"noise {i}" for i in range(50)),
                        "ValueError: bad header in src/io.py:42", "noise again"])
    msgs = [
        Message(role="assistant", id="a", content=(
            TextBlock(text="Let me look at the reader.\nmore thoughts"),
            ToolUseBlock(id="c1", name="bash", input={"command": "grep -n 'def read' src/io.py"}))),
        Message(role="tool", id="t", content=(ToolResultBlock(tool_use_id="c1", content=output),)),
    ]
    text = ExtractiveSummarizer().summarize(msgs, "instr")
    assert sections(text) == {
        "Findings": ["line one", "line two", "ValueError: bad header in src/io.py:42"]}


def test_separators_banners_and_toolchain_lines_are_no_findings() -> None:
    output = "\n".join([
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.5, pytest-9.0.3, pluggy-1.6.0 -- /usr/bin/python",
        "cachedir: .pytest_cache",
        "rootdir: /testbed",
        "",
        "tests/test_io.py::test_read FAILED",
        "tests/test_io.py::test_write PASSED",
        "=================================== FAILURES ===================================",
        "|---|---|",
        "E   AssertionError: expected version 1.0.2, got 1.0.3",
        "========================= 1 failed, 1 passed in 0.31s =========================",
    ])
    msgs = [call("c1", "a", args={"command": "pytest -x tests/test_io.py"}),
            result("c1", output, "t")]
    # the session block is a header: the first lines are taken after it; a banner with
    # a count gives its words; two versions are a finding, three the toolchain
    assert sections(WHOLE.summarize(msgs, "i"))[SUMMARY_SECTIONS[2]] == [
        "tests/test_io.py::test_read FAILED", "tests/test_io.py::test_write PASSED",
        "E AssertionError: expected version 1.0.2, got 1.0.3", "1 failed, 1 passed in 0.31s"]


def test_what_a_clipped_text_cut_in_two_is_left_out_with_the_cut() -> None:
    said = ("Checked the reindl model in pvlib/irradiance.py line by line today. "
            + "More reasoning follows here. " * 13
            + "If dhi = 0 (which it often is at night) the term vanishes. "
            + "More reasoning follows here. " * 20
            + "For an array where some elements have ghi = 0 we must mask them. "
            "Pandas 3.0 renamed the frequency 'H' to 'h'.")
    log = ("=== warnings summary ===\nDeprecationWarning: 'H' is deprecated\n" + "x\n" * 300
           + "-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html\n"
           "6 passed, 2 warnings in 0.01s")
    msgs = [call("c1", "a", text=said, args={"command": "pytest -q"}), result("c1", log, "t")]
    sent = clip_for_summary(msgs, 600)
    assert all("characters left out" in t for t in (sent[0].text, sent[1].tool_results[0].text))
    parts = sections(WHOLE.summarize(sent, "i"))
    agent, findings = parts[SUMMARY_SECTIONS[3]], parts.get(SUMMARY_SECTIONS[2], [])
    whole = set(sentences(said))
    assert agent and set(agent) <= whole  # no sentence cut by the clip
    assert said.index("If dhi") < 450 < said.index("the term vanishes")  # the cut is there
    assert "Checked the reindl model in pvlib/irradiance.py line by line today." in agent
    assert "Pandas 3.0 renamed the frequency 'H' to 'h'." in agent
    lines = {line.strip() for line in log.splitlines()}
    assert set(findings) <= lines  # whole lines: no "ps://docs.pytest.org/..."
    assert "6 passed, 2 warnings in 0.01s" in findings


def test_a_failed_calls_error_line_is_shown_once_with_the_call() -> None:
    output = ("<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n"
              '  File "t.py", line 3, in <module>\n    import sqlparse\n'
              "ModuleNotFoundError: No module named 'sqlparse'\n</output>")
    msgs = [call("c1", "a", args={"command": "python t.py"}), result("c1", output, "t")]
    summary = WHOLE.summarize(msgs, "i")
    stand_in = summary_message(msgs, summary, "a" * 32, by=ToolRuns(), record_chars=2000).text
    assert "python t.py → exit 1: ModuleNotFoundError: No module named 'sqlparse'" in stand_in
    assert stand_in.count("ModuleNotFoundError: No module named 'sqlparse'") == 1


def test_a_pasted_log_does_not_crowd_out_what_the_user_asked_or_what_the_agent_did() -> None:
    log = "\n".join(f"2024-05-{d:02d}T10:00:00Z WARN job retried req={d * 7919:08x}"
                    for d in range(1, 29))
    msgs = [user("Keep the export under 40 workers.", "u1"),
            user(f"Here is the log:\n{log}", "u2"), *groups("g", 3, 200)]
    parts = sections(ExtractiveSummarizer(max_chars=700).summarize(msgs, "i"))
    said = parts[SUMMARY_SECTIONS[0]]
    assert said[0] == "Keep the export under 40 workers."
    # what the calls found (their heads, the same words but for the key: once, the latest)
    assert parts[SUMMARY_SECTIONS[2]] == ["g2 output line", "r" * 200]
    assert 0 < len(said) - 1 < 28  # some of the log, in the room left


def test_a_result_an_earlier_summary_replaced_is_read_back_not_taken_for_output() -> None:
    earlier = WHOLE.summarize([*group("g1", 300), answer("Found: BATCH_SIZE is read "
                                                         "twice in src/export/job.py.", "a")],
                              "i")
    summarized = result("c9", f"{earlier}\n<!-- CONTEXT_OFFLOAD: uuid={'b' * 32} -->", "t9")
    parts = sections(WHOLE.summarize([call("c9", "a9"), summarized], "i"))
    assert parts[SUMMARY_SECTIONS[3]] == ["Found: BATCH_SIZE is read twice in src/export/job.py."]
    assert parts[SUMMARY_SECTIONS[2]] == ["g1 first line"]
    assert not any("Summary of" in line for line in parts.get(SUMMARY_SECTIONS[2], []))


def test_extractive_summary_is_deterministic_and_bounded(
    swe_trajectories: list[Trajectory],
) -> None:
    s = ExtractiveSummarizer(max_chars=1000)
    for messages in swe_ranges(swe_trajectories):
        first = s.summarize(messages, "i")
        assert first == s.summarize(list(messages), "other") == asyncio.run(
            s.asummarize(messages, "i"))
        assert len(first.split("\n", 1)[1]) <= 1000


def test_the_llm_prompts_ask_for_the_summary_sections_and_the_users_words_verbatim() -> None:
    for prompt in (TOOL_RUN_PROMPT, PREVIOUS_ROUND_PROMPT, CURRENT_LARGE_PROMPT,
                   CURRENT_ROUND_PROMPT):
        at = [prompt.index(f"{name}:") for name in SUMMARY_SECTIONS]
        assert at == sorted(at)  # every section, in order, user's instructions first
        user_part = prompt[at[0]:at[1]]
        for words in ("instruction", "constraint", "preference", "value", "word for word",
                      "latest"):
            assert words in user_part
        assert "exact arguments" in prompt and "error messages" in prompt
        assert "list of the tool calls is appended after your summary" in prompt


def test_render_transcript_shows_roles_calls_and_results() -> None:
    msgs = [text_message("user", "fix it", id="u"),
            Message(role="assistant", id="a", content=(
                ToolUseBlock(id="c1", name="edit", input={"path": "é.py"}),)),
            Message(role="tool", id="t", content=(
                ToolResultBlock(tool_use_id="c1", content="boom " * 10, is_error=True),))]
    text = render_transcript(msgs, max_result_chars=10)
    assert text.splitlines() == ['[user] fix it',
                                 '[assistant tool call c1] edit({"path": "é.py"})',
                                 '[tool result c1 (error)] boom boom  …']
