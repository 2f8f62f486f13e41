"""``ctxmgr demo`` in a real ``create_agent`` agent, and its core-only fallback.

Each test runs the command as a user would (a subprocess of this interpreter), so
the ``ctxmgr.demos`` entry point, the live progress and the exit code are real.
Blocking ``langchain`` (or ``rich``) in ``sys.modules`` stands for an install
without that extra.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trajectories"
SWE = FIXTURES / "swe__deepseek_chat_dev__pydicom__pydicom-1256.json"


def demo(*args: str, block: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    code = ("import sys\n"
            + "".join(f"sys.modules[{name!r}] = None\n" for name in block)
            + "from ctxmgr.cli import main\nsys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, "demo", *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_demo_replays_the_bundled_run_in_a_create_agent_agent_within_budget() -> None:
    run = demo()
    assert run.returncode == 0, run.stderr
    assert "replayed by create_agent + ContextMiddleware" in run.stdout
    assert re.search(r"prompt tokens summed over calls: .* \((\d+)% saved\)", run.stdout)
    assert "(budget 16,000: within)" in run.stdout
    assert "tool-pairing violations: 0" in run.stdout
    reloaded = re.search(r"offloaded ranges reloaded byte for byte: (\d+)", run.stdout)
    assert reloaded and int(reloaded.group(1)) > 0, run.stdout
    assert "strategies fired: none" not in run.stdout
    assert re.search(r"context_reload [0-9a-f]{8} brought message \S+ back exactly", run.stdout)
    assert "note:" not in run.stderr and "Traceback" not in run.stderr
    assert run.stdout.startswith("A real langgraph agent replays the run")


def test_demo_shows_live_progress_as_plain_lines_without_rich() -> None:
    run = demo(block=("rich",))
    assert run.returncode == 0, run.stderr
    assert re.search(r"^call 10/115  context [\d,]+ / 16,000 tokens$", run.stderr, re.M), run.stderr
    assert re.search(r"^  [a-z_]+: \d+ message\(s\) -> offload [0-9a-f]{8}$", run.stderr,
                     re.M), run.stderr


def test_demo_without_the_langgraph_extra_falls_back_to_the_core_demo_with_one_note() -> None:
    run = demo(block=("langchain",))
    assert run.returncode == 0, run.stderr
    notes = [line for line in run.stderr.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and 'pip install ".[langgraph]"' in notes[0], run.stderr
    assert "replayed by AutoContextMemory" in run.stdout
    assert "tool-pairing violations: 0" in run.stdout


def test_demo_framework_core_replays_with_autocontextmemory_alone() -> None:
    run = demo("--framework", "core")
    assert run.returncode == 0, run.stderr
    assert "replayed by AutoContextMemory" in run.stdout and "note:" not in run.stderr


def _write_formats(tmp_path: Path) -> list[Path]:
    """The bundled run in each format replay reads, cut after its 60th message's tool
    results (the format is what is checked; 8,000 tokens still compress it)."""
    data = json.loads(SWE.read_text(encoding="utf-8"))
    messages = data["messages"]
    end = next(i for i in range(60, len(messages))
               if messages[i]["role"] == "tool" and messages[i + 1]["role"] == "assistant")
    data["messages"] = messages[:end + 1]
    shared = tmp_path / "shared.json"
    shared.write_text(json.dumps(data), encoding="utf-8")
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(data["messages"]), encoding="utf-8")
    jsonl = tmp_path / "one.jsonl"
    jsonl.write_text(json.dumps(data) + "\n", encoding="utf-8")
    return [shared, plain, jsonl]


def test_demo_trajectory_accepts_every_format_replay_reads(tmp_path: Path) -> None:
    # the command line reads the file before it picks a framework: the first format goes
    # through the create_agent agent, the others through the core alone (quicker)
    for n, path in enumerate(_write_formats(tmp_path)):
        framework = () if n == 0 else ("--framework", "core")
        run = demo("--trajectory", str(path), "--max-tokens", "8000", *framework)
        assert run.returncode == 0, (path.name, run.stderr)
        by = "create_agent + ContextMiddleware" if n == 0 else "AutoContextMemory"
        assert f"replayed by {by}" in run.stdout, path.name
        assert "tool-pairing violations: 0" in run.stdout, path.name
        assert "(budget 8,000: within)" in run.stdout, path.name


def test_demo_trajectory_without_an_assistant_message_is_one_line_and_exit_2(
        tmp_path: Path) -> None:
    path = tmp_path / "no_answer.json"
    path.write_text(json.dumps([{"role": "user", "content": "fix the bug"}]), encoding="utf-8")
    run = demo("--trajectory", str(path))
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"ctxmgr demo: error: --trajectory {path}: no model calls to replay (no assistant "
        "message)"], run.stderr
