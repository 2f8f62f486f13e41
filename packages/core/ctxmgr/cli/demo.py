"""``ctxmgr demo``: replay a real recorded agent run through ctxmgr, offline.

``--framework NAME`` replays it through a framework's real agent instead: an adapter
registers its demo (``run(budget=, trajectory=, progress=) -> DemoReport``) under the
``ctxmgr.demos`` entry-point group, so the core names no framework.
"""

from __future__ import annotations

import argparse
import importlib.metadata
from typing import Any

from ctxmgr.cli._common import EXIT_OK, check_max_tokens

__all__ = ["ENTRY_POINT_GROUP", "HELP", "add_arguments", "run"]

ENTRY_POINT_GROUP = "ctxmgr.demos"

HELP = "Replay a real recorded agent run through ctxmgr, offline, and show the savings."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-tokens", type=int, default=16_000,
                   help="context window to replay against (default 16000)")
    p.add_argument("--trajectory", metavar="PATH",
                   help="a trajectory file to replay instead of the bundled one")
    p.add_argument("--framework", choices=["core", *sorted(_framework_demos())],
                   default="core",
                   help="core: AutoContextMemory alone (default); llamaindex: a real "
                        "LlamaIndex ContextFunctionAgent with a scripted model (needs "
                        "ctxmgr[llamaindex])")


def _framework_demos() -> dict[str, importlib.metadata.EntryPoint]:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _framework_demo(name: str) -> Any:
    """The demo an adapter registered as ``name``, or one clear error line."""
    from ctxmgr.cli._common import UsageError

    try:
        return _framework_demos()[name].load()
    except ImportError as exc:
        raise UsageError(f"--framework {name} needs its adapter's extra: pip install "
                         f'"ctxmgr[{name}]" ({exc})') from None


def run(args: argparse.Namespace) -> int:
    from ctxmgr.cli._common import UsageError
    from ctxmgr.cli._io import read_trajectories
    from ctxmgr.demo import render, run_demo, sparkline, timeline

    check_max_tokens(args.max_tokens, minimum=1000, what="at least 1000")
    trajectory = None
    if args.trajectory:
        runs = read_trajectories([args.trajectory])
        if len(runs) > 1:
            raise UsageError(f"--trajectory {args.trajectory} holds {len(runs)} runs; "
                             "give a file with one")
        trajectory = runs[0]
        if not any(m.role == "assistant" for m in trajectory.messages):
            raise UsageError(f"--trajectory {args.trajectory}: no model calls to replay (no "
                             "assistant message)")
    replay = run_demo
    if args.framework != "core":
        replay = _framework_demo(args.framework)
        print(f"A real {args.framework} agent replays the run; the model is scripted.")
    try:
        from rich.console import Console
        from rich.progress import Progress
    except ImportError:
        report = replay(budget=args.max_tokens, trajectory=trajectory)
    else:
        with Progress(console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("replaying model calls", total=None)
            report = replay(budget=args.max_tokens, trajectory=trajectory,
                            progress=lambda i, n: bar.update(task, completed=i, total=n))
    top = max(report.baseline)
    print(timeline(report))
    print("\ncontext size per model call (full height = "
          f"{top:,} tokens; the budget, {report.budget:,}, is "
          f"{round(8 * report.budget / top)} of 8):")
    print(f"  without ctxmgr  {sparkline(report.baseline, top=top)}")
    print(f"  with ctxmgr     {sparkline(report.managed, top=top)}\n")
    print(render(report))
    return EXIT_OK
