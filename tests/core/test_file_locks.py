"""Lock files take turns: a writer in a tight loop lets a waiting writer in."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import filelock

from ctxmgr.store.file_locks import acquire_fairly

_LOOP = """
import sys, time, filelock
from ctxmgr.store.file_locks import acquire_fairly
path = sys.argv[1]
lock = filelock.FileLock(path)
print("ready", flush=True)
end = time.monotonic() + 4
while time.monotonic() < end:
    acquire_fairly(lock, 10)
    time.sleep(0.01)  # the work done holding it
    lock.release()
"""


def _kept_out(acquire: Callable[[filelock.FileLock, float], None], path: Path) -> bool:
    """Whether a writer waiting 1 s is kept out by another process that takes the lock
    again the moment it lets it go (a loop of memo writes)."""
    loop = subprocess.Popen([sys.executable, "-c", _LOOP, str(path)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert loop.stdout is not None and loop.stdout.readline() == "ready\n"
        time.sleep(0.1)
        waiter = filelock.FileLock(path)
        try:
            acquire(waiter, 1.0)
        except filelock.Timeout:
            return True
        waiter.release()
        return False
    finally:
        loop.kill()
        loop.wait()


def _marker_owner(path: Path) -> str | None:
    try:
        return Path(f"{path}.wait").read_text()
    except FileNotFoundError:
        return None


def test_a_writer_in_a_tight_loop_lets_a_waiting_writer_in(tmp_path: Path) -> None:
    """With the plain lock the waiter gets in after 0.5 to 3 s, at random (measured), so
    over three tries a 1 s wait would time out; taking turns, it gets in at once."""
    for n in range(3):
        path = tmp_path / f"memo{n}.lock"
        assert not _kept_out(acquire_fairly, path)
        # the waiter's marker is gone (the loop may have left one of its own since)
        assert _marker_owner(path) != f"{os.getpid()}:{threading.get_ident()}"


def test_taking_turns_stays_reentrant_in_one_thread(tmp_path: Path) -> None:
    lock = filelock.FileLock(tmp_path / "memo.lock")
    acquire_fairly(lock, 1.0)
    acquire_fairly(lock, 1.0)
    lock.release()
    assert lock.is_locked
    lock.release()
    assert not lock.is_locked
