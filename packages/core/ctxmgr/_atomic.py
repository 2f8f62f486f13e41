"""Atomic file writes: a reader sees the old file or the new one, never a mix.

The data goes to a temporary file in the same folder, is flushed to disk, then
renamed over the target; the folder is synced so the rename survives a power
cut. Every file ctxmgr writes (store blobs, command-line output) goes through
:func:`write_atomic`.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

__all__ = ["sync_folder", "write_atomic"]


def write_atomic(path: str | os.PathLike[str], data: bytes, *, temp_prefix: str,
                 private: bool = False, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically.

    Args:
        path: the file to create or replace (its folder must exist).
        data: the whole new content.
        temp_prefix: start of the temporary file's name in the same folder (callers
            pick one their own listings ignore, and may embed their pid).
        private: create the file readable by its owner only (0600), as for memos and
            offloaded messages; otherwise 0666 under the umask, as ``open()`` does.
        mode: permission bits to give the new file (e.g. those of the file it replaces).

    Raises:
        OSError: from the write or the rename; the temporary file is removed.
    """
    target = Path(path)
    tmp = target.parent / f"{temp_prefix}{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if private else 0o666)
    try:
        with os.fdopen(fd, "wb") as file:
            if mode is not None:
                os.fchmod(file.fileno(), mode)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    sync_folder(target.parent)


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """Make a rename in ``folder`` survive a power cut (POSIX); best effort, as some file
    systems refuse."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
