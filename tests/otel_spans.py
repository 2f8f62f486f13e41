"""An OpenTelemetry SDK recording into memory, switched on only inside the tests that ask.

The tracer provider is process-wide and can be set once: it is set on first use, and its
one processor hands finished spans to an ``InMemorySpanExporter`` only while a test
records, so other tests of the same worker neither fill it nor see its spans.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ctxmgr.autocontext.tracing import SPAN_NAME


class _Switch(SpanProcessor):
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.on = False
        self.fail = False

    def on_end(self, span: ReadableSpan) -> None:
        if self.fail:
            raise RuntimeError("this span processor is broken")
        if self.on:
            self.exporter.export((span,))


_SWITCH: _Switch | None = None


def _switch() -> _Switch:
    global _SWITCH
    if _SWITCH is None:
        switch = _Switch()
        provider = TracerProvider()
        provider.add_span_processor(switch)
        trace.set_tracer_provider(provider)
        assert trace.get_tracer_provider() is provider, "another tracer provider was set"
        _SWITCH = switch
    return _SWITCH


@contextmanager
def recording_spans(*, fail: bool = False) -> Iterator[InMemorySpanExporter]:
    """Spans finished inside the block, in an exporter (``get_finished_spans()``);
    ``fail``: the processor raises on every span instead."""
    switch = _switch()
    switch.exporter.clear()
    switch.on, switch.fail = True, fail
    try:
        yield switch.exporter
    finally:
        switch.on = switch.fail = False


def compression_spans(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if s.name == SPAN_NAME]
