"""Compressions as OpenTelemetry spans, and the cache each compression invalidates.

The spans are recorded by the real OpenTelemetry SDK into memory (``otel_spans``); the
absence of OpenTelemetry is simulated in a fresh interpreter that cannot import it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Sequence

import pytest
from builders import C, groups, plain_window, split_settings, system, user
from opentelemetry import trace
from opentelemetry.trace import StatusCode
from otel_spans import compression_spans, recording_spans

from ctxmgr import CompressionEvent, Message
from ctxmgr.autocontext import ContextProcessor
from ctxmgr.autocontext.tracing import ATTRIBUTES, SPAN_NAME


@pytest.fixture(autouse=True)
def _strategies_in_their_own_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise the strategies in their own order (summaries before the
    history notes of strategy 7): ``Tuning.history_notes_first`` is off here."""
    monkeypatch.setenv("CTXMGR_HISTORY_NOTES_FIRST", "false")


class Down:
    """A summarizer whose model is down."""

    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        raise RuntimeError("model is down")


def history(n: int = 8) -> list[Message]:
    return [system(), user("fix the bug", "u1"), *groups("g", n, 2000)]


def process(messages: Sequence[Message], state: object = None, **kw: object
            ) -> tuple[list[CompressionEvent], object, list[Message]]:
    seen: list[CompressionEvent] = []
    kw.setdefault("on_event", seen.append)
    kw.setdefault("summarizer", None)  # offloads only: several steps a pass
    settings, kw = split_settings(kw)
    processor = ContextProcessor(plain_window(max_tokens=3000, last_keep=2, **settings),
                                 counter=C, **kw)  # type: ignore[arg-type]
    result = processor.process(messages, state)  # type: ignore[arg-type]
    return seen, result.state, result.messages


def test_each_step_is_a_span_under_the_current_one_and_names_only_documented_attributes(
) -> None:
    with recording_spans() as exporter:
        with trace.get_tracer("test").start_as_current_span("model call") as parent:
            seen, _, _ = process(history())
        spans = compression_spans(exporter)
    assert len(seen) >= 2 and len(spans) == len(seen)
    for span, event in zip(spans, seen, strict=True):
        assert span.name == SPAN_NAME
        assert span.parent is not None
        assert span.parent.span_id == parent.get_span_context().span_id
        attributes = dict(span.attributes or {})
        assert set(attributes) <= set(ATTRIBUTES)
        assert attributes["ctxmgr.compression.tokens_before"] == event.tokens_before
        assert attributes["ctxmgr.compression.tokens_after"] == event.tokens_after
        assert attributes["ctxmgr.compression.cache_invalidated_tokens"] == (
            event.cache_invalidated_tokens)
        assert attributes["ctxmgr.session"] == "default"
    # what the pass cost the provider's cache is on the spans, as on the events
    assert sum(e.cache_invalidated_tokens for e in seen) > 0


def test_a_skipped_step_is_an_error_span_that_says_why() -> None:
    with recording_spans() as exporter:
        seen, _, _ = process(history(), summarizer=Down())
        spans = compression_spans(exporter)
    skipped = [(s, e) for s, e in zip(spans, seen, strict=True) if e.status == "skipped"]
    assert skipped, "the summarizing strategies should have been tried"
    for span, event in skipped:
        assert span.status.status_code is StatusCode.ERROR
        assert span.status.description == event.reason
        assert span.attributes is not None
        assert span.attributes["ctxmgr.compression.reason"] == event.reason
        assert "model is down" in str(event.reason)
    assert any(e.status == "applied" for e in seen), "offloads still apply"


def test_a_span_processor_that_raises_does_not_stop_compression(
        caplog: pytest.LogCaptureFixture) -> None:
    with recording_spans(fail=True):
        seen, _, messages = process(history())
    quiet, _, expected = process(history())
    assert [e.tokens_after for e in seen] == [e.tokens_after for e in quiet]
    assert messages == expected
    assert "recording a compression span raised" in caplog.text


def test_the_first_compression_invalidates_the_cache_from_after_the_system_prompt() -> None:
    h = history()
    seen, state, view = process(h)
    applied = [e for e in seen if e.status == "applied"]
    # the reload hint enters right after the system prompt with the first compression
    assert applied[0].cache_invalidated_tokens == sum(C.count(m) for m in h[1:])
    assert all(e.cache_invalidated_tokens == 0 for e in applied[1:])

    more = [*view, *groups("late", 5, 2000)]
    again, _, _ = process(more, state)
    first = again[0]
    start = [m.id for m in more].index(first.replaced_ids[0])
    assert first.cache_invalidated_tokens == sum(C.count(m) for m in more[start:])


def test_without_the_reload_hint_the_cache_is_invalidated_from_the_first_change() -> None:
    h = history()
    seen, _, _ = process(h, reload_hint=False)
    first = seen[0]
    start = [m.id for m in h].index(first.replaced_ids[0])
    assert start > 1
    assert first.cache_invalidated_tokens == sum(C.count(m) for m in h[start:])
    ids = [m.id for m in h]
    earliest = min(ids.index(e.replaced_ids[0]) for e in seen)
    assert sum(e.cache_invalidated_tokens for e in seen) == sum(
        C.count(m) for m in h[earliest:])  # the steps of a pass add up to the pass's


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)


def test_importing_ctxmgr_leaves_opentelemetry_alone_and_without_it_all_works() -> None:
    result = _run("""
        import sys
        import ctxmgr
        from ctxmgr.autocontext import tracing
        print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))

        sys.modules["opentelemetry"] = None  # from here on, as if it were not installed
        from ctxmgr import AutoContextConfig, AutoContextMemory
        from ctxmgr.tokens import ApproximateCounter
        from ctxmgr.messages import text_message

        seen = []
        memory = AutoContextMemory(AutoContextConfig(max_tokens=2000),
                                   counter=ApproximateCounter(), on_event=seen.append)
        memory.add([text_message("system", "sys"), text_message("user", "task")])
        for i in range(6):
            memory.add([text_message("assistant", "x" * 6000), text_message("user", f"{i}")])
        memory.compress_if_needed()
        assert seen and all(e.status == "applied" for e in seen), seen
        assert tracing._tracer() is None  # the import was tried, once, and failed
        print(len(seen))
    """)
    assert result.returncode == 0, result.stderr
    imported, events = result.stdout.splitlines()
    assert imported == "[]", "import ctxmgr must not import opentelemetry"
    assert int(events) >= 1
