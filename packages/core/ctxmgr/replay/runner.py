"""Walk recorded trajectories through policies and measure every model call.

Each recorded assistant message is a model call; the policy is asked for the
prompt it would send given every message before it. The recorded reply is
then appended to the history whatever the policy sent, so all policies answer
the same sequence of requests. Each prompt is also checked against the
recorded reply for the facts it needed (:mod:`ctxmgr.replay.fidelity`) and
against the history for the user messages and tool calls it kept
(:mod:`ctxmgr.replay.retention`); those checks are not part of the policy's time.
Token counts are recorded per call, so the costs can be read at any cache
:class:`~ctxmgr.replay.metrics.Pricing` afterwards without replaying again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxmgr.messages import Message
from ctxmgr.replay.fidelity import FidelityChecker, TrajectoryFacts, reloader_of, searcher_of
from ctxmgr.replay.metrics import (
    DEFAULT_PRICING,
    Pricing,
    TrajectoryResult,
    aggregate_row,
    measure_call,
    task_text,
    trajectory_row,
)
from ctxmgr.replay.policy import Policy, PolicyContext
from ctxmgr.replay.registry import create_policy
from ctxmgr.replay.summarizer import FakeSummarizer
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.tokens import TokenCounter, default_counter

__all__ = ["OUTERMOST", "PolicyRun", "ReplayReport", "count_model_calls", "replay",
           "replay_policy"]

OUTERMOST = "main"
"""How :meth:`ReplayReport.by_agent` names the outermost agent of a run (its runs carry
no agent name)."""

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[str, int], None]
"""Called as ``progress(policy_name, calls_done_since_last_call)``."""


@dataclass(slots=True, kw_only=True)
class PolicyRun:
    """One policy over every trajectory: per-call records and the prompt-size curves."""

    name: str
    results: list[TrajectoryResult] = field(default_factory=list)
    curves: dict[str, list[int]] = field(default_factory=dict)
    """Trajectory id -> prompt tokens of each model call, in order (for plots)."""


@dataclass(slots=True, kw_only=True)
class ReplayReport:
    """Everything one replay run measured."""

    budget: int
    pricing: Pricing = DEFAULT_PRICING
    """The cache rates the report's costs are at (the same for every policy)."""
    runs: dict[str, PolicyRun] = field(default_factory=dict)
    baseline_curves: dict[str, list[int]] = field(default_factory=dict)
    """Trajectory id -> tokens of the whole history at each call (the ``none`` curve)."""

    def to_json(self) -> dict[str, Any]:
        """The SPEC §8 layout, ``{"budget", "policies": {NAME: {"aggregate",
        "trajectories"}}}``, plus ``"pricing": {"cache_read", "cache_write"}``, the rates
        the costs are at."""
        p = self.pricing
        return {
            "budget": self.budget,
            "pricing": {"cache_read": p.cache_read, "cache_write": p.cache_write},
            "policies": {
                name: {
                    "aggregate": aggregate_row(run.results, self.budget, p),
                    "trajectories": [trajectory_row(r, self.budget, p) for r in run.results],
                }
                for name, run in self.runs.items()
            },
        }

    def aggregate(self, name: str, pricing: Pricing | None = None) -> dict[str, Any]:
        """One policy's aggregate row, its costs at ``pricing`` (default: the report's)."""
        return aggregate_row(self.runs[name].results, self.budget, pricing or self.pricing)

    def by_agent(self, trajectories: Sequence[Trajectory]) -> dict[str, ReplayReport]:
        """This report split by the agent each run is of (:attr:`Trajectory.agent`;
        :data:`OUTERMOST` for the outermost agent's), in order of first appearance: each
        agent of a multi-agent run under every policy, side by side."""
        agent_of = {t.id: t.agent or OUTERMOST for t in trajectories}
        out: dict[str, ReplayReport] = {}
        for agent in dict.fromkeys(agent_of.values()):
            ids = {i for i, a in agent_of.items() if a == agent}
            out[agent] = ReplayReport(
                budget=self.budget, pricing=self.pricing,
                runs={name: PolicyRun(name=name,
                                      results=[r for r in run.results if r.id in ids],
                                      curves={k: v for k, v in run.curves.items()
                                              if k in ids})
                      for name, run in self.runs.items()},
                baseline_curves={k: v for k, v in self.baseline_curves.items() if k in ids})
        return out


def count_model_calls(trajectories: Sequence[Trajectory]) -> int:
    """How many model calls replaying ``trajectories`` once means."""
    return sum(1 for t in trajectories for m in t.messages if m.role == "assistant")


