"""The LlamaIndex examples and ``ctxmgr demo --framework llamaindex`` run offline, as
documented, and show a run kept within budget with nothing lost."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmgr.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(name: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_function_agent_example_keeps_one_long_run_within_budget() -> None:
    out = run_example("llamaindex_function_agent.py")
    calls, peak, budget = re.search(
        r"(\d+) model calls in one run; largest prompt ([\d,]+) tokens \(budget ([\d,]+)",
        out).groups()  # type: ignore[union-attr]
    assert int(calls) == 116 and int(peak.replace(",", "")) <= int(budget.replace(",", ""))
    assert re.search(r"(\d+) compressed ranges, each reloadable", out)
    assert "Reloaded " in out


def test_the_chat_engine_example_keeps_a_long_conversation_within_budget() -> None:
    out = run_example("llamaindex_chat_engine.py")
    peak, budget = re.search(r"largest prompt ([\d,]+) tokens, budget ([\d,]+)",
                             out).groups()  # type: ignore[union-attr]
    assert int(peak.replace(",", "")) <= int(budget.replace(",", ""))
    assert re.search(r"offload [0-9a-f]{8} gives back \d+ message", out)


def test_ctxmgr_demo_runs_the_bundled_run_through_a_real_llamaindex_agent(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--framework", "llamaindex"]) == 0
    out = capsys.readouterr().out
    assert "A real llamaindex agent replays the run" in out
    assert "116 model calls, budget 16000 tokens" in out
    saved = int(re.search(r"\((\d+)% saved\)", out).group(1))  # type: ignore[union-attr]
    assert saved > 50
    reloaded = int(re.search(r"tool-pairing violations: 0; offloaded ranges reloaded byte "
                             r"for byte: (\d+)", out).group(1))  # type: ignore[union-attr]
    assert reloaded > 5
