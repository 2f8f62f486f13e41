"""``ctxmgr reload`` and ``ctxmgr search`` find what a real ``create_agent`` agent offloaded:
in a LangGraph SqliteStore file, in the files under ``CTXMGR_HOME``, by thread id, by a
short id, and across the sessions of the project when no session is named."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.sqlite import SqliteStore
from test_context_tools import call, read_file, run

from ctxmgr import AutoContextConfig, FileStore, to_openai
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.cli import main
from ctxmgr.session import session_label
from ctxmgr.store import Namespace
from ctxmgr_langgraph import ContextMiddleware, LangGraphStore
from ctxmgr_langgraph.testing import ScriptedChatModel

THREAD = "ticket 42/alice"
"""A thread id that is not a store label: the session label escapes it."""


def _reads(n: int = 4) -> list[Any]:
    return [*(call("read_file", {"path": "big.py"}, f"c{i}", i) for i in range(n)), "done"]


def _run_agent(store: Any, *, project: str | None = "proj", thread: str = THREAD) -> None:
    model = ScriptedChatModel(messages=iter(_reads()))
    config = AutoContextConfig(max_tokens=12_000, reserve_output_tokens=500)
    middleware = ContextMiddleware(config.evolve(project=project) if project else config)
    graph = create_agent(model, [read_file], system_prompt="You are a coding agent.",
                         middleware=[middleware], store=store, checkpointer=InMemorySaver())
    run(graph, thread=thread)


def _cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def sqlite_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A SqliteStore file a real agent wrote its offloads to, and their ids."""
    path = tmp_path_factory.mktemp("graph") / "store.db"
    with SqliteStore.from_conn_string(str(path)) as store:
        store.setup()
        _run_agent(store)
        ids = LangGraphStore(store).keys(Namespace("proj", session_label(THREAD), "offload"))
    assert ids, "the run offloaded nothing"
    return path, [k.removesuffix(".json") for k in ids]


def _saved(path: Path, offload_id: str, session: str = session_label(THREAD)) -> list[Any]:
    """What the agent saved under ``offload_id``, as ``reload`` prints it (OpenAI dicts)."""
    with SqliteStore.from_conn_string(str(path)) as store:
        offload = OffloadStore(LangGraphStore(store), project="proj", session=session)
        return json.loads(json.dumps(to_openai(offload.load(offload_id))))