def replay(
    trajectories: Sequence[Trajectory],
    policies: Sequence[str | Policy],
    *,
    budget: int,
    counter: TokenCounter | None = None,
    summarizer: FakeSummarizer | None = None,
    progress: ProgressCallback | None = None,
    pricing: Pricing = DEFAULT_PRICING,
) -> ReplayReport:
    """Replay every trajectory under every policy.

    Args:
        trajectories: recorded runs (see :func:`~ctxmgr.replay.load_trajectories`).
        policies: names from :func:`~ctxmgr.replay.policy_names` (or registered), or
            ready :class:`~ctxmgr.replay.Policy` objects built on the same context.
        budget: the context window under test, in tokens.
        counter: the token counter every policy and every metric uses
            (default: :func:`ctxmgr.tokens.default_counter`).
        summarizer: the shared fake summarizer (default: a new one on ``counter``).
        progress: called after each model call with the policy name and ``1``.
        pricing: the cache rates every policy's cost is at (default: SPEC §8's, cached
            reads at 0.1 and no surcharge for writes); it changes no prompt.

    Raises:
        PolicyUnavailableError: a named policy whose framework is missing.
        ConfigError: an unknown policy name or a bad budget.
    """
    counter = counter or default_counter()
    summarizer = summarizer or FakeSummarizer(counter)
    context = PolicyContext(budget=budget, counter=counter, summarizer=summarizer)
    built = [create_policy(p, context) if isinstance(p, str) else p for p in policies]
    report = ReplayReport(budget=budget, pricing=pricing)
    for t in trajectories:
        report.baseline_curves[t.id] = [
            counter.count_messages(t.messages[:i])
            for i, m in enumerate(t.messages) if m.role == "assistant"
        ]
    facts = [TrajectoryFacts(t.messages) for t in trajectories]
    for policy in built:
        report.runs[policy.name] = replay_policy(
            trajectories, policy, counter=counter, summarizer=summarizer, progress=progress,
            facts=facts)
    return report


def replay_policy(
    trajectories: Sequence[Trajectory],
    policy: Policy,
    *,
    counter: TokenCounter,
    summarizer: FakeSummarizer,
    progress: ProgressCallback | None = None,
    facts: Sequence[TrajectoryFacts] | None = None,
) -> PolicyRun:
    """Replay every trajectory under one policy (see :func:`replay`); ``facts``, one per
    trajectory, saves finding the needed facts again for each policy."""
    run = PolicyRun(name=policy.name)
    for k, t in enumerate(trajectories):
        found = facts[k] if facts is not None else TrajectoryFacts(t.messages)
        result, curve = _replay_one(t, policy, counter, summarizer, progress, found)
        run.results.append(result)
        run.curves[t.id] = curve
    return run


def _replay_one(
    t: Trajectory,
    policy: Policy,
    counter: TokenCounter,
    summarizer: FakeSummarizer,
    progress: ProgressCallback | None,
    facts: TrajectoryFacts,
) -> tuple[TrajectoryResult, list[int]]:
    result = TrajectoryResult(id=t.id)
    curve: list[int] = []
    messages = t.messages
    task = task_text(messages)
    task_message = next((m for m in messages if m.role == "user" and task and m.text == task),
                        None)
    policy.reset()
    checker = FidelityChecker(facts, counter, reloader_of(policy), searcher_of(policy))
    previous_prompt: Sequence[Message] | None = None
    previous_history_tokens = 0
    calls = [i for i, m in enumerate(messages) if m.role == "assistant"]
    for done, i in enumerate(calls):
        history = messages[:i]
        before = summarizer.usage.snapshot()
        start = time.perf_counter()
        try:
            out = policy.prompt(history)
        except Exception as exc:  # a peer crashing is a finding, not a reason to stop
            result.error = f"call {done + 1}: {type(exc).__name__}: {exc}"
            logger.warning("policy %s failed on %s at %s", policy.name, t.id, result.error)
            if progress is not None:
                progress(policy.name, len(calls) - done)
            break
        elapsed = time.perf_counter() - start
        used = out.summarizer if out.summarizer is not None else summarizer.usage - before
        shared_seconds = (summarizer.usage - before).seconds
        seconds = out.seconds if out.seconds is not None else elapsed
        record = measure_call(
            prompt=out.messages,
            previous_prompt=previous_prompt,
            history=history,
            previous_history_tokens=previous_history_tokens,
            counter=counter,
            task=task,
            task_message=task_message,
            seconds=max(0.0, seconds - shared_seconds),
            events=out.events,
            summarizer_calls=used.calls,
            summarizer_input_tokens=used.input_tokens,
            summarizer_output_tokens=used.output_tokens,
            fidelity=checker.check(i, out.messages),
        )
        result.calls.append(record)
        curve.append(record.prompt_tokens)
        previous_prompt = out.messages
        previous_history_tokens = record.baseline_tokens
        if progress is not None:
            progress(policy.name, 1)
    return result, curve
