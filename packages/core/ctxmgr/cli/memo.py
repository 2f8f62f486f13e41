"""``ctxmgr memo list|read|delete``: inspect the memos an agent wrote to disk."""

from __future__ import annotations

import argparse
import json
import sys

from ctxmgr.cli._common import EXIT_OK, UsageError, plural
from ctxmgr.cli._sessions import project_label

__all__ = ["HELP", "add_arguments", "run", "take_positionals"]

HELP = "Inspect memos on disk: list, read or delete."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["list", "read", "delete"])
    p.add_argument("key", nargs="?", help="the memo key (read, delete)")
    p.add_argument("--session", help="session id (default: every session of the project for "
                                     "list; the only session holding KEY for read/delete)")
    p.add_argument("--project", metavar="NAME|PATH",
                   help="the agent's working directory, or its project label (default: this "
                        "working directory's)")
    p.add_argument("--home", help="store root (default: $CTXMGR_HOME, .env, ~/.ctxmgr)")
    p.add_argument("--json", action="store_true", help="list: print JSON")


def take_positionals(args: argparse.Namespace, extra: list[str]) -> bool:
    """KEY given after an option (``memo read --session S KEY``), which argparse leaves over."""
    if args.key is None and len(extra) == 1 and not extra[0].startswith("-"):
        args.key = extra[0]
        return True
    return False


def run(args: argparse.Namespace) -> int:
    from ctxmgr.memo import MemoStore, memo_sessions, validate_memo_key
    from ctxmgr.settings import home as home_folder
    from ctxmgr.store.files import FileStore, project_dir_name

    home = home_folder(args.home)
    project = project_label(args.project) if args.project is not None else project_dir_name()
    store = FileStore(home)
    sessions = [args.session] if args.session else memo_sessions(home, project)

    def memos(session: str) -> MemoStore:
        return MemoStore(store, session=session, project=project)

    if args.action == "list":
        if args.key is not None:
            raise UsageError(f"memo list takes no KEY, got {args.key!r} (memo read KEY reads "
                             "one)")
        listing = {s: memos(s).list_memos() for s in sessions}
        if args.json:
            print(json.dumps({s: [e.to_dict() for e in es] for s, es in listing.items()},
                             ensure_ascii=False, indent=2))
            return EXIT_OK
        if not any(listing.values()):
            print(f"no memos for project {project} under {home}")
        for s, entries in listing.items():
            print(f"session {s}: {plural(len(entries), 'memo')}")
            for e in entries:
                print(f"  {e.key}  {e.summary}  ({plural(e.size, 'character')}, updated "
                      f"{e.updated or 'at an unknown time'})")
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
