"""The cost × fidelity frontier: ctxmgr's config variants and the peers on the same axes.

One replay runs ``none``, the peers and each ctxmgr variant (``AutoContextConfig`` knobs on
top of the window) with the shared fake summarizer and token counter, and gives one
:class:`FrontierRow` per policy: cost against no management, fact availability, recency,
user retention, actions retained, cost with recovery, and the calls that broke (over
budget, task lost, pairing). :func:`mark_frontier` marks the rows no other eligible row
dominates on cost and facts. Costs are at one cache :class:`~ctxmgr.replay.Pricing`;
``frontier_rows(..., pricings=[...])`` gives the rows again at other rates from the same
replay (a frontier per window and pricing). ``benchmarks/bench_frontier.py`` draws the frontier the
defaults were chosen on; ``ctxmgr tune`` (:mod:`ctxmgr.replay.tune`) runs it on the
user's own runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxmgr.autocontext import AutoContextConfig, AutoContextMemory
from ctxmgr.replay.ctxmgr_policy import CtxmgrPolicy
from ctxmgr.replay.metrics import DEFAULT_PRICING, Pricing, aggregate_row
from ctxmgr.replay.policy import Policy, PolicyContext
from ctxmgr.replay.registry import create_policy
from ctxmgr.replay.runner import ProgressCallback, replay
from ctxmgr.replay.summarizer import FakeSummarizer
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.tokens import TokenCounter, default_counter

__all__ = [
    "BASELINE",
    "CTXMGR",
    "PEER",
    "REFERENCE",
    "SHOWN",
    "FrontierRow",
    "VariantPolicy",
    "format_table",
    "frontier_rows",
    "mark_frontier",
    "variant_label",
    "why_not",
]

BASELINE, PEER, CTXMGR, REFERENCE = "baseline", "peer", "ctxmgr", "reference"
"""The kinds of row: ``none``, another library's policy, a ctxmgr variant, a bound."""

SHOWN = 3
"""Decimals of the table; the frontier compares at this precision, below which the
figures move between runs (offload ids are random and tokenize unevenly)."""


class VariantPolicy(CtxmgrPolicy):
    """The ctxmgr policy with some knobs set."""

    def __init__(self, context: PolicyContext, name: str, overrides: Mapping[str, Any]) -> None:
        self.overrides = dict(overrides)
        super().__init__(context)
        self.name = name

    def reset(self) -> None:
        self.memory = AutoContextMemory(
            AutoContextConfig(max_tokens=self.context.budget).evolve(**self.overrides),
            counter=self.context.counter, summarizer=self.context.summarizer)
        self._seen = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class FrontierRow:
    """One policy or ctxmgr variant in one window; costs are relative to ``none``."""

    window: str
    policy: str
    kind: str
    """``baseline`` (none), ``peer``, ``ctxmgr`` (a variant, the defaults included) or
    ``reference`` (an idealised bound, never a candidate)."""
    cost: float
    fact_availability: float
    recency: float
    user_retention: float
    """Earlier user messages still in the prompt, verbatim or by their standing content."""
    actions_retained: float
    """Earlier tool calls whose name and key argument the prompt still holds."""
    cost_with_recovery: float
    over_budget_calls: int
    task_lost: int
    pairing_violations: int
    model_calls: int = 0
    """The model calls replayed: what every figure of the row rests on."""
    compressions: int = 0
    """Compression steps the policy applied over those calls (ctxmgr's strategies fired;
    a peer's own steps when it reports them)."""
    needed_facts: int = 0
    """Facts the recorded next steps copied from earlier tool output: what
    ``fact_availability`` is a share of (the same for every policy of one replay)."""
    prefix_changed_share: float = 0.0
    """Calls whose prompt did not start with the previous prompt (the cache lost)."""
    cost_at_baseline_hit: float = 0.0
    """Cost / none had the prompts hit the cache as often as no management's do."""
    pricing: Pricing = DEFAULT_PRICING
    """The cache rates ``cost`` and ``cost_with_recovery`` are at; rows are compared only
    with rows of the same window and pricing."""
    recency_floor: float = 0.0
    """The recency a row needs to be a candidate."""
    frontier: bool = False
    overrides: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False)
    """A ctxmgr variant's ``AutoContextConfig`` knobs (empty for the defaults and peers)."""

    @property
    def eligible(self) -> bool:
        """Only a policy whose every prompt fits, keeps the task, pairs its tool calls and
        keeps the last tool results verbatim as often as the floor asks can be on the
        frontier: anything is cheap if it may break the call or blind the agent. The
        idealised references never are (they are bounds, not policies)."""
        return self.kind != REFERENCE and not (
            self.over_budget_calls or self.task_lost or self.pairing_violations
            or round(self.recency, SHOWN) < self.recency_floor)


def variant_label(name: str) -> str:
    """The row label of a ctxmgr variant (``ctxmgr defaults`` for the defaults)."""
    return f"ctxmgr {name}"


