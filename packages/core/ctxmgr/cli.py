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

_Command = tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]
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

    with open(path, encoding="utf-8") as f:
        data = json.load(f)
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
    try:
        from langchain.chat_models import init_chat_model

        from ctxmgr_langgraph.summarizer import LangChainSummarizer
    except ImportError:
        raise UsageError(f'--summarizer {spec} needs LangChain: pip install "ctxmgr[langgraph]" '
                         "plus the provider's package (e.g. langchain-openai)") from None
    try:
        return LangChainSummarizer(init_chat_model(spec))
    except Exception as exc:  # provider packages raise many kinds of errors
        raise UsageError(f"cannot create summarizer {spec!r}: {exc}") from None


def _store(directory: str | None):
    from ctxmgr.store.files import FileStore

    return FileStore(directory)


def _write_json(data: object, out: str | None) -> None:
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


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
                               session=_CLI_SESSION)
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

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
