"""The cost × fidelity frontier: ctxmgr's config variants and every peer on the same axes.

Per window (the 24 SWE runs at 32k and 16k, the 100 tau-bench conversations at 4k),
one replay runs ``none``, every installed peer, two idealised references
(:class:`IdealDropPolicy`) and every ctxmgr variant of :data:`VARIANTS`
(``AutoContextConfig`` knobs; ``defaults`` is ctxmgr out of the box)
with the shared fake summarizer and token counter, as ``bench_replay.py`` does. One
row per policy or variant: cost against no management, fact availability, recency,
user retention, actions retained, cost with recovery, calls over budget,
calls that lost the task, pairing violations, and the frontier mark (see
:func:`mark_frontier`; the two retention measures are shown, not part of the rule).
Costs are priced twice from the same replay: at SPEC §8's rates (cached reads at 0.1, no
surcharge for writing the cache) and with a surcharge on every uncached prompt token,
which the provider writes to its cache (``--cache-write``, default 1.25: Anthropic's
5-minute cache). A policy that changes its prompt's prefix often pays that surcharge on
more tokens than no management does, so the two frontiers can differ; a second table
per window gives the surcharge's costs and frontier beside the share of calls that
changed the prefix, the compressions per 100 calls and the cost had the prompts hit the
cache as often as no management's.
Prints the tables;
``--markdown FILE`` writes them between ``<!-- bench_frontier -->`` markers and
``--plot FILE`` draws cost against fact availability, one panel per window, and beside
it ``FILE``'s name with ``_cache_write`` the same under the write surcharge. The
defaults are chosen on this frontier (see benchmarks/RESULTS.md).

    python benchmarks/bench_frontier.py [--trajectories DIR] [--window NAME ...]
        [--variant NAME ...] [--set KEY=VALUE ...] [--peers NAME ...] [--json FILE]
        [--cache-write RATE] [--markdown benchmarks/RESULTS.md]
        [--plot benchmarks/frontier.png]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_replay import is_tau

from ctxmgr.autocontext import AutoContextConfig
from ctxmgr.errors import CtxmgrError
from ctxmgr.messages import Message
from ctxmgr.pairing import tool_groups
from ctxmgr.replay import (
    DEFAULT_PRICING,
    PolicyContext,
    PolicyResult,
    Pricing,
    Trajectory,
    available_policies,
    count_model_calls,
    load_trajectories,
    policy_status,
)
from ctxmgr.replay.frontier import (
    CTXMGR,
    REFERENCE,
    FrontierRow,
    format_table,
    frontier_rows,
    mark_frontier,
    variant_label,
    why_not,
)
from ctxmgr.replay.report import replace_markdown_section
from ctxmgr.tokens import default_counter

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRAJECTORIES = ROOT / "benchmarks" / "data"
MARK = "bench_frontier"

VARIANTS: dict[str, dict[str, Any]] = {
    "defaults": {},
    # each mechanism taken away on its own
    "no identifiers line": {"identifiers_chars": 0},
    "no working set": {"keep_tool_results": 0},
    "no history notes (7)": {"disabled_strategies": [7]},
    "no user note (9)": {"disabled_strategies": [9]},
    "no record": {"record_chars": 0},
    "no payback gates": {"cached_token_price": None},
    "history notes last (summaries first)": {"history_notes_first": False},
    "before the fidelity work": {"token_ratio": 0.6, "target_ratio": 0.15,
                                 "identifiers_chars": 0, "keep_tool_results": 0,
                                 "disabled_strategies": [7], "summary_input_chars": 1000},
    # the record's size (the default is 0.25 characters per window token, at most 4,000)
    "record 2,000": {"record_chars": 2000},
    "record 8,000": {"record_chars": 8000},
    # the identifiers line's size (the default: 0.15 characters per window token, at least
    # 2,400 where 0.3 per token allows, within the 0.55 per token the record leaves)
    "ids 1,200": {"identifiers_chars": 1200},
    "ids 2,400": {"identifiers_chars": 2400},
    "ids 4,800": {"identifiers_chars": 4800},
    "ids 8,000": {"identifiers_chars": 8000},
    # trigger / target
    "0.6/0.1": {"token_ratio": 0.6},
    "0.7/0.1": {"token_ratio": 0.7},
    "0.75/0.1": {"token_ratio": 0.75},
    "0.85/0.1": {"token_ratio": 0.85},
    "0.8/0.15": {"target_ratio": 0.15},
    "0.8/0.2": {"target_ratio": 0.2},
    "0.8/0.3": {"target_ratio": 0.3},
    "1.0/0.1 (only over the budget)": {"token_ratio": 1.0},
    "0.75/0.5, no line": {"token_ratio": 0.75, "target_ratio": 0.5, "identifiers_chars": 0},
    # what the summarizer is sent of each long text (the default: 600 characters)
    "summary input 1,000": {"summary_input_chars": 1000},
    # the working set's size
    "keep 2 tool results": {"keep_tool_results": 2},
    "keep 5 tool results": {"keep_tool_results": 5},
}
"""ctxmgr variants: ``AutoContextConfig`` knobs on top of ``max_tokens`` (the budget)."""

WINDOWS: dict[str, tuple[int, bool, float]] = {
    "32k SWE": (32_000, False, 0.99),
    "16k SWE": (16_000, False, 0.99),
    "4k tau": (4_000, True, 0.95),
}
"""Window name: (budget in tokens, replays the tau-bench conversations rather than the
SWE runs, the recency a row needs to be on the frontier). The conversations stay under
12,000 tokens, so only the SWE runs are managed at 32k and 16k. The recency floors are
the ones the defaults are held to: a row that saves by cutting the last tool results
the agent is working with is not a candidate, however many facts it keeps."""

IDEAL_WORKING_SET = 3
"""Tool groups the idealised references keep verbatim, as ctxmgr's default working set."""