def _dominates(a: FrontierRow, b: FrontierRow) -> bool:
    ac, af = round(a.cost, SHOWN), round(a.fact_availability, SHOWN)
    bc, bf = round(b.cost, SHOWN), round(b.fact_availability, SHOWN)
    return ac <= bc and af >= bf and (ac < bc or af > bf)


def mark_frontier(rows: Sequence[FrontierRow]) -> list[FrontierRow]:
    """``rows`` with ``frontier`` set: per window and pricing, an eligible row (no call over
    budget, none that lost the task, no pairing violation) that no other eligible row of
    that window and pricing dominates (costs as much or less and keeps as many facts or
    more, one of the two strictly, at the table's three decimals). Ineligible rows are
    never on it."""
    eligible = [r for r in rows if r.eligible]
    return [dataclasses.replace(r, frontier=r.eligible and not any(
        o.window == r.window and o.pricing == r.pricing and _dominates(o, r)
        for o in eligible)) for r in rows]


def frontier_rows(trajectories: Sequence[Trajectory], *, budget: int,
                  variants: Mapping[str, Mapping[str, Any]], peers: Sequence[str] = (),
                  window: str = "", recency_floor: float = 0.0,
                  references: Callable[[PolicyContext], Sequence[Policy]] | None = None,
                  counter: TokenCounter | None = None,
                  progress: ProgressCallback | None = None,
                  pricings: Sequence[Pricing] = (DEFAULT_PRICING,)) -> list[FrontierRow]:
    """Replay ``none``, the ``peers``, the ctxmgr ``variants`` (name to knobs; ``{}`` is
    the defaults) and any ``references`` in one pass; the rows, before marking: every
    policy at the first of ``pricings``, then every policy at the next, and so on.

    Raises:
        ConfigError: a variant's knobs that ``AutoContextConfig`` refuses, or a peer that
            is unknown or not installed.
    """
    for overrides in variants.values():  # refuse a bad knob before any replay
        AutoContextConfig(max_tokens=budget).evolve(**overrides)
    counter = counter or default_counter()
    summarizer = FakeSummarizer(counter)
    context = PolicyContext(budget=budget, counter=counter, summarizer=summarizer)
    bounds = list(references(context)) if references else []
    policies = [create_policy("none", context), *(create_policy(p, context) for p in peers),
                *bounds,
                *(VariantPolicy(context, variant_label(v), o) for v, o in variants.items())]
    kinds = {"none": BASELINE, **{p: PEER for p in peers}, **{b.name: REFERENCE for b in bounds},
             **{variant_label(v): CTXMGR for v in variants}}
    knobs = {variant_label(v): dict(o) for v, o in variants.items()}
    report = replay(trajectories, policies, budget=budget, counter=counter,
                    summarizer=summarizer, progress=progress)
    rows = []
    for pricing, (name, kind) in ((p, k) for p in pricings for k in kinds.items()):
        a = aggregate_row(report.runs[name].results, budget, pricing)
        rows.append(FrontierRow(
            window=window, policy=name, kind=kind, cost=a["effective_cost_ratio"],
            fact_availability=a["fact_availability"], recency=a["recency"],
            user_retention=a["user_retention"], actions_retained=a["actions_retained"],
            cost_with_recovery=a["cost_with_recovery_ratio"],
            over_budget_calls=a["over_budget_calls"], task_lost=a["task_lost"],
            pairing_violations=a["pairing_violations"], model_calls=a["model_calls"],
            compressions=a["compressions"],
            needed_facts=a["needed_facts"], recency_floor=recency_floor,
            prefix_changed_share=a["prefix_changed_share"],
            cost_at_baseline_hit=a["effective_cost_ratio_at_baseline_hit"], pricing=pricing,
            overrides=knobs.get(name, {})))
    return rows


def why_not(r: FrontierRow) -> str:
    """Why a row is not a candidate ("" when it is)."""
    if r.eligible:
        return ""
    if r.kind == REFERENCE:
        return "reference"
    if r.over_budget_calls or r.task_lost or r.pairing_violations:
        return "not eligible"
    return "below the recency floor"


def format_table(rows: Sequence[FrontierRow], title: str | None = None,
                 marks: Mapping[str, str] | None = None) -> str:
    """Rows as a Markdown table (the defaults in bold); ``marks`` replaces the last
    column's text for the rows it names."""
    lines = [f"**{title}**", ""] if title else []
    lines += ["| window | policy or variant | cost / none | fact availability | recency "
              "| user retention | actions retained | cost with recovery / none | over budget "
              "| task lost | pairing | frontier |",
              "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    for r in rows:
        name = f"**{r.policy}**" if r.policy == variant_label("defaults") else r.policy
        mark = "**frontier**" if r.frontier else why_not(r)
        if marks and r.policy in marks:
            mark = marks[r.policy]
        lines.append(
            f"| {r.window} | {name} | {r.cost:.3f} | {r.fact_availability:.3f} | "
            f"{r.recency:.3f} | {r.user_retention:.3f} | {r.actions_retained:.3f} | "
            f"{r.cost_with_recovery:.3f} | {r.over_budget_calls:,} | "
            f"{r.task_lost:,} | {r.pairing_violations:,} | {mark} |")
    return "\n".join(lines)
