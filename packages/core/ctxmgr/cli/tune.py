"""``ctxmgr tune PATH... --window N``: the config to use, chosen on the user's own runs."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ctxmgr.cli._common import EXIT_OK, UsageError, check_max_tokens, plural
from ctxmgr.cli._io import check_output, write_output
from ctxmgr.cli.replay import add_source_arguments, read_source_arguments

if TYPE_CHECKING:
    from ctxmgr.replay import Trajectory
    from ctxmgr.replay.tune import TuneResult

__all__ = ["HELP", "add_arguments", "run"]

HELP = ("Replay your own runs at your window under ctxmgr's defaults, the knobs around them "
        "and the installed peers, and print the config to use (as Python and as environment "
        "variables) with the table it was chosen from.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="recorded runs, in any format replay reads (see ctxmgr replay --help)")
    p.add_argument("--window", type=int, required=True, metavar="N",
                   help="your model's context window, in tokens")
    p.add_argument("--quick", action="store_true",
                   help="only the knobs nearest the defaults (trigger, target, working set)")
    p.add_argument("--peer", action="append", metavar="NAME",
                   help="a peer to compare (repeat for more; default: every one installed)")
    p.add_argument("--no-peers", action="store_true", help="compare ctxmgr's configs only")
    p.add_argument("--json", metavar="OUT", help="also write every row and the choice here")
    add_source_arguments(p)


def run(args: argparse.Namespace) -> int:
    from ctxmgr.replay import policy_names, policy_status
    from ctxmgr.replay.tune import QUICK_VARIANTS, TUNE_VARIANTS

    try:
        check_max_tokens(args.window)
    except UsageError as exc:
        raise UsageError(str(exc).replace("--max-tokens", "--window")) from None
    check_output(args.json, "--json")
    trajectories = read_source_arguments(args)  # bad input fails before any framework loads
    peers: list[str] = []
    if args.no_peers:
        pass
    elif args.peer:  # a peer whose framework is missing fails when created, naming it
        known = [n for n in policy_names() if n not in ("none", "ctxmgr")]
        for name in args.peer:
            if name not in known:
                raise UsageError(f"--peer {name}: not a peer (known: {', '.join(known)})")
        peers = list(dict.fromkeys(args.peer))
    else:
        peers = [n for n, problem in policy_status().items()
                 if problem is None and n not in ("none", "ctxmgr")]
    variants = QUICK_VARIANTS if args.quick else TUNE_VARIANTS
    result = _tune_with_progress(trajectories, args.window, variants, peers)
    _show(result, trajectories, args)
    return EXIT_OK


def _tune_with_progress(trajectories: list[Trajectory], window: int,
                        variants: dict[str, dict[str, object]], peers: list[str]
                        ) -> TuneResult:
    from ctxmgr.replay import count_model_calls
    from ctxmgr.replay.tune import tune

    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    except ImportError:
        return tune(trajectories, window=window, variants=variants, peers=peers)
    console = Console(stderr=True)
    if not console.is_terminal:  # a bar in a log is noise, and rich leaves a blank line
        return tune(trajectories, window=window, variants=variants, peers=peers)
    total = count_model_calls(trajectories) * (1 + len(peers) + len(variants))
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("tuning", total=total)

        def progress(policy: str, n: int) -> None:
            bar.update(task, advance=n, description=f"replaying {policy}")

        return tune(trajectories, window=window, variants=variants, peers=peers,
                    progress=progress)


def _show(result: TuneResult, trajectories: list[Trajectory], args: argparse.Namespace
          ) -> None:
    import dataclasses

    from ctxmgr.replay import count_model_calls

    calls = count_model_calls(trajectories)
    print(f"{plural(len(trajectories), 'run')}, {plural(calls, 'model call')}, window "
          f"{args.window:,} tokens; cost and cost with recovery are shares of no "
          "management\n")
    print(result.table())
    print(f"\nRecommended: {result.recommended.policy} ({result.reason}); {result.basis}.\n")
    print("In code:\n")
    print(f"    {result.python()}\n")
    print("Or, with no config passed, in the environment the adapters read:\n")
    for name, value in result.environment().items():
        print(f"    {name}={value}")
    if args.json:
        data = {"window": result.window, "recommended": result.recommended.policy,
                "reason": result.reason, "basis": result.basis, "python": result.python(),
                "environment": result.environment(),
                "rows": [{**dataclasses.asdict(r), "overrides": dict(r.overrides)}
                         for r in result.rows]}
        write_output(data, args.json, command="tune")
        print(f"ctxmgr tune: wrote {args.json}", file=sys.stderr)
