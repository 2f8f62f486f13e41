"""The compression loop: trigger, cheapest strategy first, down to the target.

``compress`` and ``acompress`` share one planning core, a generator that
yields summarizer requests and receives their outcomes, so the sync and async
paths cannot drift apart. Nothing is replaced before its originals are
offloaded, and a failed summarizer only skips its strategy. A store that cannot
write (after the offload store's retries: a ``StoreError``, whatever the backend
raised) skips that one step: its originals stay in place and the next range is
tried, until the store has failed three steps in a row. A pass that anything else
aborts leaves no trace: the blobs it wrote for the first time are removed, and its
result is never applied.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.events import CompressionEvent, EventCallback, emit
from ctxmgr.autocontext.identifiers import VisibleIdentifiers
from ctxmgr.autocontext.marker import CompressedMarker, tagged_size, with_sized_tags
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.paging import LineCounts, line_counts
from ctxmgr.autocontext.reload import reloaded_size, render_reloaded
from ctxmgr.autocontext.rounds import Layout, layout
from ctxmgr.autocontext.strategies import (
    STRATEGIES,
    Plan,
    Strategy,
    StrategyContext,
    check_strategies,
    strategy_order,
)
from ctxmgr.autocontext.strategies.base import idle_at
from ctxmgr.autocontext.summarizers import (
    SummaryOutcome,
    SummaryWorker,
    asummarize_safely,
    clip_for_summary,
    render_transcript,
    summarize_safely,
)
from ctxmgr.autocontext.tracing import record_compression
from ctxmgr.errors import ConfigError, ContextOverflowError, OffloadNotFoundError, StoreError
from ctxmgr.messages import Message
from ctxmgr.tokens import TokenCounter

__all__ = ["CompressionResult", "acompress", "check_overhead", "compress", "needs_compression"]

_SUMMARY_TOKENS = 300  # what a summary is expected to cost before the summarizer has answered
_PROBE_ID = "0" * 32  # an offload id's length, to measure a stand-in before it has its id
_STORE_FAILURES_TO_STOP = 3
"""Steps in a row whose originals the store could not write (each after its retries)
before a pass stops asking it: a store that is down costs a pass a bounded wait."""


@dataclass(frozen=True, slots=True)
class CompressionResult:
    """What one call of :func:`compress` produced."""

    messages: list[Message]
    events: list[CompressionEvent]
    tokens: int
    """Prompt tokens of ``messages``."""
    triggered: bool


@dataclass(frozen=True, slots=True)
class _SummaryRequest:
    messages: Sequence[Message]
    instruction: str


def needs_compression(tokens: int, count: int, config: AutoContextConfig) -> bool:
    """The trigger: the prompt reaches ``max_tokens * token_ratio`` or ``msg_threshold``."""
    return tokens >= config.trigger_tokens or count >= config.msg_threshold


def _pays_off(*, removed: int, stand_in: int, summarizer_tokens: int, busted: int,
              model_calls: int, config: AutoContextConfig) -> bool:
    """An edit that replaces ``removed`` tokens by a ``stand_in`` is worth making though
    the prompt fits the window: over as many further calls as the history holds
    (``model_calls``), the cached tokens it removes cost more than the summarizer's
    input and output (none for an offload), the stand-in read uncached once and the
    ``busted`` tokens after it that lose the cache."""
    price = config.tuning.cached_token_price
    if price is None:
        return True
    saved = price * (removed - stand_in) * model_calls
    spent = summarizer_tokens + (1 - price) * (stand_in + busted)
    return saved >= spent


def _count_goal(config: AutoContextConfig) -> int:
    # the message-count twin of target_ratio: stop well below the trigger (hysteresis)
    return max(1, int(config.msg_threshold * config.target_ratio / config.token_ratio))


class _Pass:
    """One compression pass: the working list, its size, and what was done to it."""

    def __init__(self, messages: Sequence[Message], *, config: AutoContextConfig,
                 counter: TokenCounter, offload: OffloadStore,
                 on_event: EventCallback | None, model_calls: int | None,
                 overhead_tokens: int = 0, adds_hint: bool = False,
                 quotes: bool = False) -> None:
        self.work = list(messages)
        self.visible = VisibleIdentifiers(self.work)  # follows self.work as plans apply
        self.config, self.counter, self.offload, self.on_event = config, counter, offload, on_event
        self.tokens = counter.count_messages(self.work) + overhead_tokens
        self.events: list[CompressionEvent] = []
        self.model_calls = (model_calls if model_calls is not None
                            else sum(m.role == "assistant" for m in self.work))
        self.count_bound = len(self.work) >= config.msg_threshold  # needs range summaries
        self.edited_from = len(self.work)  # first index changed: the cache ends there
        self.cache_from = len(self.work)
        """Where the cached prefix ends now: the first index changed, or where the reload
        hint entered (events report the tokens each step cut off)."""
        self._adds_hint = adds_hint  # the caller adds the reload hint once anything is
        self._rejected: set[tuple[int, str, str, int]] = set()  # stand-ins no smaller
        self._count_goal = _count_goal(config)
        self.effective = config.effective()
        self.new_blobs: list[str] = []  # offload ids this pass wrote that were not there
        self.quotes = quotes  # the summarizer can quote: it writes the note of the user's words
        self.store_error: StoreError | None = None  # the latest failure of the offload store
        self._store_failures = 0  # consecutive steps the store failed
        self._layout: Layout | None = None  # of self.work as it stands (None: not built yet)

    def store_down(self) -> bool:
        """The store failed :data:`_STORE_FAILURES_TO_STOP` steps in a row: no later step
        of this pass asks it again (each already tried it ``retry.attempts`` times)."""
        return self._store_failures >= _STORE_FAILURES_TO_STOP

    def store_failed(self, strategy: Strategy, original: Sequence[Message], exc: StoreError,
                     summary_input: int, started: float) -> None:
        """A step whose originals could not be written: skipped, its range left as it is
        for the rest of the pass, and the next range tried."""
        self.store_error = exc
        self._store_failures += 1
        self._rejected.add(self._key(strategy.number, original))
        self.skip(strategy, summary_input, started, f"offload store failed: {exc}")

    def done(self) -> bool:
        return self.tokens <= self.config.target_tokens and len(self.work) <= self._count_goal

    def idle(self, strategy: Strategy) -> bool:
        """``strategy`` has nothing to do at the current size (see :func:`idle_at`)."""
        return idle_at(strategy, self.tokens, self.config)

    def context(self) -> StrategyContext:
        if self._layout is None:  # every strategy reads it; only an applied plan changes it
            self._layout = layout(self.work, self.config, self.counter)
        return StrategyContext(messages=self.work, layout=self._layout,
                               config=self.config, counter=self.counter, tokens=self.tokens,
                               visible=self.visible, load=self.offload.load,
                               quotes=self.quotes)

    @staticmethod
    def _key(n: int, original: Sequence[Message]) -> tuple[int, str, str, int]:
        return (n, original[0].id, original[-1].id, len(original))

    def rejected(self, n: int, original: Sequence[Message]) -> bool:
        return self._key(n, original) in self._rejected

    def wanted(self, plan: Plan, removed: int, stand_in: int, summarizer_tokens: int = 0
               ) -> bool:
        """An edit the window or the message count requires, or one that pays off (a
        summary is judged before it is made, on its expected size; an offload on its
        preview)."""
        if self.tokens > self.config.budget_tokens or self.count_bound:
            return True
        return _pays_off(removed=removed, stand_in=stand_in,
                         summarizer_tokens=summarizer_tokens,
                         busted=sum(self.counter.count(m)
                                    for m in self.work[plan.end:self.edited_from]),
                         model_calls=self.model_calls, config=self.config)

    def _offload_id(self, plan: Plan, original: Sequence[Message]) -> tuple[str, bool]:
        """The range's id: the plan's, else :meth:`OffloadStore.id_for` (of its content);
        when another range of this session holds that id with other messages (the same
        content, other ids), the id of its messages with their ids, so each range reloads
        its own. And whether the store held nothing under that id when asked (a blob
        this pass writes first; ``False`` for the plan's own).

        Raises:
            StoreError: the store failed (the step is skipped, as for a failed write).
        """
        if plan.offload_id is not None:  # the plan's own blob (a preview cut again)
            return plan.offload_id, False
        offload_id = self.offload.id_for(original)
        if not self.offload.exists(offload_id):
            return offload_id, True
        try:
            if self.offload.load(offload_id) == list(original):
                return offload_id, False  # this very range, offloaded before: nothing new
        except OffloadNotFoundError:  # removed meanwhile: the id is free again
            return offload_id, True
        with_ids = self.offload.id_for(original, with_ids=True)
        return with_ids, not self.offload.exists(with_ids)

    def skip(self, strategy: Strategy, summary_input: int, started: float,
             reason: str | None) -> None:
        self._emit(CompressionEvent(
            strategy=strategy.number, name=strategy.name, status="skipped", replaced_ids=(),
            offload_id=None, tokens_before=self.tokens, tokens_after=self.tokens,
            summarizer_input_tokens=summary_input, duration_s=time.perf_counter() - started,
            reason=reason, effective_config=self.effective))

    def apply(self, strategy: Strategy, plan: Plan, original: Sequence[Message],
              summary: str | None, summary_input: int, started: float,
              failure: str | None = None) -> int | None:
        """Offload the originals, then put the stand-in in their place; returns how many
        messages stand in, or ``None`` (nothing changed) when they would not be smaller or,
        for an offload the budget does not need, would not pay back yet."""
        old = sum(self.counter.count(m) for m in original)
        offload_id, fresh = self._offload_id(plan, original)
        stand_in = plan.build(summary, offload_id)
        report = dict(plan.report()) if plan.report is not None else {}
        lines = None
        if self.config.budget_tokens >= SIZED_TAGS_MIN_BUDGET:
            size, lines = self._reload_size(plan, original, offload_id)
            sized = tuple(with_sized_tags(m, offload_id, size) for m in stand_in)
            # a size in the tag never pushes a stand-in sized to the budget over it
            after = self.tokens - old
            if not (after + sum(self.counter.count(m) for m in sized) > self.config.budget_tokens
                    >= after + sum(self.counter.count(m) for m in stand_in)):
                stand_in = sized
        new = sum(self.counter.count(m) for m in stand_in)
        if new >= old:
            self._rejected.add(self._key(strategy.number, original))
            return None
        if plan.instruction is None and not self.wanted(plan, old, new):
            return None  # may pay once a later edit has broken the cache before it
        if plan.offload_id is None:
            self.offload.save(original, offload_id,  # a StoreError here changes nothing
                              lines=lines)
            self._store_failures = 0
            if fresh:
                self.new_blobs.append(offload_id)
        cut = self._cache_cut(plan.start)
        self.visible.replace(plan.start, plan.end, stand_in)
        self.work[plan.start:plan.end] = stand_in
        self._layout = None
        self.edited_from = min(self.edited_from, plan.start)
        before, self.tokens = self.tokens, self.tokens - old + new
        self._emit(CompressionEvent(
            strategy=strategy.number, name=strategy.name, status="applied",
            replaced_ids=tuple(m.id for m in original), offload_id=offload_id,
            tokens_before=before, tokens_after=self.tokens, cache_invalidated_tokens=cut,
            summarizer_input_tokens=summary_input,
            summarizer_output_tokens=self.counter.count_text(summary) if summary else 0,
            duration_s=time.perf_counter() - started, effective_config=self.effective,
            rejected_quotes=int(report.get("rejected_quotes", 0)),  # type: ignore[call-overload]
            reason=_reason(report.get("reason"), failure)))
        return len(stand_in)

    def _cache_cut(self, start: int) -> int:
        """Tokens of the cached prefix an edit from ``start`` cuts off (before it is made):
        up to where an earlier step cut it, and, when this first edit makes the caller add
        the reload hint after the system messages, from there."""
        if self._adds_hint:
            self._adds_hint = False
            if not any(CompressedMarker.of(m) for m in self.work):
                leading = 0
                while leading < len(self.work) and self.work[leading].role == "system":
                    leading += 1
                start = min(start, leading)
        if start >= self.cache_from:
            return 0
        cut = sum(self.counter.count(m) for m in self.work[start:self.cache_from])
        self.cache_from = start
        return cut

    def _reload_size(self, plan: Plan, original: Sequence[Message], offload_id: str
                     ) -> tuple[tuple[int, int], LineCounts | None]:
        """What a reload of ``offload_id`` gives back (characters, tokens), for its tag:
        the range itself, or, for a preview cut again, the range its tag already sized;
        and the range's line counts when it was counted so (its index keeps them)."""
        if plan.offload_id is not None:
            for m in original:
                size = tagged_size(m.text, offload_id) if m.text else None
                if size is None:
                    size = next((s for b in m.tool_results
                                 if (s := tagged_size(b.text, offload_id))), None)
                if size is not None:
                    return size, None
            with contextlib.suppress(Exception):  # an older tag: read the range once
                original = self.offload.load(offload_id)
        text = render_reloaded(list(original))
        lines = line_counts(text, self.counter)
        if lines is None:
            return reloaded_size(text, self.counter), None
        return (len(text), lines.total), lines

    def _emit(self, event: CompressionEvent) -> None:
        self.events.append(event)
        emit(event, self.on_event)
        record_compression(event, session=self.offload.namespace.session)

    def result(self) -> CompressionResult:
        result = CompressionResult(self.work, self.events, self.tokens, True)
        if self.tokens > self.config.budget_tokens:
            raise ContextOverflowError(tokens=self.tokens, limit=self.config.budget_tokens,
                                       partial=result, store_error=self.store_error)
        return result


SIZED_TAGS_MIN_BUDGET = 8000
"""Stand-ins' tags state the size of their range (characters and tokens, so the model
can judge a reload) unless the prompt budget is under this. A size takes about nine
tokens, and a small window holds many stand-ins: on the tau-bench conversations at 4k
sizes took 5 % of the prompt and cut fact availability from 0.931 to 0.925, so there the
tokens go to content (a reload's first line and a search answer state sizes anyway)."""


def _reason(said: object, failure: str | None) -> str | None:
    """Why an applied step is not what it would have been: the plan's word, and the
    summarizer's failure it fell back from."""
    parts = [str(said)] if said else []
    if failure:
        parts.append(failure)
    return "; ".join(parts) or None


def _start_pass(
    messages: Sequence[Message],
    *,
    config: AutoContextConfig,
    counter: TokenCounter,
    offload: OffloadStore,
    summarizer: object | None,
    on_event: EventCallback | None,
    force: bool,
    model_calls: int | None,
    overhead_tokens: int,
    adds_hint: bool,
) -> CompressionResult | Generator[_SummaryRequest, SummaryOutcome, CompressionResult]:
    """What :func:`compress` and :func:`acompress` share before they drive a pass: the
    arguments checked, then the result when nothing needs compressing (counted, no store
    asked: an async caller answers it on its loop), else the pass to drive (it yields
    summary requests).

    Raises:
        ConfigError: see :func:`compress`.
    """
    check_strategies(config)
    check_overhead(overhead_tokens)
    run = _Pass(messages, config=config, counter=counter, offload=offload, on_event=on_event,
                model_calls=model_calls, overhead_tokens=overhead_tokens, adds_hint=adds_hint,
                quotes=bool(getattr(summarizer, "can_quote", False)))
    if not (force or needs_compression(run.tokens, len(run.work), config)):
        return CompressionResult(run.work, [], run.tokens, False)
    return _apply_strategies(run, config=config, counter=counter, offload=offload,
                             use_llm=summarizer is not None)


def _apply_strategies(run: _Pass, *, config: AutoContextConfig, counter: TokenCounter,
                      offload: OffloadStore, use_llm: bool
                      ) -> Generator[_SummaryRequest, SummaryOutcome, CompressionResult]:
    try:
        yield from _strategies(run, config=config, counter=counter, use_llm=use_llm)
    except BaseException:
        # Aborted (a bug, an interrupt, a store raising something other than OSError):
        # this pass is never applied, so blobs only it wrote would point nowhere.
        for offload_id in run.new_blobs:
            offload.discard(offload_id)
        raise
    return run.result()


def _strategies(run: _Pass, *, config: AutoContextConfig, counter: TokenCounter,
                use_llm: bool) -> Generator[_SummaryRequest, SummaryOutcome, None]:
    """Run the strategies cheapest first on ``run`` until it is small enough: the one
    that folds the history into notes first when the config says so (it is the cheapest
    at the provider's prices: see ``Tuning.history_notes_first``), then the rest in
    their order."""
    for strategy in strategy_order(config, STRATEGIES):
        n = strategy.number
        if not config.enabled(n) or (strategy.uses_llm and not use_llm):
            continue
        while not run.done() and not run.idle(strategy) and not run.store_down():
            progressed = skipped = False
            for plan in strategy.plan(run.context()):
                if run.done() or run.idle(strategy) or run.store_down():
                    break
                original = run.work[plan.start:plan.end]
                if run.rejected(n, original):
                    continue
                started = time.perf_counter()
                summary, summary_input, failure = None, 0, None
                if plan.instruction is not None:
                    sent = clip_for_summary(plan.summary_input or original,
                                            config.tuning.summary_input_chars)
                    summary_input = counter.count_text(
                        plan.instruction + "\n" + render_transcript(sent))
                    removed = sum(counter.count(m) for m in original)
                    # before the summarizer answers: its expected text, and what the
                    # stand-in carries besides (the record, the identifiers line, the tag)
                    written = min(_SUMMARY_TOKENS, removed)
                    expected = written + sum(counter.count(m) for m in plan.build("", _PROBE_ID))
                    if not run.wanted(plan, removed, expected, summary_input + written):
                        continue  # nothing requires this summary, and it would not pay
                    outcome = yield _SummaryRequest(sent, plan.instruction)
                    if outcome.text is None and not plan.falls_back:
                        run.skip(strategy, summary_input, started, outcome.error)
                        skipped = True
                        break
                    summary, failure = outcome.text, outcome.error
                try:
                    placed = run.apply(strategy, plan, original, summary, summary_input,
                                       started, failure)
                except StoreError as exc:  # retried already: skip this range, try the next
                    run.store_failed(strategy, original, exc, summary_input, started)
                    continue
                if placed is not None:
                    progressed = True
                    if placed != len(original):
                        break  # indices of later plans moved: plan again
            if skipped or not progressed:
                break


def check_overhead(overhead_tokens: object, name: str = "overhead_tokens") -> None:
    """Refuse a count of tokens sent beside the messages that is not an int >= 0 (a
    negative one would make every prompt look smaller than it is).

    Raises:
        ConfigError: naming ``name``, the rule and the value.
    """
    if isinstance(overhead_tokens, bool) or not isinstance(overhead_tokens, int) \
            or overhead_tokens < 0:
        raise ConfigError(f"{name} must be an int >= 0, got {overhead_tokens!r:.80}")


def compress(
    messages: Sequence[Message],
    *,
    config: AutoContextConfig,
    counter: TokenCounter,
    offload: OffloadStore,
    summarizer: object | None,
    on_event: EventCallback | None = None,
    force: bool = False,
    model_calls: int | None = None,
    overhead_tokens: int = 0,
    worker: SummaryWorker | None = None,
    adds_hint: bool = False,
) -> CompressionResult:
    """Compress ``messages`` if the trigger is reached; pure apart from offload writes.

    Args:
        summarizer: any object with ``summarize`` / ``asummarize``; ``None`` runs only
            the strategies that need no summarizer (their ``uses_llm`` is false).
        force: compress even when the trigger is not reached.
        model_calls: model calls the conversation has made so far (default: the
            assistant messages in ``messages``), the horizon over which a summary the
            window does not need must pay for itself.
        overhead_tokens: prompt tokens sent beside ``messages`` (a system prompt kept
            elsewhere, tool schemas, the reload hint); they count towards every threshold.
        worker: runs sync summarizer calls (default: a fresh one per call); pass the
            same worker on every call so that a hung summarizer holds one thread.
        adds_hint: the caller puts a reload hint after the leading system messages once
            anything is compressed (as ``ContextProcessor`` does): the first compression's
            ``cache_invalidated_tokens`` then count from there.

    A store that cannot write (after the offload store's retries) skips the step that
    needed it (a "skipped" event says why) and the pass goes on with other ranges.

    Raises:
        ConfigError: ``config`` disables a strategy that does not exist, or
            ``overhead_tokens`` is not an int >= 0.
        ContextOverflowError: still over ``budget_tokens`` after every strategy applied
            (only what is pinned is left: system messages, the task, the latest user
            message, tool calls), or because the offload store failed: then its
            ``store_error`` is the ``StoreError`` naming the store and its exception.
    """
    opened = _start_pass(messages, config=config, counter=counter, offload=offload,
                         summarizer=summarizer, on_event=on_event, force=force,
                         model_calls=model_calls, overhead_tokens=overhead_tokens,
                         adds_hint=adds_hint)
    if isinstance(opened, CompressionResult):
        return opened
    gen, worker = opened, worker or SummaryWorker()
    try:
        request = next(gen)
        while True:
            request = gen.send(summarize_safely(summarizer, request.messages, request.instruction,
                                                timeout_s=config.summary_timeout_s,
                                                worker=worker))
    except StopIteration as stop:
        return stop.value
    finally:
        gen.close()  # interrupted while waiting: the pass cleans up now, not at collection


async def acompress(
    messages: Sequence[Message],
    *,
    config: AutoContextConfig,
    counter: TokenCounter,
    offload: OffloadStore,
    summarizer: object | None,
    on_event: EventCallback | None = None,
    force: bool = False,
    model_calls: int | None = None,
    overhead_tokens: int = 0,
    worker: SummaryWorker | None = None,
    adds_hint: bool = False,
) -> CompressionResult:
    """Async twin of :func:`compress` (the summarizer is awaited, with the same timeout).

    Whether anything needs compressing is counted on the loop (no store is asked). The
    planning steps, which read and write the offload store, run in a worker thread: the
    event loop never blocks on the store, and a store bound to this very loop
    (LangGraph's async Postgres and SQLite stores) can serve them.
    """
    opened = _start_pass(messages, config=config, counter=counter, offload=offload,
                         summarizer=summarizer, on_event=on_event, force=force,
                         model_calls=model_calls, overhead_tokens=overhead_tokens,
                         adds_hint=adds_hint)
    if isinstance(opened, CompressionResult):
        return opened  # nothing to compress: answered on the loop, no thread hop
    gen, worker = opened, worker or SummaryWorker()

    def step(outcome: SummaryOutcome | None) -> tuple[_SummaryRequest | None, object]:
        # StopIteration cannot cross a thread's future: hand the result back as data
        try:
            return (next(gen) if outcome is None else gen.send(outcome)), None
        except StopIteration as stop:
            return None, stop.value

    import asyncio  # already loaded: an event loop runs this

    try:
        request, done = await asyncio.to_thread(step, None)
        while request is not None:
            outcome = await asummarize_safely(summarizer, request.messages, request.instruction,
                                              timeout_s=config.summary_timeout_s, worker=worker)
            request, done = await asyncio.to_thread(step, outcome)
        assert isinstance(done, CompressionResult)
        return done
    finally:
        with contextlib.suppress(ValueError):  # cancelled while a step still runs
            gen.close()
