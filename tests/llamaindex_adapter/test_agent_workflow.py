"""LlamaIndex AgentWorkflow: three ContextFunctionAgents hand off round-robin at an 8k
window, one memory between them; each step is compressed once (the first too), each
agent's memos are its own, and routing reads the handoffs off the prompt. (The 300-call
run is benchmarks/bench_multi_agent.py; this one makes about 110 calls.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from doc_pages import blocks_with, run_block
from multi_agent_runs import WINDOW, run_workflow

from ctxmgr import AutoContextConfig, validate_pairing
from ctxmgr_llamaindex import from_llamaindex


def test_an_agent_workflow_at_8k_stays_in_budget_compressing_once_a_step() -> None:
    outcome = run_workflow(turns=10)
    log = outcome.log

    assert log.calls >= 100 and log.over_budget == 0 and log.pairing_violations == 0
    assert log.compressions >= 20 and outcome.routed  # read off the prompt's handoffs
    assert outcome.passes == log.calls  # once per model call, the first step's too
    assert validate_pairing(outcome.extra["memory"].view) == []
    # the memory is shared on purpose (its offloads are the workflow's): none leaks further
    assert outcome.leaks == 0
    # the researcher's memo is its own: the writer's read finds nothing
    assert outcome.extra["memo_read"].startswith("No memo")


def test_with_team_memos_every_agent_of_the_workflow_reads_the_same_memos() -> None:
    config = AutoContextConfig(max_tokens=WINDOW, memo=True, team_memos=True)
    outcome = run_workflow(config, per_turn=2, turns=3)
    assert "ship on friday" in outcome.extra["memo_read"]


def test_the_agent_workflow_example_keeps_every_step_within_budget() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "llamaindex_agent_workflow.py"
    done = subprocess.run([sys.executable, str(example)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    found = re.search(r"(\d+) model calls, largest prompt ([\d,]+) tokens \(budget ([\d,]+)",
                      done.stdout)
    assert found, done.stdout
    calls, peak, budget = found.groups()
    assert int(calls) == 117  # the triage agent's handoff, then the coder's recorded run
    assert int(peak.replace(",", "")) <= int(budget.replace(",", ""))
    assert "each agent's memos: ['__ticket-3_-triage', '__ticket-3_-coder']" in done.stdout


def test_the_guides_agent_workflow_snippet_runs_as_written_within_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXMGR_HOME", str(tmp_path))  # the default offload store
    [block] = blocks_with("AgentWorkflow(")
    scope = run_block(block)
    assert str(scope["answer"]) == "The recorded run ends here."
    memory: Any = scope["memory"]
    assert memory.scope.memos != memory.session  # the agents' memos are their own
    prompts = [*scope["triage_llm"].received, *scope["coder"].llm.received]
    assert len(prompts) == 117
    assert max(memory.counter.count_messages(from_llamaindex(p)) for p in prompts) <= \
        memory.config.budget_tokens
