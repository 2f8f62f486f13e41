"""Instruction survival: do the user's planted instructions survive repeated compression?

Generates seeded sessions (``benchmarks/planted``), chat-only and tool-heavy,
each with about twenty planted items (safety rules, hard constraints, facts, goals,
preferences; some updated later with a new value), in four disjoint phrasing families
(``design``, ``heldout``, ``probe``, ``fresh``). Each session is compressed into 30, 20
and 10 % of its size, five rounds in a row (each round compresses the previous round's
prompt in a fresh memory), handing prompts on as objects or through the OpenAI wire
format. Per share and round: survival overall, per item type and per position, the share of updated
items whose latest value stands, and rounds that overflowed. Two references run the
same protocol: a naive checklist compactor and a ceiling that knows what was planted.

    python benchmarks/bench_instructions.py [--sessions 100] [--kinds chat tools]
        [--families design heldout probe fresh] [--modes objects wire] [--shares 0.3 0.2 0.1]
        [--rounds 5] [--no-references] [--json OUT] [--markdown benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from planted import (
    FAMILIES,
    ITEM_TYPES,
    KINDS,
    MODES,
    POSITIONS,
    ROUNDS,
    SHARES,
    TARGETS,
    ProtocolRun,
    RoundSummary,
    SessionSpec,
    ceiling_compressor,
    checklist_compressor,
    ctxmgr_compressor,
    generate_sessions,
    missed_targets,
    run_protocols,
    summarize,
)

from ctxmgr.replay.report import replace_markdown_section
from ctxmgr.tokens import default_counter

MARK = "bench_instructions"
COMPRESSORS = ("ctxmgr", "checklist", "ceiling")


def _fail(message: str) -> int:
    print(f"bench_instructions: {message}", file=sys.stderr)
    return 2


class _Parser(argparse.ArgumentParser):
    """argparse, with its own errors (``--sessions x``) in one line too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"bench_instructions: {message}\n")


