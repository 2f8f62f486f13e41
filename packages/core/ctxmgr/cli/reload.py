"""``ctxmgr reload ID``: the original messages behind an offload id, as OpenAI JSON.

It finds what an agent offloaded as well as what ``ctxmgr compress`` did: see
:mod:`ctxmgr.cli._sessions` for the store, project and session options, and the short
ids it accepts.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ctxmgr.cli._common import EXIT_OK, UsageError
from ctxmgr.cli._io import check_output, write_output
from ctxmgr.cli._sessions import (
    Location,
    add_location_arguments,
    open_location,
    resolve_offload,
)

if TYPE_CHECKING:
    from ctxmgr.autocontext.offload import OffloadStore

__all__ = ["HELP", "add_arguments", "run"]

HELP = "Print the original messages behind an offload id, as OpenAI JSON."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("offload_id", metavar="ID",
                   help="the uuid from a CONTEXT_OFFLOAD tag, or its first 4 or more hex "
                        "digits (the demo prints 8) when no other offload starts with them")
    add_location_arguments(p)
    p.add_argument("-o", "--output", metavar="OUT.json", help="write here (default: stdout)")


def run(args: argparse.Namespace) -> int:
    from ctxmgr.autocontext.offload import OffloadStore
    from ctxmgr.convert import to_openai
    from ctxmgr.errors import OffloadNotFoundError, StoreError

    check_output(args.output, "-o")
    with open_location(args) as location:
        found = resolve_offload(location, args.offload_id)
        offload = OffloadStore(location.store, project=found.project, session=found.session)
        try:
            data = {"messages": to_openai(offload.load(found.offload_id))}
        except OffloadNotFoundError:
            raise
        except StoreError as exc:
            if "damaged" not in str(exc):
                raise  # the backend failed: main says so in one line
            raise _damaged(found.offload_id, exc, location, offload) from None
        except ( ValueError, TypeError, KeyError, AttributeError, AssertionError,
                RecursionError) as exc:
            raise _damaged(found.offload_id, exc, location, offload) from None
    if location.session is None or found.offload_id != args.offload_id.strip():
        print(f"ctxmgr reload: offload {found.offload_id}, project {found.project}, session "
              f"{found.session}", file=sys.stderr)
    write_output(data, args.output, command="reload")
    return EXIT_OK


def _damaged(offload_id: str, exc: Exception, location: Location, offload: OffloadStore
             ) -> UsageError:
    """A blob cut short, emptied, or holding something other than saved messages."""
    from ctxmgr.store.files import FileStore

    key = f"{offload_id}.json"
    where = (location.store.path(offload.namespace, key)
             if isinstance(location.store, FileStore) else location.described)
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return UsageError(f"cannot read offload {offload_id} from {where}: the data is damaged "
                      f"({type(exc).__name__}{': ' + reason if reason else ''})")
