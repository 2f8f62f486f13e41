"""``ctxmgr demo``: replay a real recorded agent run through ctxmgr, offline.

By default a real LangChain ``create_agent`` agent with ``ContextMiddleware``
replays it (the model is scripted, the tools return the recorded outputs); without
the langgraph extra the run is replayed through AutoContextMemory alone, with a
one-line note saying what to install. ``--framework NAME`` picks the replay: an
adapter registers its demo (``run(budget=, trajectory=, progress=) -> DemoReport``)
under the ``ctxmgr.demos`` entry-point group, so the core names no framework.
``progress(i, n)`` is called per model call; a demo that can also passes the
context size and the compressions that fired (``progress(i, n, tokens, fired)``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from collections.abc import Callable
from typing import Any

from ctxmgr.cli._common import EXIT_OK, check_max_tokens

__all__ = ["DEFAULT_FRAMEWORK", "ENTRY_POINT_GROUP", "HELP", "MISSING_EXTRA", "add_arguments",
           "run"]

ENTRY_POINT_GROUP = "ctxmgr.demos"
DEFAULT_FRAMEWORK = "langgraph"
MISSING_EXTRA = ('note: replaying with AutoContextMemory alone; pip install ".[langgraph]" '
                 "to run the demo in a real LangGraph create_agent agent")

HELP = ("Replay a real recorded agent run through ctxmgr, offline (in a real LangGraph "
        "agent when the langgraph extra is installed), and show the savings.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-tokens", type=int, default=16_000,
                   help="context window to replay against (default 16000)")
    p.add_argument("--trajectory", metavar="PATH",
                   help="a trajectory file to replay instead of the bundled one (any format "
                        "`ctxmgr replay` reads: {\"id\", \"messages\"} JSON, JSONL, or a "
                        "plain OpenAI message list)")
    p.add_argument("--framework", choices=["core", *sorted(_framework_demos())],
                   default=None,
                   help="langgraph (default when installed): a real create_agent agent with "
                        "ContextMiddleware and a scripted model; llamaindex: a real "
                        "LlamaIndex ContextFunctionAgent (needs .[llamaindex]); core: "
                        "AutoContextMemory alone")


def _framework_demos() -> dict[str, importlib.metadata.EntryPoint]:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _framework_demo(name: str) -> Any:
    """The demo an adapter registered as ``name``, or one clear error line."""
    from ctxmgr.cli._common import UsageError

    try:
        return _framework_demos()[name].load()
    except ImportError as exc:
        raise UsageError(f"--framework {name} needs its adapter's extra: pip install "
                         f'".[{name}]" ({exc})') from None


def _default_demo() -> Any:
    """The LangGraph demo, or ``None`` (with a one-line note) when its extra is missing."""
    ep = _framework_demos().get(DEFAULT_FRAMEWORK)
    try:
        if ep is not None:
            return ep.load()
    except ImportError:
        pass
    print(MISSING_EXTRA, file=sys.stderr)
    return None


def run(args: argparse.Namespace) -> int:
    from ctxmgr.cli._common import UsageError
    from ctxmgr.cli._io import read_trajectories
    from ctxmgr.demo import render, run_demo, sparkline, timeline

    check_max_tokens(args.max_tokens, minimum=1000, what="at least 1000")
    trajectory = None
    if args.trajectory:
        runs = read_trajectories([args.trajectory])
        trajectory = max(runs, key=lambda t: sum(m.role == "assistant" for m in t.messages))
        if len(runs) > 1:  # a JSONL of many runs, as replay takes: show the longest
            print(f"ctxmgr demo: {args.trajectory} holds {len(runs)} runs; replaying the "
                  f"longest, {trajectory.id}", file=sys.stderr)
        if not any(m.role == "assistant" for m in trajectory.messages):
            raise UsageError(f"--trajectory {args.trajectory}: no model calls to replay (no "
                             "assistant message)")
    replay: Any = run_demo
    framework = args.framework
    if framework is None:
        demo = _default_demo()
        framework = "core" if demo is None else DEFAULT_FRAMEWORK
        replay = demo or run_demo
    elif framework != "core":
        replay = _framework_demo(framework)
    if framework != "core":
        print(f"A real {framework} agent replays the run; the model is scripted.")
    report = _with_progress(args.max_tokens, lambda progress: replay(
        budget=args.max_tokens, trajectory=trajectory, progress=progress))
    top = max(report.baseline)
    print(timeline(report))
    print("\ncontext size per model call (full height = "
          f"{top:,} tokens; the budget, {report.budget:,}, is "
          f"{round(8 * report.budget / top)} of 8):")
    print(f"  without ctxmgr  {sparkline(report.baseline, top=top)}")
    print(f"  with ctxmgr     {sparkline(report.managed, top=top)}\n")
    print(render(report))
    return EXIT_OK


Progress = Callable[..., None]
"""``progress(i, n, tokens=None, fired=())``: call ``i`` of ``n``, its context size and
the compressions made right before it."""


def _with_progress(budget: int, replay: Callable[[Progress], Any]) -> Any:
    """Run ``replay(progress)`` showing each call live on stderr: a rich progress bar with
    the context size against the budget, or, without rich, plain lines (every tenth
    call and every call a compression preceded)."""
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    except ImportError:
        def plain(i: int, n: int, tokens: int | None = None, fired: tuple[str, ...] = ()
                  ) -> None:
            if fired or i % 10 == 0 or i == n:
                size = (f"  context {tokens:,} / {budget:,} tokens" if tokens is not None
                        else "")
                print(f"call {i}/{n}{size}" + "".join(f"\n  {f}" for f in fired),
                      file=sys.stderr)
        return replay(plain)
    console = Console(stderr=True)
    with Progress(TextColumn("replaying model calls"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.description}"), console=console, transient=True) as bar:
        task = bar.add_task("", total=None)

        def live(i: int, n: int, tokens: int | None = None, fired: tuple[str, ...] = ()
                 ) -> None:
            size = f"context {tokens:,} / {budget:,} tokens" if tokens is not None else ""
            bar.update(task, completed=i, total=n, description=size)
            for f in fired:
                bar.console.print(f"call {i}: {f}", highlight=False, markup=False)
        return replay(live)
