"""The command line under hostile and unlucky input: one stderr line and exit 2, always.

Each test reproduces a failure found by probing the command line (a traceback,
exit 1, a misleading message, a lost file mode, a leftover offload) and pins
the fix.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import FIXTURE_RUNS, Run, assert_one_error_line, cli

from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.messages import text_message
from ctxmgr.store.files import FileStore

CLI_PROJECT, CLI_SESSION = "ctxmgr-cli", "default"  # where compress puts offloads
SMALL = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
OVERFLOWING = "1" + "0" * 400


def _file(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _offload_files(store: Path) -> list[Path]:
    return sorted(store.rglob("offload/*/*.json")) if store.exists() else []


# ------------------------------------------------------------------ hostile JSON input


@pytest.mark.parametrize("command", ["compress", "replay"])
def test_deeply_nested_json_is_one_error_line(command: str, tmp_path: Path) -> None:
    deep = _file(tmp_path / "deep.json", "[" * 100_000)
    line = assert_one_error_line(cli(command, deep), command)
    assert "deep.json" in line and "nested too deeply" in line


@pytest.mark.parametrize("command", ["compress", "replay"])
def test_a_message_nested_too_deep_to_process_is_one_error_line(command: str,
                                                                 tmp_path: Path) -> None:
    """Readable by the JSON parser, but too deep for the converters after it."""
    nested = "[" * 900 + "]" * 900
    src = _file(tmp_path / "nested.json",
                f'[{{"role": "user", "content": "hi", "x_vendor": {nested}}}]')
    line = assert_one_error_line(cli(command, src), command)
    assert "nested too deeply" in line


@pytest.mark.parametrize("command", ["compress", "replay"])
def test_a_5000_digit_integer_is_one_error_line(command: str, tmp_path: Path) -> None:
    src = _file(tmp_path / "big.json",
                '[{"role": "user", "content": "hi", "x_count": ' + "7" * 5000 + "}]")
    line = assert_one_error_line(cli(command, src), command)
    assert "big.json" in line and "5000 digits" in line


@pytest.mark.parametrize(("command", "args"), [
    ("compress", [FIXTURE_RUNS[0]]),
    ("replay", [FIXTURE_RUNS[0], "--policy", "none"]),
    ("demo", []),
])
def test_max_tokens_of_401_digits_is_one_error_line(command: str, args: list[object]) -> None:
    line = assert_one_error_line(cli(command, *args, "--max-tokens", OVERFLOWING), command)
    assert "--max-tokens must be at most 1,000,000,000, got a 401-digit number" in line


# ------------------------------------------------------------------ argument errors


@pytest.mark.parametrize("argv", [
    ["compress"],
    ["compress", "x.json", "--max-tokens", "many"],
    ["replay", "--policy"],
    ["memo", "frobnicate"],
    ["nosuchcommand"],
])
def test_argument_errors_are_one_line_and_exit_2(argv: list[str]) -> None:
    run = cli(*argv)
    assert run.rc == 2, run
    lines = [line for line in run.err.splitlines() if line.strip()]  # rich's progress: blank
    assert len(lines) == 1, run.err
    assert lines[0].startswith("ctxmgr") and ": error: " in lines[0]
    assert lines[0].endswith("--help)")


@pytest.mark.parametrize(("argv", "expected"), [
    (["replay", "--policy", "bogus", FIXTURE_RUNS[0]], "unknown policy 'bogus'; choose from "
                                                       "none, ctxmgr, "),
    (["replay", FIXTURE_RUNS[0], "--policy", "none,bogus"], "unknown policy 'bogus'"),
    (["replay", "ctxmgr", FIXTURE_RUNS[0]],
     "'ctxmgr' is a policy name, not a trajectory file: name policies with --policy"),
    (["memo", "list", "stray"], "memo list takes no KEY, got 'stray'"),
    (["compress", FIXTURE_RUNS[0], "extra.json"], "compress: error: unrecognized arguments: "
                                                  "extra.json"),
])
def test_argument_errors_name_what_was_typed(argv: list[object], expected: str) -> None:
    line = assert_one_error_line(cli(*argv), str(argv[0]))
    assert expected in line


def test_a_memo_key_after_an_option_is_still_the_key(tmp_path: Path) -> None:
    line = assert_one_error_line(cli("memo", "read", "--session", "s1", "the-key",
                                     "--project", "p"), "memo")
    assert "no memo 'the-key' in project p" in line and "(session s1)" in line


def test_argument_errors_are_one_line_in_a_real_process() -> None:
    done = subprocess.run([sys.executable, "-m", "ctxmgr", "compress"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr


# ------------------------------------------------------------------ outputs


def test_compress_to_a_directory_names_that_directory(tmp_path: Path) -> None:
    out = tmp_path / "outdir"
    out.mkdir()
    src = _file(tmp_path / "in.json", json.dumps(SMALL))
    line = assert_one_error_line(cli("compress", src, "-o", out, "--store", tmp_path / "s"),
                                 "compress")
    assert f"-o {out}: is a directory" in line
    assert ".tmp" not in line and ".ctxmgr-" not in line
    assert list(out.iterdir()) == []


def test_replay_checks_its_outputs_before_replaying(tmp_path: Path) -> None:
    missing = tmp_path / "missing" / "dir" / "r.json"
    run = cli("replay", FIXTURE_RUNS[0], "--policy", "none", "--json", missing)
    line = assert_one_error_line(run, "replay")
    assert f"--json {missing}: the folder" in line and "does not exist" in line
    assert run.out == "", "nothing was replayed (no table printed)"


def test_a_thread_that_is_not_there_names_the_threads_that_are(tmp_path: Path) -> None:
    runs = _file(tmp_path / "runs.jsonl", "\n".join(
        json.dumps({"id": name, "messages": SMALL}) for name in ("alpha", "beta")))
    line = assert_one_error_line(cli("replay", runs, "--thread", "gamma", "--policy", "none"),
                                 "replay")
    assert "no thread 'gamma'" in line and "alpha, beta" in line


def test_replay_checks_the_plot_path_before_replaying(tmp_path: Path) -> None:
    run = cli("replay", FIXTURE_RUNS[0], "--policy", "none", "--plot", tmp_path)
    assert "is a directory" in assert_one_error_line(run, "replay")


@pytest.mark.parametrize("command", ["compress", "reload"])
def test_writing_over_an_existing_file_keeps_its_mode(command: str, tmp_path: Path) -> None:
    store = tmp_path / "store"
    out = tmp_path / "out.json"
    out.write_text("old")
    out.chmod(0o644)
    if command == "compress":
        run = cli("compress", _file(tmp_path / "in.json", json.dumps(SMALL)), "-o", out,
                  "--store", store)
    else:
        offload_id = OffloadStore(FileStore(store), project=CLI_PROJECT,
                                  session=CLI_SESSION).save([text_message("user", "x")])
        run = cli("reload", offload_id, "--store", store, "-o", out)
    assert run.rc == 0, run.err
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert json.loads(out.read_text())["messages"]


def test_a_new_output_file_gets_the_usual_mode_under_the_umask(tmp_path: Path) -> None:
    out = tmp_path / "new.json"
    old = os.umask(0o022)
    try:
        run = cli("compress", _file(tmp_path / "in.json", json.dumps(SMALL)), "-o", out,
                  "--store", tmp_path / "s")
    finally:
        os.umask(old)
    assert run.rc == 0, run.err
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_output_to_a_device_is_written_into_not_replaced(tmp_path: Path) -> None:
    run = cli("compress", _file(tmp_path / "in.json", json.dumps(SMALL)), "-o", os.devnull,
              "--store", tmp_path / "s")
    assert run.rc == 0, run.err
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_output_through_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path: Path
                                                                          ) -> None:
    target, link = tmp_path / "real.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    run = cli("compress", _file(tmp_path / "in.json", json.dumps(SMALL)), "-o", link,
              "--store", tmp_path / "s")
    assert run.rc == 0, run.err
    assert link.is_symlink() and json.loads(target.read_text())["messages"] == SMALL


def test_nan_in_the_input_is_written_as_null_valid_json_and_said_on_stderr(
        tmp_path: Path) -> None:
    src = _file(tmp_path / "nan.json",
                '[{"role": "user", "content": "hi", "x_score": NaN, "x_max": Infinity}]')
    run = cli("compress", src, "--store", tmp_path / "s")
    assert run.rc == 0, run.err
    data = json.loads(run.out, parse_constant=lambda c: pytest.fail(f"bare {c} written"))
    assert data["messages"][0]["x_score"] is None and data["messages"][0]["x_max"] is None
    assert "2 numbers that JSON cannot hold (NaN, Infinity) written as null" in run.err


# ------------------------------------------------------------------ nothing left behind


def test_a_failed_compress_leaves_no_offloads_in_the_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    run = cli("compress", FIXTURE_RUNS[0], "--max-tokens", 1000, "--store", store)
    assert "-token budget" in assert_one_error_line(run, "compress")
    assert _offload_files(store) == []


def test_a_compress_whose_output_cannot_be_written_leaves_no_offloads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ctxmgr.cli._io as cli_io

    def disk_full(out: str, text: str) -> None:
        raise OSError(28, "No space left on device", out)

    monkeypatch.setattr(cli_io, "write_text_file", disk_full, raising=False)
    store, out = tmp_path / "store", tmp_path / "out.json"
    run = cli("compress", FIXTURE_RUNS[0], "--max-tokens", 16_000, "--store", store, "-o", out)
    line = assert_one_error_line(run, "compress")
    assert "No space left on device" in line and str(out) in line
    assert _offload_files(store) == []


def test_a_successful_compress_keeps_its_offloads(tmp_path: Path) -> None:
    store = tmp_path / "store"
    run = cli("compress", FIXTURE_RUNS[0], "--max-tokens", 16_000, "--store", store,
              "-o", tmp_path / "out.json")
    assert run.rc == 0, run.err
    events = json.loads((tmp_path / "out.json").read_text())["events"]
    assert {p.stem for p in _offload_files(store)} == {
        e["offload_id"] for e in events if e["offload_id"]}


# ------------------------------------------------------------------ demo input


def test_demo_refuses_broken_pairing_like_replay(tmp_path: Path) -> None:
    broken = _file(tmp_path / "broken.json", json.dumps({"id": "b", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_9", "content": "orphan"},
        {"role": "assistant", "content": "done"}]}))
    demo_line = assert_one_error_line(cli("demo", "--trajectory", broken), "demo")
    replay_line = assert_one_error_line(cli("replay", broken, "--policy", "none"), "replay")
    assert "broken tool pairing" in demo_line and "call_9" in demo_line
    assert demo_line.split(": error: ")[1] == replay_line.split(": error: ")[1]


@pytest.mark.parametrize(("content", "expected"), [
    ("{not json", "not valid JSON"),
    ('[{"role": "user", "content": "hi"}]', "no model calls"),
    ('{"no": "messages"}', "'messages' list"),
])
def test_demo_bad_trajectory_file_is_one_error_line(tmp_path: Path, content: str,
                                                    expected: str) -> None:
    path = _file(tmp_path / "t.json", content)
    assert expected in assert_one_error_line(cli("demo", "--trajectory", path), "demo")


# ------------------------------------------------------------------ corrupt offloads


def _damaged(store: Path, blob: bytes) -> tuple[str, Path]:
    files = FileStore(store)
    offload = OffloadStore(files, project=CLI_PROJECT, session=CLI_SESSION)
    offload_id = offload.save([text_message("user", "original text")])
    path = files.path(offload.namespace, f"{offload_id}.json")
    path.write_bytes(blob)
    return offload_id, path


def _wizard_blob(offload_id: str) -> bytes:
    return json.dumps({"id": offload_id, "messages": [
        {"id": "m1", "role": "wizard", "content": [{"type": "text", "text": "x"}]}]}).encode()


@pytest.mark.parametrize("case", ["half a blob", "empty", "a list", "no messages",
                                  "role wizard", "not utf-8"])
def test_reload_of_a_damaged_offload_names_the_file(case: str, tmp_path: Path) -> None:
    store = tmp_path / "store"
    offload_id, path = _damaged(store, b"")
    whole = json.dumps({"id": offload_id, "messages": [
        {"id": "m1", "role": "user", "content": [{"type": "text", "text": "x" * 50}]}]})
    blob = {"half a blob": whole[: len(whole) // 2].encode(), "empty": b"",
            "a list": b"[1, 2, 3]", "no messages": b'{"id": "x"}',
            "role wizard": _wizard_blob(offload_id), "not utf-8": b'{"id": "\xff\xfe"}'}[case]
    path.write_bytes(blob)
    run: Run = cli("reload", offload_id, "--store", store)
    line = assert_one_error_line(run, "reload")
    assert str(path) in line and "damaged" in line


# ------------------------------------------------------------------ warnings


def test_a_warning_is_one_stderr_line_too(offline: object) -> None:
    """Without a BPE file (and no network) counting falls back, said in one line."""
    run = cli("replay", FIXTURE_RUNS[0], "--policy", "none")
    assert run.rc == 0, run.err
    lines = [line for line in run.err.splitlines() if line.strip()]  # rich's progress: blank
    assert len(lines) == 1, run.err
    line = lines[0]
    assert line.startswith("ctxmgr replay: warning: ") and "approximately" in line
