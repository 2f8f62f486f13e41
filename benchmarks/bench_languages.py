"""Instruction survival in fourteen languages, and on an outside-style family.

Generates seeded polyglot sessions (``benchmarks/planted/polyglot.py``): the same
planted items (safety rules, constraints with a value, instructions without a value,
facts, goals, preferences; five updated later with a new value) at the same turns, said
in each language's own words around its own chatter (``benchmarks/planted/languages``),
and an outside-style family of typed checklists, markdown lists, terse fragments,
all-caps warnings, rules said in passing and rules buried in pasted emails and logs.
Each session is compressed into a window of ``int(share x its tokens)`` by ctxmgr
(``AutoContextMemory`` with its default summarizer) and by the ``ceiling`` oracle, and
scored by ``benchmarks/planted/kept.py``: an item with a value survives when its values
are in the prompt and its latest value has the last word; one without a value when a
sentence that said it is there (both after NFKC and collapsing whitespace).

    python benchmarks/bench_languages.py [--sessions 40] [--languages en de ...]
        [--kinds chat] [--shares 0.5 0.3 0.2 0.1] [--outside-sessions 20]
        [--outside-languages en de ru zh] [--outside-shares 0.3 0.2 0.1] [--no-outside]
        [--rounds 1] [--mode objects] [--no-ceiling] [--first-seed 0] [--json OUT]
        [--markdown benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn, cast

from planted.compressors import ceiling_compressor
from planted.languages import ITEM_TYPES, LANGUAGE_CODES, OUTSIDE_CODES
from planted.polyglot import (
    KINDS,
    Family,
    Kind,
    PolyglotSession,
    PolyglotSpec,
    generate_polyglot_sessions,
)
from planted.polyglot_protocol import (
    ALL_LANGUAGES,
    LATEST_TARGETS,
    NATIVE_SHARES,
    OUTSIDE_SHARES,
    RELATIVE_TARGETS,
    VALUELESS_TARGETS,
    Check,
    PolyglotRun,
    Survival,
    run_polyglot,
    summarize_polyglot,
    target_checks,
)
from planted.protocol import MODES

from ctxmgr.replay.report import replace_markdown_section
from ctxmgr.tokens import default_counter

MARK = "bench_languages"
NAME = "bench_languages"


def _fail(message: str) -> int:
    print(f"{NAME}: {message}", file=sys.stderr)
    return 2


class _Parser(argparse.ArgumentParser):
    """argparse, with its own errors (``--sessions x``) in one line too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{NAME}: {message}\n")


