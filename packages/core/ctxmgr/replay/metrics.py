"""Token economics of one replayed model call, and their sums (SPEC §8).

Definitions, per model call:

* ``prompt_tokens``: the shared counter's count of the prompt the policy sent;
  ``baseline_prompt_tokens`` the same for the whole history (no management).
* ``cached``: tokens of the longest run of leading messages identical (same role,
  same content) to the previous call's prompt, the part a provider's prompt cache
  would serve; the first call of a trajectory has nothing cached.
* ``effective_cost = 0.1 × cached + 1.0 × uncached + summarizer input + output``.
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

Besides the SPEC §8 keys (:data:`METRIC_KEYS`) every row carries
``cached_tokens``, ``baseline_effective_cost`` (the no-management cost of the
same calls), ``effective_cost_ratio`` (effective cost / that baseline, the
"cost / none" of RESULTS.md's tables), ``summarizer_input_tokens``,
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

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxmgr.messages import Message, TextBlock, ToolResultBlock
from ctxmgr.pairing import validate_pairing
from ctxmgr.replay.fidelity import AGE_BUCKETS, CallFidelity
from ctxmgr.tokens import TokenCounter

__all__ = [
    "CACHED_PRICE",
    "METRIC_KEYS",
    "CallRecord",
    "TrajectoryResult",
    "aggregate_row",
    "cached_prefix_tokens",
    "effective_cost",
    "measure_call",
    "prompt_has_task",
    "same_message",
    "task_text",
    "trajectory_row",
]

CACHED_PRICE = 0.1
"""Price of a cached prompt token relative to an uncached one."""

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


def cached_prefix_tokens(
    previous: Sequence[Message] | None, prompt: Sequence[Message], counter: TokenCounter
) -> int:
    """Tokens of the longest run of leading ``prompt`` messages identical to ``previous``'s."""
    if not previous:
        return 0
    n = min(len(previous), len(prompt))
    k = 0
    while k < n and same_message(previous[k], prompt[k]):
        k += 1
    count = counter.count
    return sum(count(m) for m in prompt[:k])


def effective_cost(cached: int, uncached: int, summarizer_tokens: int = 0) -> float:
    """``0.1 × cached + 1.0 × uncached + summarizer input and output tokens``."""
    return CACHED_PRICE * cached + uncached + summarizer_tokens


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
    return CallRecord(
        prompt_tokens=prompt_tokens,
        cached_tokens=cached_prefix_tokens(previous_prompt, prompt, counter),
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
        fidelity=fidelity or CallFidelity(),
    )


def _row(calls: Sequence[CallRecord], budget: int) -> dict[str, Any]:
    prompt = sum(c.prompt_tokens for c in calls)
    baseline = sum(c.baseline_tokens for c in calls)
    cached = sum(c.cached_tokens for c in calls)
    base_cached = sum(c.baseline_cached_tokens for c in calls)
    s_in = sum(c.summarizer_input_tokens for c in calls)
    s_out = sum(c.summarizer_output_tokens for c in calls)
    cost = effective_cost(cached, prompt - cached, s_in + s_out)
    base_cost = effective_cost(base_cached, baseline - base_cached)
    events = Counter(e for c in calls for e in c.events)
    fid = _fidelity(calls)
    with_recovery = cost + fid.pop("recovery_cost")
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
        **fid,
        "cost_with_recovery_ratio": round(with_recovery / base_cost, 4) if base_cost else 0.0,
    }


def _share(part: int, whole: int) -> float:
    """``part / whole`` rounded, 1.0 when there is nothing to share (nothing was lost)."""
    return round(part / whole, 4) if whole else 1.0


def _fidelity(calls: Sequence[CallRecord]) -> dict[str, Any]:
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
            recovery_cost += effective_cost(c.prompt_tokens, f.recovery_tokens)
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


def trajectory_row(result: TrajectoryResult, budget: int) -> dict[str, Any]:
    """One trajectory's row: ``{"id": ..., <metrics>}`` (plus ``"error"`` if it crashed)."""
    row: dict[str, Any] = {"id": result.id, **_row(result.calls, budget)}
    if result.error is not None:
        row["error"] = result.error
    return row


def aggregate_row(results: Sequence[TrajectoryResult], budget: int) -> dict[str, Any]:
    """The aggregate over trajectories: sums of the calls, ratios recomputed from the sums."""
    row = _row([c for r in results for c in r.calls], budget)
    row["runs"] = len(results)
    row["errors"] = sum(r.error is not None for r in results)
    return row
