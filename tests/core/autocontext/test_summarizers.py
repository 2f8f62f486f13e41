"""Summarizers: the extractive one, and the policy for failures (exception, timeout,
empty answer): the strategy is skipped, nothing is lost and the agent goes on."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator, Sequence
from functools import partial

import builders
import pytest
from builders import LARGE, C, dicts, expand, plain_window

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OFFLOAD_TAG_RE, OffloadStore, offload_tag
from ctxmgr.autocontext.pipeline import CompressionResult, acompress, compress
from ctxmgr.autocontext.processor import ContextProcessor
from ctxmgr.autocontext.summarizers import (
    ExtractiveSummarizer,
    SummaryOutcome,
    asummarize_safely,
    render_transcript,
    summarize_safely,
)
from ctxmgr.messages import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    text_message,
)
from ctxmgr.pairing import validate_pairing
from ctxmgr.store.memory import InMemoryStore

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


def _hung_memory(summarizer: object) -> AutoContextMemory:
    memory = AutoContextMemory(config(), counter=C, summarizer=summarizer)
    memory.add(history())
    return memory


def test_a_hung_summarizer_holds_at_most_one_thread_per_memory(release: threading.Event) -> None:
    before = set(threading.enumerate())
    hung = CountingHang(release)
    memory = _hung_memory(hung)

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
    memory = _hung_memory(summarizer)
    memory.compress_if_needed(force=True)
    assert not any(e.status == "applied" and e.strategy == 1 for e in memory.events)

    release.set()
    for thread in _new_threads(before):
        thread.join(10)
    memory.add(history()[2:])  # more history: more to summarize
    events = memory.compress_if_needed(force=True)

    assert any(e.status == "applied" and e.strategy in (1, 4) for e in events)
    assert summarizer.calls > 1


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


def test_extractive_summary_keeps_tool_calls_with_exact_arguments_and_signal_lines() -> None:
    result = "\n".join(["line one", "line two", *(f"noise {i}" for i in range(50)),
                        "ValueError: bad header in src/io.py:42", "noise again"])
    msgs = [
        Message(role="assistant", id="a", content=(
            TextBlock(text="Let me look at the reader.\nmore thoughts"),
            ToolUseBlock(id="c1", name="bash", input={"command": "grep -n 'def read' src/io.py"}))),
        Message(role="tool", id="t", content=(ToolResultBlock(tool_use_id="c1", content=result),)),
    ]
    text = ExtractiveSummarizer().summarize(msgs, "instr")
    assert text.startswith("Summary of earlier messages:")
    assert '- called bash({"command": "grep -n \'def read\' src/io.py"})' in text
    assert "- assistant: Let me look at the reader." in text and "more thoughts" not in text
    assert "  > line one" in text and "  > line two" in text
    assert "  > ValueError: bad header in src/io.py:42" in text
    assert "noise 3" not in text


def test_extractive_summary_is_deterministic_and_bounded() -> None:
    msgs = [m for k in range(40) for m in group(f"k{k}", 100, command="x" * 500)]
    s = ExtractiveSummarizer(max_chars=1000)
    first = s.summarize(msgs, "i")
    assert first == s.summarize(msgs, "i") == asyncio.run(s.asummarize(msgs, "i"))
    assert len(first.split("\n", 1)[1]) <= 1000


def test_extractive_summary_carries_an_earlier_summary_forward_without_its_tag() -> None:
    earlier = Message(role="assistant", id="s",
                      content=(TextBlock(text="Summary of earlier messages:\n- called ls()\n"
                                              + offload_tag("a" * 32)),),
                      metadata={"ctxmgr": {"compressed": True, "strategy": 1,
                                           "offload_id": "a" * 32}})
    text = ExtractiveSummarizer().summarize([earlier, *group("n", 10)], "i")
    assert "- called ls()" in text and "CONTEXT_OFFLOAD" not in text
    assert text.count("Summary of earlier messages:") == 1


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