def _check(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments, in one line (``None``: nothing)."""
    if args.sessions < 1:
        return f"--sessions must be at least 1, got {args.sessions}"
    if args.rounds < 1:
        return f"--rounds must be at least 1, got {args.rounds}"
    for name, given, known in (("kind", args.kinds, KINDS),
                               ("family", args.families, FAMILIES),
                               ("mode", args.modes, MODES)):
        unknown = [g for g in given if g not in known]
        if unknown:
            return f"unknown {name} {unknown[0]!r} (known: {', '.join(known)})"
    bad = [s for s in args.shares if not 0 < s <= 1]
    if bad:
        return f"--shares must be in (0, 1], got {bad[0]}"
    if args.markdown is not None and not args.markdown.resolve().parent.is_dir():
        return f"--markdown: folder {args.markdown.parent} does not exist"
    return None


def _pct(share: float) -> str:
    return f"{share * 100:.0f} %"


def _ratio(kept: int, total: int) -> str:
    return f"{kept / total:.3f}" if total else "-"


def overview_table(summaries: Sequence[RoundSummary], rounds: int) -> str:
    """Survival per round, then the worst round's latest-value, with-words and overflow
    figures, one row per (kind, family, mode, share, compressor)."""
    head = ["kind", "family", "mode", "window", "compressor",
            *(f"round {r}" for r in range(1, rounds + 1)), "with words (worst)",
            "latest stands (worst)", "stale (worst)", "overflow rounds",
            "prompt / window (max)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 5 + "--:|" * (len(head) - 5)]
    for key, group in _groups(summaries):
        kind, family, mode, share, name = key
        by_round = {s.round: s for s in group}
        cells = [kind, family, mode, _pct(share), name]
        cells += [f"{by_round[r].survival:.3f}" if r in by_round else "-"
                  for r in range(1, rounds + 1)]
        cells.append(f"{min(s.with_words.share for s in group):.3f}")
        worst = min(group, key=lambda s: s.latest.share)
        cells.append(_ratio(worst.latest.kept, worst.latest.total))
        cells.append(f"{max(s.stale for s in group)} of {worst.latest.total}")
        over = sum(s.overflow_rounds for s in group)
        cells.append(f"{over} of {sum(s.sessions for s in group)}")
        cells.append(f"{max(max(s.prompt_to_window) for s in group):.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def detail_table(summaries: Sequence[RoundSummary], rounds: int, compressor: str) -> str:
    """Survival per item type and per position, round 1 -> last round."""
    head = ["kind", "family", "mode", "window", *ITEM_TYPES, *POSITIONS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 4 + "--:|" * (len(head) - 4)]
    for key, group in _groups(summaries):
        kind, family, mode, share, name = key
        if name != compressor:
            continue
        by_round = {s.round: s for s in group}
        first, last = by_round.get(1), by_round.get(rounds)
        if first is None or last is None:
            continue
        cells = [kind, family, mode, _pct(share)]
        cells += [f"{first.by_type[t].share:.2f} → {last.by_type[t].share:.2f}"
                  for t in ITEM_TYPES]
        cells += [f"{first.by_position[p].share:.2f} → {last.by_position[p].share:.2f}"
                  for p in POSITIONS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _groups(summaries: Sequence[RoundSummary]
            ) -> list[tuple[tuple[Any, ...], list[RoundSummary]]]:
    out: dict[tuple[Any, ...], list[RoundSummary]] = {}
    for s in summaries:
        out.setdefault((s.kind, s.family, s.mode, s.share, s.compressor), []).append(s)
    order = {name: k for k, name in enumerate(COMPRESSORS)}
    return sorted(out.items(), key=lambda kv: (KINDS.index(kv[0][0]),
                                               FAMILIES.index(kv[0][1]),
                                               MODES.index(kv[0][2]), -kv[0][3],
                                               order.get(kv[0][4], 99)))


def targets_line(summaries: Sequence[RoundSummary]) -> str:
    """Which (kind, family, mode) meet the retention targets with ctxmgr, in one sentence."""
    parts = []
    for kind in KINDS:
        for family in FAMILIES:
            for mode in MODES:
                mine = [s for s in summaries if s.compressor == "ctxmgr" and s.kind == kind
                        and s.family == family and s.mode == mode]
                if not mine:
                    continue
                missed = {s.share for s in mine if missed_targets([s])}
                verdict = ("all met" if not missed else "missed at "
                           + ", ".join(_pct(x) for x in sorted(missed, reverse=True)))
                parts.append(f"{kind} / {family} / {mode}: {verdict}")
    return "; ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=100,
                        help="sessions per kind and family (default 100)")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first session")
    parser.add_argument("--kinds", nargs="+", default=list(KINDS),
                        help="session kinds (default: chat tools)")
    parser.add_argument("--families", nargs="+", default=list(FAMILIES),
                        help="phrasing families (default: all four)")
    parser.add_argument("--modes", nargs="+", default=list(MODES),
                        help="how a prompt is handed to the next round (default: objects wire)")
    parser.add_argument("--shares", type=float, nargs="+", default=list(SHARES),
                        help="windows as shares of each session's tokens (default 0.3 0.2 0.1)")
    parser.add_argument("--rounds", type=int, default=ROUNDS,
                        help=f"compressions in a row (default {ROUNDS})")
    parser.add_argument("--no-references", action="store_true",
                        help="leave out the checklist and ceiling references")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every summary here")
    parser.add_argument("--markdown", type=Path, metavar="FILE",
                        help="write the tables into FILE (e.g. benchmarks/RESULTS.md)")
    args = parser.parse_args(argv)
    problem = _check(args)
    if problem:
        return _fail(problem)

    counter = default_counter()
    runs: list[ProtocolRun] = []
    sizes: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for kind in dict.fromkeys(args.kinds):
        for family in dict.fromkeys(args.families):
            spec = SessionSpec(kind=kind, family=family)
            sessions = generate_sessions(args.sessions, spec, first_seed=args.first_seed)
            tokens = [counter.count_messages(s.messages) for s in sessions]
            sizes[f"{kind}/{family}"] = {
                "sessions": len(sessions),
                "messages_mean": statistics.mean(len(s.messages) for s in sessions),
                "tokens_mean": statistics.mean(tokens),
                "tokens_min": min(tokens), "tokens_max": max(tokens),
                "items_mean": statistics.mean(len(s.items) for s in sessions),
                "updated_mean": statistics.mean(sum(i.updated for i in s.items)
                                                for s in sessions)}
            modes = list(dict.fromkeys(args.modes))
            for session in sessions:
                compressors = [("ctxmgr", ctxmgr_compressor)]
                if not args.no_references:
                    compressors += [("checklist", checklist_compressor),
                                    ("ceiling", ceiling_compressor(session))]
                for share in dict.fromkeys(args.shares):
                    for name, compressor in compressors:
                        runs += run_protocols(session, share=share, modes=modes,
                                              rounds=args.rounds, compressor=compressor,
                                              name=name, counter=counter)
            print(f"{kind} / {family}: {len(sessions)} sessions, "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    summaries = summarize(runs)
    seconds = time.perf_counter() - started

    overview = overview_table(summaries, args.rounds)
    detail = detail_table(summaries, args.rounds, "ctxmgr")
    targets = targets_line(summaries)
    print(overview + "\n\n" + detail + "\n\nTargets (ctxmgr): " + targets)

    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "sessions": sizes, "rounds": args.rounds, "shares": args.shares,
            "targets": {str(k): v for k, v in TARGETS.items()}, "seconds": round(seconds, 1),
            "summaries": [s.to_json() for s in summaries],
            "missed_targets": missed_targets(s for s in summaries if s.compressor == "ctxmgr"),
        }, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}", file=sys.stderr)
    if args.markdown:
        command = "python benchmarks/bench_instructions.py " + " ".join(
            argv if argv is not None else sys.argv[1:])
        size_text = "; ".join(
            f"{k}: {v['sessions']} sessions of {v['messages_mean']:.0f} messages and "
            f"{v['tokens_mean']:,.0f} tokens on average ({v['tokens_min']:,}-"
            f"{v['tokens_max']:,})" for k, v in sizes.items())
        body = "\n\n".join([
            "## Instruction survival: what the user said, through repeated compression",
            f"Produced by `{command.strip()}` (Python {platform.python_version()}, token "
            f"counter `{counter!r}`, {seconds:.0f} s). Generated sessions "
            f"(`benchmarks/planted`), {size_text}; each holds about "
            "20 planted items (safety rules, hard constraints, facts, goals, preferences) "
            "said early, in the middle and late, 5 of them updated later with a new value, "
            "in one of four disjoint phrasing families (`design` to design on; `heldout`, "
            "`probe` and `fresh` to check on, the last two written later by writers who had "
            "not read the selection code). Each session is compressed into a window of "
            "`int(share x its tokens)`, then each round compresses the previous round's "
            "prompt afresh with the same window; `objects` hands the prompt on as it is, "
            "`wire` through `to_openai` / `from_openai` (ctxmgr's markers are lost). ctxmgr is "
            "`AutoContextMemory(AutoContextConfig(max_tokens=window))` with its default "
            "summarizer.",
            "An item **survives** when every value it needs is in the prompt's visible "
            "text and, if it was updated, its latest value stands: it has the last word "
            "(the prompt is read in order, as the conversation was said; no replaced value "
            "shows after the latest one). `with words`: every value also sits on a line "
            "sharing at least two content words with what the user said (a bare list of "
            "identifiers does not count). `latest stands`: updated items whose latest "
            "value stands; `stale`: updated items still showing a replaced value anywhere "
            "(the strict reading). "
            "`overflow rounds`: rounds that ended over the budget (ctxmgr: "
            "`ContextOverflowError`, the pinned messages alone do not fit), of all "
            "session-rounds; `prompt / window`: the largest prompt against the window. "
            "References, not policies: `checklist` keeps the system messages, the task, "
            "every user sentence with a value or an imperative (oldest dropped first to "
            "fit) and the last exchange; `ceiling` knows what was planted and keeps the "
            "shortest sentence saying each item's latest value, as many as fit, beside the "
            "same pinned messages, in a note with ctxmgr's markup (its header, a line "
            "each, the count left out and the offload tag every stand-in carries). The "
            "targets: survival of at least "
            + ", ".join(f"{v:.2f} at {_pct(k)}" for k, v in TARGETS.items())
            + " in every round, and the latest value of every updated item at 30 and "
            "20 %.",
            f"**ctxmgr against the targets:** {targets}.",
            "### Survival per round",
            overview,
            "### ctxmgr per item type and position (round 1 → last round)",
            detail,
        ])
        replace_markdown_section(args.markdown, MARK, body)
        print(f"wrote {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
