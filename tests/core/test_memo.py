"""The memo tool, driven the way a model drives it, and the memos it leaves on disk."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import json_values

from ctxmgr import AutoContextConfig
from ctxmgr.cli import main
from ctxmgr.convert import from_openai, to_openai
from ctxmgr.errors import ConfigError, InvalidMemoKeyError, MemoWriteError, StoreError
from ctxmgr.memo import (
    MEMO_TOOL,
    PLACEHOLDER_MARKER,
    MemoStore,
    contains_placeholder,
    elide_memo_content,
    memo_placeholder,
    memo_sessions,
    validate_memo_key,
)
from ctxmgr.pairing import validate_pairing
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.session import SessionEngine
from ctxmgr.store import FileStore, InMemoryStore, Namespace, project_dir_name

JSON = dict[str, Any]


def _write(memos: MemoStore, key: Any, content: Any = "body", summary: Any = "what it is") -> str:
    return memos.handle_memo_call({"action": "write", "key": key, "summary": summary,
                                   "content": content})


def _session_folder(home: Path, session: str) -> Path:
    return home / "projects" / project_dir_name() / "notes" / session


# --- layout on disk -----------------------------------------------------------------------


def test_a_written_memo_lands_at_home_projects_project_notes_session_key_md_with_its_entry(
    _isolated_home: Path,
) -> None:
    memos = MemoStore(session="sess-1")

    text = _write(memos, "plan", "# Plan\n\n1. read\n2. fix\n", "the plan")

    folder = _isolated_home / "projects" / project_dir_name(Path.cwd()) / "notes" / "sess-1"
    assert folder == _session_folder(_isolated_home, "sess-1")
    assert (folder / "plan.md").read_text(encoding="utf-8") == "# Plan\n\n1. read\n2. fix\n"
    entry = json.loads((folder / "plan.entry.json").read_text(encoding="utf-8"))
    assert entry["key"] == "plan"
    assert entry["summary"] == "the plan"
    assert entry["size"] == len("# Plan\n\n1. read\n2. fix\n")
    assert entry["created"] == entry["updated"]
    assert entry["created"].endswith("+00:00")
    assert sorted(p.name for p in folder.iterdir()) == ["plan.entry.json", "plan.md"]
    assert text == ("Memo 'plan' saved: 23 chars, summary: \"the plan\". Recall it with memo "
                    "read key=\"plan\".")


def test_the_project_folder_name_comes_from_the_working_directory() -> None:
    memos = MemoStore(session="s")

    assert memos.namespace == Namespace(project=project_dir_name(), session="s", kind="notes")
    assert memos.namespace.project.startswith(re.sub(r"[^A-Za-z0-9._-]", "-", str(Path.cwd())))


def test_settings_home_from_a_dotenv_file_decides_where_memos_land(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CTXMGR_HOME")
    Path(".env").write_text(f"CTXMGR_MEMO=true\nCTXMGR_HOME={tmp_path / 'from-dotenv'}\n")
    config = AutoContextConfig()
    assert config.memo is True

    _write(SessionEngine(config).memos(FileStore(config.home), "s"), "k", "v")

    assert (tmp_path / "from-dotenv" / "projects" / project_dir_name() / "notes" / "s"
            / "k.md").read_text() == "v"


def test_the_same_key_overwrites_instead_of_adding_a_second_memo(_isolated_home: Path) -> None:
    memos = MemoStore(session="s")
    _write(memos, "plan", "first", "v1")
    created = memos.info("plan").created  # type: ignore[union-attr]

    text = _write(memos, "plan", "second", "v2")

    assert text.startswith("Memo 'plan' updated (the previous version was overwritten)")
    assert [e.key for e in memos.list_memos()] == ["plan"]
    info = memos.info("plan")
    assert info is not None and (info.summary, info.size, info.created) == ("v2", 6, created)
    assert memos.read("plan") == "second"
    assert (_session_folder(_isolated_home, "s") / "plan.md").read_text() == "second"


def test_keys_differing_only_in_case_are_one_memo() -> None:
    memos = MemoStore(InMemoryStore(), session="s")
    _write(memos, "Plan", "first")
    _write(memos, "plan", "second")

    assert [e.key for e in memos.list_memos()] == ["Plan"]
    assert memos.read("PLAN") == "second"


def test_list_is_newest_updated_first() -> None:
    memos = MemoStore(InMemoryStore(), session="s")
    for key in ("a", "b", "c"):
        _write(memos, key, f"content of {key}", f"summary {key}")
    _write(memos, "a", "new content of a", "summary a2")

    text = memos.handle_memo_call({"action": "list"})

    assert [e.key for e in memos.list_memos()] == ["a", "c", "b"]
    lines = text.splitlines()
    assert lines[0] == "3 memo(s) of at most 50, most recently updated first:"
    assert [line.split(":")[0] for line in lines[1:]] == ["- a", "- c", "- b"]
    assert lines[1].startswith("- a: summary a2 (16 chars, updated ")


def test_list_of_an_empty_session_says_so() -> None:
    assert MemoStore(InMemoryStore(), session="s").handle_memo_call({"action": "list"}) == \
        "No memos in this session yet."


def test_read_returns_the_exact_content_after_a_header() -> None:
    memos = MemoStore(InMemoryStore(), session="s")
    content = "line 1\n\n  indented ünïcode 🧪\n"
    _write(memos, "notes", content, "my notes")

    text = memos.handle_memo_call({"action": "read", "key": "notes"})

    head, body = text.split("\n\n", 1)
    assert head.startswith(f"Memo 'notes' (summary: \"my notes\"; {len(content)} chars; updated ")
    assert body == content


def test_read_and_delete_of_a_missing_key_name_the_existing_keys() -> None:
    memos = MemoStore(InMemoryStore(), session="s")
    _write(memos, "plan")

    assert memos.handle_memo_call({"action": "read", "key": "nope"}) == \
        "No memo with key 'nope'. Existing keys: plan."
    assert memos.handle_memo_call({"action": "delete", "key": "nope"}) == \
        "No memo with key 'nope'; nothing deleted. Existing keys: plan."


def test_delete_removes_the_file_and_the_index_entry(_isolated_home: Path) -> None:
    memos = MemoStore(session="s")
    _write(memos, "a")
    _write(memos, "b")

    assert memos.handle_memo_call({"action": "delete", "key": "a"}) == "Deleted memo 'a'"

    folder = _session_folder(_isolated_home, "s")
    assert sorted(p.name for p in folder.iterdir()) == ["b.entry.json", "b.md"]


# --- the cap -----------------------------------------------------------------------------


def test_the_51st_memo_is_refused_with_advice_to_delete_stale_ones() -> None:
    memos = MemoStore(InMemoryStore(), session="s")
    for i in range(50):
        assert _write(memos, f"m{i}").startswith("Memo ")

    text = _write(memos, "m50")

    assert text == ("Refused: this session already has 50 memos, the maximum of 50. Delete "
                    "memos that are stale (see memo list; then memo delete key=\"...\") or "
                    "overwrite an existing key, and write again")
    assert memos.info("m50") is None
    assert _write(memos, "m7", "overwriting is fine at the cap").startswith("Memo 'm7' updated")
    memos.handle_memo_call({"action": "delete", "key": "m0"})
    assert _write(memos, "m50").startswith("Memo 'm50' saved")


def test_the_cap_is_configurable() -> None:
    memos = MemoStore(InMemoryStore(), session="s", max_memos=2)
    _write(memos, "a")
    _write(memos, "b")

    assert _write(memos, "c").startswith("Refused: this session already has 2 memos")


# --- summary and content -------------------------------------------------------------------


@pytest.mark.parametrize(("summary", "ok"), [
    ("x", True), ("x" * 300, True), ("x" * 301, False), ("", False), ("   ", False),
    (None, False), (42, False),
])
def test_summary_must_be_1_to_300_characters(summary: Any, ok: bool) -> None:
    memos = MemoStore(InMemoryStore(), session="s")

    text = _write(memos, "k", "body", summary)

    assert text.startswith("Memo 'k' saved") is ok, text
    if not ok:
        assert text.startswith("Refused: summary")
        assert memos.info("k") is None


@pytest.mark.parametrize("content", ["", "  \n ", None, 12])
def test_content_must_be_a_non_empty_string(content: Any) -> None:
    memos = MemoStore(InMemoryStore(), session="s")

    text = _write(memos, "k", content)

    assert text.startswith("Refused: content"), text
    assert memos.info("k") is None


# --- keys ------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", [
    "../../etc/passwd", "a/b", "a\\b", "", "x" * 10_000, "x" * 101, "..", ".", ".hidden",
    "a..b", "/abs", "C:evil", "sp ace", "new\nline", "nul\x00", "CON", "nul.txt", "ключ",
])
def test_unsafe_keys_are_refused_and_nothing_is_written(key: str, _isolated_home: Path) -> None:
    memos = MemoStore(session="s")

    for action in ("write", "read", "delete"):
        text = memos.handle_memo_call({"action": action, "key": key, "summary": "s",
                                       "content": "c"})
        assert text.startswith("Error: memo key "), text
        assert 'Example keys: "plan", "root-cause_analysis"' in text
        assert len(text) < 600  # a 10,000-character key is not echoed back whole
    with pytest.raises(InvalidMemoKeyError):
        validate_memo_key(key)
    assert not _isolated_home.exists() or not any(p.is_file() for p in _isolated_home.rglob("*"))


@pytest.mark.parametrize("key", ["plan", "root-cause_analysis", "v1.2", "_x", "A" * 100, "a.md"])
def test_safe_keys_are_accepted(key: str) -> None:
    assert validate_memo_key(key) == key
    memos = MemoStore(InMemoryStore(), session="s")
    assert _write(memos, key).startswith(f"Memo {key!r} saved")


def test_a_missing_or_non_string_key_gets_an_explanation() -> None:
    memos = MemoStore(InMemoryStore(), session="s")

    assert memos.handle_memo_call({"action": "read"}).startswith("Error: read needs a key")
    assert memos.handle_memo_call({"action": "write", "key": 5, "summary": "s",
                                   "content": "c"}) == (
        'Error: memo key must be a string, got int. Example keys: "plan", '
        '"root-cause_analysis"')


@settings(max_examples=300)
@given(key=st.text(max_size=120))
def test_no_accepted_key_resolves_outside_its_session_folder(key: str) -> None:
    store = FileStore("/nonexistent-root")
    ns = Namespace(project="p", session="s", kind="notes")
    try:
        validate_memo_key(key)
    except InvalidMemoKeyError:
        return
    path = store.path(ns, f"{key}.md")
    assert path.parent == store.folder(ns)
    assert os.path.realpath(path).startswith(os.path.realpath(store.folder(ns)) + os.sep)


# --- placeholder, elision and the hallucination guard ---------------------------------------


def _memo_call_history(arguments: JSON, call_id: str = "call_memo") -> list[JSON]:
    return [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": "Saving my analysis.", "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "memo", "arguments": json.dumps(arguments)}}]},
    ]


def test_after_a_write_the_call_content_is_replaced_by_the_placeholder_in_the_history() -> None:
    memos = MemoStore(InMemoryStore(), session="s")
    content = "Root cause: the cache key ignores the locale.\n" * 50
    arguments = {"action": "write", "key": "root-cause", "summary": "why the test fails",
                 "content": content}
    raw = _memo_call_history(arguments)
    messages = from_openai(raw)
    (use,) = messages[-1].tool_uses

    result = memos.run_memo_call(dict(use.input))
    elided = elide_memo_content(messages, use.id, result.placeholder or "")
    elided.append(from_openai([{"role": "tool", "tool_call_id": use.id,
                                "content": result.text}])[0])

    assert result.ok and result.placeholder == (
        '[PLACEHOLDER — NOT REAL CONTENT] persisted to disk; key: "root-cause", summary: '
        f'"why the test fails", size: {len(content)} chars; recall: memo read key="root-cause"')
    (new_use,) = elided[2].tool_uses
    assert new_use.id == use.id and elided[2].id == messages[2].id
    assert dict(new_use.input) == {**arguments, "content": result.placeholder}
    assert all(a is b for a, b in zip(elided[:2], messages[:2], strict=True))
    sent = to_openai(elided)
    assert json.loads(sent[2]["tool_calls"][0]["function"]["arguments"])["content"] == \
        result.placeholder
    assert sent[2]["content"] == "Saving my analysis."
    assert content not in json.dumps(sent)
    assert validate_pairing(elided) == [] and validate_pairing(elided, rules="anthropic") == []
    assert memos.read("root-cause") == content


def test_elision_targets_the_latest_call_with_a_reused_id() -> None:
    raw = _memo_call_history({"action": "write", "key": "a", "summary": "s", "content": "one"})
    raw.append({"role": "tool", "tool_call_id": "call_memo", "content": "ok"})
    raw += _memo_call_history({"action": "write", "key": "b", "summary": "s",
                               "content": "two"})[2:]
    messages = from_openai(raw)

    elided = elide_memo_content(messages, "call_memo", "PH")

    assert elided[2] is messages[2]
    assert elided[4].tool_uses[0].input["content"] == "PH"


def test_elision_of_an_unknown_call_or_a_read_call_changes_nothing() -> None:
    messages = from_openai(_memo_call_history({"action": "read", "key": "a"}))

    assert elide_memo_content(messages, "call_memo", "PH") == messages
    assert elide_memo_content(messages, "nope", "PH") == messages


@pytest.mark.parametrize("content", [
    memo_placeholder("plan", "the plan", 120),
    f"My notes:\n{memo_placeholder('plan', 'the plan', 120)}\nmore",
    "[PLACEHOLDER - NOT REAL CONTENT] persisted to disk",
    "[placeholder – not real content]",
    PLACEHOLDER_MARKER,
])
def test_a_write_whose_content_is_or_contains_the_placeholder_is_refused(content: str) -> None:
    memos = MemoStore(InMemoryStore(), session="s")
    _write(memos, "plan", "the real plan", "the plan")

    result = memos.run_memo_call({"action": "write", "key": "plan", "summary": "the plan",
                                  "content": content})

    assert not result.ok and result.placeholder is None
    assert result.text.startswith("Refused: content is (or contains) the placeholder")
    assert "Send the real text you want to save as content" in result.text
    assert memos.read("plan") == "the real plan"


def test_contains_placeholder_ignores_ordinary_text() -> None:
    assert not contains_placeholder("a placeholder is not real content")
    assert contains_placeholder(memo_placeholder("k", "s", 1))


# --- robustness ---------------------------------------------------------------------------------


_memo_inputs = st.one_of(
    json_values(),
    st.text(max_size=40),
    st.fixed_dictionaries(
        {"action": st.one_of(st.sampled_from(["write", "read", "list", "delete", "WRITE"]),
                             json_values())},
        optional={"key": st.one_of(st.text(max_size=30), json_values()),
                  "summary": st.one_of(st.text(max_size=40), json_values()),
                  "content": st.one_of(st.text(max_size=60), json_values())},
    ),
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool_input=_memo_inputs)
def test_any_tool_input_gets_a_string_result(tool_input: Any) -> None:
    memos = MemoStore(InMemoryStore(), session="s", max_memos=3)

    result = memos.run_memo_call(tool_input)

    assert isinstance(result.text, str) and result.text
    assert memos.handle_memo_call(tool_input) == result.text or result.action == "write"


def test_a_failing_store_gives_the_model_an_error_not_an_exception() -> None:
    class Broken(InMemoryStore):
        def put(self, namespace: Namespace, key: str, data: bytes) -> None:
            raise StoreError(28, "cannot write: No space left on device")

    memos = MemoStore(Broken(), session="s")

    text = _write(memos, "plan")

    assert text.startswith("Error: the memo store failed (")
    assert "No space left on device" in text


def test_the_index_is_rebuilt_from_the_memo_files_when_entries_are_missing_or_corrupt(
    _isolated_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    memos = MemoStore(session="s")
    _write(memos, "a", "aaa")
    _write(memos, "b", "bb")
    folder = _session_folder(_isolated_home, "s")

    (folder / "a.entry.json").write_text("{not json")
    assert sorted(e.key for e in memos.list_memos()) == ["a", "b"]
    assert "a.entry.json is damaged" in caplog.text
    for entry in folder.glob("*.entry.json"):
        entry.unlink()
    assert memos.read("a") == "aaa"
    assert [(e.summary, e.size) for e in memos.list_memos()] == [("(no index entry)", 3),
                                                                ("(no index entry)", 2)]


def test_memo_keys_that_look_like_entry_or_index_names_keep_their_own_entries() -> None:
    memos = MemoStore(InMemoryStore(), session="s")
    keys = ["x", "x.entry", "x.entry.json", "x.md", "index", "index.json"]
    for key in keys:
        _write(memos, key, f"content of {key}", f"summary of {key}")

    assert {e.key: e.summary for e in memos.list_memos()} == {
        key: f"summary of {key}" for key in keys}
    assert all(memos.read(key) == f"content of {key}" for key in keys)
    memos.delete("x")
    assert sorted(e.key for e in memos.list_memos()) == sorted(keys[1:])


# --- sessions written by earlier versions (one index.json) ----------------------------------

_LEGACY_INDEX = {"version": 1, "memos": [
    {"key": "b", "summary": "summary of b", "size": 12, "created": "2024-05-01T10:00:02+00:00",
     "updated": "2024-05-01T10:00:02+00:00"},
    {"key": "a", "summary": "summary of a", "size": 12, "created": "2024-05-01T10:00:01+00:00",
     "updated": "2024-05-01T10:00:01+00:00"},
]}


def _legacy_session(home: Path) -> tuple[MemoStore, Path]:
    """A session as an earlier ctxmgr left it: memo files and one index.json."""
    memos = MemoStore(FileStore(home), session="s", project="p")
    folder = FileStore(home).folder(memos.namespace)
    folder.mkdir(parents=True)
    for key in ("a", "b"):
        (folder / f"{key}.md").write_text(f"content of {key}")
    (folder / "index.json").write_text(json.dumps(_LEGACY_INDEX, indent=2))
    return memos, folder


def test_a_session_written_with_one_index_json_still_lists_its_summaries(tmp_path: Path) -> None:
    memos, _ = _legacy_session(tmp_path)

    assert [(e.key, e.summary, e.size) for e in memos.list_memos()] == [
        ("b", "summary of b", 12), ("a", "summary of a", 12)]
    assert memos.handle_memo_call({"action": "read", "key": "a"}).endswith("\n\ncontent of a")


def test_new_writes_to_a_legacy_session_lose_none_of_its_summaries(tmp_path: Path) -> None:
    memos, folder = _legacy_session(tmp_path)
    index = (folder / "index.json").read_bytes()

    _write(memos, "c", "content of c", "summary of c")
    _write(memos, "a", "new content of a", "summary of a, again")

    assert [(e.key, e.summary) for e in memos.list_memos()] == [
        ("a", "summary of a, again"), ("c", "summary of c"), ("b", "summary of b")]
    info = memos.info("a")
    assert info is not None and info.created == "2024-05-01T10:00:01+00:00"  # kept
    assert (folder / "index.json").read_bytes() == index  # read, never written
    assert memos.delete("b") and [e.key for e in memos.list_memos()] == ["a", "c"]


def test_an_entry_key_wins_over_the_legacy_entry_of_the_same_memo(tmp_path: Path) -> None:
    memos, folder = _legacy_session(tmp_path)
    _write(memos, "a", "content of a", "the newer summary")
    (folder / "index.json").write_text(json.dumps(_LEGACY_INDEX))  # as if rewritten since

    assert {e.key: e.summary for e in memos.list_memos()} == {"a": "the newer summary",
                                                              "b": "summary of b"}


def test_developer_write_raises_what_the_tool_reports() -> None:
    memos = MemoStore(InMemoryStore(), session="s")
    with pytest.raises(MemoWriteError, match="summary"):
        memos.write("k", "c", "")
    with pytest.raises(InvalidMemoKeyError):
        memos.write("../k", "c", "s")
    assert isinstance(MemoWriteError("x"), ValueError)


def test_memo_tool_definition_is_valid_for_openai_and_anthropic() -> None:
    openai_tool, anthropic_tool = MEMO_TOOL.to_openai(), MEMO_TOOL.to_anthropic()

    assert openai_tool["function"]["name"] == anthropic_tool["name"] == "memo"
    schema = anthropic_tool["input_schema"]
    assert schema == openai_tool["function"]["parameters"]
    assert schema["properties"]["action"]["enum"] == ["write", "read", "list", "delete"]
    assert schema["properties"]["summary"]["maxLength"] == 300
    assert schema["required"] == ["action"]
    json.dumps(openai_tool)


# --- a second process ------------------------------------------------------------------------


def test_a_second_process_reads_what_the_first_wrote(_isolated_home: Path) -> None:
    memos = MemoStore(session="run-1")
    content = "Plan:\n- reproduce\n- fix ünïcode 🧪\n"
    _write(memos, "plan", content, "the plan")
    _write(memos, "errors", "ImportError fixed by ...", "errors seen")
    script = (
        "import json, sys\n"
        "from ctxmgr.memo import MemoStore\n"
        "m = MemoStore(session='run-1')\n"
        "print(json.dumps({'list': [e.key for e in m.list_memos()],\n"
        "                  'read': m.handle_memo_call({'action': 'read', 'key': 'plan'}),\n"
        "                  'raw': m.read('plan')}))\n"
    )
    env = {**os.environ, "CTXMGR_HOME": str(_isolated_home)}

    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=Path.cwd(), check=True, encoding="utf-8")

    got = json.loads(out.stdout)
    assert got["list"] == ["errors", "plan"]
    assert got["raw"] == content
    assert got["read"].endswith("\n\n" + content)


def test_the_memo_command_lists_reads_and_deletes_memos_on_disk(
    _isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(MemoStore(session="s1"), "plan", "the plan text\n", "the plan")
    _write(MemoStore(session="s2"), "notes", "n", "notes")

    assert main(["memo", "list"]) == 0
    out = capsys.readouterr().out
    assert "session s1: 1 memo\n" in out and "  plan  the plan  (14 characters" in out
    assert "session s2: 1 memo\n" in out and "(1 character," in out
    assert main(["memo", "list", "--json", "--session", "s1"]) == 0
    assert [e["key"] for e in json.loads(capsys.readouterr().out)["s1"]] == ["plan"]
    assert main(["memo", "read", "plan"]) == 0
    assert capsys.readouterr().out == "the plan text\n"
    assert main(["memo", "delete", "notes", "--session", "s2"]) == 0
    assert memo_sessions(_isolated_home, project_dir_name()) == ["s1", "s2"]
    assert MemoStore(session="s2").list_memos() == []


def test_the_memo_command_reports_bad_keys_and_missing_memos_with_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["memo", "read", "../../etc/passwd"]) == 2
    assert main(["memo", "read", "nope"]) == 2
    assert main(["memo", "delete"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("ctxmgr memo: error: memo key '../../etc/passwd' is not allowed")
    assert err[1].startswith("ctxmgr memo: error: no memo 'nope' in project")
    assert err[2] == "ctxmgr memo: error: memo delete needs a KEY"


@pytest.mark.parametrize("value", ["../../etc", "a/b", ".."])
def test_the_memo_command_refuses_a_session_that_is_not_a_folder_name(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    assert main(["memo", "list", "--session", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must be 1-200 characters" in err


@pytest.mark.parametrize("value", ["../../etc", "a/b", ".."])
def test_a_memo_project_given_as_a_path_is_that_folders_project_never_a_path_in_the_store(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    # --project takes the agent's working directory, as the adapters name its project
    assert main(["memo", "list", "--project", value]) == 0
    out = capsys.readouterr().out
    assert f"no memos for project {project_dir_name(value)} under" in out


def test_memo_sessions_refuses_a_project_that_is_not_a_folder_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="project must be 1-200 characters"):
        memo_sessions(tmp_path, "../../etc")


def test_memo_sessions_skip_linked_session_folders(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "root")
    MemoStore(store, session="real", project="p").write("k", "v", "s")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (store.folder(Namespace("p", "real", "notes")).parent / "linked").symlink_to(elsewhere)

    assert memo_sessions(tmp_path / "root", "p") == ["real"]


def test_the_memo_command_runs_as_a_module_in_a_new_process(_isolated_home: Path) -> None:
    _write(MemoStore(session="s1"), "plan", "from process one", "p")

    out = subprocess.run([sys.executable, "-m", "ctxmgr", "memo", "read", "plan"],
                         capture_output=True, text=True, cwd=Path.cwd(), check=True,
                         env={**os.environ, "CTXMGR_HOME": str(_isolated_home)})

    assert out.stdout == "from process one"


def test_a_large_real_tool_result_survives_a_memo_round_trip(
    fixture_trajectories: list[Trajectory],
) -> None:
    result = next(b for t in fixture_trajectories for m in t.messages for b in m.tool_results
                  if len(b.text) > 5000)
    memos = MemoStore(InMemoryStore(), session="s")
    _write(memos, "big", result.text, "a large tool result")
    assert memos.read("big") == result.text


def test_contents_gives_every_memo_with_its_content_reading_each_once(tmp_path: Path) -> None:
    """What context_search reads on every call: on a remote store each read is a round
    trip, so the session is listed once and each memo file read once."""

    class CountingStore(FileStore):
        gets = 0

        def get(self, namespace: Namespace, key: str) -> bytes | None:
            CountingStore.gets += 1
            return super().get(namespace, key)

    memos = MemoStore(CountingStore(tmp_path), session="s", project="p")
    for key in ("alpha", "beta", "gamma"):
        memos.write(key, f"the content of {key}\n", f"what {key} holds")
    CountingStore.gets = 0

    got = memos.contents()

    reads = CountingStore.gets
    assert [(info.key, text) for info, text in got] == [
        (info.key, memos.read(info.key)) for info in memos.list_memos()]
    assert [info.key for info, _ in got] == ["gamma", "beta", "alpha"]  # newest first
    assert reads <= 2 * 3 + 1  # an entry and a file per memo, and the legacy index
