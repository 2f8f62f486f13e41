"""The offload store fails while compressing: the step is skipped and compression goes on.

The contract: a store call that fails is tried again (``StoreRetry``: three tries by
default); one that still fails, whatever the backend raised (``OSError``, a driver's own
error, ``ConnectionError``, ``TimeoutError``), is a ``StoreError`` that only skips the step
that needed it, with a "skipped" event that gives the reason, like a failing summarizer;
the originals stay in the working view, the pass goes on with other ranges, and only
``ContextOverflowError`` escapes, naming the store when its failure is why the prompt does
not fit. Events record only what was applied, every blob in the store is one a stand-in
points at, and a callback that raises does not stop compression. A pass that something
else aborts (an interrupt, a bug) changes nothing: the working view, the events and the
store stay as they were.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from builders import LARGE, C, dicts, expand, groups, split_settings, user
from faults import FaultyStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import LONG, examples

from ctxmgr import Tuning
from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.events import CompressionEvent
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.processor import ContextProcessor
from ctxmgr.autocontext.summarizers import ExtractiveSummarizer
from ctxmgr.errors import ContextOverflowError, StoreError
from ctxmgr.messages import Message, text_message
from ctxmgr.pairing import validate_pairing
from ctxmgr.store import DEFAULT_STORE_RETRY, FileStore, StoreRetry, project_dir_name


@pytest.fixture(autouse=True)
def _strategies_in_their_own_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise the strategies in their own order (summaries before the
    history notes of strategy 7): ``Tuning.history_notes_first`` is off here."""
    monkeypatch.setenv("CTXMGR_HISTORY_NOTES_FIRST", "false")


def history() -> list[Message]:
    """Four finished rounds of large tool results and a current one: a pass takes 12 steps."""
    h = [text_message("system", "You are a coding agent.", id="sys")]
    for r in range(4):
        h += [user(f"task {r}", f"u{r}"), *groups(f"r{r}g", 3, LARGE),
              text_message("assistant", f"task {r} done", id=f"f{r}")]
    return [*h, user("the last task", "ulast"), *groups("cur", 3, LARGE)]


MORE = [user("and more", "u9"), *groups("more", 6, LARGE)]


def config() -> AutoContextConfig:
    return AutoContextConfig(max_tokens=48_000, token_ratio=0.25, target_ratio=0.15,
                             tuning=Tuning(last_keep=4, min_compression_tokens=0,
                                           cached_token_price=None))


FAST_RETRY = StoreRetry(backoff_s=0.001)  # three tries, as by default, without the pauses


def memory(store: FaultyStore, **kw: object) -> AutoContextMemory:
    settings, kw = split_settings({"store_retry": FAST_RETRY, **kw})
    mem = AutoContextMemory(config().evolve(**settings), counter=C, store=store,
                            summarizer=ExtractiveSummarizer(), **kw)
    mem.add(history())
    return mem


def referenced(messages: Sequence[Message], offload: OffloadStore) -> set[str]:
    """Offload ids the working view leads to, directly or through nested stand-ins."""
    found: set[str] = set()
    todo = list(messages)
    while todo:
        marker = CompressedMarker.of(todo.pop())
        if marker is not None and marker.offload_id not in found:
            found.add(marker.offload_id)
            todo.extend(offload.load(marker.offload_id))
    return found


def assert_consistent(mem: AutoContextMemory, original: Sequence[Message]) -> None:
    """Nothing lost, pairing valid, events = what was applied, no orphan blob."""
    assert dicts(expand(mem.messages, mem)) == dicts(original)
    assert validate_pairing(mem.messages) == []
    assert set(mem.offload.ids()) == referenced(mem.messages, mem.offload)
    applied = [e for e in mem.events if e.status == "applied"]
    assert {e.offload_id for e in applied} <= set(mem.offload.ids())


ATTEMPTS = DEFAULT_STORE_RETRY.attempts


def nth_put_fails(n: int) -> Callable[[str, int], bool]:
    """The ``n``-th put fails and so do its retries: a fault that lasts."""
    return lambda key, i: n <= i < n + ATTEMPTS


def test_a_full_disk_while_compressing_only_skips_that_step() -> None:
    store = FaultyStore(fail_put=nth_put_fails(1))
    mem = memory(store)

    events = mem.compress_if_needed()

    skipped = [e for e in events if e.status == "skipped"]
    assert len(skipped) == 1
    assert skipped[0].reason is not None and skipped[0].reason.startswith(
        "offload store failed: [Errno 28] ")
    assert "(3 attempts): OSError: [Errno 28] No space left on device" in skipped[0].reason
    assert sum(e.status == "applied" for e in events) >= 2
    assert mem.tokens < C.count_messages(history())
    assert_consistent(mem, history())


