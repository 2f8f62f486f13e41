"""Showing a replay: tables of the aggregates (rich) and a plot of prompt sizes (matplotlib).

Both libraries come with ``.[replay]`` and are imported only here, when
a report is drawn. Two tables: cost and fidelity, then the prompt cache, which says
where each policy's cost goes: ``cache hit`` (and no management's on the same calls),
``compr./100 calls`` (compression steps per 100 model calls), ``prefix changed`` (the
share of calls whose prompt does not start with the previous prompt, so the provider
bills the rest of it uncached again), the cost split (uncached prompt tokens, cached
reads, summarizer tokens, each a share of the policy's effective cost) and ``cost at
none's hit / none`` (the cost had the prompts hit the cache as often as no
management's do).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from ctxmgr.replay.runner import ReplayReport

__all__ = [
    "CACHE_COLUMNS",
    "COLUMNS",
    "format_table",
    "markdown_table",
    "pricing_note",
    "print_table",
    "replace_markdown_section",
    "save_plot",
    "table_rows",
    "write_json",
]

COLUMNS: tuple[tuple[str, str], ...] = (
    ("policy", "policy"),
    ("model_calls", "calls"),
    ("savings", "savings"),
    ("peak_prompt_tokens", "peak"),
    ("over_budget_calls", "over budget"),
    ("task_lost", "task lost"),
    ("effective_cost_ratio", "cost / none"),
    ("cache_hit_ratio", "cache hit"),
    ("summarizer_calls", "summ. calls"),
    ("summarizer_tokens", "summ. tokens"),
    ("pairing_violations", "pairing"),
    ("ms_per_call_median", "ms/call"),
    ("fact_availability", "facts kept"),
    ("fact_reloadable", "reloadable"),
    ("fact_searchable", "searchable"),
    ("recency", "recency"),
    ("user_retention", "user kept"),
    ("actions_retained", "actions kept"),
    ("cost_with_recovery_ratio", "cost+recovery / none"),
)
"""The first table: (row key, column head)."""

CACHE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("policy", "policy"),
    ("effective_cost_ratio", "cost / none"),
    ("cache_hit_ratio", "cache hit"),
    ("baseline_cache_hit_ratio", "none's hit"),
    ("compressions_per_100_calls", "compr./100 calls"),
    ("prefix_changed_share", "prefix changed"),
    ("cost_share_uncached", "uncached % of cost"),
    ("cost_share_cached", "cached reads %"),
    ("cost_share_summarizer", "summarizer %"),
    ("effective_cost_ratio_at_baseline_hit", "cost at none's hit / none"),
)
"""The prompt-cache table: (row key, column head)."""

_RATIOS = frozenset({
    "effective_cost_ratio", "cache_hit_ratio", "baseline_cache_hit_ratio",
    "prefix_changed_share", "effective_cost_ratio_at_baseline_hit", "fact_availability",
    "fact_reloadable", "fact_searchable", "recency", "user_retention", "actions_retained",
    "cost_with_recovery_ratio", "ms_per_call_median"})
_PERCENTS = frozenset({"savings", "cost_share_uncached", "cost_share_cached",
                       "cost_share_summarizer"})


def _cell(key: str, value: Any) -> str:
    if value == "" or value is None:
        return ""
    if key == "savings":
        return f"{value * 100:.1f} %"
    if key in _PERCENTS:
        return f"{value * 100:.0f}"
    if key == "compressions_per_100_calls":
        return f"{value:.1f}"
    if key in _RATIOS:
        return f"{value:.3f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def table_rows(data: dict[str, Any], columns: Sequence[tuple[str, str]] = COLUMNS
               ) -> list[list[str]]:
    """One row of strings per policy of a ``ReplayReport.to_json()`` dict."""
    rows = []
    for name, body in data["policies"].items():
        agg = {"policy": name, **body["aggregate"]}
        if agg.get("errors"):
            agg["policy"] = f"{name} ({agg['errors']} failed)"
        rows.append([_cell(k, agg.get(k, "")) for k, _ in columns])
    return rows


def pricing_note(data: dict[str, Any]) -> str:
    """``cache reads 0.1, writes 1.25`` for a report's pricing (SPEC §8's when it has none)."""
    p = data.get("pricing") or {"cache_read": 0.1, "cache_write": 1.0}
    return f"cache reads {p['cache_read']:g}, writes {p['cache_write']:g}"


def _titles(title: str | None, data: dict[str, Any]) -> tuple[str, str]:
    """The two tables' titles (the pricing in the first, unless ``title`` names it)."""
    title = title or f"replay at budget {data['budget']:,} tokens, {pricing_note(data)}"
    return title, f"{title}: prompt cache"


