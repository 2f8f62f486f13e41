"""Choosing a config on the user's own runs: the frontier, and the rule that picks from it.

:func:`tune` replays the runs at the user's window under ctxmgr's defaults, the knobs
around them (:data:`TUNE_VARIANTS`, or :data:`QUICK_VARIANTS`) and the installed peers
(:mod:`ctxmgr.replay.frontier`), and :func:`recommend` picks a config. The rule is the one
the defaults were chosen by (SPEC §8, benchmarks/RESULTS.md): cost with recovery (a fact
the prompt lost is paid for by the search or tool run that gets it back), and never
tokens saved by losing facts or the user's words. A variant is a candidate only when
every call fits, keeps the task and pairs its tool calls, and it keeps as many facts, as
much of the user's words and the last tool results as often as the defaults do; the
cheapest candidate on cost with recovery wins, the defaults on a tie. When the defaults
themselves break a call at this window, the eligible variant that keeps the most facts
and user words wins. Peers are in the table for comparison: a config is what is
recommended.

Advice needs evidence: runs with no model call, or in which the agent never reuses a fact
from earlier tool output (so no config can be told to keep or lose one), get no
recommendation but a :class:`NoEvidenceError`; runs that never fill the window get the
defaults, saying that nothing was compressed. Every recommendation says how many calls,
compressions and reused facts it rests on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxmgr.autocontext import AutoContextConfig
from ctxmgr.errors import CtxmgrError
from ctxmgr.replay.frontier import (
    CTXMGR,
    SHOWN,
    FrontierRow,
    format_table,
    frontier_rows,
    mark_frontier,
    variant_label,
)
from ctxmgr.replay.runner import ProgressCallback
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.settings import config_env_vars
from ctxmgr.tokens import TokenCounter

__all__ = ["QUICK_VARIANTS", "TUNE_VARIANTS", "NoEvidenceError", "TuneResult",
           "config_python", "recommend", "tune"]

QUICK_VARIANTS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "trigger 0.7": {"token_ratio": 0.7},
    "trigger 0.9": {"token_ratio": 0.9},
    "target 0.2": {"target_ratio": 0.2},
    "keep 2 tool results": {"keep_tool_results": 2},
    "keep 5 tool results": {"keep_tool_results": 5},
}
"""The defaults and the knobs nearest them: trigger, target, working set."""

TUNE_VARIANTS: dict[str, dict[str, Any]] = {
    **QUICK_VARIANTS,
    "trigger 0.6": {"token_ratio": 0.6},
    "trigger 1.0 (only over the budget)": {"token_ratio": 1.0},
    "target 0.15": {"target_ratio": 0.15},
    "target 0.3": {"target_ratio": 0.3},
    "record 2,000": {"record_chars": 2000},
    "record 8,000": {"record_chars": 8000},
    "no identifiers line": {"identifiers_chars": 0},
    "no payback gates": {"cached_token_price": None},
}
"""Every knob ``benchmarks/bench_frontier.py`` sweeps around the defaults (its other rows
take a mechanism away to measure it, and are no one's recommendation)."""


class NoEvidenceError(CtxmgrError, ValueError):
    """The runs hold nothing a recommendation could rest on (no model call, or no fact the
    agent reused); the message says which and what to give instead."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TuneResult:
    """The table, the row chosen from it, and that row as a config."""

    window: int
    rows: tuple[FrontierRow, ...]
    recommended: FrontierRow
    config: AutoContextConfig
    reason: str
    """Why this row, in one sentence."""

    @property
    def basis(self) -> str:
        """What the advice rests on, in one sentence."""
        defaults = next(r for r in self.rows if r.policy == variant_label("defaults"))
        calls, compressions, facts = (defaults.model_calls, defaults.compressions,
                                      defaults.needed_facts)
        return (f"it rests on {calls:,} model call{'' if calls == 1 else 's'}, "
                f"{compressions:,} compression{'' if compressions == 1 else 's'} under the "
                f"defaults and {facts:,} fact{'' if facts == 1 else 's'} the agent reused from "
                "earlier tool output")

    def table(self) -> str:
        """The rows as a Markdown table, the chosen one marked."""
        return format_table(self.rows, marks={self.recommended.policy: "**recommended**"})

    def python(self) -> str:
        """The config as Python."""
        return config_python(self.config)

    def environment(self) -> dict[str, str]:
        """The config as the ``CTXMGR_<FIELD>`` variables the adapters read when no
        config is passed in code."""
        return config_env_vars(self.config)


def _shown(x: float) -> float:
    return round(x, SHOWN)


def recommend(rows: Sequence[FrontierRow]) -> tuple[FrontierRow, str]:
    """The ctxmgr row to recommend, and why (see the module docstring for the rule).

    Raises:
        ValueError: no ``ctxmgr defaults`` row among ``rows``.
    """
    ours = [r for r in rows if r.kind == CTXMGR]
    defaults = next((r for r in ours if r.policy == variant_label("defaults")), None)
    if defaults is None:
        raise ValueError("recommend needs the ctxmgr defaults among the rows")
    eligible = [r for r in ours if r.eligible]
    if defaults.eligible:
        keeps = [r for r in eligible
                 if _shown(r.fact_availability) >= _shown(defaults.fact_availability)
                 and _shown(r.user_retention) >= _shown(defaults.user_retention)
                 and _shown(r.recency) >= _shown(defaults.recency)]
        best = min(keeps, key=lambda r: (_shown(r.cost_with_recovery), r is not defaults,
                                         -r.fact_availability, -r.user_retention))
        if best is defaults:
            return best, ("no variant costs less with recovery while keeping as many facts, "
                          "user words and recent results: the defaults stand")
        return best, (f"the cheapest with recovery ({best.cost_with_recovery:.3f} of no "
                      f"management, the defaults {defaults.cost_with_recovery:.3f}) that "
                      "keeps as many facts, user words and recent results as the defaults")
    if not eligible:
        return defaults, ("no config fits every call at this window (see over budget / task "
                          "lost): a larger window, or fewer tokens pinned, is needed")
    best = max(eligible, key=lambda r: (_shown(r.fact_availability * r.user_retention),
                                        -r.cost_with_recovery))
    return best, ("the defaults break a call at this window; this variant fits every call "
                  "and keeps the most facts and user words")


def tune(trajectories: Sequence[Trajectory], *, window: int,
         variants: Mapping[str, Mapping[str, Any]] | None = None,
         peers: Sequence[str] = (), counter: TokenCounter | None = None,
         progress: ProgressCallback | None = None) -> TuneResult:
    """Replay ``trajectories`` at ``window`` under each variant (default
    :data:`TUNE_VARIANTS`; the defaults are always in) and the ``peers``, and recommend.

    Raises:
        ConfigError: a variant's knobs that ``AutoContextConfig`` refuses at ``window``,
            or a peer that is unknown or not installed.
        NoEvidenceError: the runs have no model call, or the agent never reuses a fact
            from earlier tool output in them.
    """
    if not any(m.role == "assistant" for t in trajectories for m in t.messages):
        raise NoEvidenceError(
            f"no model call in the {len(trajectories)} run{'' if len(trajectories) == 1 else 's'}"
            " given (no assistant message): "
            "there is nothing to tune on; give runs of your agent")
    chosen = dict(variants if variants is not None else TUNE_VARIANTS)
    chosen = {"defaults": {}, **{k: v for k, v in chosen.items() if k != "defaults"}}
    rows = frontier_rows(trajectories, budget=window, variants=chosen, peers=peers,
                         window=f"{window:,}", counter=counter, progress=progress)
    # the defaults' recency is the floor, so that the table's frontier marks what the rule
    # would choose from
    floor = next(_shown(r.recency) for r in rows if r.policy == variant_label("defaults"))
    rows = mark_frontier([dataclasses.replace(r, recency_floor=floor) for r in rows])
    defaults = next(r for r in rows if r.policy == variant_label("defaults"))
    if not defaults.needed_facts:
        raise NoEvidenceError(
            f"the agent never reuses a fact from earlier tool output in the "
            f"{len(trajectories)} run{'' if len(trajectories) == 1 else 's'} given "
            f"({defaults.model_calls:,} model calls), so no config "
            "can be seen to keep or lose one: nothing to recommend from; give runs in which "
            "it reads tool results and acts on them")
    ours = [r for r in rows if r.kind == CTXMGR]
    if not any(r.compressions for r in ours):
        best, reason = defaults, (f"no config compressed anything: these runs never reach "
                                  f"the trigger at a {window:,}-token window, so they cannot "
                                  "tell the configs apart; the defaults stand")
    else:
        best, reason = recommend(rows)
    config = AutoContextConfig(max_tokens=window).evolve(**best.overrides)
    return TuneResult(window=window, rows=tuple(rows), recommended=best, config=config,
                      reason=reason)


def config_python(config: AutoContextConfig) -> str:
    """``AutoContextConfig(...)`` naming the window and every knob off its default (the
    rarely touched ones in ``tuning=Tuning(...)``)."""
    return _python(config, AutoContextConfig.__dataclass_fields__, "AutoContextConfig")


def _python(holder: Any, names: Any, cls: str) -> str:
    parts = []
    for name, field in names.items():
        value = getattr(holder, name)
        default = field.default_factory() if callable(field.default_factory) else field.default
        if (name != "max_tokens" and value == default) or field.metadata.get("local"):
            continue
        if isinstance(value, frozenset):
            text = "{" + ", ".join(repr(v) for v in sorted(value)) + "}" if value else "set()"
        elif name == "max_tokens":
            text = f"{value:_}"
        elif name == "tuning":
            text = _python(value, type(value).__dataclass_fields__, "Tuning")
        else:
            text = repr(value)
        parts.append(f"{name}={text}")
    return f"{cls}({', '.join(parts)})"
