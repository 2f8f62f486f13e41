"""Two processes writing memos to one session at once, on any store: what each got accepted.

Each writer runs ``store_code`` (Python that binds ``store`` to a ctxmgr Store), waits for
a start file so both write at the same time, writes ``writes`` memos under its own prefix
and prints the keys accepted (a write past the cap is refused, not lost).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from profiles import repeats

from ctxmgr.errors import StoreError
from ctxmgr.memo import MemoStore
from ctxmgr.memo.index import UNINDEXED
from ctxmgr.store import Namespace, Store

UNLOCKED_WRITES = repeats(80, long=200)
"""Memos each process writes in a race with no lock across the processes: one shared
index lost about half of them, so 80 show it; the long profile writes 200, as the
races under a lock do."""

_WRITER = """
import json, os, sys, time
from ctxmgr.errors import MemoWriteError
from ctxmgr.memo import MemoStore
store_code, prefix, go = sys.argv[1:4]
cap, writes = int(sys.argv[4]), int(sys.argv[5])
exec(store_code)
memos = MemoStore(store, session="shared", project="p", max_memos=cap)
memos.list_memos()  # connected and set up
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.001)
accepted = []
for i in range(writes):
    try:
        memos.write(f"{prefix}-{i}", f"content {prefix} {i}", f"summary {prefix} {i}")
        accepted.append(f"{prefix}-{i}")
    except MemoWriteError:
        pass
print(json.dumps(accepted))
"""


def race(store_code: str, scratch: Path, *, cap: int, writes: int) -> list[str]:
    """Two processes write ``writes`` memos each to one session; the keys accepted."""
    go = scratch / f"go-{time.monotonic_ns()}"
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, store_code, prefix, str(go),
                               str(cap), str(writes)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for prefix in ("a", "b")]
    for proc in procs:  # both connected, waiting at the start line
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n", \
            proc.communicate()[1]
    go.touch()
    accepted: list[str] = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        accepted += json.loads(out)
    go.unlink()
    return accepted


def unlocked(store_code: str) -> str:
    """``store_code`` with the store's lock cut back to the default, which covers the threads
    of one process: what ctxmgr has on a backend it cannot lock across processes (a LangGraph
    or LlamaIndex store on Redis, MongoDB, ...), while the data is shared as there."""
    return f"{store_code}\nfrom ctxmgr.store.base import process_lock\nstore.lock = process_lock\n"


def shared_memos(store: Store, *, cap: int) -> MemoStore:
    return MemoStore(store, session="shared", project="p", max_memos=cap)


def lost(memos: MemoStore) -> list[str]:
    """Keys whose summary was lost (the memo file is there, its entry is not)."""
    return [e.key for e in memos.list_memos() if e.summary == UNINDEXED]


def assert_every_memo_kept(memos: MemoStore, accepted: list[str], *, writes: int) -> None:
    """Every write of both writers was accepted, and each memo is listed with its summary."""
    entries = memos.list_memos()
    assert len(accepted) == 2 * writes
    assert lost(memos) == []
    assert sorted(e.key for e in entries) == sorted(accepted)
    assert all(e.summary == f"summary {e.key.replace('-', ' ')}" for e in entries)


def assert_only_accepted_memos_stay(memos: MemoStore, accepted: list[str]) -> None:
    """The accepted memos, and nothing else, are in the store with their entries: a write
    refused at the cap left no key behind."""
    assert memos.store.keys(memos.namespace) == sorted(
        [f"{k}.md" for k in accepted] + [f"{k}.entry.json" for k in accepted])
    assert sorted(e.key for e in memos.list_memos()) == sorted(accepted)
    assert lost(memos) == []


def assert_a_holder_elsewhere_blocks_until_it_goes(store: Store, namespace: Namespace,
                                                 release: Callable[[], None]) -> None:
    """With another worker holding ``namespace``'s lock, ``store.lock`` gives up after its
    0.3 s timeout; once ``release`` lets it go (the worker dies), it is free and reentrant."""
    with pytest.raises(StoreError, match="another writer has held it for over 0.3 s"), \
            store.lock(namespace):
        pass
    release()
    with store.lock(namespace), store.lock(namespace):
        pass
