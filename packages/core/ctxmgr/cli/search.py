"""``ctxmgr search QUERY``: the ``context_search`` tool from a shell.

It searches what an agent's compressions took out of its context (the offloaded
originals) and its memos, in the sessions the options select (see
:mod:`ctxmgr.cli._sessions`), and answers as the tool does: the newest matching lines
with a line of context, the offload id each was found under (``ctxmgr reload ID`` prints
its whole range) and how many more match. Archived tool results stay in the agent's
checkpointed history, out of the store, so they are not searched here.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING

from ctxmgr.cli._common import EXIT_OK, UsageError
from ctxmgr.cli._sessions import OFFLOAD_KIND, add_location_arguments, open_location

if TYPE_CHECKING:
    from ctxmgr.autocontext.hidden import Passage
    from ctxmgr.autocontext.search import SearchWording

__all__ = ["HELP", "add_arguments", "run"]

HELP = ("Search an agent's offloaded originals and memos for a line, as its context_search "
        "tool does.")

DEFAULT_MAX_RESULTS = 5


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", metavar="QUERY", help="the text to find (literal unless --regex)")
    p.add_argument("--regex", action="store_true", help="QUERY is a regular expression")
    p.add_argument("--max-results", type=int, default=DEFAULT_MAX_RESULTS, metavar="N",
                   help=f"matching lines a page holds (default {DEFAULT_MAX_RESULTS})")
    p.add_argument("--page", type=int, default=1, metavar="N", help="which page (default 1)")
    add_location_arguments(p)


def run(args: argparse.Namespace) -> int:
    from ctxmgr.autocontext.hidden import HiddenOriginals
    from ctxmgr.autocontext.offload import OffloadStore
    from ctxmgr.autocontext.search import answer_search
    from ctxmgr.memo import MEMO_KIND, MemoStore
    from ctxmgr.session.recovery import memo_passages

    for flag, value in (("--max-results", args.max_results), ("--page", args.page)):
        if value < 1:
            raise UsageError(f"{flag} must be a whole number from 1, got {value}")
    with open_location(args) as location:
        places: list[tuple[str, str]] = []
        for project in location.projects:
            sessions = sorted({*location.sessions(project, OFFLOAD_KIND),
                               *location.sessions(project, MEMO_KIND)})
            places.extend((project, s) for s in sessions)
        passages: list[Passage] = []
        for project, session in places:
            hidden = HiddenOriginals(OffloadStore(location.store, project=project,
                                                  session=session))
            memos = MemoStore(location.store, session=session, project=project)
            named = f"{project}/{session}" if len(location.projects) > 1 else session
            passages.extend(dataclasses.replace(p, label=f"{p.label}; session {named}")
                            for p in [*hidden.passages(()), *memo_passages(memos)])
    if not places:
        raise UsageError(f"nothing offloaded in {location.where()}; name the agent's project, "
                         "thread or store with --project, --thread or --store")
    text = answer_search(passages, {"query": args.query, "regex": args.regex,
                                    "max_results": args.max_results, "page": args.page},
                         where=_where, wording=_wording(args))
    if text.startswith("Error: "):
        raise UsageError(text.removeprefix("Error: "))
    print(text)
    return EXIT_OK


def _where(passage: Passage, _: int) -> str:
    source = passage.source
    if source.startswith("memo:"):
        return f'memo "{source[5:]}" (ctxmgr memo read {source[5:]} prints it)'
    return f"uuid={source}"


def _wording(args: argparse.Namespace) -> SearchWording:
    from ctxmgr.autocontext.search import SearchWording

    def next_page(page: int, size: int | None) -> str:
        sized = f" --max-results {size}" if size is not None else ""
        return f"the same command with{sized} --page {page}."

    return SearchWording(next_page=next_page, no_more="No more. ctxmgr reload UUID prints the "
                         "whole range a line came from.",
                         no_match="Try fewer words, another spelling, or --regex.")
