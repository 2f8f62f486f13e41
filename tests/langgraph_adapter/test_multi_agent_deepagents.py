"""deepagents: a deep agent hands tasks to two subagents at an 8k window; ctxmgr takes the
place of deepagents' summarization (or runs inside it), each subagent compresses in its
own session, and the parent sees each task's result only. (The 300-call runs are
benchmarks/bench_multi_agent.py; these make about 120 calls.)"""

from __future__ import annotations

import pytest
from multi_agent_runs import SUBAGENTS, WINDOW, run_deep_agent

from ctxmgr import AutoContextConfig, validate_pairing
from ctxmgr.store import Namespace
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.convert import from_langchain


@pytest.mark.parametrize("place", ["in place of deepagents' summarization", "inside it"])
def test_a_deep_agent_at_8k_stays_in_budget_each_subagent_in_its_own_session(
        place: str) -> None:
    middleware = (None if place.startswith("in place")
                  else ContextMiddleware(AutoContextConfig(max_tokens=WINDOW)))
    outcome = run_deep_agent(middleware, tasks=4)
    log = outcome.log

    assert log.calls >= 100 and log.over_budget == 0 and log.pairing_violations == 0
    assert log.compressions >= 20 and outcome.passes == log.calls
    assert outcome.offloads > 0 and outcome.leaks == 0
    parent = outcome.final["messages"]
    assert validate_pairing(from_langchain(parent)) == []
    # the parent holds each task's result (in its messages or its own offloads), and
    # nothing of a subagent's working context
    store, engine = outcome.extra["store"], outcome.extra["engine"]
    own = Namespace(engine.project, "deep-1", "offload")
    seen = "\n".join([*(str(m.content) for m in parent),
                      *((store.get(own, k) or b"").decode() for k in store.keys(own))])
    for t in range(4):
        assert f"{SUBAGENTS[t % 2]} result {t // 2}:" in seen
    assert not any(f"{n}/file_" in seen for n in SUBAGENTS)


def test_in_place_of_deepagents_summarization_no_summary_is_ever_asked_of_the_model() -> None:
    """With a model whose profile gives the 8k window, deepagents' own summarization would
    fire at 85% of it and ask the model for summaries (over the budget: the run inside it
    measured 12 such calls of 140); in its place, ctxmgr compresses with its own
    summarizer, and every model call is an agent's step, in budget."""
    outcome = run_deep_agent(tasks=4, window=WINDOW)
    assert outcome.log.over_budget == 0 and outcome.log.compressions > 0
    assert outcome.final["messages"][-1].content == "All tasks are done."
