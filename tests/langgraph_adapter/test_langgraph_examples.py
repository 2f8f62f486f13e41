"""The LangGraph examples run offline as a user runs them, and keep the agent in budget.

Each example is a real agent (``create_agent``, ``create_react_agent``, a hand-built
``StateGraph``) replaying the bundled recorded run with a scripted model.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from doc_pages import blocks_with, run_block

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", ["langgraph_create_agent.py", "langgraph_react_hook.py",
                                  "langgraph_custom_graph.py"])
def test_example_runs_offline_and_keeps_every_prompt_within_budget(name: str,
                                                                   tmp_path: Path) -> None:
    env = {**os.environ, "CTXMGR_HOME": str(tmp_path)}
    run = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True,
                         text=True, timeout=120, check=False, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "recorded run: 232 messages; model calls: 116" in run.stdout, run.stdout
    largest = re.search(r"largest prompt sent: ([\d,]+) tokens \(budget 16,000\)", run.stdout)
    assert largest and int(largest.group(1).replace(",", "")) <= 16_000, run.stdout
    compressions = re.search(r"compressions: (\d+) \([a-z_, ]+\)", run.stdout)
    assert compressions and int(compressions.group(1)) > 0, run.stdout
    assert "final answer: The recorded run ends here." in run.stdout
    assert "Traceback" not in run.stderr


# --- the LangGraph snippets of the README and the guide, one per style --------------------


@pytest.mark.parametrize("needle", ["create_agent(", "create_react_agent(", "StateGraph("])
def test_the_docs_snippets_run_as_written_and_compress(needle: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXMGR_HOME", str(tmp_path))  # the default offload store
    blocks = blocks_with(needle)
    assert len(blocks) == 2, "one in the README, one in the guide"
    for block in blocks:
        with warnings.catch_warnings():  # create_react_agent is deprecated since LangGraph 1.0
            warnings.simplefilter("ignore", DeprecationWarning)
            scope = run_block(block)
        result: Any = scope["result"]
        assert result["messages"][-1].content == "The recorded run ends here."
        model: Any = scope["model"]
        assert len(model.received) == 116
        assert len(model.received[-1]) < 100, "the last prompt was compressed"
