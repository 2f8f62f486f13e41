"""``ctxmgr prune --older-than AGE``: remove sessions of a file store nothing wrote to lately."""

from __future__ import annotations

import argparse
import re

from ctxmgr.cli._common import EXIT_OK, UsageError, plural

__all__ = ["HELP", "add_arguments", "parse_age", "run"]

HELP = "Remove the offloads and memos of sessions not written to for a while."

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
_AGE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--older-than", required=True, metavar="AGE",
                   help="idle time after which a session goes: a number and a unit "
                        "(s, m, h, d or w), e.g. 30d")
    p.add_argument("--store", help="store root (default: $CTXMGR_HOME, .env, ~/.ctxmgr)")
    p.add_argument("--dry-run", action="store_true", help="list what would go; remove nothing")


def parse_age(text: str) -> float:
    """Seconds in an age such as ``30d``, ``12h`` or ``1.5w``.

    Raises:
        UsageError: not a positive number followed by s, m, h, d or w.
    """
    match = _AGE.fullmatch(text)
    seconds = float(match[1]) * _UNITS[match[2]] if match else 0.0
    if not seconds > 0:
        raise UsageError(f"--older-than must be a positive number and a unit (s, m, h, d or "
                         f"w), e.g. 30d; got {text!r:.60}")
    return seconds


def run(args: argparse.Namespace) -> int:
    from ctxmgr.settings import home
    from ctxmgr.store import prune_file_store

    older_than_s = parse_age(args.older_than)
    root = home(args.store)
    if not root.is_dir():
        raise UsageError(f"--store {str(root)!r} is not a folder")
    report = prune_file_store(root, older_than_s=older_than_s, dry_run=args.dry_run)
    for project, session in report.sessions:
        print(f"{project}/{session}")
    verb = "would remove" if args.dry_run else "removed"
    print(f"{verb} {plural(len(report.sessions), 'session')} under {root} that nothing was "
          f"written to for {args.older_than.strip()}: {plural(report.files, 'file')}, "
          f"{plural(report.bytes, 'byte')}")
    return EXIT_OK
