"""langgraph-supervisor in both output modes: a supervisor routes between two create_agent
specialists at an 8k window, reading who reported off the names in its prompt, its own
prompt kept in budget by a ContextHook. (The 300-call runs are
benchmarks/bench_multi_agent.py; these make 110 to 170 calls: with only each specialist's
report in its prompt, the supervisor compresses less often.)"""

from __future__ import annotations

import pytest
from multi_agent_runs import run_supervisor

from ctxmgr import validate_pairing
from ctxmgr_langgraph.convert import from_langchain


@pytest.mark.parametrize(("output_mode", "tasks"), [("last_message", 14),
                                                   ("full_history", 9)])
def test_a_supervisor_at_8k_stays_in_budget_and_routes_by_name(output_mode: str,
                                                               tasks: int) -> None:
    outcome = run_supervisor(output_mode, tasks=tasks)
    log = outcome.log

    assert log.calls >= 100 and log.over_budget == 0 and log.pairing_violations == 0
    assert log.compressions >= 20 and outcome.routed
    assert outcome.passes == log.calls
    assert outcome.offloads > 0 and outcome.leaks == 0
    assert validate_pairing(from_langchain(outcome.final["messages"])) == []
