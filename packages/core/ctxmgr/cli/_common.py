"""What the sub-commands share: the usage error, exit codes, argument checks, the store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxmgr.errors import CtxmgrError

if TYPE_CHECKING:
    from ctxmgr.store.files import FileStore

__all__ = [
    "CLI_PROJECT",
    "CLI_SESSION",
    "EXIT_BAD_INPUT",
    "EXIT_OK",
    "MAX_TOKENS_LIMIT",
    "UsageError",
    "check_max_tokens",
    "file_store",
    "plural",
]

EXIT_OK = 0
EXIT_BAD_INPUT = 2

CLI_PROJECT, CLI_SESSION = "ctxmgr-cli", "default"
"""The store namespace ``compress`` writes offloads to and ``reload`` reads them from."""

MAX_TOKENS_LIMIT = 1_000_000_000
"""The largest ``--max-tokens`` taken: far above any model's window, and small enough
that every figure derived from it stays an exact float."""


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 session``, ``3 sessions``, ``2 trajectories``: a count and its noun in English."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


class UsageError(CtxmgrError):
    """A command-line argument or input file the user has to fix."""


def check_max_tokens(value: int, *, minimum: int = 1, what: str = "a positive number of "
                     "tokens") -> int:
    """``value`` when it lies in ``[minimum, MAX_TOKENS_LIMIT]``, else one clear error."""
    if value > MAX_TOKENS_LIMIT:
        shown = f"{value:,}" if value < 10**15 else f"a {len(str(value))}-digit number"
        raise UsageError(f"--max-tokens must be at most {MAX_TOKENS_LIMIT:,}, got {shown}")
    if value < minimum:
        raise UsageError(f"--max-tokens must be {what}, got {value}")
    return value


def file_store(directory: str | None) -> FileStore:
    """The offload store at ``directory`` (default: ``$CTXMGR_HOME`` or ``~/.ctxmgr``)."""
    from ctxmgr.store.files import FileStore

    return FileStore(directory)
