"""``ctxmgr reload ID``: the original messages behind an offload id, as OpenAI JSON."""

from __future__ import annotations

import argparse

from ctxmgr.cli._common import CLI_PROJECT, CLI_SESSION, EXIT_OK, UsageError, file_store
from ctxmgr.cli._io import check_output, write_output

__all__ = ["HELP", "add_arguments", "run"]

HELP = "Print the original messages behind an offload id, as OpenAI JSON."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("offload_id", metavar="ID", help="the uuid from a CONTEXT_OFFLOAD tag")
    p.add_argument("--store", metavar="DIR", help="offload store used by compress")
    p.add_argument("-o", "--output", metavar="OUT.json", help="write here (default: stdout)")


def run(args: argparse.Namespace) -> int:
    from ctxmgr.autocontext.offload import OffloadStore
    from ctxmgr.convert import to_openai
    from ctxmgr.errors import OffloadNotFoundError, StoreError

    check_output(args.output, "-o")
    store = file_store(args.store)
    offload = OffloadStore(store, project=CLI_PROJECT, session=CLI_SESSION)
    try:
        data = {"messages": to_openai(offload.load(args.offload_id))}
    except OffloadNotFoundError:
        raise
    except (StoreError, ValueError, TypeError, KeyError, AttributeError, AssertionError,
            RecursionError) as exc:
        # A blob cut short, emptied, or holding something other than saved messages.
        path = store.path(offload.namespace, f"{args.offload_id}.json")
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise UsageError(f"cannot read offload {args.offload_id} from {path}: the file is "
                         f"damaged ({type(exc).__name__}{': ' + reason if reason else ''})"
                         ) from None
    write_output(data, args.output, command="reload")
    return EXIT_OK
