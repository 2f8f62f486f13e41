"""The ``ctxmgr`` command line: argument parsing and exit codes, no logic of its own.

Every sub-command is a function ``(args) -> int`` registered in ``_COMMANDS``;
``main`` turns any expected failure (bad input, unreadable file, invalid JSON,
a ctxmgr error) into one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from ctxmgr._version import __version__
from ctxmgr.errors import CtxmgrError

__all__ = ["main"]

EXIT_OK = 0
EXIT_BAD_INPUT = 2


class UsageError(CtxmgrError):
    """A command-line argument the user has to fix."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxmgr",
        description="Keep long-running LLM agents inside their context window.",
    )
    parser.add_argument("--version", action="version", version=f"ctxmgr {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, add_args, _) in _COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        add_args(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 bad input)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_OK
    run = _COMMANDS[args.command][2]
    try:
        return run(args)
    except (CtxmgrError, OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        print(f"ctxmgr {args.command}: error: {_describe(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"ctxmgr {args.command}: interrupted", file=sys.stderr)
        return 130


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None and not isinstance(exc, CtxmgrError):
        return f"{exc.strerror or exc}: {exc.filename}"
    return str(exc)


# --- sub-commands -----------------------------------------------------------------
# Each entry: name -> (help, add_arguments(parser), run(args) -> exit code).
# The run functions import their module lazily so `ctxmgr --help` stays fast.

_AddArgs = Callable[[argparse.ArgumentParser], None]
_Run = Callable[[argparse.Namespace], int]
_Command = tuple[str, _AddArgs, _Run]
_COMMANDS: dict[str, _Command] = {}


def command(name: str, help_text: str, add_args: Callable[[argparse.ArgumentParser], None]):
    """Register a sub-command's run function."""

    def register(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        _COMMANDS[name] = (help_text, add_args, run)
        return run

    return register


# --- memo ---------------------------------------------------------------------------


def _memo_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["list", "read", "delete"])
    p.add_argument("key", nargs="?", help="the memo key (read, delete)")
    p.add_argument("--session", help="session id (default: every session of the project for "
                                     "list; the only session holding KEY for read/delete)")
    p.add_argument("--project", help="project folder name (default: from the working directory)")
    p.add_argument("--home", help="store root (default: $CTXMGR_HOME, .env, ~/.ctxmgr)")
    p.add_argument("--json", action="store_true", help="list: print JSON")


@command("memo", "Inspect memos on disk: list, read or delete.", _memo_args)
def _memo(args: argparse.Namespace) -> int:
    from ctxmgr.memo import MemoStore, memo_sessions, validate_memo_key
    from ctxmgr.settings import Settings
    from ctxmgr.store.files import FileStore, project_dir_name

    home = Settings.resolve(home=args.home).home
    project = args.project or project_dir_name()
    store = FileStore(home)
    sessions = [args.session] if args.session else memo_sessions(home, project)

    def memos(session: str) -> MemoStore:
        return MemoStore(store, session=session, project=project)

    if args.action == "list":
        listing = {s: memos(s).list_memos() for s in sessions}
        if args.json:
            print(json.dumps({s: [e.to_dict() for e in es] for s, es in listing.items()},
                             ensure_ascii=False, indent=2))
            return EXIT_OK
        if not any(listing.values()):
            print(f"no memos for project {project} under {home}")
        for s, entries in listing.items():
            print(f"session {s}: {len(entries)} memo(s)")
            for e in entries:
                print(f"  {e.key}  {e.summary}  ({e.size} chars, updated {e.updated or '?'})")
        return EXIT_OK

    if not args.key:
        raise UsageError(f"memo {args.action} needs a KEY")
    validate_memo_key(args.key)
    holding = [s for s in sessions if memos(s).info(args.key) is not None]
    if not holding:
        raise UsageError(f"no memo {args.key!r} in project {project} under {home}"
                         + (f" (session {args.session})" if args.session else ""))
    if len(holding) > 1:
        raise UsageError(f"memo {args.key!r} exists in several sessions ({', '.join(holding)}); "
                         "pass --session")
    session = holding[0]
    if args.action == "read":
        sys.stdout.write(memos(session).read(args.key) or "")
        return EXIT_OK
    memos(session).delete(args.key)
    print(f"deleted memo {args.key!r} of session {session}")
    return EXIT_OK


# --- compress / reload ----------------------------------------------------------------

_CLI_PROJECT, _CLI_SESSION = "ctxmgr-cli", "default"


def _read_messages(path: str) -> list:
    """OpenAI messages from a file: a list, or an object with a "messages" list."""
    from ctxmgr.convert import from_openai
    from ctxmgr.pairing import assert_valid_pairing

    with open(path, "rb") as f:
        blob = f.read()
    try:
        data = json.loads(blob.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: cannot be read as utf-8 text ({exc.reason} at byte "
                         f"{exc.start})") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} "
                         f"column {exc.colno})") from None
    raw = data.get("messages") if isinstance(data, dict) else data
    if not isinstance(raw, list):
        raise UsageError(f"{path}: expected a list of messages or an object with a "
                         "'messages' list")
    messages = from_openai(raw)
    assert_valid_pairing(messages)
    return messages


def _summarizer(spec: str) -> object | None:
    from ctxmgr.autocontext.summarizers import ExtractiveSummarizer

    if spec == "extractive":
        return ExtractiveSummarizer()
    if spec == "none":
        return None
    if ":" not in spec:
        raise UsageError(f"--summarizer must be extractive, none or provider:model, got {spec!r}")
    model = _chat_model(spec)  # first: it explains a missing LangChain in one line
    from ctxmgr_langgraph.summarizer import LangChainSummarizer

    return LangChainSummarizer(model)


def _chat_model(spec: str):  # noqa: ANN202 - a LangChain BaseChatModel
    """A LangChain chat model from ``provider:model``, or one clear error line."""
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise UsageError(f'--summarizer {spec} needs LangChain: pip install "ctxmgr[langgraph]" '
                         "plus the provider's package (e.g. langchain-openai)") from None
    try:
        return init_chat_model(spec)
    except Exception as exc:  # provider packages raise many kinds of errors
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"cannot create summarizer {spec!r}: {first_line}") from None


def _store(directory: str | None):
    from ctxmgr.store.files import FileStore

    return FileStore(directory)


def _write_json(data: object, out: str | None) -> None:
    """Readable UTF-8 JSON; ``\\u`` escapes where the text holds lone surrogates (recorded
    tool output can), and the file appears whole or not at all."""
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=2) + "\n"
    if not out:
        sys.stdout.write(text)
        return
    import os
    import tempfile

    folder = os.path.dirname(os.path.abspath(out))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".ctxmgr-", suffix=".tmp")
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, out) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def _compress_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="IN.json", help="OpenAI-format messages (list or "
                                                    '{"messages": [...]})')
    p.add_argument("-o", "--output", metavar="OUT.json", help="write here (default: stdout)")
    p.add_argument("--max-tokens", type=int, default=128_000, help="context window (default "
                                                                   "128000)")
    p.add_argument("--summarizer", default="extractive",
                   help="extractive (default, no LLM), none (no LLM strategies) or "
                        "provider:model (a LangChain chat model)")
    p.add_argument("--store", metavar="DIR", help="offload store (default: $CTXMGR_HOME or "
                                                  "~/.ctxmgr)")


