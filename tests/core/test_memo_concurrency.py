"""Many writers on one session: processes and threads share one memo folder.

Each memo's entry has a store key of its own, so writers lose no entry even where no lock
spans their processes (the races "without a lock across processes" cut FileStore's lock
back to the default, which covers one process). The CI run repeats each race once; the long
profile (``CTXMGR_PROFILE=long``) repeats it 20 times, which is the acceptance run for
concurrent writers.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from memo_race import (
    UNLOCKED_WRITES,
    assert_every_memo_kept,
    assert_only_accepted_memos_stay,
    lost,
    race,
    unlocked,
)
from profiles import repeats

from ctxmgr.errors import MemoWriteError
from ctxmgr.memo import MemoStore, memo_sessions
from ctxmgr.store import FileStore

WRITES = 200
_STORE = """
from ctxmgr.store import FileStore
store = FileStore({home!r})
"""


def _race_processes(home: Path, *, cap: int, writes: int = WRITES,
                    locked: bool = True) -> list[str]:
    """Two processes write ``writes`` memos each to one session; the keys accepted."""
    store_code = _STORE.format(home=str(home))
    return race(store_code if locked else unlocked(store_code), home.parent, cap=cap,
                writes=writes)


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_two_processes_writing_200_memos_each_lose_no_index_entry(
    tmp_path: Path, run: int
) -> None:
    home = tmp_path / "home"

    accepted = _race_processes(home, cap=1000)

    memos = MemoStore(FileStore(home), session="shared", project="p", max_memos=1000)
    assert_every_memo_kept(memos, accepted, writes=WRITES)


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_the_memo_cap_holds_when_two_processes_race_past_it(tmp_path: Path, run: int) -> None:
    home = tmp_path / "home"

    accepted = _race_processes(home, cap=50, writes=60)

    memos = MemoStore(FileStore(home), session="shared", project="p", max_memos=50)
    assert len(accepted) == 50
    assert_only_accepted_memos_stay(memos, accepted)


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_two_processes_lose_no_memo_nor_summary_without_a_lock_across_processes(
    tmp_path: Path, run: int
) -> None:
    home = tmp_path / "home"

    accepted = _race_processes(home, cap=1000, locked=False, writes=UNLOCKED_WRITES)

    memos = MemoStore(FileStore(home), session="shared", project="p", max_memos=1000)
    assert_every_memo_kept(memos, accepted, writes=UNLOCKED_WRITES)


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_the_memo_cap_is_never_passed_without_a_lock_across_processes(
    tmp_path: Path, run: int
) -> None:
    home = tmp_path / "home"

    accepted = _race_processes(home, cap=50, writes=60, locked=False)

    memos = MemoStore(FileStore(home), session="shared", project="p", max_memos=50)
    assert len(accepted) in (49, 50)  # both racers for the last place may back out
    assert_only_accepted_memos_stay(memos, accepted)


def test_two_threads_with_two_memo_stores_lose_no_index_entry(tmp_path: Path) -> None:
    writers = [MemoStore(FileStore(tmp_path), session="shared", project="p", max_memos=1000)
               for _ in range(2)]
    start = threading.Barrier(2)

    def write(memos: MemoStore, prefix: str) -> None:
        start.wait()
        for i in range(WRITES):
            memos.write(f"{prefix}-{i}", f"content {i}", f"summary {prefix} {i}")

    threads = [threading.Thread(target=write, args=(m, p))
               for m, p in zip(writers, "ab", strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert len(writers[0].list_memos()) == 2 * WRITES
    assert lost(writers[0]) == []


def test_the_cap_holds_for_two_threads_with_two_memo_stores(tmp_path: Path) -> None:
    writers = [MemoStore(FileStore(tmp_path), session="shared", project="p", max_memos=20)
               for _ in range(2)]
    start = threading.Barrier(2)
    accepted: list[str] = []

    def write(memos: MemoStore, prefix: str) -> None:
        start.wait()
        for i in range(40):
            try:
                memos.write(f"{prefix}-{i}", "content", "summary")
                accepted.append(f"{prefix}-{i}")
            except MemoWriteError:
                pass

    threads = [threading.Thread(target=write, args=(m, p))
               for m, p in zip(writers, "ab", strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert len(accepted) == 20
    assert sorted(e.key for e in writers[1].list_memos()) == sorted(accepted)
    assert len(list(FileStore(tmp_path).folder(writers[0].namespace).glob("*.md"))) == 20


def test_the_lock_file_stays_out_of_the_session_folder_and_the_session_list(
    tmp_path: Path,
) -> None:
    store = FileStore(tmp_path)
    memos = MemoStore(store, session="s", project="p")
    memos.write("plan", "content", "summary")

    assert sorted(os.listdir(store.folder(memos.namespace))) == ["plan.entry.json", "plan.md"]
    assert memo_sessions(tmp_path, "p") == ["s"]