def format_table(data: dict[str, Any], *, title: str | None = None) -> str:
    """The aggregates as two Markdown tables, cost and fidelity then the prompt cache (for
    RESULTS.md and plain logs)."""
    lines: list[str] = []
    for heading, columns in zip(_titles(title, data), (COLUMNS, CACHE_COLUMNS), strict=True):
        head = [h for _, h in columns]
        if lines:
            lines.append("")
        lines += [f"**{heading}**", ""]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "|".join("---" if i == 0 else "--:" for i in range(len(head)))
                     + "|")
        lines += ["| " + " | ".join(r) + " |" for r in table_rows(data, columns)]
    return "\n".join(lines)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], *,
                   left: frozenset[int] = frozenset({0})) -> str:
    """A Markdown table padded to read as text too (the benchmarks print them); the
    columns in ``left`` left-aligned, the others right-aligned."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) if i in left else str(c).rjust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths, strict=True))) + " |"

    rule = "|" + "|".join(("-" * (w + 2)) if i in left else ("-" * (w + 1) + ":")
                          for i, w in enumerate(widths)) + "|"
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def print_table(data: dict[str, Any], *, title: str | None = None, file: IO[str] | None = None
                ) -> None:
    """The aggregates as two rich tables on ``file`` (stdout by default): cost and
    fidelity, then the prompt cache."""
    from rich.console import Console
    from rich.table import Table

    out = file or sys.stdout
    console = Console(file=out, width=None if out.isatty() else 200)
    for heading, columns in zip(_titles(title, data), (COLUMNS, CACHE_COLUMNS), strict=True):
        table = Table(title=heading)
        for i, (_, head) in enumerate(columns):
            table.add_column(head, justify="left" if i == 0 else "right", no_wrap=i == 0)
        for row in table_rows(data, columns):
            table.add_row(*row)
        console.print(table)


def write_json(data: dict[str, Any], path: str | Path) -> None:
    """Write the report (UTF-8, indented, valid JSON).

    Raises:
        ValueError: ``data`` holds a NaN or infinite number, which JSON cannot hold.
    """
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    Path(path).write_text(text, encoding="utf-8")


def replace_markdown_section(path: str | Path, name: str, body: str) -> None:
    """Write ``body`` between ``<!-- name -->`` and ``<!-- /name -->`` in ``path``.

    The rest of the file is kept, so several benchmark scripts (and hand-written
    notes) can share one results file; a missing file or section is created.
    """
    path = Path(path)
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    block = f"{start}\n{body.rstrip()}\n{end}\n"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        text = head + block + ("\n" + tail if tail else "")
    else:
        text = text.rstrip() + "\n\n" + block
    path.write_text(text, encoding="utf-8")


def save_plot(report: ReplayReport, path: str | Path, *, policies: Sequence[str] | None = None
              ) -> None:
    """PNG of prompt sizes (top) and fidelity (bottom) for each policy.

    Top: prompt tokens per model call with the budget line; one trajectory shows its
    curves, several show the longest trajectory's curves (left) and, for each call
    number, the mean over the trajectories that reach it (right). Bottom: fact
    availability by source age (left) and effective cost against fact availability,
    without (filled) and with (hollow) the cost of recovering what it lost (right).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(policies or report.runs)
    ids = list(report.baseline_curves)
    if not ids:
        raise ValueError("nothing to plot: no trajectories were replayed")
    longest = max(ids, key=lambda i: len(report.baseline_curves[i]))
    fig = plt.figure(figsize=(14, 9.6))
    grid = fig.add_gridspec(2, 2)
    ax = fig.add_subplot(grid[0, :] if len(ids) == 1 else grid[0, 0])
    for name in names:
        ax.plot(report.runs[name].curves.get(longest, []), label=name, linewidth=1.4)
    if "none" not in names:
        ax.plot(report.baseline_curves[longest], label="none (history)", color="grey",
                linestyle=":", linewidth=1)
    ax.axhline(report.budget, color="red", linestyle="--", linewidth=1, label="budget")
    ax.set_title(f"{longest}", fontsize=9)
    ax.set_xlabel("model call")
    ax.set_ylabel("prompt tokens")
    ax.legend(fontsize=8)
    if len(ids) > 1:
        ax = fig.add_subplot(grid[0, 1])
        for name in names:
            ax.plot(_mean_by_call(report.runs[name].curves.values()), label=name, linewidth=1.4)
        ax.axhline(report.budget, color="red", linestyle="--", linewidth=1, label="budget")
        ax.set_title(f"mean over {len(ids)} trajectories", fontsize=9)
        ax.set_xlabel("model call")
        ax.set_ylabel("prompt tokens (mean)")
    _plot_fidelity(fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[1, 1]), report, names)
    fig.suptitle(f"prompt tokens per model call and fidelity, budget {report.budget:,}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_fidelity(by_age: Any, frontier: Any, report: ReplayReport, names: Sequence[str]
                   ) -> None:
    for k, name in enumerate(names):
        agg = report.aggregate(name)
        shares = agg["fact_availability_by_age"]
        color = f"C{k}"
        by_age.plot(list(shares), list(shares.values()), marker="o", label=name, color=color,
                    linewidth=1.4)
        cost, kept = agg["effective_cost_ratio"], agg["fact_availability"]
        frontier.scatter([cost], [kept], color=color, label=name, zorder=3)
        with_recovery = agg["cost_with_recovery_ratio"]
        if with_recovery != cost:
            frontier.plot([cost, with_recovery], [kept, kept], color=color, linestyle=":",
                          linewidth=1)
            frontier.scatter([with_recovery], [kept], facecolors="none", edgecolors=color,
                             zorder=3)
    by_age.set_title("needed facts in the prompt, by source age", fontsize=9)
    by_age.set_xlabel("tool results back")
    by_age.set_ylabel("fact availability")
    by_age.legend(fontsize=8)
    frontier.set_title("cost against fact availability (hollow: with recovery)",
                       fontsize=9)
    frontier.set_xlabel("effective cost / none")
    frontier.set_ylabel("fact availability")
    frontier.legend(fontsize=8)


def _mean_by_call(curves: Any) -> list[float]:
    sums: list[float] = []
    counts: list[int] = []
    for curve in curves:
        for k, v in enumerate(curve):
            if k == len(sums):
                sums.append(0.0)
                counts.append(0)
            sums[k] += v
            counts[k] += 1
    return [s / c for s, c in zip(sums, counts, strict=True)]
