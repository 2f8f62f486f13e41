"""The README's Python examples run as written (on a recorded run)."""

from __future__ import annotations

import re
from pathlib import Path

from ctxmgr import to_openai
from ctxmgr.replay.trajectories import Trajectory

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)


def test_the_core_example_compresses_and_reloads(swe_trajectories: list[Trajectory]) -> None:
    core = next(b for b in python_blocks() if "AutoContextMemory(" in b)
    run = max(swe_trajectories, key=lambda t: len(t.messages))
    scope = {"openai_messages": list(run.raw)}
    exec(core, scope)  # noqa: S102 - the README's own example
    assert scope["prompt"] and len(scope["prompt"]) < len(run.raw)
    assert scope["originals"], "the example reloads the first compressed range"


def test_the_agent_driven_tools_example_archives_and_writes_a_memo(
        swe_trajectories: list[Trajectory]) -> None:
    tools = next(b for b in python_blocks() if "handle_archive_call(" in b)
    messages = list(swe_trajectories[0].messages)
    big = next(r for m in messages for r in m.tool_results if len(r.text) > 2000)
    scope = {"messages": messages,
             "tool_input": {"action": "archive", "tool_use_ids": [big.tool_use_id]}}
    exec(tools, scope)  # noqa: S102 - the README's own example
    shown = to_openai(scope["prompt"])
    assert any("has been archived" in str(m.get("content")) for m in shown)
    assert "plan" in scope["result_text"]


def test_the_framework_owned_history_example_compresses_with_edits(
        swe_trajectories: list[Trajectory]) -> None:
    block = next(b for b in python_blocks() if "ContextProcessor(" in b)
    run = max(swe_trajectories, key=lambda t: len(t.messages))
    scope = {"openai_messages": list(run.raw)}
    exec(block, scope)  # noqa: S102 - the README's own example
    assert len(scope["history"]) < len(run.raw)  # the edits were persisted
    assert scope["prompt"][1].id == "ctxmgr-reload-hint"