def test_reload_finds_an_offload_in_a_sqlite_store_by_its_8_character_prefix(
        sqlite_file: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = sqlite_file
    rc, out, err = _cli(capsys, "reload", ids[0][:8], "--store", path, "--project", "proj")
    assert rc == 0, err
    assert json.loads(out)["messages"] == _saved(path, ids[0])
    # no session was named: it says which one held the id
    assert f"offload {ids[0]}" in err and f"session {session_label(THREAD)}" in err


def test_reload_by_thread_id_maps_it_to_the_adapters_session_label(
        sqlite_file: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = sqlite_file
    rc, out, err = _cli(capsys, "reload", ids[0], "--store", f"sqlite:///{path}",
                        "--project", "proj", "--thread", THREAD)
    assert rc == 0, err
    assert json.loads(out)["messages"]
    rc, out, err = _cli(capsys, "reload", ids[0], "--store", path, "--project", "proj",
                        "--thread", "another thread")
    assert rc == 2 and out == ""
    assert f"no offload '{ids[0]}'" in err and session_label("another thread") in err


def test_reading_a_sqlite_store_leaves_the_file_unchanged(
        sqlite_file: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = sqlite_file
    before = path.read_bytes()
    assert _cli(capsys, "search", "line 0399", "--store", path, "--project", "proj")[0] == 0
    assert path.read_bytes() == before


def test_search_finds_a_line_of_an_offloaded_tool_result_and_names_its_id(
        sqlite_file: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = sqlite_file
    rc, out, err = _cli(capsys, "search", "def function_217(", "--store", path,
                        "--project", "proj")
    assert rc == 0, err
    assert "> line 0217: def function_217(value)" in out
    assert any(f"uuid={i}" in out for i in ids)
    assert f"session {session_label(THREAD)}" in out


def test_a_file_that_is_no_langgraph_store_is_one_error_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("not a database")
    rc, out, err = _cli(capsys, "reload", "abcd1234", "--store", junk)
    assert rc == 2 and out == "" and len(err.splitlines()) == 1
    assert str(junk) in err and "not a SQLite database" in err


def test_reload_without_options_finds_the_offloads_of_an_agent_run_in_this_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the agent's defaults: files under CTXMGR_HOME, the project of its working directory
    work = tmp_path / "repo"
    work.mkdir()
    monkeypatch.chdir(work)
    home = FileStore(os.environ["CTXMGR_HOME"])
    _run_agent(home, project=None, thread="t-1")
    ids = [n for n in home.namespaces() if n.kind == "offload"]
    assert [n.session for n in ids] == ["t-1"]
    offload_id = home.keys(ids[0])[0].removesuffix(".json")
    rc, out, err = _cli(capsys, "reload", offload_id[:8])
    assert rc == 0, err
    assert "session t-1" in err
    # from elsewhere, the agent's folder names its project
    monkeypatch.chdir(tmp_path)
    assert _cli(capsys, "reload", offload_id[:8])[0] == 2
    rc, out, err = _cli(capsys, "reload", offload_id[:8], "--project", work)
    assert rc == 0, err


def test_reload_and_search_read_a_postgres_store_by_its_uri(
        postgres_uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    from langgraph.store.postgres import PostgresStore
    from psycopg.conninfo import conninfo_to_dict

    with PostgresStore.from_conn_string(postgres_uri) as store:
        _run_agent(store, thread="pg-thread")
        ids = LangGraphStore(store).keys(Namespace("proj", "pg-thread", "offload"))
        offload_id = ids[0].removesuffix(".json")
        saved = to_openai(OffloadStore(LangGraphStore(store), project="proj",
                                       session="pg-thread").load(offload_id))
    info = conninfo_to_dict(postgres_uri)
    uri = (f"postgresql://{info['user']}@{info['host']}:{info['port']}/{info['dbname']}"
           "?sslmode=disable")
    rc, out, err = _cli(capsys, "reload", offload_id[:8], "--store", uri, "--project", "proj")
    assert rc == 0, err
    assert "session pg-thread" in err
    assert json.loads(out)["messages"] == json.loads(json.dumps(saved))
    # libpq's key=value form names the database too
    rc, out, err = _cli(capsys, "search", "def function_5(", "--store", postgres_uri,
                        "--project", "proj", "--thread", "pg-thread")
    assert rc == 0, err
    assert "> line 0005: def function_5(value)" in out and "uuid=" in out


def test_an_unreachable_postgres_uri_is_one_error_line_without_its_password(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _cli(capsys, "reload", "abcd1234", "--store",
                        "postgresql://me:s3cret@127.0.0.1:1/db?connect_timeout=2")
    assert rc == 2 and out == "" and len(err.splitlines()) == 1
    assert "cannot open it" in err and "s3cret" not in err and "me:***@" in err


def test_prefix_finds_offloads_of_a_store_given_its_own_namespace_prefix(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ctxmgr.messages import text_message

    path = tmp_path / "store.db"
    messages = [text_message("user", "the deploy key is k-7781"),
                text_message("assistant", "noted")]
    with SqliteStore.from_conn_string(str(path)) as store:
        store.setup()
        offload = OffloadStore(LangGraphStore(store, prefix=("myapp", "ctx")), project="proj",
                               session="s1")
        offload_id = offload.save(messages)

    rc, out, err = _cli(capsys, "reload", offload_id[:8], "--store", path, "--project", "proj",
                        "--prefix", "myapp.ctx")
    assert rc == 0, err
    assert json.loads(out)["messages"] == json.loads(json.dumps(to_openai(messages)))
    rc, out, err = _cli(capsys, "search", "k-7781", "--store", path, "--project", "proj",
                        "--prefix", "myapp.ctx")
    assert rc == 0 and "the deploy key is k-7781" in out, err

    # the default prefix does not see them, and a folder store has no prefix to take
    rc, _, err = _cli(capsys, "reload", offload_id[:8], "--store", path, "--project", "proj")
    assert rc == 2 and "no offload" in err
    rc, _, err = _cli(capsys, "reload", offload_id[:8], "--store", tmp_path, "--prefix", "x")
    assert rc == 2 and err.count("\n") == 1 and "--prefix: only a LangGraph store" in err
    rc, _, err = _cli(capsys, "reload", offload_id[:8], "--store", path, "--prefix", "a..b")
    assert rc == 2 and err.count("\n") == 1 and err.startswith("ctxmgr reload: error: --prefix")
