"""The multi-agent examples run offline as a user runs them: deepagents, langgraph-supervisor
and langgraph-swarm, each with a member replaying the bundled recorded coding run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from doc_pages import blocks_with, run_block

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(name: str, tmp_path: Path) -> str:
    env = {**os.environ, "CTXMGR_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True,
                          text=True, timeout=300, check=False, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "unknown channel" not in done.stderr
    return done.stdout


def largest(out: str, who: str) -> int:
    found = re.search(rf"{who}: (\d+) model calls, largest prompt ([\d,]+) tokens "
                      r"\(window 16,000\)", out)
    assert found, out
    return int(found.group(2).replace(",", ""))


@pytest.mark.parametrize(("name", "members"), [
    ("deepagents_subagents.py", ["coder"]),
    ("supervisor_team.py", ["coder", "supervisor"]),
    ("swarm_handoffs.py", ["coder"]),
])
def test_a_multi_agent_example_keeps_each_agent_within_its_window(
        name: str, members: list[str], tmp_path: Path) -> None:
    out = run_example(name, tmp_path)
    for who in members:  # within the window less the room kept for the answer
        assert largest(out, who) <= 16_000 * 7 // 8
    assert "coder: 116 model calls" in out


def test_the_deep_agent_example_keeps_the_coder_in_its_own_session(tmp_path: Path) -> None:
    out = run_example("deepagents_subagents.py", tmp_path)
    assert "in the coder's own session '__ticket-42_-coder'" in out
    assert re.search(r"the lead agent holds 4 messages", out)  # the task and its result


def test_the_supervisor_example_routes_by_the_names_in_its_prompt(tmp_path: Path) -> None:
    out = run_example("supervisor_team.py", tmp_path)
    assert "reported ['coder', 'reviewer']" in out
    assert "final answer: The bug is fixed and reviewed." in out


def test_the_swarm_example_keeps_the_handoff_and_the_shared_list_valid(tmp_path: Path) -> None:
    out = run_example("swarm_handoffs.py", tmp_path)
    assert "handoff is still in the coder's last prompt, by name: True" in out
    assert "tool pairing valid: True" in out


def test_the_guides_deep_agent_snippet_runs_as_written_in_the_coders_own_session(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXMGR_HOME", str(tmp_path))  # the default offload store
    [block] = blocks_with("create_deep_agent(")
    scope = run_block(block)
    result: Any = scope["result"]
    assert result["messages"][-1].content == "The coder fixed the bug."
    context: Any = scope["context"]
    assert context.name == "SummarizationMiddleware"
    engine = context.sessions.engine
    coder = engine.processor(context.sessions.store_for(None), engine.scope("ticket-42", "coder"))
    assert coder.offload.namespace.session == "__ticket-42_-coder"
    assert coder.offload.store.keys(coder.offload.namespace)  # it compressed, in its session