@pytest.mark.parametrize("n", [0, 5, 11] if not LONG else range(12))
def test_whichever_put_fails_events_match_what_was_applied_and_no_blob_is_orphaned(
    n: int,
) -> None:
    store = FaultyStore(fail_put=nth_put_fails(n))
    mem = memory(store)

    first = mem.compress_if_needed()
    store.fail_put = None
    mem.add(MORE)
    second = mem.compress_if_needed()  # more history, with the store healthy again

    assert_consistent(mem, [*history(), *MORE])
    assert mem.events == first + second
    assert [e.status for e in first].count("skipped") == 1
    assert len({e.offload_id for e in mem.events if e.status == "applied"}) == len(
        set(mem.offload.ids()))


def test_acompress_skips_a_failing_step_the_same_way() -> None:
    store = FaultyStore(fail_put=nth_put_fails(0))
    mem = memory(store)

    events = asyncio.run(mem.acompress_if_needed())

    assert [e.status for e in events].count("skipped") == 1
    assert_consistent(mem, history())


def test_a_store_that_fails_every_put_leaves_the_history_whole_or_says_it_overflows() -> None:
    store = FaultyStore(fail_put=lambda key, i: True)
    mem = memory(store)

    try:
        events = mem.compress_if_needed()
    except ContextOverflowError:
        events = []
    assert all(e.status == "skipped" for e in events)
    assert dicts(mem.messages) == dicts(history())
    assert store.inner.keys(mem.offload.namespace) == []


