"""The ``ctxmgr`` command line: argument parsing and exit codes, no logic of its own.

One module per sub-command (``compress``, ``reload``, ``search``, ``demo``, ``replay``,
``tune``, ``memo``, ``prune``), each with ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``;
they import what they need when they run, so ``ctxmgr --help`` stays fast.
``main`` turns every expected failure (bad input, unreadable file, invalid
JSON, a ctxmgr error, an argument error) into one line on stderr and exit
code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NoReturn, TextIO

from ctxmgr._version import __version__
from ctxmgr.cli import compress, demo, memo, prune, reload, replay, search, tune
from ctxmgr.cli._common import EXIT_BAD_INPUT, EXIT_OK
from ctxmgr.errors import CtxmgrError

__all__ = ["main"]

_COMMANDS: dict[str, ModuleType] = {
    "demo": demo, "compress": compress, "reload": reload, "search": search, "replay": replay,
    "memo": memo, "prune": prune, "tune": tune}


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other ctxmgr error."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ctxmgr",
                     description="Keep long-running LLM agents inside their context window.")
    parser.add_argument("--version", action="version", version=f"ctxmgr {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module in _COMMANDS.items():
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 bad input, 130 interrupted)."""
    parser = _parser()
    try:
        args, extra = parser.parse_known_args(argv)
    except SystemExit as exc:  # --help, --version, or an argument error already printed
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    if extra and not _late_positionals(args, extra):
        command = f"ctxmgr {args.command}" if args.command else "ctxmgr"
        print(f"{command}: error: unrecognized arguments: {' '.join(extra)} (see {command} "
              "--help)", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not args.command:
        parser.print_help()
        return EXIT_OK
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning(args.command)
            code: int = _COMMANDS[args.command].run(args)
        return code
    except (CtxmgrError, OSError, json.JSONDecodeError, UnicodeDecodeError, RecursionError
            ) as exc:
        print(f"ctxmgr {args.command}: error: {_describe(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"ctxmgr {args.command}: interrupted", file=sys.stderr)
        return 130


def _late_positionals(args: argparse.Namespace, extra: list[str]) -> bool:
    """Give a sub-command the positionals argparse left over: an optional positional
    after an option (``memo read --session S KEY``) is not matched by argparse itself."""
    take = getattr(_COMMANDS.get(args.command or ""), "take_positionals", None)
    return bool(take is not None and take(args, extra))


def _one_line_warning(command: str) -> Callable[..., None]:
    """Warnings as one ``ctxmgr COMMAND: warning: ...`` line on stderr, like errors."""

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: TextIO | None = None, line: str | None = None) -> None:
        print(f"ctxmgr {command}: warning: {message}", file=sys.stderr)

    return show


def _describe(exc: BaseException) -> str:
    """One line saying what went wrong, naming the file when there is one."""
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to process"
    if isinstance(exc, OSError) and exc.filename is not None and not isinstance(exc, CtxmgrError):
        return f"{exc.strerror or exc}: {exc.filename}"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
