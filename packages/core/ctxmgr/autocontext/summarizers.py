"""Summarizers: the protocol, a deterministic extractive one, and a safe runner.

A summarizer is any object with ``summarize(messages, instruction) -> str``
and/or ``async asummarize(messages, instruction) -> str`` (the deterministic one,
:class:`ExtractiveSummarizer`, is in :mod:`ctxmgr.autocontext.extractive`). The
runner gives each call a timeout and turns every failure (exception, timeout, empty
answer) into ``None``: the caller skips its strategy and keeps the data.

A sync call runs in a thread that is abandoned, not killed, when it times out
(Python cannot stop a thread). A :class:`SummaryWorker` bounds that: it runs
one call at a time, and while an abandoned call is still running every further
call through it is skipped at once, so a hung model holds one thread per
memory, never one per call. Its :class:`~ctxmgr.autocontext.cooldown.SummaryCooldown`
covers sync and async calls alike: after a timeout, calls are skipped for
``summary_cooldown_s``, so a hung model delays the agent once per cool-down period.
"""

from __future__ import annotations

import inspect
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from ctxmgr._unset import UNSET
from ctxmgr.autocontext.cooldown import SummaryCooldown
from ctxmgr.autocontext.extractive import ExtractiveSummarizer
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.record import without_record
from ctxmgr.errors import ConfigError
from ctxmgr.messages import Message, OpaqueBlock, TextBlock, ToolResultBlock, ToolUseBlock, thaw

__all__ = [
    "AsyncSummarizer",
    "clip_for_summary",
    "ExtractiveSummarizer",
    "SummaryCooldown",
    "SummaryOutcome",
    "SummaryWorker",
    "Summarizer",
    "asummarize_safely",
    "choose_summarizer",
    "render_transcript",
    "summarize_safely",
]


def choose_summarizer(value: object, *,
                      adapt: Callable[[object], object | None] | None = None) -> object | None:
    """The summarizer a session summarizes with (the rule :mod:`ctxmgr.session.defaults` states).

    Args:
        value: what the user gave (:data:`~ctxmgr.session.UNSET` when nothing).
        adapt: the adapter's wrapper for its framework's models: returns a summarizer for
            a model it knows, ``None`` for anything else.

    Raises:
        ConfigError: ``value`` is none of the accepted kinds (the message lists them).
    """
    if value is UNSET:
        return ExtractiveSummarizer()
    if value is None or hasattr(value, "summarize") or hasattr(value, "asummarize"):
        return value
    wrapped = adapt(value) if adapt is not None else None
    if wrapped is not None:
        return wrapped
    if isinstance(value, str):
        raise ConfigError(
            f"summarizer={value!r} is not accepted: leave summarizer out for the "
            "deterministic extractive summarizer, pass None for no summaries, or pass a "
            "summarizer object or your framework's chat model")
    raise ConfigError(
        "summarizer must be an object with summarize / asummarize, your framework's chat "
        f"model, or None (left out: the extractive summarizer), got {value!r:.80}")


@runtime_checkable
class Summarizer(Protocol):
    """Turns messages into a short text following ``instruction``."""

    def summarize(self, messages: Sequence[Message], instruction: str) -> str: ...


@runtime_checkable
class AsyncSummarizer(Protocol):
    """The async twin of :class:`Summarizer`; an object may offer both."""

    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str: ...


@dataclass(frozen=True, slots=True)
class SummaryOutcome:
    """The summary, or why there is none (``error``)."""

    text: str | None
    error: str | None = None


def render_transcript(messages: Sequence[Message], *, max_result_chars: int | None = None) -> str:
    """Messages as plain text for a summarizer prompt: roles, tool calls, results."""
    lines: list[str] = []
    for m in messages:
        for b in m.content:
            match b:
                case TextBlock():
                    if b.text:
                        lines.append(f"[{m.role}] {b.text}")
                case ToolUseBlock():
                    args = json.dumps(thaw(b.input), ensure_ascii=False)
                    lines.append(f"[{m.role} tool call {b.id}] {b.name}({args})")
                case ToolResultBlock():
                    text = b.text
                    if max_result_chars is not None and len(text) > max_result_chars:
                        text = text[:max_result_chars] + " …"
                    err = " (error)" if b.is_error else ""
                    lines.append(f"[tool result {b.tool_use_id}{err}] {text}")
                case OpaqueBlock():
                    lines.append(f"[{m.role} {b.data.get('type', 'block')}]")
    return "\n".join(lines)


def clip_for_summary(messages: Sequence[Message], max_chars: int) -> list[Message]:
    """Copies of ``messages`` whose long texts, results and string arguments are cut to
    head + tail, marked with how much was left out (what the summarizer is sent).
    Earlier summaries' prose goes in whole (clipping it would lose a little more at
    every roll); their record of tool calls and identifiers line do not go at all: the
    stand-in carries them forward itself."""
    def cut(text: str) -> str:
        if len(text) <= max_chars:
            return text
        head = max_chars * 3 // 4
        tail = max_chars - head
        return (f"{text[:head]}\n[... {len(text) - max_chars} characters left out ...]\n"
                f"{text[len(text) - tail:]}")

    def cut_value(value: object) -> object:
        if isinstance(value, str):
            return cut(value)
        if isinstance(value, Mapping):
            return {k: cut_value(v) for k, v in value.items()}
        if isinstance(value, tuple | list):
            return [cut_value(v) for v in value]
        return value

    out: list[Message] = []
    for m in messages:
        if CompressedMarker.of(m) is not None and not m.has_tool_blocks:
            # an earlier summary is the story so far: its prose goes in whole; its record
            # of tool calls and identifiers line are carried forward without the model
            out.append(replace(m, content=(TextBlock(text=without_record(m.text)),)))
            continue
        blocks = []
        for b in m.content:
            match b:
                case TextBlock() if len(b.text) > max_chars:
                    b = replace(b, text=cut(b.text))
                case ToolResultBlock() if len(b.text) > max_chars:
                    b = replace(b, content=cut(b.text))
                case ToolUseBlock():
                    b = replace(b, input={k: cut_value(v) for k, v in b.input.items()},
                                raw_input=None)
                case _:
                    pass
            blocks.append(b)
        out.append(replace(m, content=tuple(blocks)))
    return out


