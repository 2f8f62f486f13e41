"""The scripted chat model and the recorded run it replays (the only fakes in the tests)."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage

from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_langgraph.testing import RecordedRun, ScriptedChatModel


def test_a_recorded_run_splits_into_prompt_turns_answers_and_tools(
        swe_trajectories: list[Trajectory]) -> None:
    trajectory = next(t for t in swe_trajectories if "django-11099" in t.id)
    run = RecordedRun.from_messages(trajectory.messages)
    assert run.system_prompt == trajectory.messages[0].text
    assert [m.id for m in run.turns[0]] == [trajectory.messages[1].id]
    assert len(run.answers) == sum(m.role == "assistant" for m in trajectory.messages)
    [bash] = run.tools()
    first = run.answer_messages()[0].tool_calls[0]
    recorded = next(b.text for m in trajectory.messages for b in m.tool_results
                    if b.tool_use_id == first["id"])
    assert bash.invoke(first["args"]) == recorded


def test_the_model_answers_in_order_records_prompts_and_then_ends() -> None:
    model = ScriptedChatModel(messages=iter([
        AIMessage(content="first"), "second",
        lambda prompt: AIMessage(content=f"saw {len(prompt)} message(s)")]))
    assert model.bind_tools([]) is model
    replies = [model.invoke([HumanMessage(content="hi")]).content for _ in range(4)]
    assert replies == ["first", "second", "saw 1 message(s)", model.final_answer]
    assert len(model.received) == 4
