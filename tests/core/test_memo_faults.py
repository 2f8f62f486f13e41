"""Memos when the store fails half way, or a file in the session folder is damaged.

The tool result must say what is on disk, and one bad file must not break the session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from faults import FaultyStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import examples

from ctxmgr.cli import main
from ctxmgr.errors import StoreError
from ctxmgr.memo import MemoStore
from ctxmgr.memo.entry import LOST
from ctxmgr.memo.index import UNINDEXED
from ctxmgr.store import FileStore, Namespace


def _write(memos: MemoStore, key: str, content: str, summary: str = "what it is") -> str:
    return memos.handle_memo_call({"action": "write", "key": key, "summary": summary,
                                   "content": content})


def _entry_fails(key: str, n: int) -> bool:
    return key.endswith(".entry.json")


# --- a write that fails half way --------------------------------------------------------------


def test_a_rewrite_whose_index_update_fails_is_rolled_back_and_says_so() -> None:
    store = FaultyStore()
    memos = MemoStore(store, session="s")
    _write(memos, "plan", "old plan", "v1")
    store.fail_put = _entry_fails

    text = _write(memos, "plan", "new plan, much longer than the old one", "v2")

    assert text.startswith("Error: the memo store failed (")
    assert "No space left on device" in text and "the memo was not changed" in text
    info = memos.info("plan")
    assert info is not None and (info.summary, info.size) == ("v1", len("old plan"))
    assert memos.read("plan") == "old plan"


def test_a_new_memo_whose_index_update_fails_is_removed_again() -> None:
    store = FaultyStore()
    memos = MemoStore(store, session="s")
    store.fail_put = _entry_fails

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
                           "content (8 chars) but its index entry could not be written")
    assert "restoring the previous content failed too" in text
    assert memos.read("plan") == "new plan"  # what the result said


def test_a_failed_delete_of_the_index_entry_still_deletes_the_memo() -> None:
    store = FaultyStore()
    memos = MemoStore(store, session="s")
    _write(memos, "plan", "content")
    _write(memos, "other", "content")
    store.fail_delete = _entry_fails

    text = memos.handle_memo_call({"action": "delete", "key": "plan"})

    assert text.startswith("Deleted memo 'plan'")
    assert [e.key for e in memos.list_memos()] == ["other"]
    store.fail_delete = None
    assert _write(memos, "plan", "again", "new").startswith("Memo 'plan' saved")
    assert memos.info("plan").summary == "new"  # type: ignore[union-attr]


def test_an_overwrite_while_its_entry_cannot_be_read_is_refused_and_keeps_every_summary(
) -> None:
    store = FaultyStore()
    memos = MemoStore(store, session="s")
    _write(memos, "a", "content", "summary a")
    store.fail_get = lambda key, n: key == "a.entry.json"

    text = _write(memos, "a", "content 2", "summary a2")
    other = _write(memos, "b", "content", "summary b")  # touches no entry but its own

    store.fail_get = None
    assert "not changed" in text and other.startswith("Memo 'b' saved")
    assert sorted((e.key, e.summary) for e in memos.list_memos()) == [("a", "summary a"),
                                                                     ("b", "summary b")]


def test_developer_write_raises_a_store_error_when_the_index_cannot_be_written() -> None:
    store = FaultyStore(fail_put=_entry_fails)
    memos = MemoStore(store, session="s")

    with pytest.raises(StoreError, match="No space left on device"):
        memos.write("plan", "content", "summary")
    assert memos.read("plan") is None


def test_a_memo_write_on_a_full_disk_leaves_the_old_memo_on_disk(tmp_path: Path) -> None:
    files = FileStore(tmp_path)
    store = FaultyStore(files)
    memos = MemoStore(store, session="s", project="p")
    _write(memos, "plan", "old plan", "v1")
    store.fail_put = _entry_fails

    _write(memos, "plan", "new plan", "v2")

    folder = files.folder(Namespace("p", "s", "notes"))
    assert (folder / "plan.md").read_text() == "old plan"
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(".~")) == [
        "plan.entry.json", "plan.md"]



# --- damaged files in the session folder ------------------------------------------------------
# Each case is damage: the session keeps working, the damage is reported, nothing hangs. Where
# a case concerns the index it runs on an entry key and on the index.json of a session that an
# earlier version wrote (read, never written).

_LIST = {"action": "list"}


def _files_session(tmp_path: Path, *, legacy: bool = False) -> tuple[MemoStore, Path]:
    """Memos a, b and c with their entries; ``legacy``: in one index.json instead."""
    store = FileStore(tmp_path / "home")
    memos = MemoStore(store, session="s", project="p")
    for key in ("a", "b", "c"):
        _write(memos, key, f"content of {key}", f"summary of {key}")
    folder = store.folder(memos.namespace)
    if legacy:
        entries = [json.loads((folder / f"{e.key}.entry.json").read_text())
                   for e in memos.list_memos()]
        (folder / "index.json").write_text(json.dumps({"version": 1, "memos": entries},
                                                      indent=2))
        for entry in folder.glob("*.entry.json"):
            entry.unlink()
    return memos, folder


_LAYOUTS = pytest.mark.parametrize(("legacy", "index"), [(False, "c.entry.json"),
                                                         (True, "index.json")])


def _run_isolated(code: str, home: Path, *,
                  timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a child with 1 GiB of address space: a hang or a memory grab fails
    the test instead of the machine."""
    import resource  # POSIX only, like the FIFO and /dev/zero these tests plant

    def limit() -> None:  # pragma: no cover - runs in the child
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    return subprocess.run([sys.executable, "-c", code, str(home)], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=limit)