@command("compress", "Compress an OpenAI-format history; originals go to the offload store.",
         _compress_args)
def _compress(args: argparse.Namespace) -> int:
    from ctxmgr.autocontext import AutoContextConfig, AutoContextMemory
    from ctxmgr.convert import to_openai

    messages = _read_messages(args.input)
    try:
        config = AutoContextConfig(max_tokens=args.max_tokens)
    except ValueError as exc:
        raise UsageError(f"--max-tokens: {exc}") from None
    memory = AutoContextMemory(config, summarizer=_summarizer(args.summarizer),
                               store=_store(args.store), project=_CLI_PROJECT,
                               session=_CLI_SESSION, reload_hint=False)
    memory.add(messages)
    events = memory.compress_if_needed()
    _write_json({"messages": to_openai(memory.messages),
                 "events": [e.to_dict() for e in events]}, args.output)
    applied = [e for e in events if e.status == "applied"]
    print(f"ctxmgr compress: {len(messages)} -> {len(memory.messages)} messages, "
          f"{memory.tokens} tokens, {len(applied)} compression(s)", file=sys.stderr)
    return EXIT_OK


def _reload_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("offload_id", metavar="ID", help="the uuid from a CONTEXT_OFFLOAD tag")
    p.add_argument("--store", metavar="DIR", help="offload store used by compress")
    p.add_argument("-o", "--output", metavar="OUT.json", help="write here (default: stdout)")


@command("reload", "Print the original messages behind an offload id, as OpenAI JSON.",
         _reload_args)
def _reload(args: argparse.Namespace) -> int:
    from ctxmgr.autocontext.offload import OffloadStore
    from ctxmgr.convert import to_openai

    offload = OffloadStore(_store(args.store), project=_CLI_PROJECT, session=_CLI_SESSION)
    _write_json({"messages": to_openai(offload.load(args.offload_id))}, args.output)
    return EXIT_OK

# --- demo ---------------------------------------------------------------------------------


def _demo_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-tokens", type=int, default=16_000,
                   help="context window to replay against (default 16000)")
    p.add_argument("--trajectory", metavar="PATH",
                   help="a trajectory file to replay instead of the bundled one")