class IdealDropPolicy:
    """Drop history without a trace when the prompt would not fit (a reference)."""

    def __init__(self, context: PolicyContext, *, everything: bool) -> None:
        self.context = context
        self.everything = everything
        self.name = "ideal_drop_all" if everything else "ideal_drop_oldest"
        self.budget = AutoContextConfig(max_tokens=context.budget).budget_tokens
        self.reset()

    def reset(self) -> None:
        self._dropped: set[str] = set()

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        start = time.perf_counter()
        count = self.context.counter.count
        kept = [m for m in history if m.id not in self._dropped]
        tokens = sum(count(m) for m in kept)
        if tokens > self.budget:
            for unit in _droppable(history, self._dropped):
                self._dropped.update(m.id for m in unit)
                tokens -= sum(count(m) for m in unit)
                if tokens <= self.budget and not self.everything:
                    break
            kept = [m for m in history if m.id not in self._dropped]
        return PolicyResult(messages=tuple(kept), events=(),
                            seconds=time.perf_counter() - start)


def _droppable(history: Sequence[Message], dropped: set[str]) -> list[list[Message]]:
    """Units (a whole tool group or one message) that may go, oldest first."""
    groups = tool_groups(history)
    keep: set[int] = {i for i, m in enumerate(history) if m.role == "system"}
    users = [i for i, m in enumerate(history) if m.role == "user" and not m.tool_results]
    if users:
        keep |= {users[0], users[-1]}
    for group in groups[-IDEAL_WORKING_SET:]:
        keep.update(range(group.start, group.end))
    assistants = [i for i, m in enumerate(history) if m.role == "assistant"]
    if assistants:
        keep.add(assistants[-1])
    group_of = {i: g for g in groups for i in range(g.start, g.end)}
    units: list[list[Message]] = []
    i = 0
    while i < len(history):
        g = group_of.get(i)
        span = range(g.start, g.end) if g else range(i, i + 1)
        if not any(k in keep for k in span) and history[span[0]].id not in dropped:
            units.append([history[k] for k in span])
        i = span[-1] + 1
    return units


def replay_window(window: str, budget: int, trajectories: Sequence[Trajectory],
                  peers: Sequence[str], variants: dict[str, dict[str, Any]], *,
                  recency_floor: float = 0.0, references: bool = True,
                  pricings: Sequence[Pricing] = (DEFAULT_PRICING,)) -> list[FrontierRow]:
    """Replay ``none``, the peers, the variants and (``references``) the idealised
    drop policies in one pass; rows before marking, at each of ``pricings``."""
    def ideals(context: PolicyContext) -> list[IdealDropPolicy]:
        return [IdealDropPolicy(context, everything=e) for e in (False, True) if references]

    return frontier_rows(trajectories, budget=budget, variants=variants, peers=peers,
                         window=window, recency_floor=recency_floor, references=ideals,
                         pricings=pricings)


