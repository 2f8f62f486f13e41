"""benchmarks/bench_frontier.py puts ctxmgr's variants and the peers on one frontier: it
writes its section between markers and a PNG, marks only undominated rows that break no
call, and bad input is one line and exit 2."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from trajectory_dirs import FIXTURES

from ctxmgr import AutoContextConfig

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_frontier.py"
PEER = "langchain_context_editing"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_frontier", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _row(bench: ModuleType, policy: str, cost: float, facts: float, **extra: Any) -> Any:
    fields = {"window": "w", "kind": "ctxmgr", "recency": 1.0, "user_retention": 1.0,
              "actions_retained": 1.0, "cost_with_recovery": cost,
              "over_budget_calls": 0, "task_lost": 0, "pairing_violations": 0, **extra}
    return bench.FrontierRow(policy=policy, cost=cost, fact_availability=facts, **fields)


def test_frontier_marks_only_undominated_rows_that_break_no_call(bench: ModuleType) -> None:
    rows = [
        _row(bench, "cheap", 0.5, 0.80),
        _row(bench, "rich", 0.7, 0.95),
        _row(bench, "dominated", 0.6, 0.80),          # cheap keeps as much for less
        _row(bench, "tied cost, fewer facts", 0.7, 0.90),
        _row(bench, "over budget", 0.4, 0.99, over_budget_calls=1, kind="peer"),
        _row(bench, "task lost", 0.45, 0.99, task_lost=3, kind="peer"),
        _row(bench, "unpaired", 0.45, 0.99, pairing_violations=1),
        _row(bench, "other window", 0.9, 0.5, window="v"),  # compared only with its window
    ]
    marked = {r.policy: r.frontier for r in bench.mark_frontier(rows)}
    assert marked == {"cheap": True, "rich": True, "dominated": False,
                      "tied cost, fewer facts": False, "over budget": False,
                      "task lost": False, "unpaired": False, "other window": True}


def test_a_row_under_its_windows_recency_floor_is_not_a_candidate(bench: ModuleType) -> None:
    rows = bench.mark_frontier([
        _row(bench, "keeps the working set", 0.6, 0.90, recency=0.995, recency_floor=0.99),
        _row(bench, "cheaper, cuts it", 0.5, 0.95, recency=0.96, recency_floor=0.99),
    ])
    assert [r.frontier for r in rows] == [True, False]
    assert "below the recency floor" in bench.format_table(rows)


def test_retention_is_shown_but_does_not_decide_the_frontier(bench: ModuleType) -> None:
    rows = bench.mark_frontier([
        _row(bench, "forgets the user", 0.5, 0.9, user_retention=0.2, actions_retained=0.1),
        _row(bench, "remembers, costs more", 0.6, 0.9),
    ])
    assert [r.frontier for r in rows] == [True, False]
    assert "| forgets the user | 0.500 | 0.900 | 1.000 | 0.200 | 0.100 |" in \
        bench.format_table(rows)


def test_the_ideal_references_keep_the_working_set_and_drop_the_rest_when_over(
        bench: ModuleType) -> None:
    from builders import C, call, result, system, user

    from ctxmgr.replay import FakeSummarizer, PolicyContext

    history = [system(), user("task", id="u0")]
    for k in range(8):
        history += [call(f"c{k}", id=f"a{k}"), result(f"c{k}", "x" * 2000, id=f"t{k}")]
    context = PolicyContext(budget=4000, counter=C, summarizer=FakeSummarizer(C))
    oldest = bench.IdealDropPolicy(context, everything=False)
    everything = bench.IdealDropPolicy(context, everything=True)
    budget = AutoContextConfig(max_tokens=4000).budget_tokens
    some, none_left = oldest.prompt(history).messages, everything.prompt(history).messages
    assert list(some[-6:]) == history[-6:] and list(none_left[-6:]) == history[-6:]
    assert C.count_messages(some) <= budget
    assert [m.id for m in none_left] == ["sys", "u0", "a5", "t5", "a6", "t6", "a7", "t7"]
    assert len(some) > len(none_left)  # only as far as needed


def test_rows_equal_at_the_shown_decimals_both_stay_on_the_frontier(bench: ModuleType) -> None:
    # the table shows three decimals; a reader could not tell these two apart
    rows = bench.mark_frontier([_row(bench, "a", 0.5, 0.9), _row(bench, "b", 0.5001, 0.8999)])
    assert [r.frontier for r in rows] == [True, True]


def test_bench_writes_its_section_between_markers_and_a_png(
        bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Results\n\nhand-written intro\n\n<!-- bench_frontier -->\nold table\n"
                       "<!-- /bench_frontier -->\n\nhand-written reading\n", encoding="utf-8")
    plot, rows_json = tmp_path / "frontier.png", tmp_path / "rows.json"
    rc = bench.main(["--trajectories", str(FIXTURES), "--window", "4k tau", "--variant",
                     "0.8/0.3", "--peers", PEER, "--markdown", str(results), "--plot",
                     str(plot), "--json", str(rows_json)])
    assert rc == 0
    text = results.read_text(encoding="utf-8")
    assert text.startswith("# Results\n\nhand-written intro\n\n<!-- bench_frontier -->\n")
    assert text.endswith("<!-- /bench_frontier -->\n\nhand-written reading\n")
    assert "old table" not in text
    assert "![" in text and "](frontier.png)" in text
    assert "| recency | user retention | actions retained |" in text
    assert "| 4k tau (12 runs) | none | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |" in text
    assert "| 4k tau (12 runs) | **ctxmgr defaults** |" in text
    assert f"| 4k tau (12 runs) | {PEER} |" in text
    assert "| 4k tau (12 runs) | ctxmgr 0.8/0.3 |" in text
    assert plot.read_bytes().startswith(b"\x89PNG")
    rows = {r["policy"]: r for r in json.loads(rows_json.read_text())}
    assert set(rows) == {"none", PEER, "ideal_drop_oldest", "ideal_drop_all",
                         "ctxmgr defaults", "ctxmgr 0.8/0.3"}
    assert not rows["ideal_drop_all"]["frontier"]  # a reference, never a candidate
    # dropping history without a trace loses the calls it held
    assert rows["ideal_drop_all"]["actions_retained"] < rows["none"]["actions_retained"] == 1.0
    assert "| 4k tau (12 runs) | ideal_drop_all |" in text and "reference |" in text
    # none goes over the 4k budget on these conversations: listed, never on the frontier
    assert rows["none"]["over_budget_calls"] > 0 and not rows["none"]["frontier"]
    assert all(r["recency"] >= 0.95 for r in rows.values() if r["frontier"])
    assert "| window | policy or variant |" in capsys.readouterr().out


def test_bench_prices_the_same_replay_with_a_cache_write_surcharge_too(
        bench: ModuleType, tmp_path: Path) -> None:
    results, plot = tmp_path / "RESULTS.md", tmp_path / "frontier.png"
    rows_json = tmp_path / "rows.json"
    rc = bench.main(["--trajectories", str(FIXTURES), "--window", "4k tau", "--variant",
                     "--peers", PEER, "--markdown", str(results), "--plot", str(plot),
                     "--json", str(rows_json)])
    assert rc == 0
    assert (tmp_path / "frontier_cache_write.png").read_bytes().startswith(b"\x89PNG")
    text = results.read_text(encoding="utf-8")
    assert "](frontier_cache_write.png)" in text
    assert "under a cache-write surcharge" in text
    assert "| cost / none (reads 0.1, writes 1.25) |" in text
    every = json.loads(rows_json.read_text())
    by_rate = {(r["policy"], r["pricing"]["cache_write"]): r for r in every}
    assert {w for _, w in by_rate} == {1.0, 1.25}
    none, defaults = by_rate["none", 1.25], by_rate["ctxmgr defaults", 1.25]
    assert none["cost"] == 1.0  # none is priced alike, so it stays the unit
    # one replay, two prices: every count is the same, only the costs move
    plain = by_rate["ctxmgr defaults", 1.0]
    assert defaults["fact_availability"] == plain["fact_availability"]
    assert defaults["compressions"] == plain["compressions"] > 0
    assert defaults["prefix_changed_share"] == plain["prefix_changed_share"] > 0
    # ctxmgr loses the cache more often than none, so the surcharge weighs on it more
    assert defaults["cost"] > plain["cost"]
    assert f"| 4k tau (12 runs) | **ctxmgr defaults** | {plain['cost']:.3f} | " \
           f"{defaults['cost']:.3f} |" in text


def test_the_frontier_is_marked_per_pricing(bench: ModuleType) -> None:
    from ctxmgr.replay import Pricing

    dear = Pricing(cache_write=1.25)
    rows = bench.mark_frontier([
        _row(bench, "cheap when writes are free", 0.5, 0.9),
        _row(bench, "keeps the cache", 0.6, 0.9),
        _row(bench, "cheap when writes are free", 0.7, 0.9, pricing=dear),
        _row(bench, "keeps the cache", 0.62, 0.9, pricing=dear),
    ])
    assert [r.frontier for r in rows] == [True, False, False, True]


@pytest.mark.parametrize("args, message", [
    (["--trajectories", "{tmp}/nope"], "does not exist"),
    (["--variant", "no such variant"], "unknown variant 'no such variant'"),
    (["--peers", "no_such_peer"], "unknown peer 'no_such_peer'"),
    (["--window", "8k"], "unknown window '8k'"),
    (["--set", "token_ratio"], "KEY=VALUE"),
    (["--set", "no_such_knob=1"], "no_such_knob"),
])
def test_bad_input_is_one_line_and_exit_2(
        bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        args: list[str], message: str) -> None:
    argv = ["--trajectories", str(FIXTURES), *(a.format(tmp=tmp_path) for a in args)]
    assert bench.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_plot_numbers_never_overlap_each_other_even_on_one_spot(bench: ModuleType) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    spots = [(0.5, 0.5)] * 6 + [(0.52, 0.51), (0.1, 0.9), (0.95, 0.05)]
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    bench._place_numbers(ax, renderer, [(x, y, 30.0) for x, y in spots],
                         [(x, y, str(n), "black") for n, (x, y) in enumerate(spots, 1)])
    boxes = [Text.get_window_extent(t, renderer) for t in ax.texts]
    assert sorted(t.get_text() for t in ax.texts) == sorted(str(n) for n in range(1, 10))
    assert not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.overlaps(b)]
    panel = ax.get_window_extent(renderer)
    assert all(panel.x0 <= b.x0 and b.x1 <= panel.x1 and panel.y0 <= b.y0 and b.y1 <= panel.y1
               for b in boxes)
    plt.close(fig)


def test_the_plot_numbers_the_defaults_the_frontier_and_every_other_policy_in_key_order(
        bench: ModuleType) -> None:
    rows = [_row(bench, "ctxmgr defaults", 0.6, 0.98, window="32k"),
            _row(bench, "ctxmgr 0.8/0.1", 0.61, 0.98, window="32k", frontier=True),
            _row(bench, "none", 1.0, 1.0, window="32k", kind="baseline"),
            _row(bench, PEER, 1.0, 1.0, window="32k", kind="peer", over_budget_calls=3),
            _row(bench, "ideal_drop_oldest", 2.4, 0.99, window="32k", kind="reference"),
            _row(bench, "ctxmgr defaults", 0.5, 0.9, window="4k"),
            _row(bench, "none", 1.0, 1.0, window="4k", kind="baseline")]
    assert [(n, r.policy) for n, r in bench._numbered(rows[:5])] == [
        (1, "ctxmgr defaults"), (2, "ctxmgr 0.8/0.1"), (3, "none"), (4, PEER),
        (5, "ideal_drop_oldest")]  # save_plot draws them: see the test writing a PNG


def test_a_variant_of_a_rare_setting_is_replayed_like_any_other(
        bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    # identifiers_chars lives in Tuning: the variant sets it through evolve(), as users do
    rc = bench.main(["--trajectories", str(FIXTURES), "--window", "4k tau", "--variant",
                     "ids 1,200", "--peers", PEER])
    assert rc == 0
    assert "| ctxmgr ids 1,200 |" in capsys.readouterr().out
