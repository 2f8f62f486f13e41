"""Side by side: one recorded run through LangChain's two context middlewares and ctxmgr's.

The bundled coding-agent run goes through three real ``create_agent`` agents that
differ only in their middleware: ``SummarizationMiddleware`` (trigger at 75 % of
the budget, keep 20 messages), ``ContextEditingMiddleware`` with ``ClearToolUsesEdit``
(trigger at 75 %, keep 3) and ``ContextMiddleware``. On every model call the prompt
the model received is measured: its tokens (one counter for all), its tool-pairing
violations (``ctxmgr.validate_pairing``) and whether the task, the first user
message, is still in it. The table is printed (``pytest -s`` shows it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import (
    ClearToolUsesEdit,
    ContextEditingMiddleware,
    SummarizationMiddleware,
)
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from ctxmgr import AutoContextConfig, TokenCounter, from_openai, validate_pairing
from ctxmgr.tokens import default_counter
from ctxmgr_langgraph import ContextMiddleware, from_langchain
from ctxmgr_langgraph.testing import RecordedRun, ScriptedChatModel

BUDGET = 16_000
TRIGGER = int(BUDGET * 0.75)
SUMMARY = "Summary of the conversation so far: the agent is working on the task."


@dataclass
class Measured:
    """What one middleware's model received, call by call."""

    name: str
    tokens: list[int] = field(default_factory=list)
    violations: int = 0
    calls_without_task: int = 0

    @property
    def task_kept(self) -> bool:
        return self.calls_without_task == 0


def neutral(prompt: Sequence[BaseMessage]) -> list[Any]:
    return from_langchain([m if m.id else m.model_copy(update={"id": f"p{i}"})
                           for i, m in enumerate(prompt)])


def counting(counter: TokenCounter) -> Callable[[Iterable[Any]], int]:
    return lambda messages: counter.count_messages(neutral(list(messages)))


def middlewares(counter: TokenCounter) -> dict[str, Any]:
    summarizer = ScriptedChatModel(messages=iter(()), final_answer=SUMMARY)
    return {
        "SummarizationMiddleware": SummarizationMiddleware(
            model=summarizer, trigger=("tokens", TRIGGER), keep=("messages", 20),
            token_counter=counting(counter)),
        "ContextEditingMiddleware": ContextEditingMiddleware(
            edits=[ClearToolUsesEdit(trigger=TRIGGER, keep=3)]),
        "ContextMiddleware (ctxmgr)": ContextMiddleware(AutoContextConfig(max_tokens=BUDGET),
                                                        counter=counter),
    }


@pytest.fixture(scope="module")
def results() -> dict[str, Measured]:
    recorded = json.loads((files("ctxmgr.data") / "demo_trajectory.json").read_text())
    run = RecordedRun.from_messages(from_openai(recorded["messages"]))
    task = run.turns[0][0].text
    counter = default_counter()
    out: dict[str, Measured] = {}
    for name, middleware in middlewares(counter).items():
        measured = out[name] = Measured(name)

        def on_call(prompt: list[BaseMessage], measured: Measured = measured) -> None:
            messages = neutral(prompt)
            measured.tokens.append(counter.count_messages(messages))
            measured.violations += len(validate_pairing(messages))
            if not any(task in m.text for m in messages if m.role == "user"):
                measured.calls_without_task += 1

        model = run.model(on_call=on_call)
        agent = create_agent(model, run.tools(), system_prompt=run.system_prompt,
                             middleware=[middleware], checkpointer=InMemorySaver(),
                             store=InMemoryStore())
        agent.invoke({"messages": run.inputs()},
                     {"configurable": {"thread_id": "side"}, "recursion_limit": 1_000})
    print(f"\n{'middleware':<28} {'calls':>5} {'prompt tokens':>13} {'peak':>7} "
          f"{'pairing violations':>18}  task kept")
    for m in out.values():
        kept = "yes" if m.task_kept else f"no (missing from {m.calls_without_task} calls)"
        print(f"{m.name:<28} {len(m.tokens):>5} {sum(m.tokens):>13,} {max(m.tokens):>7,} "
              f"{m.violations:>18}  {kept}")
    return out


def test_every_agent_replays_the_whole_recorded_run(results: dict[str, Measured]) -> None:
    for m in results.values():
        assert len(m.tokens) == 116, m.name  # 115 recorded answers and the closing one


def test_ctxmgr_sends_no_pairing_violation_and_keeps_the_task_on_every_call(
        results: dict[str, Measured]) -> None:
    ours = results["ContextMiddleware (ctxmgr)"]
    assert ours.violations == 0
    assert ours.task_kept, f"the task was missing from {ours.calls_without_task} calls"
    assert max(ours.tokens) <= BUDGET


def test_ctxmgr_sends_fewer_prompt_tokens_than_clearing_tool_results(
        results: dict[str, Measured]) -> None:
    assert sum(results["ContextMiddleware (ctxmgr)"].tokens) < \
        sum(results["ContextEditingMiddleware"].tokens)
