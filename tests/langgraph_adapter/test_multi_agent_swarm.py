"""langgraph-swarm: three create_agent members hand off round-robin at an 8k window, each
compressing in its own session; routing reads names off the prompt. (The 300-call run of
the issue's targets is benchmarks/bench_multi_agent.py; this one makes about 110.)"""

from __future__ import annotations

from multi_agent_runs import WINDOW, run_swarm

from ctxmgr import AutoContextConfig, Tuning, validate_pairing
from ctxmgr_langgraph.convert import from_langchain


def test_a_swarm_at_8k_stays_in_budget_and_routes_by_name_after_20_compressions() -> None:
    outcome = run_swarm(turns=10)
    log = outcome.log

    assert log.calls >= 100 and log.over_budget == 0 and log.pairing_violations == 0
    assert log.compressions >= 20 and outcome.routed  # round-robin, read off the names
    assert outcome.passes == log.calls  # one compression pass per model call
    assert outcome.offloads > 0 and outcome.leaks == 0  # no agent reads another's
    # the shared message list stays the framework's, whole and valid
    assert validate_pairing(from_langchain(outcome.final["messages"])) == []


def test_without_the_handoffs_kept_the_same_swarm_loses_who_handed_to_whom() -> None:
    config = AutoContextConfig(max_tokens=WINDOW, tuning=Tuning(kept_handoffs=0))
    assert not run_swarm(config, turns=10).routed