_PEER_MARKERS = ("s", "^", "v", "D", "P", "X", "h", "<", ">", "p")
_PEER_COLOURS = ("tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
                 "tab:pink", "tab:olive", "tab:cyan", "tab:gray")
_CTXMGR_COLOUR = "tab:blue"


def save_plot(rows: Sequence[FrontierRow], path: str | Path, *, pricing: str = "") -> None:
    """PNG: cost / none (x) against fact availability (y), one panel per window, each with
    its key underneath; ``pricing`` names the rows' cache rates in the title.

    ctxmgr variants are blue dots, the defaults a large star; ``none`` and every peer have
    their own marker. The points a reader looks for (``none``, the peers, the references,
    the defaults and the variants on the frontier) carry a number, placed where it
    overlaps no other number and no point (:func:`_place_numbers`), and the key under the
    panel names each number's row with its user retention and actions retained. The
    frontier is a dashed line through its rows. Rows with calls over budget, calls that
    lost the task or pairing violations, or a recency under the window's floor (not
    eligible for the frontier) are drawn hollow; a reference far to the right sits on
    the panel's edge, its cost in the key.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    windows = list(dict.fromkeys(r.window for r in rows))
    if not windows:
        raise ValueError("nothing to plot: no rows")
    others = list(dict.fromkeys(r.policy for r in rows if r.kind != CTXMGR))
    styles = {name: ("o", "black") if name == "none" else
              (_PEER_MARKERS[i % len(_PEER_MARKERS)], _PEER_COLOURS[i % len(_PEER_COLOURS)])
              for i, name in enumerate(others)}
    numbered = {w: _numbered([r for r in rows if r.window == w]) for w in windows}
    key_lines = max(len(n) for n in numbered.values())
    plot_in, key_in, legend_in = 5.4, 0.19 * key_lines + 0.3, 0.75
    height = plot_in + key_in + legend_in + 1.55
    fig = plt.figure(figsize=(6.4 * len(windows), height))
    grid = fig.add_gridspec(2, len(windows), height_ratios=(plot_in, key_in),
                            left=0.06, right=0.98, top=1 - 0.8 / height,
                            bottom=legend_in / height, wspace=0.25,
                            # room for the axis label: hspace is a share of the mean height
                            hspace=0.75 / ((plot_in + key_in) / 2))
    panels = []
    for col, window in enumerate(windows):
        ax, key = fig.add_subplot(grid[0, col]), fig.add_subplot(grid[1, col])
        mine = [r for r in rows if r.window == window]
        # a reference far right would squeeze every policy into a corner: it sits on the
        # edge instead, its cost in the key
        costs = [r.cost for r in mine if r.kind != REFERENCE] or [r.cost for r in mine]
        edge = max(costs) + 0.08 * (max(costs) - min(costs) + 0.1)
        front = sorted((r for r in mine if r.frontier), key=lambda r: r.cost)
        ax.plot([r.cost for r in front], [r.fact_availability for r in front], "--",
                color="0.35", linewidth=1, zorder=1)
        for r in mine:
            defaults = r.policy == variant_label("defaults")
            marker, colour = (("*" if defaults else "o"), _CTXMGR_COLOUR) if (
                r.kind == CTXMGR) else styles[r.policy]
            ax.scatter([min(r.cost, edge)], [r.fact_availability], marker=marker,
                       s=_marker_size(r),
                       zorder=3, facecolors=colour if r.eligible else "none",
                       edgecolors=colour, linewidths=1.4 if defaults else 1.0)
        facts = [r.fact_availability for r in mine]
        span = max(facts) - min(facts) or 0.05
        ax.set_ylim(min(facts) - 0.08 * span, max(facts) + 0.1 * span)
        ax.set_xlim(min(costs) - 0.08 * (edge - min(costs) + 0.1),
                    edge + 0.06 * (edge - min(costs) + 0.1))
        ax.set_title(window)
        ax.set_xlabel("cost / none (lower is better)")
        ax.set_ylabel("fact availability (higher is better)")
        ax.grid(True, alpha=0.3)
        key.axis("off")
        for i, (n, r) in enumerate(numbered[window]):
            colour = _CTXMGR_COLOUR if r.kind == CTXMGR else styles[r.policy][1]
            clipped = f", cost {r.cost:.2f} (off the panel)" if r.cost > edge else ""
            key.text(0.0, 1 - i / max(key_lines, 1), f"{n:>2}  {r.policy}: {_retained(r)}"
                     f"{clipped}", transform=key.transAxes, va="top", fontsize=8,
                     color=colour, family="monospace",
                     fontweight="bold" if r.policy == variant_label("defaults") else "normal")
        panels.append((ax, mine, edge))
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    for ax, mine, edge in panels:
        labels = {id(r): n for n, r in numbered[ax.get_title()]}
        _place_numbers(ax, renderer, [(min(r.cost, edge), r.fact_availability,
                                       _marker_size(r)) for r in mine],
                       [(min(r.cost, edge), r.fact_availability, str(labels[id(r)]),
                         _CTXMGR_COLOUR if r.kind == CTXMGR else styles[r.policy][1])
                        for r in mine if id(r) in labels])
    handles = [
        Line2D([], [], marker="o", linestyle="", color=_CTXMGR_COLOUR,
               label="ctxmgr variants"),
        Line2D([], [], marker="*", markersize=14, linestyle="", color=_CTXMGR_COLOUR,
               label="ctxmgr defaults"),
        *(Line2D([], [], marker=m, linestyle="", color=c, label=n)
          for n, (m, c) in styles.items()),
        Line2D([], [], linestyle="--", color="0.35", label="frontier"),
        Line2D([], [], marker="o", linestyle="", markerfacecolor="none",
               markeredgecolor="0.35", color="0.35",
               label="hollow: over budget, task lost, unpaired or under the recency floor"),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 3 * len(windows)),
               fontsize=9, frameon=False, bbox_to_anchor=(0.5, 0.0))
    fig.suptitle("Cost against fact availability on the recorded runs"
                 + (f" ({pricing})" if pricing else ""), y=1 - 0.2 / height)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _marker_size(r: FrontierRow) -> float:
    """A row's marker area in points squared (the defaults' star is the largest)."""
    if r.policy == variant_label("defaults"):
        return 260
    return 30 if r.kind == CTXMGR else 70


def _numbered(rows: Sequence[FrontierRow]) -> list[tuple[int, FrontierRow]]:
    """The rows of one panel that carry a number, in key order: the defaults, the ctxmgr
    variants on the frontier (cheapest first), then ``none``, the peers and the references
    (other variants are dots without a number: there are many, and the table names them)."""
    defaults = [r for r in rows if r.policy == variant_label("defaults")]
    front = sorted((r for r in rows if r.kind == CTXMGR and r.frontier and r not in defaults),
                   key=lambda r: r.cost)
    rest = [r for r in rows if r.kind != CTXMGR]
    return list(enumerate([*defaults, *front, *rest], start=1))


_RINGS = (9, 14, 20, 28, 38)
"""Distances (points) from its point a number is tried at, nearest first."""
_DIRECTIONS = ((1, 0.5), (1, -0.5), (-1, 0.5), (-1, -0.5), (0, 1), (0, -1), (1, 0), (-1, 0),
               (0.7, 1), (0.7, -1), (-0.7, 1), (-0.7, -1))


def _place_numbers(ax: Any, renderer: Any, points: Sequence[tuple[float, float, float]],
                   labels: Sequence[tuple[float, float, str, str]]) -> None:
    """Put each label near its point where it overlaps no label placed before it, no
    point and nothing outside the panel (the nearest free place, tried ring by ring and
    direction by direction; a label further than the first ring gets a thin leader line).
    When no place is free the last one tried is kept, so every number is drawn."""
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    panel = ax.get_window_extent(renderer)
    to_display = ax.transData.transform
    taken = []  # every marker's box (its area is in points squared), then each label's
    for x, y, area in points:
        (px, py), half = to_display((x, y)), renderer.points_to_pixels(area ** 0.5 / 2)
        taken.append(Bbox.from_extents(px - half, py - half, px + half, py + half))
    for x, y, text, colour in labels:
        annotation = None
        for ring in _RINGS:
            for dx, dy in _DIRECTIONS:
                if annotation is not None:
                    annotation.remove()
                leader = ({"arrowstyle": "-", "color": colour, "lw": 0.6, "shrinkA": 0,
                           "shrinkB": 4} if ring > _RINGS[0] else None)
                annotation = ax.annotate(text, (x, y), xytext=(dx * ring, dy * ring),
                                         textcoords="offset points", ha="center",
                                         va="center", fontsize=8, fontweight="bold",
                                         color=colour, arrowprops=leader, zorder=4)
                # the text alone (its leader line may cross its own point), where it is
                # drawn: update_positions sets the text's transform as a draw does
                annotation.update_positions(renderer)
                box = Text.get_window_extent(annotation, renderer).padded(1.5)
                inside = (box.x0 >= panel.x0 and box.x1 <= panel.x1 and box.y0 >= panel.y0
                          and box.y1 <= panel.y1)
                if inside and not any(box.overlaps(t) for t in taken):
                    taken.append(box)
                    break
            else:
                continue
            break


def _retained(r: FrontierRow) -> str:
    """The second line of a plot label: the row's two retention measures."""
    return f"user {r.user_retention:.2f} · actions {r.actions_retained:.2f}"


