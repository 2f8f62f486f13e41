"""Memos when the store fails half way, or a file in the session folder is damaged.

The tool result must say what is on disk, and one bad file must not break the session.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from faults import FaultyStore

from ctxmgr.errors import StoreError
from ctxmgr.memo import MemoStore
from ctxmgr.store import FileStore, Namespace


def _write(memos: MemoStore, key: str, content: str, summary: str = "what it is") -> str:
    return memos.handle_memo_call({"action": "write", "key": key, "summary": summary,
                                   "content": content})


def _index_fails(key: str, n: int) -> bool:
    return key == "index.json"


# --- a write that fails half way --------------------------------------------------------------


def test_a_rewrite_whose_index_update_fails_is_rolled_back_and_says_so() -> None:
    store = FaultyStore()
    memos = MemoStore(store, session="s")
    _write(memos, "plan", "old plan", "v1")
    store.fail_put = _index_fails

    text = _write(memos, "plan", "new plan, much longer than the old one", "v2")

    assert text.startswith("Error: the memo store failed (")
    assert "No space left on device" in text and "the memo was not changed" in text
    info = memos.info("plan")
    assert info is not None and (info.summary, info.size) == ("v1", len("old plan"))
    assert memos.read("plan") == "old plan"


def test_a_new_memo_whose_index_update_fails_is_removed_again() -> None:
    store = FaultyStore()
    memos = MemoStore(store, session="s")
    store.fail_put = _index_fails

    text = _write(memos, "plan", "content")

    assert "the memo was not changed" in text
    assert memos.list_memos() == []
    assert store.keys(memos.namespace) == []


def test_when_the_rollback_fails_too_the_result_says_exactly_what_is_on_disk() -> None:
    store = FaultyStore()
    memos = MemoStore(store, session="s")
    _write(memos, "plan", "old plan", "v1")
    store.fail_put = lambda key, n: n >= 3  # the new memo lands, then every put fails

    text = _write(memos, "plan", "new plan", "v2")

    assert "not changed" not in text
    assert text.startswith("Error: memo 'plan' is only half written: plan.md holds the new "
                           "content (8 chars) but index.json could not be updated")
    assert "restoring the previous content failed too" in text
    assert memos.read("plan") == "new plan"  # what the result said


def test_a_failed_delete_of_the_index_entry_still_deletes_the_memo() -> None:
    store = FaultyStore()
    memos = MemoStore(store, session="s")
    _write(memos, "plan", "content")
    _write(memos, "other", "content")
    store.fail_put = _index_fails

    text = memos.handle_memo_call({"action": "delete", "key": "plan"})

    assert text.startswith("Deleted memo 'plan'")
    assert [e.key for e in memos.list_memos()] == ["other"]


def test_developer_write_raises_a_store_error_when_the_index_cannot_be_written() -> None:
    store = FaultyStore(fail_put=_index_fails)
    memos = MemoStore(store, session="s")

    with pytest.raises(StoreError, match="No space left on device"):
        memos.write("plan", "content", "summary")
    assert memos.read("plan") is None


def test_a_memo_write_on_a_full_disk_leaves_the_old_memo_on_disk(tmp_path: Path) -> None:
    files = FileStore(tmp_path)
    store = FaultyStore(files)
    memos = MemoStore(store, session="s", project="p")
    _write(memos, "plan", "old plan", "v1")
    store.fail_put = _index_fails

    _write(memos, "plan", "new plan", "v2")

    folder = files.folder(Namespace("p", "s", "notes"))
    assert (folder / "plan.md").read_text() == "old plan"
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(".~")) == [
        "index.json", "plan.md"]