@_LAYOUTS
def test_an_index_size_of_1e999_breaks_no_operation(tmp_path: Path, legacy: bool,
                                                    index: str) -> None:
    memos, folder = _files_session(tmp_path, legacy=legacy)
    (folder / index).write_text((folder / index).read_text().replace('"size": 12',
                                                                     '"size": 1e999', 1))

    listing = memos.handle_memo_call(_LIST)
    read = memos.handle_memo_call({"action": "read", "key": "c"})
    written = _write(memos, "d", "content of d", "summary of d")

    assert f"Warning: {index} is damaged" in listing
    assert sorted(e.key for e in memos.list_memos()) == ["a", "b", "c", "d"]
    assert {e.key: e.summary for e in memos.list_memos()}["c"] == "summary of c"
    assert {e.key: e.size for e in memos.list_memos()}["c"] == len("content of c")
    assert read.endswith("\n\ncontent of c")
    assert written.startswith("Memo 'd' saved")


def test_the_memo_command_lists_a_session_whose_index_says_1e999_without_a_traceback(
    _isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memos = MemoStore(session="s")
    _write(memos, "plan", "content", "the plan")
    entry = FileStore().folder(memos.namespace) / "plan.entry.json"
    entry.write_text(entry.read_text().replace('"size": 7', '"size": 1e999'))

    assert main(["memo", "list"]) == 0
    assert "plan  the plan  (7 characters" in capsys.readouterr().out


@_LAYOUTS
def test_a_deeply_nested_index_is_damage_not_a_recursion_error(tmp_path: Path, legacy: bool,
                                                               index: str) -> None:
    memos, folder = _files_session(tmp_path, legacy=legacy)
    (folder / index).write_text("[" * 100_000)

    listing = memos.handle_memo_call(_LIST)

    assert f"Warning: {index} is damaged" in listing
    assert sorted(e.key for e in memos.list_memos()) == ["a", "b", "c"]
    assert memos.read("a") == "content of a"
    assert _write(memos, "d", "content of d").startswith("Memo 'd' saved")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize(("legacy", "index"), [(False, "b.entry.json"), (True, "index.json")])
def test_a_fifo_named_index_json_does_not_hang_the_session(tmp_path: Path, legacy: bool,
                                                           index: str) -> None:
    memos, folder = _files_session(tmp_path, legacy=legacy)
    (folder / index).unlink()
    os.mkfifo(folder / index)
    code = ("import sys\nfrom ctxmgr.memo import MemoStore\nfrom ctxmgr.store import FileStore\n"
            "m = MemoStore(FileStore(sys.argv[1]), session='s', project='p')\n"
            "print(m.handle_memo_call({'action': 'list'}))\n"
            "print(m.handle_memo_call({'action': 'write', 'key': 'b', 'summary': 's', "
            "'content': 'x'}))\n")

    out = _run_isolated(code, tmp_path / "home", timeout=60)

    assert out.returncode == 0, out.stderr
    assert "3 memo(s)" in out.stdout and f"- b: {UNINDEXED}" in out.stdout
    assert "Memo 'b' updated" in out.stdout
    assert (folder / "b.entry.json").is_file()  # the write put a real entry in its place


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize(("legacy", "index"), [(False, "b.entry.json"), (True, "index.json")])
def test_an_index_linked_to_dev_zero_does_not_exhaust_memory(tmp_path: Path, legacy: bool,
                                                             index: str) -> None:
    memos, folder = _files_session(tmp_path, legacy=legacy)
    (folder / index).unlink()
    (folder / index).symlink_to("/dev/zero")
    code = ("import sys\nfrom ctxmgr.memo import MemoStore\nfrom ctxmgr.store import FileStore\n"
            "m = MemoStore(FileStore(sys.argv[1]), session='s', project='p')\n"
            "print(m.handle_memo_call({'action': 'list'}))\n")

    out = _run_isolated(code, tmp_path / "home", timeout=60)

    assert out.returncode == 0, out.stderr[-2000:]
    assert "3 memo(s)" in out.stdout and f"- b: {UNINDEXED}" in out.stdout


def test_a_memo_file_truncated_to_zero_bytes_reads_back_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    memos, folder = _files_session(tmp_path)
    (folder / "b.md").write_bytes(b"")

    text = memos.handle_memo_call({"action": "read", "key": "b"})
    content = memos.read("b")

    assert "Warning: the memo file holds 0 chars but its index entry recorded 12" in text
    assert content == ""
    assert "holds 0 chars but its index entry recorded 12" in caplog.text


def test_a_memo_file_that_is_not_utf8_reads_back_with_a_warning(tmp_path: Path) -> None:
    memos, folder = _files_session(tmp_path)
    (folder / "b.md").write_bytes(b"caf\xe9 ok")

    text = memos.handle_memo_call({"action": "read", "key": "b"})

    assert "Warning: the memo file is not valid UTF-8" in text
    assert text.endswith("\n\ncaf\ufffd ok")


def test_a_corrupt_entry_costs_only_its_own_summary(tmp_path: Path) -> None:
    memos, folder = _files_session(tmp_path)
    entry = folder / "a.entry.json"
    entry.write_text(entry.read_text()[:-20])

    listing = memos.handle_memo_call(_LIST)

    assert "Warning: a.entry.json is damaged" in listing
    summaries = {e.key: e.summary for e in memos.list_memos()}
    assert summaries == {"c": "summary of c", "b": "summary of b", "a": LOST}
    assert _write(memos, "a", "content of a", "summary of a").startswith("Memo 'a' updated")
    assert "Warning" not in memos.handle_memo_call(_LIST)


def test_a_corrupt_index_keeps_every_summary_it_still_holds(tmp_path: Path) -> None:
    memos, folder = _files_session(tmp_path, legacy=True)
    index = folder / "index.json"
    index.write_text(index.read_text()[:-60])  # cut inside the last entry (a)

    listing = memos.handle_memo_call(_LIST)

    assert "Warning: index.json is damaged" in listing
    summaries = {e.key: e.summary for e in memos.list_memos()}
    assert summaries == {"c": "summary of c", "b": "summary of b", "a": UNINDEXED}


def test_a_corrupt_legacy_index_is_never_rewritten_and_stops_counting_once_replaced(
    tmp_path: Path,
) -> None:
    memos, folder = _files_session(tmp_path, legacy=True)
    index = folder / "index.json"
    damaged = index.read_text()[:-60]
    index.write_text(damaged)

    _write(memos, "d", "content of d", "summary of d")

    assert index.read_text() == damaged
    summaries = {e.key: e.summary for e in memos.list_memos()}
    assert summaries["d"] == "summary of d" and summaries["c"] == "summary of c"
    for key in ("a", "b", "c"):  # every memo it listed gets an entry of its own
        _write(memos, key, f"content of {key}", f"summary of {key}")
    assert "Warning" not in memos.handle_memo_call(_LIST)  # so it is no longer read


@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("index", [
    '{"version": 1, "memos": [{"key": "a"}]}',
    '{"version": 1, "memos": [{"key": "../../x", "summary": "s", "size": 1}]}',
    '{"version": 1, "memos": [7, null, "x"]}',
    '{"version": 1, "memos": {"key": "a"}}',
    '[]',
    '"text"',
    '{"memos": [{"key": "a", "summary": ["x"], "size": true, "created": 1, "updated": {}}]}',
    '{"memos": [{"key": "a", "summary": "s", "size": ' + "9" * 5000 + '}]}',
    "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
])
def test_any_malformed_index_is_reported_and_the_memos_still_listed(
    tmp_path: Path, index: str, legacy: bool
) -> None:
    memos, folder = _files_session(tmp_path, legacy=legacy)
    name = "index.json" if legacy else "a.entry.json"
    (folder / name).write_text(index, encoding="latin-1", errors="replace")

    listing = memos.handle_memo_call(_LIST)

    assert f"Warning: {name} is damaged" in listing
    assert sorted(e.key for e in memos.list_memos()) == ["a", "b", "c"]
    assert all(isinstance(e.size, int) and e.size == 12 for e in memos.list_memos())
    assert memos.read("a") == "content of a"


# --- every fault, anywhere: the tool result always tells the truth ------------------------------

_KEYS = ["a", "b", "c", "d"]
_ops = st.lists(st.tuples(st.sampled_from(["write", "write", "delete", "read", "list"]),
                          st.sampled_from(_KEYS), st.integers(0, 99)), min_size=1, max_size=25)
_failing = st.frozensets(st.integers(0, 80), max_size=30)


@settings(max_examples=examples(300), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(ops=_ops, put_faults=_failing, get_faults=_failing, delete_faults=_failing)
def test_under_random_store_faults_every_tool_result_matches_what_is_on_disk(
    ops: list[tuple[str, str, int]], put_faults: frozenset[int], get_faults: frozenset[int],
    delete_faults: frozenset[int],
) -> None:
    store = FaultyStore()
    memos = MemoStore(store, session="s", max_memos=3)
    model: dict[str, tuple[str, str]] = {}  # key -> (content, summary) the results promised
    half_written: set[str] = set()  # keys whose summary the results said is stale

    for action, key, n in ops:
        content, summary = f"content {n} " * (n % 7 + 1), f"summary {n}"
        store.fail_put = lambda k, i: i in put_faults
        store.fail_get = lambda k, i: i in get_faults
        store.fail_delete = lambda k, i: i in delete_faults
        text = memos.handle_memo_call({"action": action, "key": key, "summary": summary,
                                       "content": content})
        store.fail_put = store.fail_get = store.fail_delete = None

        assert isinstance(text, str) and text
        if text.startswith(f"Memo '{key}' saved") or text.startswith(f"Memo '{key}' updated"):
            model[key] = (content, summary)
            half_written.discard(key)
        elif text.startswith(f"Deleted memo '{key}'"):
            model.pop(key)
            half_written.discard(key)
        elif text.startswith(f"Error: memo '{key}' is only half written"):
            model[key] = (content, model.get(key, ("", UNINDEXED))[1])
            half_written.add(key)
        elif action in ("write", "delete"):
            assert "not changed" in text or text.startswith(("Refused", "No memo")), text

        entries = {e.key: e for e in memos.list_memos()}
        assert set(entries) == set(model), (action, key, text)
        assert len(entries) <= 3 or half_written
        for k, (body, summ) in model.items():
            assert memos.read(k) == body, (k, text)
            if k not in half_written:
                assert entries[k].summary == summ and entries[k].size == len(body), (k, text)