def format_cache_table(plain: Sequence[FrontierRow], surcharged: Sequence[FrontierRow],
                       title: str) -> str:
    """The write surcharge beside the plain rates, one row per policy of one window
    (``plain`` and ``surcharged`` in the same order): both costs, the surcharge's cost with
    recovery and frontier, and what sets the cost: the share of calls that changed the
    prompt's prefix, compressions per 100 calls and the cost at none's cache hit ratio."""
    p, s = plain[0].pricing, surcharged[0].pricing
    lines = [f"**{title}**", "",
             f"| window | policy or variant | cost / none ({p.label()}) | cost / none "
             f"({s.label()}) | cost with recovery / none ({s.label()}) | prefix changed "
             f"| compr. / 100 calls | cost at none's hit / none ({s.label()}) | frontier "
             f"({s.label()}) |",
             "|---|---|--:|--:|--:|--:|--:|--:|---|"]
    for a, b in zip(plain, surcharged, strict=True):
        name = f"**{a.policy}**" if a.policy == variant_label("defaults") else a.policy
        per_100 = 100 * a.compressions / a.model_calls if a.model_calls else 0.0
        mark = "**frontier**" if b.frontier else why_not(b)
        lines.append(f"| {a.window} | {name} | {a.cost:.3f} | {b.cost:.3f} | "
                     f"{b.cost_with_recovery:.3f} | {a.prefix_changed_share:.3f} | "
                     f"{per_100:.1f} | {b.cost_at_baseline_hit:.3f} | {mark} |")
    return "\n".join(lines)