def test_a_raising_event_callback_does_not_stop_compression(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[CompressionEvent] = []

    def callback(event: CompressionEvent) -> None:
        seen.append(event)
        raise RuntimeError("the metrics backend is down")

    mem = memory(FaultyStore(), on_event=callback)

    events = mem.compress_if_needed()

    assert len(events) >= 2 and seen == events == mem.events
    assert "on_event callback raised RuntimeError: the metrics backend is down" in caplog.text
    assert_consistent(mem, history())


class Interrupted(BaseException):
    """Not a store failure: the pass is stopped from outside (a cancel, Ctrl-C)."""


class InterruptedStore(FaultyStore):
    """A store whose ``n``-th put is interrupted."""

    def __init__(self, n: int) -> None:
        super().__init__(fail_put=lambda key, i: i == n,
                         error=lambda key: Interrupted(f"interrupted while writing {key}"))


@pytest.mark.parametrize("n", [0, 1])
def test_a_pass_aborted_by_an_unexpected_error_changes_nothing(n: int) -> None:
    store = InterruptedStore(n)
    mem = memory(store)
    before_messages, before_events = dicts(mem.messages), mem.events

    with pytest.raises(Interrupted, match="interrupted while writing"):
        mem.compress_if_needed()

    assert dicts(mem.messages) == before_messages
    assert mem.events == before_events == []
    assert store.inner.keys(mem.offload.namespace) == []


def test_an_aborted_pass_keeps_blobs_that_were_there_before_it() -> None:
    store = FaultyStore()
    first = memory(store)
    first.compress_if_needed()
    kept = set(first.offload.ids())
    assert kept
    n = store.puts + 1
    store.fail_put, store.error = (lambda key, i: i == n), lambda key: Interrupted(key)
    second = memory(store)  # the same history: its first steps name the same blobs

    with pytest.raises(Interrupted):
        second.compress_if_needed()

    assert set(second.offload.ids()) == kept
    assert_consistent(first, history())


def test_the_context_processor_skips_a_failing_step_too() -> None:
    store = FaultyStore(fail_put=nth_put_fails(0))
    processor = ContextProcessor(config(), counter=C, store=store,
                                 summarizer=ExtractiveSummarizer())

    result = processor.process(history())

    assert [e.status for e in result.events].count("skipped") == 1
    assert set(processor.offload.ids()) == referenced(result.messages, processor.offload)
    assert dicts(expand(result.messages, processor.offload)) == dicts(history())


TRANSIENT = {
    "OSError": lambda key: OSError(5, "Input/output error"),
    "psycopg": lambda key: _psycopg_error(),
    "ConnectionError": lambda key: ConnectionError("connection reset by peer"),
    "TimeoutError": lambda key: TimeoutError("timed out"),
    "redis-style": lambda key: RuntimeError("Redis is loading the dataset in memory"),
}


def _psycopg_error() -> Exception:
    import psycopg

    return psycopg.OperationalError("server closed the connection unexpectedly")


@pytest.mark.parametrize("error", list(TRANSIENT))
def test_a_put_that_fails_once_is_retried_and_nothing_is_skipped(error: str) -> None:
    store = FaultyStore(fail_put=lambda key, i: i % 3 == 1, error=TRANSIENT[error])
    mem = memory(store)

    events = mem.compress_if_needed()

    assert [e.status for e in events].count("skipped") == 0
    assert sum(e.status == "applied" for e in events) >= 2
    assert store.puts > sum(e.status == "applied" for e in events)  # some were retried
    assert_consistent(mem, history())


@pytest.mark.parametrize("error", list(TRANSIENT))
def test_any_backend_exception_is_a_store_error_that_skips_one_step_and_others_go_on(
        error: str) -> None:
    store = FaultyStore(fail_put=nth_put_fails(0), error=TRANSIENT[error])
    mem = memory(store)

    events = mem.compress_if_needed()

    [skipped] = [e for e in events if e.status == "skipped"]
    assert skipped.reason is not None and "(3 attempts)" in skipped.reason
    assert "FaultyStore" in skipped.reason  # names the store
    assert sum(e.status == "applied" for e in events) >= 2  # later ranges still compress
    assert_consistent(mem, history())


def test_a_store_that_stays_down_is_asked_a_bounded_number_of_times_and_the_overflow_names_it(
) -> None:
    store = FaultyStore(fail_put=lambda key, i: True,
                        error=lambda key: ConnectionError("connection refused"))
    mem = AutoContextMemory(AutoContextConfig(max_tokens=8_000,
                                              tuning=Tuning(cached_token_price=None,
                                                            store_retry=StoreRetry(attempts=2,
                                                                                   backoff_s=0.001))),
                            counter=C, store=store, summarizer=ExtractiveSummarizer())
    mem.add(history())

    with pytest.raises(ContextOverflowError) as raised:
        mem.compress_if_needed()

    message = str(raised.value)
    assert "offload store failed" in message and "FaultyStore" in message
    assert "ConnectionError: connection refused" in message and "pinned" not in message
    assert isinstance(raised.value.store_error, StoreError)
    assert store.puts == 3 * 2  # three steps in a row, two tries each, then it stops
    assert dicts(mem.messages) == dicts(history())


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(faults=st.frozensets(st.integers(0, 30), max_size=10), llm=st.booleans())
def test_under_random_put_faults_nothing_is_lost_and_no_blob_is_orphaned(
    faults: frozenset[int], llm: bool,
) -> None:
    store = FaultyStore(fail_put=lambda key, i: i in faults)
    mem = AutoContextMemory(config().evolve(store_retry=FAST_RETRY), counter=C, store=store,
                            summarizer=ExtractiveSummarizer() if llm else None)
    mem.add(history())

    with contextlib.suppress(ContextOverflowError):
        mem.compress_if_needed()

    assert_consistent(mem, history())


# --- two writers on one offload session -----------------------------------------------------

_COMPRESSOR = """
import json, sys
sys.path[:0] = sys.argv[2:4]
import test_store_faults as t
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.summarizers import ExtractiveSummarizer
from ctxmgr.store import DEFAULT_STORE_RETRY, FileStore, StoreRetry
mem = AutoContextMemory(t.config(), counter=t.C, store=FileStore(sys.argv[1]),
                        summarizer=ExtractiveSummarizer(), session="shared")
mem.add(t.history())
mem.compress_if_needed()
print(json.dumps(sorted(t.referenced(mem.messages, mem.offload))))
"""


def test_two_threads_compressing_one_session_share_its_blobs(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    memories = [AutoContextMemory(config(), counter=C, store=store, session="shared",
                                  summarizer=ExtractiveSummarizer()) for _ in range(2)]
    for mem in memories:
        mem.add(history())
    threads = [threading.Thread(target=mem.compress_if_needed) for mem in memories]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    for mem in memories:
        assert_consistent_shared(mem, history())
    assert not list(store.folder(memories[0].offload.namespace).glob(".~*"))


def test_two_processes_compressing_one_session_share_its_blobs(tmp_path: Path) -> None:
    here = Path(__file__).parent
    args = [sys.executable, "-c", _COMPRESSOR, str(tmp_path), str(here), str(here.parents[1])]
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outputs = [proc.communicate(timeout=120) for proc in procs]

    assert all(proc.returncode == 0 for proc in procs), [err for _, err in outputs]
    first, second = (set(json.loads(out)) for out, _ in outputs)
    offload = OffloadStore(FileStore(tmp_path), project=project_dir_name(), session="shared")
    assert first == second == set(offload.ids())
    assert all(offload.load(i) for i in first)


def assert_consistent_shared(mem: AutoContextMemory, original: Sequence[Message]) -> None:
    """As :func:`assert_consistent`, for a session whose store another writer shares."""
    assert dicts(expand(mem.messages, mem)) == dicts(original)
    assert referenced(mem.messages, mem.offload) <= set(mem.offload.ids())
