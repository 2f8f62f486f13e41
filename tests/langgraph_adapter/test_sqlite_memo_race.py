"""Workers in two processes writing memos to one session of one SqliteStore file.

The memo index is read, extended and written back under ``LangGraphStore.lock``, lock
files next to the database (:class:`ctxmgr.store.FileLocks`), so neither worker loses
the other's entries and the cap holds. The long profile repeats the race 20 times.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import filelock
import pytest
from langgraph.store.sqlite import SqliteStore
from memo_race import assert_a_holder_elsewhere_blocks_until_it_goes, lost, race, shared_memos
from profiles import LONG, repeats

from ctxmgr.store import Namespace
from ctxmgr_langgraph import LangGraphStore

WRITES = 200 if LONG else 80  # the bounded profile races fewer writes (one file, one disk)
_STORE = """
import sqlite3
from langgraph.store.sqlite import SqliteStore
from ctxmgr_langgraph import LangGraphStore
base = SqliteStore(sqlite3.connect({path!r}, check_same_thread=False, isolation_level=None,
                                   timeout=30))
base.setup()
store = LangGraphStore(base)
"""


_ASYNC_STORE = """
import asyncio, threading
import aiosqlite
from langgraph.store.sqlite.aio import AsyncSqliteStore
from ctxmgr_langgraph import LangGraphStore
loop = asyncio.new_event_loop()
threading.Thread(target=loop.run_forever, daemon=True).start()
async def opened():
    base = AsyncSqliteStore(await aiosqlite.connect({path!r}, isolation_level=None,
                                                    timeout=30))
    await base.setup()
    return base
store = LangGraphStore(asyncio.run_coroutine_threadsafe(opened(), loop).result())
"""


def _store(path: Path, **kwargs: float) -> LangGraphStore:
    base = SqliteStore(sqlite3.connect(path, check_same_thread=False, isolation_level=None))
    base.setup()
    return LangGraphStore(base, **kwargs)


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_two_processes_writing_memos_to_one_sqlite_file_lose_none(
        tmp_path: Path, run: int) -> None:
    path = tmp_path / "store.db"
    _store(path)  # tables made once, before the race
    accepted = race(_STORE.format(path=str(path)), tmp_path, cap=1000, writes=WRITES)

    memos = shared_memos(_store(path), cap=1000)
    assert len(accepted) == 2 * WRITES
    assert lost(memos) == []
    assert sorted(e.key for e in memos.list_memos()) == sorted(accepted)


def test_two_processes_on_one_async_sqlite_file_lose_no_memo(tmp_path: Path) -> None:
    """``AsyncSqliteStore`` too: its sync calls (a memo write) run on its loop, in a
    thread of their own, and lock the same files."""
    path = tmp_path / "store.db"
    _store(path)
    accepted = race(_ASYNC_STORE.format(path=str(path)), tmp_path, cap=1000, writes=40)

    memos = shared_memos(_store(path), cap=1000)
    assert len(accepted) == 80
    assert lost(memos) == []
    assert sorted(e.key for e in memos.list_memos()) == sorted(accepted)


def test_a_sqlite_lock_held_by_another_process_times_out_then_frees(tmp_path: Path) -> None:
    ns = Namespace(project="p", session="shared", kind="notes")
    store = _store(tmp_path / "store.db", lock_timeout_s=0.3)
    lock_file = Path(f"{tmp_path / 'store.db'}.ctxmgr-locks")
    with store.lock(ns):  # the lock file is where another process would look for it
        held = sorted(lock_file.iterdir())
    assert len(held) == 1
    other = filelock.FileLock(held[0], thread_local=False)  # another holder's open file
    other.acquire()
    assert_a_holder_elsewhere_blocks_until_it_goes(store, ns, other.release)


def test_a_sqlite_store_in_memory_lives_in_one_process_and_warns_of_nothing(
        caplog: pytest.LogCaptureFixture) -> None:
    base = SqliteStore(sqlite3.connect(":memory:", check_same_thread=False))
    base.setup()
    store = LangGraphStore(base)
    with store.lock(Namespace(project="p", session="s", kind="notes")):
        pass
    assert "cannot lock" not in caplog.text
