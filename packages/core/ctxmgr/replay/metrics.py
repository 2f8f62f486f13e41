"""Token economics of one replayed model call, and their sums (SPEC §8).

Definitions, per model call:

* ``prompt_tokens``: the shared counter's count of the prompt the policy sent;
  ``baseline_prompt_tokens`` the same for the whole history (no management).
* ``cached``: tokens of the longest run of leading messages identical (same role,
  same content) to the previous call's prompt, the part a provider's prompt cache
  would serve; the first call of a trajectory has nothing cached.
* ``effective_cost = cache_read × cached + cache_write × uncached + summarizer input +
  output``, in uncached-token units. The rates are a :class:`Pricing`, the same for
  every policy of a replay: by default ``cache_read`` 0.1 and ``cache_write`` 1.0 (SPEC
  §8: a cached token costs a tenth, writing the cache nothing extra, as OpenAI bills);
  Anthropic's 5-minute cache bills every token written to it at 1.25. Every uncached
  prompt token counts as written, as with a cache breakpoint on the latest message (how
  agents cache their growing history); summarizer tokens are one-off calls, never cached.
* ``prefix_changed``: the prompt does not start with the whole previous prompt (its
  cached prefix is shorter than the previous prompt), so the provider bills the rest of
  it uncached again; ``invalidated_tokens`` are the previous prompt's tokens after the
  first changed message, the ones the cache held and no longer serves.
* ``task_lost``: the prompt no longer holds the text of the first user message
  (the task) verbatim, in any message.
* ``pairing_violations``: :func:`ctxmgr.pairing.validate_pairing` on the prompt
  (OpenAI rules).

Fidelity, per call, against the recorded next step (the fact rule and what
"available", "reloadable" and "recency" mean are in :mod:`ctxmgr.replay.fidelity`):

* ``fact_availability``: needed facts present verbatim in the prompt / needed facts;
* ``fact_reloadable``: of the needed facts missing from the prompt, the share that
  an offload id in the prompt gives back (always 0 for a policy that cannot reload);
* ``recency``: calls whose prompt holds the last three tool results verbatim / calls
  with at least one tool result before them;
* ``fact_availability_by_age``: ``fact_availability`` per source age bucket
  (``"1"``, ``"2"``, ``"3"``, ``"4-10"``, ``"11+"`` tool results back);
* ``fact_searchable``: of the needed facts missing from the prompt, the share that one
  ``context_search`` for the fact itself finds (always 0 for a policy that cannot
  search);
* ``cost_with_recovery``: ``effective_cost`` plus, for each call that misses a needed
  fact (a "recovery call"), one round trip: the prompt again at the cached price, and
  uncached the cheapest way to get each missing fact back that the policy has: a
  ``context_search`` answer that holds it, the ranges a reload of the offload ids in
  the prompt must bring back, or else the output of the tool that produced it, run
  again. Every policy can run a tool again, so one that loses a fact pays for it.

Retention, per call, of what came before it (the rules are in
:mod:`ctxmgr.replay.retention`):

* ``user_retention``: earlier user messages (user turns, the first included) whose
  whole text, or every sentence of whose standing content, is in the prompt / earlier
  user messages; a courtesy with no standing content counts as retained;
* ``user_verbatim`` (beyond SPEC §8, the stricter companion): earlier user messages
  whose whole text is in the prompt verbatim / earlier user messages;
* ``actions_retained``: earlier tool calls whose tool name and the first line of
  whose key argument, in at most 60 characters (the name a stand-in's record gives
  it), the prompt's text (whitespace collapsed) still holds / earlier tool calls.

A share whose denominator is empty (no needed facts, nothing missing, no tool
result yet, no earlier user message or tool call) is 1.0: nothing was lost.

Sums over calls give a trajectory's row; sums over trajectories the aggregate.
Ratios (``savings``, ``cache_hit_ratio``, the fidelity shares) are recomputed from
the sums, and ``ms_per_call_median`` is the median over every call.

Besides the SPEC §8 keys (:data:`METRIC_KEYS`) every row carries the cache keys
(:data:`CACHE_KEYS`):

* ``compressions``: compression steps the policy reported (ctxmgr's strategies
  applied, a peer's summaries or clears; ``overflow``, a call that went out over the
  budget, is no step), ``compressing_calls`` the calls with at least one, and
  ``compressions_per_100_calls``;
* ``prefix_changed_calls``: calls whose prompt changed the previous call's prefix, of
  the calls that have a previous one (``prefix_changed_share``), and
  ``invalidated_tokens`` summed over them;
* ``uncached_tokens``, and ``baseline_cache_hit_ratio``: the cache hit ratio of no
  management on the same calls;
* the cost split, each a share of ``effective_cost``: ``cost_share_uncached``
  (uncached prompt tokens, at the write rate), ``cost_share_cached`` (cached reads)
  and ``cost_share_summarizer``;
* ``effective_cost_ratio_at_baseline_hit``: what the same prompts and summaries would
  cost, over the baseline, if the policy's prompts hit the cache as often as no
  management's do (what the prompt-size savings are worth with a warm cache).

Rows also carry ``cached_tokens``, ``baseline_effective_cost`` (the no-management cost of
the same calls, at the same rates), ``effective_cost_ratio`` (effective cost / that
baseline, the "cost / none" of RESULTS.md's tables), ``summarizer_input_tokens``,
``summarizer_output_tokens``, ``events`` (compressions by strategy name), the
counts behind the fidelity shares (``needed_facts``, ``facts_available``,
``facts_reloadable``, ``facts_searchable``, ``needed_facts_by_age``, ``recency_calls``,
``earlier_user_messages``, ``user_messages_retained``, ``user_messages_verbatim``,
``earlier_tool_calls``, ``tool_calls_named``), ``user_verbatim``, ``recovery_calls``,
``recovery_tokens``, ``recovered_by`` (missing facts got back by a search, a reload,
a tool run again), ``reload_tokens`` (what reloading every reloadable fact would
bring back) and ``cost_with_recovery_ratio`` (over the same baseline); the
aggregate adds ``runs`` and ``errors`` (trajectories on which the policy raised;
such a row has an ``error`` string and only the calls before the failure).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxmgr.errors import ConfigError
from ctxmgr.messages import Message, TextBlock, ToolResultBlock
from ctxmgr.pairing import validate_pairing
from ctxmgr.replay.fidelity import AGE_BUCKETS, CallFidelity
from ctxmgr.tokens import TokenCounter

__all__ = [
    "CACHED_PRICE",
    "CACHE_KEYS",
    "DEFAULT_PRICING",
    "METRIC_KEYS",
    "NOT_A_COMPRESSION",
    "CallRecord",
    "Pricing",
    "TrajectoryResult",
    "aggregate_row",
    "cached_prefix_length",
    "cached_prefix_tokens",
    "effective_cost",
    "measure_call",
    "prompt_has_task",
    "same_message",
    "task_text",
    "trajectory_row",
]

CACHED_PRICE = 0.1
"""Price of a cached prompt token relative to an uncached one (SPEC §8's rate)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Pricing:
    """What a provider bills per prompt token, relative to an uncached input token.

    Replay prices every policy alike with one of these::

        Pricing()                                   # SPEC §8: reads 0.1, no write surcharge
        Pricing(cache_read=0.1, cache_write=1.25)   # Anthropic, 5-minute cache
        Pricing(cache_read=0.5)                     # OpenAI gpt-4o (reads at half price)

    Raises:
        ConfigError: a rate that is not a finite number >= 0, or a read dearer than a
            write (the two options swapped).
    """

    cache_read: float = CACHED_PRICE
    """A token the provider serves from its prompt cache."""
    cache_write: float = 1.0
    """A prompt token that is not cached, and so is written to the cache for the next
    call (1.0: no surcharge)."""

    def __post_init__(self) -> None:
        for name in ("cache_read", "cache_write"):
            value = getattr(self, name)
            if (isinstance(value, bool) or not isinstance(value, int | float)
                    or not math.isfinite(value) or value < 0):
                raise ConfigError(f"{name} must be a finite number >= 0 (a price relative to "
                                  f"an uncached token), got {value!r}")
        if self.cache_read > self.cache_write:
            raise ConfigError(f"cache_read ({self.cache_read}) is above cache_write "
                              f"({self.cache_write}): a cached read never costs more than "
                              "sending the token uncached")

    def cost(self, cached: int, uncached: int, summarizer_tokens: int = 0) -> float:
        """``cache_read × cached + cache_write × uncached + summarizer_tokens``."""
        return self.cache_read * cached + self.cache_write * uncached + summarizer_tokens

    def label(self) -> str:
        """A short name for tables: ``reads 0.1, writes 1.25``."""
        return f"reads {self.cache_read:g}, writes {self.cache_write:g}"


DEFAULT_PRICING = Pricing()
"""SPEC §8's rates: cached reads at 0.1, no surcharge for writing the cache."""

NOT_A_COMPRESSION = frozenset({"overflow"})
"""Event names that are no compression step (``overflow``: the call went out over the
budget after every step the policy could take)."""

METRIC_KEYS: tuple[str, ...] = (
    "model_calls",
    "prompt_tokens",
    "baseline_prompt_tokens",
    "savings",
    "peak_prompt_tokens",
    "over_budget_calls",
    "cache_hit_ratio",
    "effective_cost",
    "summarizer_calls",
    "summarizer_tokens",
    "pairing_violations",
    "task_lost",
    "ms_per_call_median",
    "fact_availability",
    "fact_reloadable",
    "recency",
    "fact_availability_by_age",
    "cost_with_recovery",
    "fact_searchable",
    "user_retention",
    "actions_retained",
)
"""The keys every row carries, the fidelity measures included; rows carry a few more
(see the module doc)."""

CACHE_KEYS: tuple[str, ...] = (
    "compressions",
    "compressing_calls",
    "compressions_per_100_calls",
    "prefix_changed_calls",
    "prefix_changed_share",
    "invalidated_tokens",
    "uncached_tokens",
    "baseline_cache_hit_ratio",
    "cost_share_uncached",
    "cost_share_cached",
    "cost_share_summarizer",
    "effective_cost_ratio_at_baseline_hit",
)
"""What every row adds on how a policy treats the prompt cache (see the module doc)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CallRecord:
    """What one model call cost under one policy."""

    prompt_tokens: int
    cached_tokens: int
    baseline_tokens: int
    baseline_cached_tokens: int
    prompt_messages: int
    summarizer_calls: int = 0
    summarizer_input_tokens: int = 0
    summarizer_output_tokens: int = 0
    pairing_violations: int = 0
    task_lost: bool = False
    seconds: float = 0.0
    events: tuple[str, ...] = ()
    follows: bool = False
    """There is a previous call in the trajectory (whose prompt this one may extend)."""
    prefix_changed: bool = False
    """The prompt does not start with the whole previous prompt."""
    invalidated_tokens: int = 0
    """Tokens of the previous prompt after the first message this one changed."""
    fidelity: CallFidelity = field(default_factory=CallFidelity)
    """What the prompt kept of the facts the recorded next step used."""


@dataclass(slots=True, kw_only=True)
class TrajectoryResult:
    """Every call of one trajectory under one policy (``error`` if the policy crashed)."""

    id: str
    calls: list[CallRecord] = field(default_factory=list)
    error: str | None = None


def same_message(a: Message, b: Message) -> bool:
    """Identical as the provider sees it: same role and same content blocks."""
    return a is b or (a.role == b.role and a.content == b.content)


def cached_prefix_length(previous: Sequence[Message] | None, prompt: Sequence[Message]) -> int:
    """How many leading ``prompt`` messages are identical to ``previous``'s."""
    if not previous:
        return 0
    n = min(len(previous), len(prompt))
    k = 0
    while k < n and same_message(previous[k], prompt[k]):
        k += 1
    return k


def cached_prefix_tokens(
    previous: Sequence[Message] | None, prompt: Sequence[Message], counter: TokenCounter
) -> int:
    """Tokens of the longest run of leading ``prompt`` messages identical to ``previous``'s."""
    count = counter.count
    return sum(count(m) for m in prompt[:cached_prefix_length(previous, prompt)])


def effective_cost(cached: int, uncached: int, summarizer_tokens: int = 0,
                   pricing: Pricing = DEFAULT_PRICING) -> float:
    """``cache_read × cached + cache_write × uncached + summarizer input and output
    tokens`` (by default ``0.1 × cached + 1.0 × uncached + ...``)."""
    return pricing.cost(cached, uncached, summarizer_tokens)


def task_text(messages: Sequence[Message]) -> str | None:
    """The text of the first user message (the task), or ``None`` when there is none."""
    for m in messages:
        if m.role == "user" and not m.tool_results:
            text = m.text
            if text:
                return text
    return None


def _texts(m: Message) -> Iterable[str]:
    for b in m.content:
        if isinstance(b, TextBlock | ToolResultBlock):
            yield b.text


def prompt_has_task(prompt: Sequence[Message], task: str, task_message: Message | None) -> bool:
    """True when some message of ``prompt`` still holds ``task`` verbatim."""
    for m in prompt:
        if m is task_message:
            return True
    return any(task in text for m in prompt for text in _texts(m))


def measure_call(
    *,
    prompt: Sequence[Message],
    previous_prompt: Sequence[Message] | None,
    history: Sequence[Message],
    previous_history_tokens: int,
    counter: TokenCounter,
    task: str | None,
    task_message: Message | None,
    seconds: float,
    events: tuple[str, ...] = (),
    summarizer_calls: int = 0,
    summarizer_input_tokens: int = 0,
    summarizer_output_tokens: int = 0,
    fidelity: CallFidelity | None = None,
) -> CallRecord:
    """Measure one model call (``previous_history_tokens``: baseline tokens of the call before,
    all of which a no-management prompt finds cached)."""
    prompt_tokens = counter.count_messages(prompt)
    baseline = counter.count_messages(history)
    baseline_cached = max(0, previous_history_tokens - counter.per_request)
    count = counter.count
    kept = cached_prefix_length(previous_prompt, prompt)
    changed = previous_prompt is not None and kept < len(previous_prompt)
    return CallRecord(
        prompt_tokens=prompt_tokens,
        cached_tokens=sum(count(m) for m in prompt[:kept]),
        baseline_tokens=baseline,
        baseline_cached_tokens=baseline_cached if previous_history_tokens else 0,
        prompt_messages=len(prompt),
        summarizer_calls=summarizer_calls,
        summarizer_input_tokens=summarizer_input_tokens,
        summarizer_output_tokens=summarizer_output_tokens,
        pairing_violations=len(validate_pairing(prompt, rules="openai")),
        task_lost=task is not None and not prompt_has_task(prompt, task, task_message),
        seconds=seconds,
        events=events,
        follows=previous_prompt is not None,
        prefix_changed=changed,
        invalidated_tokens=(sum(count(m) for m in previous_prompt[kept:])
                            if previous_prompt is not None and changed else 0),
        fidelity=fidelity or CallFidelity(),
    )


def _row(calls: Sequence[CallRecord], budget: int, pricing: Pricing) -> dict[str, Any]:
    prompt = sum(c.prompt_tokens for c in calls)
    baseline = sum(c.baseline_tokens for c in calls)
    cached = sum(c.cached_tokens for c in calls)
    base_cached = sum(c.baseline_cached_tokens for c in calls)
    s_in = sum(c.summarizer_input_tokens for c in calls)
    s_out = sum(c.summarizer_output_tokens for c in calls)
    cost = pricing.cost(cached, prompt - cached, s_in + s_out)
    base_cost = pricing.cost(base_cached, baseline - base_cached)
    events = Counter(e for c in calls for e in c.events)
    fid = _fidelity(calls, pricing)
    with_recovery = cost + fid.pop("recovery_cost")
    cache = _cache(calls, pricing, cost=cost, base_cost=base_cost,
                   base_hit=base_cached / baseline if baseline else 0.0)
    return {
        "model_calls": len(calls),
        "prompt_tokens": prompt,
        "baseline_prompt_tokens": baseline,
        "savings": round(1 - prompt / baseline, 4) if baseline else 0.0,
        "peak_prompt_tokens": max((c.prompt_tokens for c in calls), default=0),
        "over_budget_calls": sum(c.prompt_tokens > budget for c in calls),
        "cache_hit_ratio": round(cached / prompt, 4) if prompt else 0.0,
        "effective_cost": round(cost, 1),
        "summarizer_calls": sum(c.summarizer_calls for c in calls),
        "summarizer_tokens": s_in + s_out,
        "pairing_violations": sum(c.pairing_violations for c in calls),
        "task_lost": sum(c.task_lost for c in calls),
        "ms_per_call_median": (
            round(statistics.median(c.seconds for c in calls) * 1000, 4) if calls else 0.0),
        "fact_availability": fid.pop("fact_availability"),
        "fact_reloadable": fid.pop("fact_reloadable"),
        "recency": fid.pop("recency"),
        "fact_availability_by_age": fid.pop("fact_availability_by_age"),
        "cost_with_recovery": round(with_recovery, 1),
        "fact_searchable": fid.pop("fact_searchable"),
        "user_retention": fid.pop("user_retention"),
        "actions_retained": fid.pop("actions_retained"),
        # beyond SPEC §8: what the ratios above are made of
        "cached_tokens": cached,
        "baseline_effective_cost": round(base_cost, 1),
        "effective_cost_ratio": round(cost / base_cost, 4) if base_cost else 0.0,
        "summarizer_input_tokens": s_in,
        "summarizer_output_tokens": s_out,
        "events": dict(sorted(events.items())),
        **cache,
        **fid,
        "cost_with_recovery_ratio": round(with_recovery / base_cost, 4) if base_cost else 0.0,
    }


def _cache(calls: Sequence[CallRecord], pricing: Pricing, *, cost: float, base_cost: float,
           base_hit: float) -> dict[str, Any]:
    """The cache keys (:data:`CACHE_KEYS`) of a row."""
    prompt = sum(c.prompt_tokens for c in calls)
    cached = sum(c.cached_tokens for c in calls)
    summarizer = sum(c.summarizer_input_tokens + c.summarizer_output_tokens for c in calls)
    steps = [sum(e not in NOT_A_COMPRESSION for e in c.events) for c in calls]
    follows = sum(c.follows for c in calls)
    changed = sum(c.prefix_changed for c in calls)
    at_base_hit = summarizer + prompt * (
        base_hit * pricing.cache_read + (1 - base_hit) * pricing.cache_write)

    def share(part: float) -> float:
        return round(part / cost, 4) if cost else 0.0

    return {
        "compressions": sum(steps),
        "compressing_calls": sum(n > 0 for n in steps),
        "compressions_per_100_calls": round(100 * sum(steps) / len(calls), 2) if calls else 0.0,
        "prefix_changed_calls": changed,
        "prefix_changed_share": round(changed / follows, 4) if follows else 0.0,
        "invalidated_tokens": sum(c.invalidated_tokens for c in calls),
        "uncached_tokens": prompt - cached,
        "baseline_cache_hit_ratio": round(base_hit, 4),
        "cost_share_uncached": share(pricing.cache_write * (prompt - cached)),
        "cost_share_cached": share(pricing.cache_read * cached),
        "cost_share_summarizer": share(summarizer),
        "effective_cost_ratio_at_baseline_hit": (
            round(at_base_hit / base_cost, 4) if base_cost else 0.0),
    }


def _share(part: int, whole: int) -> float:
    """``part / whole`` rounded, 1.0 when there is nothing to share (nothing was lost)."""
    return round(part / whole, 4) if whole else 1.0


def _fidelity(calls: Sequence[CallRecord], pricing: Pricing) -> dict[str, Any]:
    needed = available = reloadable = searchable = reload_tokens = 0
    recovery_calls = recovery_tokens = 0
    recovery_cost = 0.0
    recovered_by = [0, 0, 0]
    by_age_needed = [0] * len(AGE_BUCKETS)
    by_age_available = [0] * len(AGE_BUCKETS)
    recency_calls = recent_kept = 0
    users = users_retained = users_verbatim = tool_calls = calls_named = 0
    for c in calls:
        f = c.fidelity
        r = f.retention
        users += r.user_messages
        users_retained += r.users_retained
        users_verbatim += r.users_verbatim
        tool_calls += r.tool_calls
        calls_named += r.calls_named
        needed += f.needed
        available += f.available
        reloadable += f.reloadable
        searchable += f.searchable
        reload_tokens += f.reload_tokens
        for k in range(len(AGE_BUCKETS)):
            by_age_needed[k] += f.needed_by_age[k]
            by_age_available[k] += f.available_by_age[k]
        if f.has_results:
            recency_calls += 1
            recent_kept += f.recent_kept
        if f.needed > f.available:
            recovery_calls += 1
            recovery_tokens += f.recovery_tokens
            recovery_cost += pricing.cost(c.prompt_tokens, f.recovery_tokens)
            for k in range(3):
                recovered_by[k] += f.recovered_by[k]
    return {
        "fact_availability": _share(available, needed),
        "fact_reloadable": _share(reloadable, needed - available),
        "fact_searchable": _share(searchable, needed - available),
        "recency": _share(recent_kept, recency_calls),
        "fact_availability_by_age": {
            name: _share(a, n)
            for name, a, n in zip(AGE_BUCKETS, by_age_available, by_age_needed, strict=True)},
        "needed_facts": needed,
        "facts_available": available,
        "facts_reloadable": reloadable,
        "facts_searchable": searchable,
        "needed_facts_by_age": dict(zip(AGE_BUCKETS, by_age_needed, strict=True)),
        "recency_calls": recency_calls,
        "user_retention": _share(users_retained, users),
        "user_verbatim": _share(users_verbatim, users),
        "actions_retained": _share(calls_named, tool_calls),
        "earlier_user_messages": users,
        "user_messages_retained": users_retained,
        "user_messages_verbatim": users_verbatim,
        "earlier_tool_calls": tool_calls,
        "tool_calls_named": calls_named,
        "recovery_calls": recovery_calls,
        "recovery_tokens": recovery_tokens,
        "recovered_by": dict(zip(("search", "reload", "tool_again"), recovered_by,
                                 strict=True)),
        "reload_tokens": reload_tokens,
        "recovery_cost": recovery_cost,
    }


def trajectory_row(result: TrajectoryResult, budget: int,
                   pricing: Pricing = DEFAULT_PRICING) -> dict[str, Any]:
    """One trajectory's row: ``{"id": ..., <metrics>}`` (plus ``"error"`` if it crashed),
    its costs at ``pricing``."""
    row: dict[str, Any] = {"id": result.id, **_row(result.calls, budget, pricing)}
    if result.error is not None:
        row["error"] = result.error
    return row


def aggregate_row(results: Sequence[TrajectoryResult], budget: int,
                  pricing: Pricing = DEFAULT_PRICING) -> dict[str, Any]:
    """The aggregate over trajectories: sums of the calls, ratios recomputed from the sums,
    costs at ``pricing``."""
    row = _row([c for r in results for c in r.calls], budget, pricing)
    row["runs"] = len(results)
    row["errors"] = sum(r.error is not None for r in results)
    return row
