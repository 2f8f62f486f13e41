"""A damaged ``ctxmgr`` part of a checkpoint: the run resumes, never hangs, never crashes.

A real ``create_agent`` with ``ContextMiddleware`` and a real checkpointer runs a recorded
run; then its checkpoint's ``ctxmgr`` channel is damaged the way a hand edit, a migration
or a hostile writer would, and the thread is invoked again. Each damaged part is left
out with a warning naming it (the originals are in the store, the stand-ins in
``messages``), and a compression record whose count would never move past its range
(0, -1) is one of them: the reconcile loop is bounded.
"""

from __future__ import annotations

import copy
import logging
import threading
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph_agents import RECURSION, Agent, build

from ctxmgr import AutoContextConfig
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.messages import message_to_dict
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_langgraph import CONTEXT_KEY
from ctxmgr_langgraph.convert import from_langchain, to_langchain
from ctxmgr_langgraph.testing import RecordedRun

CONFIG = AutoContextConfig(max_tokens=10_000)


def thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}, **RECURSION}


@pytest.fixture(scope="module")
def run(swe_trajectories: list[Trajectory]) -> RecordedRun:
    trajectory = next(t for t in swe_trajectories if "django-11099" in t.id)
    return RecordedRun.from_messages(trajectory.messages)


@pytest.fixture(scope="module")
def finished(run: RecordedRun) -> tuple[Agent, dict[str, Any]]:
    """The recorded run, once, and the state it leaves: each case copies it to a thread of
    its own (one fixed session, so every thread reaches the same offloads)."""
    agent = build("create_agent", run, config=CONFIG, reserve_output_tokens=500,
                  checkpointer=InMemorySaver(), session="shared")
    agent.graph.invoke(agent.inputs(run), thread("base"))
    values = agent.graph.get_state(thread("base")).values
    assert values[CONTEXT_KEY]["compression"]["stand_ins"]
    return agent, values


def _record(context: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = context["compression"]["stand_ins"][0]
    return record


def looping_record(count: int) -> Callable[[Agent, dict[str, Any]], dict[str, Any]]:
    """The originals back in ``messages`` and a record whose count never moves past them."""
    def damage(agent: Agent, values: dict[str, Any]) -> dict[str, Any]:
        context = copy.deepcopy(values[CONTEXT_KEY])
        record = _record(context)
        messages = values["messages"]
        i = next(k for k, m in enumerate(messages) if m.id == record["id"])
        [stand_in] = from_langchain([messages[i]])
        marker = CompressedMarker.of(stand_in)
        assert marker is not None and i >= -count
        first = agent.sessions.processor("any").offload.originals([stand_in])[0]
        record.update(message=message_to_dict(stand_in), count=count,
                      last_id=messages[i + count - 1].id)
        return {"messages": to_langchain([first]), CONTEXT_KEY: context}
    return damage


def part(name: str, value: Any) -> Callable[[Agent, dict[str, Any]], dict[str, Any]]:
    return lambda agent, values: {CONTEXT_KEY: {name: value}}


def count_of(value: Any) -> Callable[[Agent, dict[str, Any]], dict[str, Any]]:
    def damage(agent: Agent, values: dict[str, Any]) -> dict[str, Any]:
        context = copy.deepcopy(values[CONTEXT_KEY])
        _record(context)["count"] = value
        return {CONTEXT_KEY: {"compression": context["compression"]}}
    return damage


DAMAGES = {
    "count_0_with_its_head": looping_record(0),
    "count_-1_with_its_head": looping_record(-1),
    "count_1e999": count_of(float("inf")),
    "count_1.5": count_of(1.5),
    "archive_a_list": part("archive", ["not", "an", "archive"]),
    "archive_entries_not_objects": part("archive", {"version": 1, "archived": [5, "x"]}),
    "calibration_a_string": part("calibration", "fast"),
    "calibration_a_list": part("calibration", [1.2, 3]),
    "memo_without_tool_use_id": part("memos", [{"message_id": "m", "placeholder": "p"}]),
    "memos_a_number": part("memos", 7),
    "reload_pages_a_list": part("reload_pages", ["page"]),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_context_part_is_dropped_with_a_warning_and_the_thread_goes_on(
        damage: str, finished: tuple[Agent, dict[str, Any]],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    agent, values = finished
    config = thread(damage)
    agent.graph.update_state(config, copy.deepcopy(values), as_node="tools")
    agent.graph.update_state(config, DAMAGES[damage](agent, values), as_node="tools")
    outcome: dict[str, Any] = {}

    def resume() -> None:
        try:
            outcome["result"] = agent.graph.invoke(
                {"messages": [HumanMessage("go on", id="go-on")]}, config)
        except BaseException as exc:  # noqa: BLE001 - reported below
            outcome["error"] = exc

    worker = threading.Thread(target=resume, daemon=True)
    worker.start()
    worker.join(60)

    assert not worker.is_alive(), "the resumed run hangs"
    assert "error" not in outcome, repr(outcome.get("error"))
    messages = outcome["result"]["messages"]
    assert isinstance(messages[-1], AIMessage) and messages[-2].id == "go-on"
    assert "is damaged or from another version" in caplog.text
