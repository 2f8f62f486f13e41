"""Multi-agent runs at a small window: each framework, 300 model calls at 8k tokens.

Runs langgraph-swarm (three members), langgraph-supervisor in both output modes (two
specialists and the supervisor's own ContextHook), deepagents (two subagents, ctxmgr in
place of deepagents' summarization, then inside it) and a LlamaIndex AgentWorkflow
(three ContextFunctionAgents, one memory), each with scripted models (the runners are in
``multi_agent_runs.py``), and prints one row per run: model calls, calls over the budget,
tool-pairing violations, compressions, whether routing that reads names off the prompt
went round-robin, offloads of one agent's session that another agent's
``context_reload`` gave back, compression passes per model call, the largest prompt
against the budget, and the wall time (the only figure that depends on the machine).

    python benchmarks/bench_multi_agent.py [--calls 300]
"""

from __future__ import annotations

import argparse
import logging
import sys

from multi_agent_runs import (
    HEADER,
    WINDOW,
    Outcome,
    run_deep_agent,
    run_supervisor,
    run_swarm,
    run_workflow,
)

from ctxmgr import AutoContextConfig
from ctxmgr.replay.report import markdown_table


def runs(calls: int) -> list[Outcome]:
    """Every framework, sized to about ``calls`` model calls each."""
    from ctxmgr_langgraph import ContextMiddleware

    inside = ContextMiddleware(AutoContextConfig(max_tokens=WINDOW))  # deepagents' outside it
    scale = calls / 300
    outcomes = [
        run_swarm(turns=round(28 * scale)),
        run_supervisor("last_message", tasks=round(27 * scale)),
        run_supervisor("full_history", tasks=round(27 * scale)),
        run_deep_agent(tasks=round(10 * scale)),
        run_deep_agent(inside, tasks=round(10 * scale)),
        run_workflow(turns=round(28 * scale)),
    ]
    outcomes[4].framework = "deepagents (inside its summarization)"
    outcomes[3].framework = "deepagents (in its summarization's place)"
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300,
                        help="model calls per run, about (default 300)")
    args = parser.parse_args(argv)
    if args.calls < 30:
        print("bench_multi_agent: --calls must be at least 30", file=sys.stderr)
        return 2
    # create_supervisor gives the graph around the supervisor its state schema, where
    # remaining_steps is a managed value: LangGraph ignores that write, and logs it
    logging.getLogger("langgraph").setLevel(logging.ERROR)
    rows = [o.row() for o in runs(args.calls)]
    print(f"Multi-agent runs at a {WINDOW:,}-token window\n")
    print(markdown_table(HEADER, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