def _check(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments, in one line (``None``: nothing)."""
    for flag, value in (("--sessions", args.sessions), ("--rounds", args.rounds),
                        ("--outside-sessions", args.outside_sessions)):
        if value < 1:
            return f"{flag} must be at least 1, got {value}"
    for name, given, known in (("language", args.languages, LANGUAGE_CODES),
                               ("outside language", args.outside_languages, OUTSIDE_CODES),
                               ("kind", args.kinds, KINDS)):
        unknown = [g for g in given if g not in known]
        if unknown:
            return f"unknown {name} {unknown[0]!r} (known: {', '.join(known)})"
    if args.mode not in MODES:
        return f"unknown mode {args.mode!r} (known: {', '.join(MODES)})"
    bad = [s for s in (*args.shares, *args.outside_shares) if not 0 < s <= 1]
    if bad:
        return f"shares must be in (0, 1], got {bad[0]}"
    if args.markdown is not None and not args.markdown.resolve().parent.is_dir():
        return f"--markdown: folder {args.markdown.parent} does not exist"
    if args.json is not None and args.json.exists() and args.json.is_dir():
        return f"--json: {args.json} is a folder"
    return None


# ---------------------------------------------------------------- tables


def _pct(share: float) -> str:
    return f"{share * 100:.0f} %"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _index(summaries: Iterable[Survival]) -> dict[tuple[Any, ...], list[Survival]]:
    out: dict[tuple[Any, ...], list[Survival]] = {}
    for s in summaries:
        out.setdefault((s.compressor, s.family, s.language, s.kind, s.share), []).append(s)
    return out


def _worst(index: dict[tuple[Any, ...], list[Survival]], key: tuple[Any, ...],
           read: Callable[[Survival], float | None]) -> float | None:
    """``read`` of the worst round of ``key`` (``None``: not measured)."""
    values = [v for v in (read(s) for s in index.get(key, ())) if v is not None]
    return min(values) if values else None


def _pair(index: dict[tuple[Any, ...], list[Survival]], family: str, lang: str, kind: str,
          share: float, read: Callable[[Survival], float | None]) -> str:
    """``ctxmgr (ceiling)``, or ctxmgr alone when the ceiling did not run."""
    mine = _worst(index, ("ctxmgr", family, lang, kind, share), read)
    ceiling = _worst(index, ("ceiling", family, lang, kind, share), read)
    return _num(mine) if ceiling is None else f"{_num(mine)} ({_num(ceiling)})"


def _mark(check: Check | None) -> str:
    return "" if check is None else f" {check.verdict}"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], left: int = 1) -> str:
    lines = ["| " + " | ".join(head) + " |",
             "|" + "---|" * left + "--:|" * (len(head) - left)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _find(checks: Sequence[Check], what: str, share: float, kind: str) -> Check | None:
    return next((c for c in checks if c.what == what and c.share == share and c.kind == kind),
                None)


def language_table(by_language: Sequence[Survival], checks: Sequence[Check],
                   shares: Sequence[float], kind: str) -> str:
    """Survival per language and share, ctxmgr (ceiling), then each language against
    English where the target asks for it."""
    index = _index(by_language)
    langs = list(dict.fromkeys(s.language for s in by_language
                               if s.family == "native" and s.kind == kind))
    relative = [s for s in shares if s in RELATIVE_TARGETS]
    head = ["language", *(_pct(s) for s in shares), *(f"÷ en at {_pct(s)}" for s in relative)]
    rows = []
    for lang in langs:
        row = [lang, *(_pair(index, "native", lang, kind, s, lambda x: x.items.share)
                       for s in shares)]
        for s in relative:
            check = _find(checks, f"{lang} / English", s, kind)
            row.append("—" if check is None else f"{_num(check.figure)}{_mark(check)}")
        rows.append(row)
    return _table(head, rows)


def type_table(pooled: Sequence[Survival], shares: Sequence[float], family: str,
               kind: str) -> str:
    """Survival per item type over every language of ``family``: safety rules on their own
    line, instructions without a value on theirs, then the latest value of updated
    items and the stricter word-for-word reading."""
    index = _index(pooled)
    lines: list[tuple[str, Callable[[Survival], float | None]]] = [
        (f"{t}{' rules' if t == 'safety' else ''}", _by_type(t)) for t in ITEM_TYPES]
    lines += [("**without a value** (instructions, and safety rules naming no target)",
               lambda s: s.valueless.share),
              ("**latest value** of updated items", lambda s: s.latest.share),
              ("said word for word (every item)", lambda s: s.verbatim.share)]
    rows = [[name, *(_pair(index, family, ALL_LANGUAGES, kind, s, read) for s in shares)]
            for name, read in lines]
    return _table(["item type", *(_pct(s) for s in shares)], rows)


def _by_type(t: str) -> Callable[[Survival], float | None]:
    return lambda s: s.by_type[t].share


def target_table(by_language: Sequence[Survival], checks: Sequence[Check], kind: str) -> str:
    """Per language: instructions without a value and the latest value, at the shares
    the targets are set for, with safety rules beside them."""
    index = _index(by_language)
    langs = list(dict.fromkeys(s.language for s in by_language
                               if s.family == "native" and s.kind == kind))
    head = [*(f"without a value {_pct(s)}" for s in VALUELESS_TARGETS),
            *(f"latest value {_pct(s)}" for s in LATEST_TARGETS),
            "safety 30 %", "safety 20 %"]
    rows = []
    for lang in langs:
        row = [lang]
        for s in VALUELESS_TARGETS:
            check = _find(checks, f"{lang} without a value", s, kind)
            row.append(f"{_num(check.figure if check else None)}{_mark(check)}")
        for s in LATEST_TARGETS:
            check = _find(checks, f"{lang} latest value", s, kind)
            row.append(f"{_num(check.figure if check else None)}{_mark(check)}")
        for s in (0.3, 0.2):
            row.append(_num(_worst(index, ("ctxmgr", "native", lang, kind, s),
                                   lambda x: x.by_type["safety"].share)))
        rows.append(row)
    return _table(["language", *head], rows)


def outside_table(by_language: Sequence[Survival], pooled: Sequence[Survival],
                  checks: Sequence[Check], shares: Sequence[float], kind: str) -> str:
    """The outside-style family: overall, safety rules and items without a value per
    language, then every language together against the targets."""
    index = _index([*by_language, *pooled])
    langs = list(dict.fromkeys(s.language for s in by_language
                               if s.family == "outside" and s.kind == kind))
    head = ["language", *(f"overall {_pct(s)}" for s in shares),
            *(f"safety {_pct(s)}" for s in shares), *(f"no value {_pct(s)}" for s in shares)]
    rows = []
    for lang in [*langs, ALL_LANGUAGES]:
        row = [f"**{lang}**" if lang == ALL_LANGUAGES else lang]
        for read, what in ((lambda x: x.items.share, "outside overall"),
                           (lambda x: x.by_type["safety"].share, "outside safety"),
                           (lambda x: x.valueless.share, None)):
            for s in shares:
                cell = _pair(index, "outside", lang, kind, s, read)
                if lang == ALL_LANGUAGES and what is not None:
                    cell += _mark(_find(checks, what, s, kind))
                row.append(cell)
        rows.append(row)
    return _table(head, rows)


def targets_text(checks: Sequence[Check]) -> str:
    """Every target with its figure, misses first."""
    ordered = sorted(checks, key=lambda c: (c.passed, c.what, -c.share))
    passed = sum(c.passed for c in checks)
    lines = [f"{passed} of {len(checks)} targets met (ctxmgr, worst round)."]
    lines += [f"- {c.verdict} {c.what} at {_pct(c.share)}"
              f"{'' if c.kind == 'chat' else f' ({c.kind})'}: {_num(c.figure)} "
              f"(target ≥ {c.target:.2f}{' × English' if '/ English' in c.what else ''})"
              for c in ordered]
    return "\n".join(lines)


# ---------------------------------------------------------------- running


def _sizes(sessions: Sequence[PolyglotSession], counter: Any) -> dict[str, Any]:
    tokens = [counter.count_messages(s.messages) for s in sessions]
    return {"sessions": len(sessions),
            "messages_mean": round(statistics.mean(len(s.messages) for s in sessions), 1),
            "tokens_mean": round(statistics.mean(tokens)), "tokens_min": min(tokens),
            "tokens_max": max(tokens),
            "items_mean": round(statistics.mean(len(s.items) for s in sessions), 1),
            "valueless_mean": round(statistics.mean(sum(i.valueless for i in s.items)
                                                    for s in sessions), 1),
            "updated_mean": round(statistics.mean(sum(i.updated for i in s.items)
                                                  for s in sessions), 1)}


def _run(sessions: Sequence[PolyglotSession], shares: Sequence[float],
         args: argparse.Namespace, counter: Any) -> list[PolyglotRun]:
    runs: list[PolyglotRun] = []
    for session in sessions:
        runs += run_polyglot(session, shares=shares, rounds=args.rounds, mode=args.mode,
                             counter=counter)
        if not args.no_ceiling:
            runs += run_polyglot(session, shares=shares, rounds=args.rounds, mode=args.mode,
                                 compressor=ceiling_compressor(session), name="ceiling",
                                 counter=counter)
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=40,
                        help="sessions per language and kind (default 40)")
    parser.add_argument("--languages", nargs="+", default=list(LANGUAGE_CODES),
                        help="languages of the native family (default: all fourteen)")
    parser.add_argument("--kinds", nargs="+", default=["chat"],
                        help="session kinds: chat, tools (default: chat)")
    parser.add_argument("--shares", type=float, nargs="+", default=list(NATIVE_SHARES),
                        help="native windows as shares of each session (default 0.5 0.3 "
                             "0.2 0.1)")
    parser.add_argument("--outside-sessions", type=int, default=20,
                        help="outside-style sessions per language (default 20)")
    parser.add_argument("--outside-languages", nargs="+", default=list(OUTSIDE_CODES),
                        help=f"languages of the outside family (default: "
                             f"{' '.join(OUTSIDE_CODES)})")
    parser.add_argument("--outside-shares", type=float, nargs="+",
                        default=list(OUTSIDE_SHARES),
                        help="outside windows (default 0.3 0.2 0.1)")
    parser.add_argument("--no-outside", action="store_true",
                        help="leave out the outside-style family")
    parser.add_argument("--rounds", type=int, default=1,
                        help="compressions in a row, each of the previous prompt (default 1)")
    parser.add_argument("--mode", default="objects",
                        help="how a prompt is handed to the next round: objects or wire "
                             "(default objects)")
    parser.add_argument("--no-ceiling", action="store_true",
                        help="leave out the ceiling oracle")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first session")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every figure here")
    parser.add_argument("--markdown", type=Path, metavar="FILE",
                        help="write the tables into FILE (e.g. benchmarks/RESULTS.md)")
    args = parser.parse_args(argv)
    problem = _check(args)
    if problem:
        return _fail(problem)

    counter = default_counter()
    started, cpu_started = time.perf_counter(), time.process_time()
    runs: list[PolyglotRun] = []
    sizes: dict[str, dict[str, Any]] = {}
    families: list[tuple[Family, list[str], int, list[float]]] = [
        ("native", args.languages, args.sessions, args.shares)]
    if not args.no_outside:
        families.append(("outside", args.outside_languages, args.outside_sessions,
                         args.outside_shares))
    plans = [(family, kind, code, n, shares) for family, codes, n, shares in families
             for kind in dict.fromkeys(args.kinds) for code in dict.fromkeys(codes)]
    for family, kind, code, n, shares in plans:
        spec = PolyglotSpec(language=code, kind=cast(Kind, kind), family=family)
        sessions = generate_polyglot_sessions(n, spec, first_seed=args.first_seed)
        sizes[f"{family}/{kind}/{code}"] = _sizes(sessions, counter)
        runs += _run(sessions, list(dict.fromkeys(shares)), args, counter)
        print(f"{family} / {kind} / {code}: {n} sessions, "
              f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    by_language = summarize_polyglot(runs)
    pooled = summarize_polyglot(runs, pool_languages=True)
    checks = target_checks(by_language, pooled)
    seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu_started

    sections: list[tuple[str, str]] = []
    for kind in dict.fromkeys(args.kinds):
        suffix = "" if kind == "chat" else f" ({kind} sessions)"
        sections += [
            (f"Survival per language{suffix}: ctxmgr (ceiling), and against English",
             language_table(by_language, checks, args.shares, kind)),
            (f"Per item type, every language together{suffix}: ctxmgr (ceiling)",
             type_table(pooled, args.shares, "native", kind)),
            (f"Instructions without a value and latest values, per language{suffix} "
             "(ctxmgr)", target_table(by_language, checks, kind)),
        ]
        if not args.no_outside:
            sections += [
                (f"Outside-style family{suffix}: ctxmgr (ceiling)",
                 outside_table(by_language, pooled, checks, args.outside_shares, kind)),
                (f"Outside-style family per item type{suffix}: ctxmgr (ceiling)",
                 type_table(pooled, args.outside_shares, "outside", kind)),
            ]
    targets = targets_text(checks)
    print("\n\n".join(f"{title}\n\n{table}" for title, table in sections)
          + f"\n\nTargets: {targets}")

    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "sessions": sizes, "rounds": args.rounds, "mode": args.mode,
            "shares": args.shares, "outside_shares": args.outside_shares,
            "seconds": round(seconds, 1), "cpu_seconds": round(cpu_seconds, 1),
            "summaries": [s.to_json() for s in by_language],
            "pooled": [s.to_json() for s in pooled],
            "targets": [{"what": c.what, "share": c.share, "kind": c.kind,
                         "figure": None if c.figure is None else round(c.figure, 4),
                         "target": c.target, "passed": c.passed} for c in checks],
        }, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {args.json}", file=sys.stderr)
    if args.markdown:
        command = "python benchmarks/bench_languages.py " + " ".join(
            argv if argv is not None else sys.argv[1:])
        replace_markdown_section(args.markdown, MARK, _markdown(
            command.strip(), counter, (seconds, cpu_seconds), sizes, sections, targets))
        print(f"wrote {args.markdown}", file=sys.stderr)
    return 0


def _size_text(sizes: dict[str, dict[str, Any]], family: str) -> str:
    mine = [v for k, v in sizes.items() if k.startswith(f"{family}/")]
    if not mine:
        return "none"
    total = sum(v["sessions"] for v in mine)
    return (f"{total} sessions ({mine[0]['sessions']} per language), "
            f"{statistics.mean(v['messages_mean'] for v in mine):.0f} messages and "
            f"{min(v['tokens_min'] for v in mine):,}-{max(v['tokens_max'] for v in mine):,} "
            f"tokens each, {statistics.mean(v['items_mean'] for v in mine):.0f} items of "
            f"which {statistics.mean(v['valueless_mean'] for v in mine):.1f} without a value "
            f"and {statistics.mean(v['updated_mean'] for v in mine):.0f} updated")


def _markdown(command: str, counter: Any, seconds: tuple[float, float],
              sizes: dict[str, dict[str, Any]],
              sections: Sequence[tuple[str, str]], targets: str) -> str:
    return "\n\n".join([
        "## Instruction survival in fourteen languages, and an outside-style family",
        f"Produced by `{command}` (Python {platform.python_version()}, token counter "
        f"`{counter!r}`, **{seconds[1]:.0f} s of CPU** on one core, {seconds[0]:.0f} s of "
        "wall-clock time on a shared machine). Native family: "
        f"{_size_text(sizes, 'native')}. Outside-style family: "
        f"{_size_text(sizes, 'outside')}.",
        "The same seed plants the same items (safety rules, constraints with a value, "
        "instructions without a value such as \"always reply in Czech\" or \"no emojis\", "
        "facts, goals, preferences) at the same turns in every language, each said in "
        "that language's own words, forms (imperative, polite request, modal, negation, "
        "conditional, first person, question, casual) and punctuation, among its own "
        "chatter, pasted emails and logs; amounts, dates and times are written as people "
        "there write them (`4565元`, `５０００元`, `3万円`, `50만 원`, `1 250 ₽`, `%15`, "
        "`١٥٪`). The outside-style family (en, de, ru, zh) is written unlike any of our "
        "generators: typed checklists and markdown lists of several rules, terse "
        "fragments, all-caps warnings, a rule said once in the middle of a long "
        "paragraph, a rule buried in a forwarded email or a pasted log. Each session is "
        "compressed into a window of `int(share x its tokens)` by ctxmgr "
        "(`AutoContextMemory(AutoContextConfig(max_tokens=window))`, default summarizer) "
        "and by the `ceiling` oracle, which knows what was planted and keeps the shortest "
        "sentence saying each item's latest value, as many as fit beside the pinned "
        "messages, in a note with ctxmgr's markup.",
        "An item **with a value** survives when each of its values is in the prompt's "
        "visible text and, once updated, its latest value has the last word; an item "
        "**without a value** survives when a sentence that said it is in the prompt word "
        "for word. Both are compared after Unicode NFKC and collapsing whitespace. "
        "*Said word for word*: a sentence that said the item (with its latest value) is "
        "there, for every item. Figures are the worst round; cells read `ctxmgr "
        "(ceiling)`. The targets (PASS/MISS beside the figures): every language "
        "≥ 0.95 of English's survival at 50, 30 and 20 %; instructions without a value "
        "≥ 0.95 at 50 % and ≥ 0.90 at 30 %; the latest value ≥ 0.95 at 30 %; the "
        "outside-style family ≥ 0.95 / 0.80 / 0.30 at 30 / 20 / 10 %, its safety rules "
        "≥ 0.95 at 30 and 20 %.",
        *(f"### {title}\n\n{table}" for title, table in sections),
        f"### Targets\n\n{targets}",
    ])


if __name__ == "__main__":
    sys.exit(main())
