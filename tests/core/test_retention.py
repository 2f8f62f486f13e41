"""Retention: a session's offloads and memos go with it, by delete or by age (ctxmgr prune)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from test_cli import assert_one_error_line, cli

from ctxmgr.autocontext import OffloadStore
from ctxmgr.memo import MemoStore
from ctxmgr.messages import text_message
from ctxmgr.store import FileStore, InMemoryStore, Store, delete_session
from ctxmgr.store.retention import AGENTS_KIND, SESSION_KINDS

DAY = 86_400.0


def _session(store: Store, session: str, project: str = "p") -> tuple[OffloadStore, MemoStore]:
    offloads = OffloadStore(store, project=project, session=session)
    offloads.save([text_message("user", f"original of {session}")])
    memos = MemoStore(store, project=project, session=session)
    memos.write("plan", f"plan of {session}", "the plan")
    return offloads, memos


def _blobs(store: Store, session: str, project: str = "p") -> int:
    return sum(len(store.keys(ns)) for ns in (
        OffloadStore(store, project=project, session=session).namespace,
        MemoStore(store, project=project, session=session).namespace))


def test_the_session_kinds_are_those_offloads_memos_and_agent_lists_use() -> None:
    store = InMemoryStore()
    kinds = {OffloadStore(store, project="p", session="s").namespace.kind,
             MemoStore(store, project="p", session="s").namespace.kind, AGENTS_KIND}
    assert kinds == set(SESSION_KINDS)


@pytest.mark.parametrize("kind", ["memory", "files"])
def test_delete_session_removes_every_offload_and_memo_of_that_session_only(
        kind: str, tmp_path: Path) -> None:
    store: Store = InMemoryStore() if kind == "memory" else FileStore(tmp_path)
    _session(store, "gone")
    kept_offloads, kept_memos = _session(store, "kept")

    removed = delete_session(store, project="p", session="gone")

    assert removed == 4  # one offload and its search index, one memo and the memo index
    assert _blobs(store, "gone") == 0
    assert _blobs(store, "kept") == 4 and kept_memos.read("plan") == "plan of kept"
    if isinstance(store, FileStore):
        assert not (tmp_path / "projects" / "p" / "offload" / "gone").exists()
        assert not (tmp_path / "projects" / "p" / "notes" / "gone").exists()


def _age(root: Path, session: str, days: float) -> None:
    """Make every file and folder of ``session`` (and its lock files) ``days`` old."""
    when = time.time() - days * DAY
    for kind in (root / "projects" / "p").iterdir():
        for path in (kind / session, kind / f".~{session}.lock"):
            if path.exists():
                for inner in (*path.iterdir(), path) if path.is_dir() else (path,):
                    os.utime(inner, (when, when))


def test_prune_removes_sessions_idle_past_the_age_whole_and_keeps_the_rest(
        tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    for session in ("old", "young", "old-but-touched"):
        _session(store, session)
    _age(tmp_path, "old", 40)
    _age(tmp_path, "young", 10)
    _age(tmp_path, "old-but-touched", 40)
    OffloadStore(store, project="p", session="old-but-touched").save(
        [text_message("user", "written just now")])

    dry = cli("prune", "--older-than", "30d", "--store", tmp_path, "--dry-run")
    assert dry.rc == 0 and dry.out.splitlines()[0] == "p/old"
    assert _blobs(store, "old") == 4  # an offload and its search index, a memo, the memo index
    run = cli("prune", "--older-than", "30d", "--store", tmp_path)

    assert run.rc == 0, run.err
    assert run.out.splitlines()[0] == "p/old"
    assert run.out.splitlines()[1].startswith(
        f"removed 1 session under {tmp_path} that nothing was written to for 30d: 4 files, ")
    assert not any(p.name in ("old", ".~old.lock") for p in tmp_path.rglob("*"))
    assert _blobs(store, "young") == 4 and _blobs(store, "old-but-touched") == 6
    assert MemoStore(store, project="p", session="young").read("plan") == "plan of young"


@pytest.mark.parametrize("age", ["30", "thirty days", "-1d", "0d", "1y", ""])
def test_prune_refuses_a_bad_age_in_one_line(age: str, tmp_path: Path) -> None:
    line = assert_one_error_line(cli("prune", f"--older-than={age}", "--store", tmp_path),
                                 "prune")
    assert "--older-than must be a positive number and a unit" in line


def test_prune_without_an_age_or_on_a_missing_folder_exits_2_in_one_line(
        tmp_path: Path) -> None:
    assert_one_error_line(cli("prune", "--store", tmp_path), "prune")
    line = assert_one_error_line(cli("prune", "--older-than", "1d", "--store",
                                     tmp_path / "absent"), "prune")
    assert "is not a folder" in line