@command("demo", "Replay a real recorded agent run through ctxmgr, offline, and show the "
                 "savings.", _demo_args)
def _demo(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ctxmgr.demo import render, run_demo, sparkline, timeline

    if args.max_tokens < 1000:
        raise UsageError(f"--max-tokens must be at least 1000, got {args.max_tokens}")
    path = Path(args.trajectory) if args.trajectory else None
    try:
        from rich.console import Console
        from rich.progress import Progress
    except ImportError:
        report = run_demo(budget=args.max_tokens, path=path)
    else:
        with Progress(console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("replaying model calls", total=None)
            report = run_demo(budget=args.max_tokens, path=path,
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

# --- replay -----------------------------------------------------------------------------


def _replay_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="trajectory files (.json, .jsonl, or a plain OpenAI messages list) "
                        "or directories of them")
    p.add_argument("--max-tokens", type=int, default=32_000,
                   help="the context budget under test (default 32000)")
    p.add_argument("--policy", action="extend", nargs="+", metavar="NAME",
                   help="policies to compare (default: every one installed here): none, "
                        "ctxmgr, langchain_summarization, langchain_context_editing, "
                        "langmem_summarize, llamaindex_memory, llamaindex_summary_buffer")
    p.add_argument("--summarizer", default="extractive",
                   help="extractive (default): the shared deterministic fake summarizer "
                        "(a fixed ~1,200-character answer); provider:model: a LangChain chat "
                        "model (init_chat_model) answers every policy's summary requests")
    p.add_argument("--json", metavar="OUT", help="write the SPEC §8 JSON report here")
    p.add_argument("--plot", metavar="OUT.png", help="write a PNG of prompt tokens per call")


@command("replay", "Replay recorded trajectories under context policies and compare their "
                   "token economics.", _replay_args)
def _replay(args: argparse.Namespace) -> int:
    from ctxmgr.pairing import validate_pairing
    from ctxmgr.replay import (
        PolicyContext,
        available_policies,
        count_model_calls,
        create_policy,
        load_trajectories,
        replay,
    )
    from ctxmgr.replay.report import format_table, print_table, save_plot, write_json
    from ctxmgr.replay.summarizer import FakeSummarizer, ModelSummarizer
    from ctxmgr.tokens import default_counter

    if args.max_tokens < 1:
        raise UsageError(f"--max-tokens must be a positive number of tokens, got "
                         f"{args.max_tokens}")
    if args.summarizer not in ("extractive", "fake") and ":" not in args.summarizer:
        raise UsageError(f"--summarizer must be extractive or provider:model, got "
                         f"{args.summarizer!r}")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError('--plot needs matplotlib: pip install "ctxmgr[replay]"') from None
    trajectories = load_trajectories(args.paths)
    if not trajectories:
        raise UsageError(f"no trajectories found in {', '.join(args.paths)}")
    for t in trajectories:
        broken = validate_pairing(t.messages)
        if broken:
            raise UsageError(f"{t.id}: broken tool pairing in the input: {broken[0]}"
                             + (f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""))
    names = list(dict.fromkeys(args.policy or available_policies()))
    counter = default_counter()
    summarizer = (FakeSummarizer(counter) if ":" not in args.summarizer
                  else ModelSummarizer(counter, _chat_model(args.summarizer)))
    context = PolicyContext(budget=args.max_tokens, counter=counter, summarizer=summarizer)
    policies = [create_policy(n, context) for n in names]  # fails early on a missing extra
    total = count_model_calls(trajectories) * len(policies)
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
        report = replay(trajectories, policies, budget=args.max_tokens, counter=counter,
                        summarizer=summarizer)
    else:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn())
        with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("replaying", total=total)

            def progress(policy: str, n: int) -> None:
                bar.update(task, advance=n, description=f"replaying {policy}")

            report = replay(trajectories, policies, budget=args.max_tokens, counter=counter,
                            summarizer=summarizer, progress=progress)
    data = report.to_json()
    title = (f"{len(trajectories)} trajectories, {count_model_calls(trajectories)} model "
             f"calls, budget {args.max_tokens:,} tokens")
    try:
        print_table(data, title=title)
    except ImportError:
        print(format_table(data, title=title))
    if args.json:
        write_json(data, args.json)
        print(f"ctxmgr replay: wrote {args.json}", file=sys.stderr)
    if args.plot:
        save_plot(report, args.plot)
        print(f"ctxmgr replay: wrote {args.plot}", file=sys.stderr)
    failed = {n: b["aggregate"]["errors"] for n, b in data["policies"].items()
              if b["aggregate"]["errors"]}
    for name, count in failed.items():
        print(f"ctxmgr replay: warning: policy {name} failed on {count} trajectory(ies); "
              "see 'error' in the JSON rows", file=sys.stderr)
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
