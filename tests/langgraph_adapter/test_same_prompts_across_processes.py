"""Identical runs send identical prompts, byte for byte, in separate processes.

LangGraph gives each tool result and model answer a random message id, so two runs of one
agent on one input never hold the same ids. What the model is sent must not depend on
them: the offload ids in its tags are derived from what was offloaded, not from the ids
(before, the random ids changed the tags, their tokens, and so which compressions ran:
identical runs ended with 43, 45 or 47 messages)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

RUN = textwrap.dedent("""
    import json
    from langchain.agents import create_agent
    from langchain_core.messages import convert_to_openai_messages
    from ctxmgr_langgraph import ContextMiddleware
    from ctxmgr_langgraph.testing import RecordedRun

    run = RecordedRun.from_messages(RecordedRun.bundled_messages()[:90])
    model = run.model()
    events = []
    agent = create_agent(model, run.tools(), system_prompt=run.system_prompt,
                         middleware=[ContextMiddleware(max_tokens=8_000,
                                                       on_event=events.append)])
    result = agent.invoke({"messages": run.inputs()}, {"recursion_limit": 1_000})
    print(json.dumps({"applied": sum(e.status == "applied" for e in events),
                      "ids": [m.id for m in result["messages"]],
                      "prompts": [convert_to_openai_messages(p) for p in model.received]},
                     sort_keys=True))
""")


def _run() -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True,
                         check=True, timeout=300)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_two_processes_running_one_agent_send_the_same_prompts_byte_for_byte() -> None:
    first, second = _run(), _run()

    assert first["applied"], "the run compressed"
    assert first["ids"] != second["ids"]  # LangGraph's random ids differ between the runs
    assert json.dumps(first["prompts"]) == json.dumps(second["prompts"])
