"""The compression loop: trigger, cheapest strategy first, down to the target.

``compress`` and ``acompress`` share one planning core, a generator that
yields summarizer requests and receives their outcomes, so the sync and async
paths cannot drift apart. Nothing is replaced before its originals are
offloaded, and a failed summarizer only skips its strategy.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.events import CompressionEvent, EventCallback, emit
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.rounds import layout
from ctxmgr.autocontext.strategies import STRATEGIES, StrategyContext
from ctxmgr.autocontext.summarizers import (
    SummaryOutcome,
    asummarize_safely,
    clip_for_summary,
    render_transcript,
    summarize_safely,
)
from ctxmgr.errors import ContextOverflowError
from ctxmgr.messages import Message
from ctxmgr.tokens import TokenCounter

__all__ = ["CompressionResult", "acompress", "compress", "needs_compression"]

_LLM_STRATEGIES = frozenset({1, 4, 5, 6})
_RANGE_STRATEGIES = frozenset({1, 4})  # the ones that shrink a long history's message count
_LAST_RESORTS = frozenset({5, 6})  # rewrite the current round: only while over the trigger
_SUMMARY_TOKENS = 300  # what a summary is expected to cost before the summarizer has answered


@dataclass(frozen=True, slots=True)
class CompressionResult:
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


def _pays_off(*, removed: int, summary_input: int, busted: int, model_calls: int,
              config: AutoContextConfig) -> bool:
    """An LLM summary of ``removed`` tokens is worth making though the prompt fits the
    window: over as many further calls as the history holds (``model_calls``), the
    cached tokens it removes cost more than its summarizer input and output, the
    summary read uncached once and the ``busted`` tokens after it that lose the cache."""
    price = config.cached_token_price
    if price is None:
        return True
    summary = min(_SUMMARY_TOKENS, removed)
    saved = price * (removed - summary) * model_calls
    spent = summary_input + summary + (1 - price) * (summary + busted)
    return saved >= spent


def _count_goal(config: AutoContextConfig) -> int:
    # the message-count twin of target_ratio: stop well below the trigger (hysteresis)
    return max(1, int(config.msg_threshold * config.target_ratio / config.token_ratio))


def _plan_and_apply(
    messages: Sequence[Message],
    *,
    config: AutoContextConfig,
    counter: TokenCounter,
    offload: OffloadStore,
    use_llm: bool,
    on_event: EventCallback | None,
    force: bool,
    model_calls: int | None,
) -> Generator[_SummaryRequest, SummaryOutcome, CompressionResult]:
    work = list(messages)
    tokens = counter.count_messages(work)
    if not (force or needs_compression(tokens, len(work), config)):
        return CompressionResult(work, [], tokens, False)
    events: list[CompressionEvent] = []
    target, count_goal = config.target_tokens, _count_goal(config)
    rejected: set[tuple[int, str, str, int]] = set()  # plans whose stand-in was no smaller
    if model_calls is None:
        model_calls = sum(m.role == "assistant" for m in work)
    edited_from = len(work)  # first index this compression changed: the cache ends there
    count_bound = len(work) >= config.msg_threshold  # the count requires range summaries

    def done() -> bool:
        return tokens <= target and len(work) <= count_goal

    def idle(n: int) -> bool:
        """Strategy ``n`` has nothing to do at the current size."""
        if n in _LAST_RESORTS:
            return tokens < config.trigger_tokens
        return tokens <= target and n not in _RANGE_STRATEGIES

    for strategy in STRATEGIES:
        n = strategy.number
        if not config.enabled(n) or (n in _LLM_STRATEGIES and not use_llm):
            continue
        skipped = False
        while not done() and not skipped:
            if idle(n):
                break
            ctx = StrategyContext(messages=work, layout=layout(work, config, counter),
                                  config=config, counter=counter, tokens=tokens)
            progressed = False
            for plan in strategy.plan(ctx):
                if done() or idle(n):
                    break
                original = work[plan.start:plan.end]
                key = (n, original[0].id, original[-1].id, len(original))
                if key in rejected:
                    continue
                started = time.perf_counter()
                summary, s_in, s_out = None, 0, 0
                if plan.instruction is not None:
                    sent = clip_for_summary(original, config.summary_input_chars)
                    s_in = counter.count_text(plan.instruction + "\n" + render_transcript(sent))
                    if tokens <= config.max_tokens and not count_bound and not _pays_off(
                            removed=sum(counter.count(m) for m in original), summary_input=s_in,
                            busted=sum(counter.count(m) for m in work[plan.end:edited_from]),
                            model_calls=model_calls, config=config):
                        continue  # nothing requires this summary, and it would not pay
                    outcome = yield _SummaryRequest(sent, plan.instruction)
                    if outcome.text is None:
                        event = CompressionEvent(
                            strategy=n, name=strategy.name, status="skipped",
                            replaced_ids=(), offload_id=None, tokens_before=tokens,
                            tokens_after=tokens, summarizer_input_tokens=s_in,
                            duration_s=time.perf_counter() - started, reason=outcome.error)
                        events.append(event)
                        emit(event, on_event)
                        skipped = True
                        break
                    summary, s_out = outcome.text, counter.count_text(outcome.text)
                old = sum(counter.count(m) for m in original)
                offload_id = offload.new_id()
                stand_in = plan.build(summary, offload_id)
                if sum(counter.count(m) for m in stand_in) >= old:
                    rejected.add(key)
                    continue  # the stand-in would not be smaller: leave the originals
                offload.save(original, offload_id)
                work[plan.start:plan.end] = stand_in
                edited_from = min(edited_from, plan.start)
                before, tokens = tokens, tokens - old + sum(counter.count(m) for m in stand_in)
                event = CompressionEvent(
                    strategy=n, name=strategy.name, status="applied",
                    replaced_ids=tuple(m.id for m in original), offload_id=offload_id,
                    tokens_before=before, tokens_after=tokens, summarizer_input_tokens=s_in,
                    summarizer_output_tokens=s_out, duration_s=time.perf_counter() - started)
                events.append(event)
                emit(event, on_event)
                progressed = True
                if len(stand_in) != plan.end - plan.start:
                    break  # indices of later plans moved: plan again
            if not progressed:
                break
    result = CompressionResult(work, events, tokens, True)
    if tokens > config.max_tokens:
        raise ContextOverflowError(tokens=tokens, limit=config.max_tokens, partial=result)
    return result


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
) -> CompressionResult:
    """Compress ``messages`` if the trigger is reached; pure apart from offload writes.

    Args:
        summarizer: any object with ``summarize`` / ``asummarize``; ``None`` runs the
            non-LLM strategies (2 and 3) only.
        force: compress even when the trigger is not reached.
        model_calls: model calls the conversation has made so far (default: the
            assistant messages in ``messages``), the horizon over which a summary the
            window does not need must pay for itself.

    Raises:
        ContextOverflowError: still over ``max_tokens`` after every strategy applied.
    """
    gen = _plan_and_apply(messages, config=config, counter=counter, offload=offload,
                          use_llm=summarizer is not None, on_event=on_event, force=force,
                          model_calls=model_calls)
    try:
        request = next(gen)
        while True:
            request = gen.send(summarize_safely(summarizer, request.messages, request.instruction,
                                                timeout_s=config.summary_timeout_s))
    except StopIteration as stop:
        return stop.value


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
) -> CompressionResult:
    """Async twin of :func:`compress` (the summarizer is awaited, with the same timeout)."""
    gen = _plan_and_apply(messages, config=config, counter=counter, offload=offload,
                          use_llm=summarizer is not None, on_event=on_event, force=force,
                          model_calls=model_calls)
    try:
        request = next(gen)
        while True:
            outcome = await asummarize_safely(summarizer, request.messages, request.instruction,
                                              timeout_s=config.summary_timeout_s)
            request = gen.send(outcome)
    except StopIteration as stop:
        return stop.value