def _check(text: object) -> SummaryOutcome:
    if not isinstance(text, str):
        return SummaryOutcome(None, f"summarizer returned {type(text).__name__}, not str")
    if not text.strip():
        return SummaryOutcome(None, "summarizer returned an empty summary")
    return SummaryOutcome(text)


class SummaryWorker:
    """Runs sync summarizer calls one at a time, each in a daemon thread with a timeout.

    While a call that timed out is still running, further calls are skipped at
    once (their outcome says so) instead of starting another thread; once it
    returns, its answer is dropped and the next call runs normally. Give each
    memory its own worker: :class:`~ctxmgr.AutoContextMemory` does.
    """

    def __init__(self, cooldown: SummaryCooldown | None = None) -> None:
        self.cooldown = cooldown if cooldown is not None else SummaryCooldown()
        """After a timeout, calls through this worker (sync and async) are skipped for a
        while; an engine gives all its sessions' workers one."""
        self._guard = threading.Lock()
        self._running: threading.Thread | None = None
        self._started = 0.0

    def run(self, summarizer: object, messages: Sequence[Message], instruction: str, *,
            timeout_s: float) -> SummaryOutcome:
        """One call; never raises, never blocks past ``timeout_s``."""
        box: dict[str, object] = {}

        def call() -> None:
            try:
                if hasattr(summarizer, "summarize"):
                    box["text"] = summarizer.summarize(messages, instruction)
                else:  # duck-typed: no ``summarize``, so it must be async-only
                    import asyncio  # only here: ``import ctxmgr`` does not load asyncio

                    box["text"] = asyncio.run(
                        summarizer.asummarize(messages, instruction))  # type: ignore[attr-defined]
            except BaseException as exc:  # noqa: BLE001 - any failure means "skip"
                box["error"] = f"summarizer raised {type(exc).__name__}: {exc}"

        cooling = self.cooldown.skip_reason()
        if cooling is not None:
            return SummaryOutcome(None, cooling)
        with self._guard:
            if self._running is not None and self._running.is_alive():
                age = time.monotonic() - self._started
                return SummaryOutcome(None, f"summarizer timed out after {timeout_s:g} s (an "
                                            "earlier call that timed out is still running, "
                                            f"for {age:.0f} s; skipped without a new call)")
            worker = threading.Thread(target=call, name="ctxmgr-summarizer", daemon=True)
            self._running, self._started = worker, time.monotonic()
            worker.start()
        worker.join(timeout_s)
        if worker.is_alive():
            self.cooldown.timed_out()
            return SummaryOutcome(None, f"summarizer timed out after {timeout_s:g} s")
        if "error" in box:
            return SummaryOutcome(None, str(box["error"]))
        return _check(box.get("text"))


def summarize_safely(
    summarizer: object, messages: Sequence[Message], instruction: str, *, timeout_s: float,
    worker: SummaryWorker | None = None,
) -> SummaryOutcome:
    """Call a summarizer with a timeout; never raises, never blocks past ``timeout_s``.

    A sync summarizer runs in a daemon thread of ``worker`` (default: a fresh
    one, so nothing bounds the threads that hung calls leave behind); an
    async-only one runs in a fresh event loop in that thread.
    """
    return (worker or SummaryWorker()).run(summarizer, messages, instruction,
                                           timeout_s=timeout_s)


async def asummarize_safely(
    summarizer: object, messages: Sequence[Message], instruction: str, *, timeout_s: float,
    worker: SummaryWorker | None = None,
) -> SummaryOutcome:
    """Async twin of :func:`summarize_safely`; a sync summarizer runs in ``worker``'s thread.

    An async summarizer that blocks the event loop (sync I/O inside ``async def``)
    cannot be interrupted; an answer it gives after ``timeout_s`` is not used.
    """
    import asyncio  # already loaded: an event loop runs this

    method = getattr(summarizer, "asummarize", None)
    if method is None or not inspect.iscoroutinefunction(method):
        return await asyncio.to_thread(summarize_safely, summarizer, messages, instruction,
                                       timeout_s=timeout_s, worker=worker)
    cooldown = worker.cooldown if worker is not None else SummaryCooldown()
    cooling = cooldown.skip_reason()
    if cooling is not None:
        return SummaryOutcome(None, cooling)
    started = time.monotonic()
    try:
        async with asyncio.timeout(timeout_s) as deadline:
            text = await method(messages, instruction)
    except TimeoutError as exc:
        if deadline.expired():
            cooldown.timed_out()
            return SummaryOutcome(None, f"summarizer timed out after {timeout_s:g} s")
        return SummaryOutcome(None, f"summarizer raised TimeoutError: {exc}")
    except Exception as exc:  # noqa: BLE001 - any failure means "skip"
        return SummaryOutcome(None, f"summarizer raised {type(exc).__name__}: {exc}")
    elapsed = time.monotonic() - started
    if elapsed > timeout_s:
        cooldown.timed_out()
        return SummaryOutcome(None, f"summarizer answered after {elapsed:.1f} s, past the "
                                    f"{timeout_s:g} s timeout (it blocked the event loop); "
                                    "its answer was not used")
    return _check(text)
