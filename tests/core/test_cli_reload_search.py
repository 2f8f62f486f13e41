"""``ctxmgr reload`` and ``ctxmgr search`` over a ctxmgr home: which sessions they look in,
short ids, and one error line naming what the user typed when an id is unknown or
ambiguous. (A real agent's offloads, in LangGraph stores too, are found in
``tests/langgraph_adapter/test_cli_finds_agent_offloads.py``.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import assert_one_error_line, cli

from ctxmgr import FileStore, Message, TextBlock
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.memo import MemoStore
from ctxmgr.session import session_label

PROJECT = "proj"
A1 = "abcd1234" + "0" * 24
A2 = "abcd1234" + "f" * 24
B1 = "beef0000" + "1" * 24


def _save(home: Path, session: str, offload_id: str, text: str) -> None:
    OffloadStore(FileStore(home), project=PROJECT, session=session).save(
        [Message(role="tool", content=(TextBlock(text=text),), id=f"m-{offload_id[:4]}")],
        offload_id)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Two sessions of one project: A1 and A2 share their first 8 digits."""
    root = tmp_path / "home"
    _save(root, "t-1", A1, "pytest output\nFAILED tests/test_api.py::test_login\n1 failed")
    _save(root, "t-2", A2, "grep -n login src/\nsrc/auth.py:12: def login(user):")
    _save(root, "t-2", B1, "ls\nREADME.md\nsrc")
    return root


def test_a_unique_prefix_is_reloaded_and_the_session_holding_it_is_named(home: Path) -> None:
    run = cli("reload", "beef", "--home", home, "--project", PROJECT)
    assert run.rc == 0, run.err
    assert "README.md" in run.out
    assert run.err.strip() == f"ctxmgr reload: offload {B1}, project {PROJECT}, session t-2"


def test_a_prefix_two_offloads_share_lists_them_and_exits_2(home: Path) -> None:
    line = assert_one_error_line(cli("reload", "abcd1234", "--home", home, "--project",
                                     PROJECT), "reload")
    assert "'abcd1234' is ambiguous" in line
    assert f"{A1} ({PROJECT}/t-1)" in line and f"{A2} ({PROJECT}/t-2)" in line


def test_naming_the_session_makes_a_shared_prefix_unique(home: Path) -> None:
    run = cli("reload", "abcd1234", "--home", home, "--project", PROJECT, "--session", "t-1")
    assert run.rc == 0, run.err
    assert "FAILED tests/test_api.py" in run.out


def test_an_unknown_id_says_where_it_looked(home: Path) -> None:
    line = assert_one_error_line(cli("reload", "12345678", "--home", home, "--project",
                                     PROJECT), "reload")
    assert "no offload '12345678'" in line
    assert f"in any session of project {PROJECT} in files under {home}" in line
    assert "(2 sessions searched)" in line


@pytest.mark.parametrize(("typed", "expected"), [
    ("xyz", "not an offload id: 'xyz'"),
    ("abc", "offload id 'abc' is too short"),
])
def test_an_id_that_is_not_hex_or_too_short_names_what_was_typed(home: Path, typed: str,
                                                                 expected: str) -> None:
    line = assert_one_error_line(cli("reload", typed, "--home", home), "reload")
    assert expected in line


def test_the_whole_offload_tag_is_accepted_as_an_id(home: Path) -> None:
    run = cli("reload", f"<!-- CONTEXT_OFFLOAD: uuid={B1} -->", "--home", home, "--project",
              PROJECT)
    assert run.rc == 0, run.err


def test_a_session_that_is_not_a_label_points_at_thread(home: Path) -> None:
    line = assert_one_error_line(cli("reload", "beef", "--home", home, "--session",
                                     "ticket 42"), "reload")
    assert "'ticket 42'" in line and "--thread" in line


def test_thread_maps_to_the_label_the_adapters_give_its_session(tmp_path: Path) -> None:
    _save(tmp_path / "h", session_label("ticket 42"), B1, "the original")
    run = cli("reload", "beef", "--home", tmp_path / "h", "--project", PROJECT,
              "--thread", "ticket 42")
    assert run.rc == 0, run.err


def test_a_missing_home_or_store_folder_is_one_error_line(tmp_path: Path) -> None:
    for flag in ("--home", "--store"):
        line = assert_one_error_line(cli("reload", "beef", flag, tmp_path / "nope"), "reload")
        assert str(tmp_path / "nope") in line


def test_search_looks_across_the_sessions_of_the_project_and_names_each(home: Path) -> None:
    MemoStore(FileStore(home), session="t-3", project=PROJECT).write(
        "plan", "1. fix login in src/auth.py", "the plan")
    run = cli("search", "login", "--home", home, "--project", PROJECT)
    assert run.rc == 0, run.err
    assert "lines match" in run.out
    assert f"uuid={A1}" in run.out and f"uuid={A2}" in run.out
    assert "session t-1" in run.out and "session t-2" in run.out
    assert 'memo "plan"' in run.out and "session t-3" in run.out


def test_search_pages_say_which_option_gives_the_next(home: Path) -> None:
    run = cli("search", "login", "--home", home, "--project", PROJECT, "--max-results", "1")
    assert run.rc == 0, run.err
    assert run.out.rstrip().endswith("more: the same command with --page 2.")
    last = cli("search", "login", "--home", home, "--project", PROJECT, "--max-results", "1",
               "--page", "3")
    assert "ctxmgr reload UUID" in last.out


@pytest.mark.parametrize(("args", "expected"), [
    (["[unclosed", "--regex"], "not a valid regular expression"),
    (["login", "--page", "0"], "--page must be a whole number from 1, got 0"),
    (["login", "--page", "9"], "ask for page 1 to"),
])
def test_search_errors_are_one_line(home: Path, args: list[str], expected: str) -> None:
    line = assert_one_error_line(cli("search", *args, "--home", home, "--project", PROJECT),
                                 "search")
    assert expected in line


def test_search_with_nothing_offloaded_says_where_it_looked(tmp_path: Path) -> None:
    line = assert_one_error_line(cli("search", "x", "--home", tmp_path, "--project", "empty"),
                                 "search")
    assert "nothing offloaded in any session of project empty" in line


def test_memo_project_takes_the_agents_folder_as_reload_does(tmp_path: Path) -> None:
    from ctxmgr.store import project_dir_name

    work = tmp_path / "agent-workdir"
    work.mkdir()
    MemoStore(FileStore(tmp_path / "h"), session="s1", project=project_dir_name(work)).write(
        "plan", "the plan's text", "the plan")
    run = cli("memo", "read", "plan", "--home", tmp_path / "h", "--project", work)
    assert run.rc == 0, run.err
    assert run.out == "the plan's text"