def surcharge_plot_path(path: Path) -> Path:
    """Where the write-surcharge plot goes beside ``path``: ``frontier_cache_write.png``."""
    return path.with_name(f"{path.stem}_cache_write{path.suffix}")


def _fail(message: str) -> int:
    print(f"bench_frontier: {message}", file=sys.stderr)
    return 2


def _knob(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not key or not sep:
        raise ValueError(f"--set expects KEY=VALUE, got {text!r}")
    knobs = [f.name for f in dataclasses.fields(AutoContextConfig) if f.name != "max_tokens"]
    if key not in knobs:
        raise ValueError(f"unknown knob {key!r} (AutoContextConfig has: {', '.join(knobs)})")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def _variants(names: Sequence[str], knobs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The variants to replay, the defaults always first; raises ValueError on a bad name."""
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise ValueError(f"unknown variant {unknown[0]!r} (known: {', '.join(VARIANTS)})")
    variants = {n: VARIANTS[n] for n in ["defaults", *names]}
    if knobs:
        variants[" ".join(knobs)] = dict(_knob(k) for k in knobs)
    return variants


def _peers(names: Sequence[str] | None) -> list[str]:
    """The peers to replay (default: every one installed); raises ValueError on a name
    that is unknown or whose framework is missing."""
    status = policy_status()
    if names is None:
        return [n for n in available_policies() if n not in ("none", "ctxmgr")]
    for name in names:
        if name not in status:
            known = ", ".join(n for n in status if n != "none")
            raise ValueError(f"unknown peer {name!r} (known: {known})")
        if status[name] is not None:
            raise ValueError(str(status[name]))
    return [n for n in dict.fromkeys(names) if n != "none"]


def _header(command: str, counter: Any, variants: dict[str, dict[str, Any]],
            plot: str | None, surcharge: Pricing) -> str:
    knobs = "; ".join(f"`{name}`: " + (", ".join(f"{k}={v}" for k, v in o.items()) or
                                         "nothing set")
                      for name, o in variants.items() if name != "defaults")
    text = [
        f"Produced by `{command.strip()}` (Python {platform.python_version()}, "
        f"{platform.machine()}, token counter `{counter!r}`, the shared fake summarizer "
        "answering a fixed 1,203-character text). Per window, one replay of `none`, every "
        "installed peer and every ctxmgr variant: at 32k and 16k the 24 SWE runs, at 4k "
        "the 100 tau-bench conversations. `cost / none` is the effective cost (0.1 x cached "
        "+ uncached prompt tokens + summarizer input and output) relative to no "
        "management; `fact availability`, `recency`, `user retention`, `actions retained` "
        "and `cost with recovery / none` are the fidelity measures of the replay section "
        "above (the plot numbers its points; the key under each panel gives each one's two "
        "retention measures too); `task lost` counts "
        "calls whose prompt no longer holds the first user message verbatim. A row is on the "
        "**frontier** when it has no call over budget, none that lost the task, no "
        "pairing violation and a recency at or above its window's floor (0.99 at 32k and "
        "16k, 0.95 at 4k), and no other such row of its window costs as little or less "
        "and keeps as many facts or more (one of the two strictly, at the three decimals "
        "shown; user retention and actions retained are shown beside it, not part of the "
        "rule); rows that break a call are `not eligible`. The two `ideal_drop` rows are "
        "references, not policies: they keep what ctxmgr keeps verbatim (system, task, "
        "latest user message, the last three tool calls with their results, the latest "
        "assistant message) and drop other history without a trace when the prompt would "
        "exceed ctxmgr's budget, the oldest first as far as needed (`ideal_drop_oldest`) "
        "or all of it at once (`ideal_drop_all`), with no summary, note, hint or reload. "
        "`ctxmgr defaults` is ctxmgr out of the box; each other `ctxmgr` row sets these "
        f"`AutoContextConfig` knobs: {knobs}.",
        "The second table of each window prices the same replay with a surcharge for "
        f"writing the cache ({surcharge.label()}: every uncached prompt token is written, "
        "as with a cache breakpoint on the latest message; Anthropic's 5-minute cache "
        "bills writes at 1.25), marks its own frontier, and shows what drives the cost: "
        "`prefix changed`, the share of calls whose prompt does not start with the "
        "previous prompt (the provider bills the rest of it uncached again), "
        "compression steps per 100 calls, and the cost had the prompts hit the cache as "
        "often as no management's do."]
    if plot:
        text.append(f"![Cost against fact availability per window: ctxmgr variants, the "
                    f"defaults and every peer]({plot})")
        dear = surcharge_plot_path(Path(plot)).as_posix()
        text.append(f"![The same under a cache-write surcharge ({surcharge.label()})]"
                    f"({dear})")
    return "\n\n".join(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=Path, default=DEFAULT_TRAJECTORIES,
                        help=f"recorded runs (default {DEFAULT_TRAJECTORIES})")
    parser.add_argument("--variant", nargs="*", default=list(VARIANTS),
                        help="ctxmgr variants to replay (default all; defaults always)")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="an extra variant from knobs, e.g. token_ratio=0.7 target_ratio=0.3")
    parser.add_argument("--peers", nargs="*", metavar="NAME",
                        help="peer policies to replay (default: every one installed)")
    parser.add_argument("--window", nargs="*", default=list(WINDOWS),
                        help=f"windows to replay (default: {', '.join(WINDOWS)})")
    parser.add_argument("--json", type=Path, help="write every row here")
    parser.add_argument("--cache-write", type=float, default=1.25, metavar="RATE",
                        help="the second pricing's price of an uncached prompt token, written "
                             "to the cache (default 1.25: Anthropic's 5-minute cache)")
    parser.add_argument("--markdown", type=Path, metavar="FILE",
                        help="write the tables into FILE (e.g. benchmarks/RESULTS.md)")
    parser.add_argument("--plot", type=Path, metavar="PNG",
                        help="draw cost against fact availability (e.g. benchmarks/frontier.png)")
    args = parser.parse_args(argv)

    if not args.trajectories.exists():
        return _fail(f"{args.trajectories} does not exist (the recorded runs are in "
                     f"{DEFAULT_TRAJECTORIES})")
    unknown = [w for w in args.window if w not in WINDOWS]
    if unknown:
        return _fail(f"unknown window {unknown[0]!r} (known: {', '.join(WINDOWS)})")
    try:
        surcharge = Pricing(cache_write=args.cache_write)
        variants = _variants(args.variant, args.set)
        peers = _peers(args.peers)
        for overrides in variants.values():
            for window in args.window:
                AutoContextConfig(max_tokens=WINDOWS[window][0]).evolve(**overrides)
    except (ValueError, TypeError, CtxmgrError) as exc:
        return _fail(str(exc))
    try:
        runs = load_trajectories([args.trajectories])
    except (CtxmgrError, OSError) as exc:
        return _fail(str(exc))
    if not runs:
        return _fail(f"no trajectories in {args.trajectories}")

    counter = default_counter()
    rows: list[FrontierRow] = []
    surcharged: list[FrontierRow] = []
    tables: list[str] = []
    for window in args.window:
        budget, tau, recency_floor = WINDOWS[window]
        trajectories = [t for t in runs if is_tau(t) == tau]
        if not trajectories:
            print(f"{window}: no runs in {args.trajectories}, skipped", file=sys.stderr)
            continue
        label = f"{window} ({len(trajectories)} runs)"
        print(f"{label}: replaying {3 + len(peers) + len(variants)} policies on "
              f"{count_model_calls(trajectories):,} model calls", file=sys.stderr, flush=True)
        started = time.perf_counter()
        pricings = tuple(dict.fromkeys((DEFAULT_PRICING, surcharge)))
        both = mark_frontier(replay_window(label, budget, trajectories, peers, variants,
                                           recency_floor=recency_floor, pricings=pricings))
        print(f"{label}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        window_rows = [r for r in both if r.pricing == DEFAULT_PRICING]
        dear = [r for r in both if r.pricing != DEFAULT_PRICING] or window_rows
        rows += window_rows
        surcharged += dear
        calls = (f"{label}, budget {budget:,} tokens, "
                 f"{count_model_calls(trajectories):,} model calls")
        tables.append(format_table(window_rows, calls))
        tables.append(format_cache_table(window_rows, dear,
                                         f"{calls}: under a cache-write surcharge"))
        print(tables[-2] + "\n\n" + tables[-1] + "\n", flush=True)

    if args.json:
        every = rows + (surcharged if surcharge != DEFAULT_PRICING else [])
        args.json.write_text(json.dumps([dataclasses.asdict(r) for r in every], indent=2)
                             + "\n", encoding="utf-8")
    if args.plot:
        save_plot(rows, args.plot, pricing=DEFAULT_PRICING.label())
        save_plot(surcharged, surcharge_plot_path(args.plot), pricing=surcharge.label())
        print(f"wrote {args.plot} and {surcharge_plot_path(args.plot)}", file=sys.stderr)
    if args.markdown:
        command = "python benchmarks/bench_frontier.py " + " ".join(
            argv if argv is not None else sys.argv[1:])
        plot = (Path(os.path.relpath(args.plot, args.markdown.resolve().parent)).as_posix()
                if args.plot else None)
        body = "\n\n".join(["### The frontier: ctxmgr variants and every peer",
                            _header(command, counter, variants, plot, surcharge), *tables])
        replace_markdown_section(args.markdown, MARK, body)
        print(f"wrote {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
