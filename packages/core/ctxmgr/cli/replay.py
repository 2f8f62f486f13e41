"""``ctxmgr replay PATH...``: replay recorded runs under context policies and compare them.

Costs are priced alike for every policy: ``--cache-read RATE`` is the price of a cached
prompt token and ``--cache-write RATE`` that of an uncached one, which the provider writes
to its cache, both relative to a plain uncached input token (defaults 0.1 and 1.0, SPEC
§8's; Anthropic's 5-minute cache: ``--cache-write 1.25``; OpenAI: no write surcharge, and
reads at 0.5 for gpt-4o, 0.25 for gpt-4.1, 0.1 for gpt-5).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ctxmgr.cli._common import EXIT_OK, UsageError, check_max_tokens, plural
from ctxmgr.cli._io import check_output, write_output

if TYPE_CHECKING:
    from ctxmgr.replay import Policy, Pricing, ReplayReport, Trajectory
    from ctxmgr.replay.summarizer import FakeSummarizer
    from ctxmgr.tokens import TokenCounter

__all__ = ["HELP", "add_arguments", "add_source_arguments", "read_pricing", "read_source_arguments",
           "run"]

HELP = ("Replay recorded trajectories under context policies and compare their token "
        "economics.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="recorded runs: trajectory files (.json, .jsonl, or a plain OpenAI "
                        "messages list), LangSmith runs (JSON lines), OpenTelemetry GenAI "
                        "spans (OTLP JSON), a LangGraph checkpointer (a SQLite file or a "
                        "postgresql:// URI), or directories of them")
    add_source_arguments(p)
    p.add_argument("--max-tokens", type=int, default=32_000,
                   help="the context budget under test (default 32000)")
    p.add_argument("--policy", action="extend", nargs="+", metavar="NAME",
                   help="policies to compare, as names or a comma list (default: every one "
                        "installed here; --list-policies shows them): none, ctxmgr, and the "
                        "peers langchain_summarization, langchain_context_editing, "
                        "langmem_summarize, llamaindex_memory, llamaindex_summary_buffer")
    p.add_argument("--cache-read", type=float, default=0.1, metavar="RATE",
                   help="price of a cached prompt token relative to an uncached one "
                        "(default 0.1; OpenAI gpt-4o 0.5)")
    p.add_argument("--cache-write", type=float, default=1.0, metavar="RATE",
                   help="price of an uncached prompt token, which the provider writes to its "
                        "cache, relative to a plain input token (default 1.0: no surcharge; "
                        "Anthropic's 5-minute cache 1.25, its 1-hour cache 2)")
    p.add_argument("--list-policies", action="store_true",
                   help="list every known policy, whether it can run here and, if not, "
                        "the extra to install; then exit")
    p.add_argument("--summarizer", default="extractive",
                   help="extractive (default): the shared deterministic fake summarizer "
                        "(a fixed ~1,200-character answer); provider:model: a LangChain chat "
                        "model (init_chat_model) answers every policy's summary requests")
    p.add_argument("--json", metavar="OUT", help="write the report here as JSON "
                                                  "(numbers JSON cannot hold become null)")
    p.add_argument("--plot", metavar="OUT.png", help="write a PNG of prompt tokens per call "
                                                     '(needs matplotlib: ".[replay]")')


def run(args: argparse.Namespace) -> int:
    from ctxmgr.replay import PolicyContext, available_policies, create_policy
    from ctxmgr.replay.summarizer import FakeSummarizer, ModelSummarizer
    from ctxmgr.tokens import default_counter

    if args.list_policies:
        return _list_policies()
    names, swallowed = _policy_names(args.policy)
    args.paths = [*args.paths, *swallowed]
    if not args.paths:
        raise UsageError("give at least one trajectory PATH (or --list-policies)")
    check_max_tokens(args.max_tokens)
    pricing = read_pricing(args)
    if args.summarizer not in ("extractive", "fake") and ":" not in args.summarizer:
        raise UsageError(f"--summarizer must be extractive or provider:model, got "
                         f"{args.summarizer!r}")
    _check_paths(args.paths)
    check_output(args.json, "--json")
    check_output(args.plot, "--plot")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError('--plot needs matplotlib: pip install ".[replay]"') from None
    trajectories = read_source_arguments(args)
    names = names or available_policies()
    counter = default_counter()
    if ":" in args.summarizer:
        from ctxmgr.cli._summarizers import model_summarizer

        summarizer: FakeSummarizer = ModelSummarizer(counter, model_summarizer(args.summarizer))
    else:
        summarizer = FakeSummarizer(counter)
    context = PolicyContext(budget=args.max_tokens, counter=counter, summarizer=summarizer)
    policies = [create_policy(n, context) for n in names]  # fails early on a missing extra
    report = _run_with_progress(trajectories, policies, args.max_tokens, counter, summarizer,
                                pricing)
    _show(report, trajectories, args)
    return EXIT_OK


def read_pricing(args: argparse.Namespace) -> Pricing:
    """The cache rates ``--cache-read`` and ``--cache-write`` give.

    Raises:
        UsageError: a rate that is negative or not finite, or a read above the write.
    """
    import math

    from ctxmgr.replay import Pricing

    for option, value in (("--cache-read", args.cache_read), ("--cache-write", args.cache_write)):
        if not math.isfinite(value) or value < 0:
            raise UsageError(f"{option} must be a number >= 0 (a price relative to an "
                             f"uncached token), got {value:g}")
    if args.cache_read > args.cache_write:
        raise UsageError(f"--cache-read {args.cache_read:g} is above --cache-write "
                         f"{args.cache_write:g}: a cached read never costs more than an "
                         "uncached token (were the two swapped?)")
    return Pricing(cache_read=args.cache_read, cache_write=args.cache_write)


def _policy_names(given: list[str] | None) -> tuple[list[str], list[str]]:
    """The policies ``--policy`` names (commas split them too), each once, and the
    trajectory paths it took in (``--policy ctxmgr RUN.json``: the option takes every
    word up to the next option, and a file is no policy).

    Raises:
        UsageError: a name that is neither a known policy nor an existing path (one line
            listing the known policies).
    """
    import os

    from ctxmgr.replay import policy_names

    if given and not any(n.strip() for value in given for n in value.split(",")):
        raise UsageError("--policy needs a policy name, got ''")
    known = policy_names()
    names: list[str] = []
    paths: list[str] = []
    for value in given or []:
        for word in ([value] if os.path.exists(value) else value.split(",")):
            if not word.strip():
                continue
            if word.strip() in known:
                names.append(word.strip())
            elif os.path.exists(word):
                paths.append(word)
            else:
                raise UsageError(f"unknown policy {word!r}; choose from {', '.join(known)} "
                                 '(peers come with the adapters: pip install -e ".[all]")')
    return list(dict.fromkeys(names)), paths


def _check_paths(paths: list[str]) -> None:
    """A PATH that does not exist but names a policy was meant for ``--policy``: say so."""
    import os

    from ctxmgr.replay import policy_names

    known = set(policy_names())
    for path in paths:
        if path in known and not os.path.exists(path):
            raise UsageError(f"{path!r} is a policy name, not a trajectory file: name "
                             f"policies with --policy (--policy none {path}, or a comma list)")


def add_source_arguments(p: argparse.ArgumentParser) -> None:
    """The options that say how to read the runs (shared with ``ctxmgr tune``)."""
    from ctxmgr.replay.sources import FORMATS

    p.add_argument("--format", choices=FORMATS, default="auto",
                   help="what the PATHs hold (default auto: detected per file): messages, "
                        "langgraph, langsmith or otlp")
    p.add_argument("--thread", action="append", metavar="ID",
                   help="read only this thread (a LangGraph thread id, a LangSmith thread "
                        "or trace, an OpenTelemetry conversation or trace); repeat for "
                        "more (default: all)")
    p.add_argument("--system-prompt", metavar="FILE",
                   help="a file holding the system prompt, put first in every run that has "
                        "none (create_agent keeps its system_prompt out of the checkpoint)")


def read_source_arguments(args: argparse.Namespace) -> list[Trajectory]:
    """The runs ``args.paths`` name, read as the source options say."""
    from ctxmgr.cli._io import read_trajectories

    system_prompt = None
    if args.system_prompt:
        with open(args.system_prompt, encoding="utf-8") as f:
            system_prompt = f.read()
    return read_trajectories(args.paths, format=args.format, threads=args.thread,
                             system_prompt=system_prompt)


def _list_policies() -> int:
    from ctxmgr.replay import policy_status

    for name, problem in policy_status().items():
        print(f"{name:<28} {'available' if problem is None else problem}")
    return EXIT_OK


def _run_with_progress(trajectories: Sequence[Trajectory], policies: Sequence[Policy],
                       budget: int, counter: TokenCounter, summarizer: FakeSummarizer,
                       pricing: Pricing) -> ReplayReport:
    from ctxmgr.replay import count_model_calls, replay

    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )
    except ImportError:
        return replay(trajectories, policies, budget=budget, counter=counter,
                      summarizer=summarizer, pricing=pricing)
    console = Console(stderr=True)
    if not console.is_terminal:  # a bar in a log is noise, and rich leaves a blank line
        return replay(trajectories, policies, budget=budget, counter=counter,
                      summarizer=summarizer, pricing=pricing)
    total = count_model_calls(trajectories) * len(policies)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("replaying", total=total)

        def progress(policy: str, n: int) -> None:
            bar.update(task, advance=n, description=f"replaying {policy}")

        return replay(trajectories, policies, budget=budget, counter=counter,
                      summarizer=summarizer, progress=progress, pricing=pricing)


def _show(report: ReplayReport, trajectories: Sequence[Trajectory],
          args: argparse.Namespace) -> None:
    """The table on stdout (rich when installed, else plain), then the files asked for."""
    from ctxmgr.replay import count_model_calls
    from ctxmgr.replay.report import format_table, pricing_note, print_table, save_plot
    from ctxmgr.replay.runner import OUTERMOST

    data = report.to_json()
    title = (f"{plural(len(trajectories), 'trajectory', 'trajectories')}, "
             f"{plural(count_model_calls(trajectories), 'model call')}, budget "
             f"{args.max_tokens:,} tokens, {pricing_note(data)}")
    tables = [(data, title)]
    if any(t.agent for t in trajectories):  # a multi-agent run: each agent beside its peers
        for agent, part in report.by_agent(trajectories).items():
            runs = [t for t in trajectories if (t.agent or OUTERMOST) == agent]
            tables.append((part.to_json(), f"agent {agent}: "
                           f"{plural(len(runs), 'run')}, "
                           f"{plural(count_model_calls(runs), 'model call')}"))
    for table, heading in tables:
        try:
            print_table(table, title=heading)
        except ImportError:
            print(format_table(table, title=heading))
    if args.json:
        write_output(data, args.json, command="replay")
        print(f"ctxmgr replay: wrote {args.json}", file=sys.stderr)
    if args.plot:
        save_plot(report, args.plot)
        print(f"ctxmgr replay: wrote {args.plot}", file=sys.stderr)
    failed = {n: b["aggregate"]["errors"] for n, b in data["policies"].items()
              if b["aggregate"]["errors"]}
    for name, count in failed.items():
        print(f"ctxmgr replay: warning: policy {name} failed on "
              f"{plural(count, 'trajectory', 'trajectories')}; see 'error' in the JSON rows",
              file=sys.stderr)
