"""End to end with the real LlamaIndex agents: FunctionAgent, AgentWorkflow, ReActAgent.

A ``MockFunctionCallingLLM`` (ctxmgr's ScriptedLLM) replays recorded runs: a SWE
run as one long ``run()`` (every step inside it, so the scratchpad carries it
all), tau-bench conversations as one ``run()`` per user turn. On every model call
the prompt is checked (tests/llamaindex_agents.py): tool pairing valid, within
the window, and everything sent so far present or reloadable byte for byte.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent, ReActAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.workflow import Context
from llamaindex_agents import PromptChecker, message_text

from ctxmgr import AutoContextConfig, ConfigError, ContextOverflowError, InMemoryStore
from ctxmgr.autocontext import ContextProcessor
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_llamaindex import (
    ContextFunctionAgent,
    ContextMemory,
    ContextReActAgent,
    from_llamaindex,
    to_llamaindex,
)
from ctxmgr_llamaindex.agent import CompressedObservationStep
from ctxmgr_llamaindex.testing import FINAL_ANSWER, RecordedRun, ScriptedLLM

SWE_BUDGET = 8000
TAU_BUDGET = 6000  # the largest tau-bench tool result (2,400 tokens) fits beside the policy


def run_sync(make: Callable[[], Any]) -> Any:
    async def main() -> Any:
        return await make()

    return asyncio.run(main())


def by_name(runs: list[Trajectory], part: str) -> Trajectory:
    return next(t for t in runs if part in t.id)


def single_run(trajectory: Trajectory, agent_cls: type, *, budget: int = SWE_BUDGET,
               react: bool = False) -> tuple[PromptChecker, ScriptedLLM, ContextMemory, Any]:
    """The whole recording as one ``run()`` of ``agent_cls``, every call checked."""
    rec = RecordedRun.from_messages(trajectory.messages)
    memory = ContextMemory.from_defaults(max_tokens=budget, store=InMemoryStore(),
                                         session_id=f"single-{trajectory.id[-20:]}")
    checker = PromptChecker(memory, trajectory, match="text" if react else "exact")
    llm = ScriptedLLM(rec.react_answers(0) if react else rec.answer_messages(0),
                      on_call=checker)
    checker.llm = llm
    agent = agent_cls(tools=[*rec.tools(), *memory.as_tools()], llm=llm,
                      system_prompt=rec.system_prompt)
    result = run_sync(lambda: agent.run(user_msg=rec.user_message(0), memory=memory,
                                        max_iterations=1000))
    return checker, llm, memory, result


@pytest.mark.parametrize("part", ["pydicom-1256", "sqlfluff-1733"])
def test_a_long_swe_run_inside_one_function_agent_run_stays_in_budget_and_reloads_exactly(
        swe_trajectories: list[Trajectory], part: str) -> None:
    trajectory = by_name(swe_trajectories, part)
    checker, llm, memory, result = single_run(trajectory, ContextFunctionAgent)
    answers = sum(m.role == "assistant" for m in trajectory.messages)
    assert llm.answered == answers and checker.calls == answers + 1  # one final answer
    assert str(result) == FINAL_ANSWER
    assert checker.compressed_calls > answers // 3  # the run was compressed, and early
    # the run's end reached the memory, compressions and all
    assert memory.get_all()[-1].content == FINAL_ANSWER and memory.scratch == []


def test_consecutive_prompts_of_a_run_share_their_prefix_between_compressions(
        swe_trajectories: list[Trajectory]) -> None:
    """Compressions are persisted in memory and scratchpad, so between two of them each
    prompt starts with the previous one, byte for byte (the provider's cache stays warm)."""
    trajectory = by_name(swe_trajectories, "django-11099")
    rec = RecordedRun.from_messages(trajectory.messages)
    applied: list[object] = []
    memory = ContextMemory.from_defaults(
        max_tokens=SWE_BUDGET, store=InMemoryStore(),
        on_event=lambda e: applied.append(e) if e.status == "applied" else None)
    seen: list[int] = []
    llm = rec.llm(on_call=lambda prompt, tools: seen.append(len(applied)))
    agent = ContextFunctionAgent(tools=rec.tools(), llm=llm, system_prompt=rec.system_prompt)
    run_sync(lambda: agent.run(user_msg=rec.user_message(), memory=memory,
                               max_iterations=1000))
    dumps = [[m.model_dump() for m in prompt] for prompt in llm.received]
    quiet = [k for k in range(1, len(dumps)) if seen[k] == seen[k - 1]]
    assert len(quiet) > len(dumps) // 2 and seen[-1] > 3  # it compressed, now and then
    for k in quiet:
        assert dumps[k][:len(dumps[k - 1])] == dumps[k - 1], f"call {k}"


@pytest.mark.parametrize("agent_cls", [FunctionAgent, ReActAgent])
def test_a_plain_agent_is_refused_at_its_first_tool_round_before_a_prompt_overflows(
        swe_trajectories: list[Trajectory], agent_cls: type) -> None:
    """Why the agent subclasses exist: a plain agent's scratchpad never reaches the memory
    during a run, so no memory can bound it. The memory refuses it with one clear error at
    its first tool round, before its second model call; every prompt sent fits."""
    with pytest.raises(ConfigError, match="ContextFunctionAgent") as refused:
        single_run(by_name(swe_trajectories, "pydicom-1256"), agent_cls,
                   react=agent_cls is ReActAgent)
    assert "scratchpad" in str(refused.value)
    assert refused.traceback[-1].name == "_question"  # the memory's check, not an overflow


def test_a_plain_agent_without_tools_is_bounded_by_the_memory(
        swe_trajectories: list[Trajectory]) -> None:
    """With no tool, a run is one model call on the memory: the memory keeps it in budget."""
    trajectory = by_name(swe_trajectories, "django-11099")
    memory = ContextMemory.from_defaults(max_tokens=SWE_BUDGET, store=InMemoryStore())
    memory.set(to_llamaindex([m for m in trajectory.messages if m.role != "system"]))
    llm = ScriptedLLM([])
    agent = FunctionAgent(tools=[], llm=llm, system_prompt="You are a coding agent.")
    run_sync(lambda: agent.run(user_msg="Summarize what you did.", memory=memory))
    [prompt] = llm.received
    assert memory.counter.count_messages(from_llamaindex(prompt)) <= \
        memory.config.budget_tokens


def test_every_model_call_of_a_run_is_compressed_once(
        swe_trajectories: list[Trajectory], monkeypatch: pytest.MonkeyPatch) -> None:
    """The step compresses memory and scratchpad; the memory's ``aget`` around it only
    serves (it used to compress too, so the first step of a run was compressed twice)."""
    passes: list[str] = []
    for name in ("process", "aprocess"):
        original = getattr(ContextProcessor, name)

        def counted(self: Any, *args: Any, _original: Any = original, _name: str = name,
                    **kwargs: Any) -> Any:
            passes.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(ContextProcessor, name, counted)
    rec = RecordedRun.from_messages(by_name(swe_trajectories, "django-11099").messages)
    memory = ContextMemory.from_defaults(max_tokens=SWE_BUDGET, store=InMemoryStore())
    llm = rec.llm()
    agent = ContextFunctionAgent(tools=rec.tools(), llm=llm, system_prompt=rec.system_prompt)
    for ask in (rec.user_message(), "Thanks. Anything else?"):
        run_sync(lambda ask=ask: agent.run(user_msg=ask, memory=memory, max_iterations=1000))
    assert len(llm.received) > 40 and len(passes) == len(llm.received)


@pytest.mark.parametrize("calibrate", [True, False])
def test_budgets_hold_in_the_models_own_tokens_once_it_reports_usage(
        swe_trajectories: list[Trajectory], calibrate: bool) -> None:
    """A model whose tokenizer counts twice what tiktoken does, reporting it as OpenAI's
    integration does: calibrated, every prompt after the first report fits the budget in
    its own tokens; without calibration the same run overflows it."""
    rec = RecordedRun.from_messages(by_name(swe_trajectories, "django-11099").messages)
    memory = ContextMemory.from_defaults(max_tokens=SWE_BUDGET, store=InMemoryStore(),
                                         config=AutoContextConfig(calibrate=calibrate))
    llm = ScriptedLLM(rec.answer_messages(), usage_counter=memory.counter, usage_ratio=2.0)
    agent = ContextFunctionAgent(tools=rec.tools(), llm=llm, system_prompt=rec.system_prompt)
    run_sync(lambda: agent.run(user_msg=rec.user_message(), memory=memory,
                               max_iterations=1000))
    ratio = memory.session_state.get("calibration", {}).get("ratio", 1.0)
    peak = max(llm.reported[1:])
    if calibrate:
        assert 1.8 <= ratio <= 2.2 and peak <= memory.config.budget_tokens
    else:
        assert ratio == 1.0 and peak > SWE_BUDGET


def test_context_agents_are_never_refused(swe_trajectories: list[Trajectory]) -> None:
    rec = RecordedRun.from_messages(by_name(swe_trajectories, "django-11099").messages)
    memory = ContextMemory.from_defaults(max_tokens=64_000, store=InMemoryStore())
    agent = ContextFunctionAgent(tools=rec.tools(), llm=ScriptedLLM(rec.answer_messages()[:6]),
                                 system_prompt=rec.system_prompt)
    result = run_sync(lambda: agent.run(user_msg=rec.user_message(), memory=memory))
    assert str(result) == FINAL_ANSWER


def test_a_react_run_is_compressed_step_by_step_with_context_react_agent(
        swe_trajectories: list[Trajectory]) -> None:
    trajectory = by_name(swe_trajectories, "pydicom-1256")
    checker, llm, memory, _ = single_run(trajectory, ContextReActAgent, react=True)
    assert llm.answered == len(RecordedRun.from_messages(trajectory.messages).react_answers())
    assert checker.compressed_calls > 5


def test_compressed_react_steps_are_kept_in_the_context_as_steps(
        swe_trajectories: list[Trajectory]) -> None:
    rec = RecordedRun.from_messages(by_name(swe_trajectories, "pydicom-1256").messages)
    memory = ContextMemory.from_defaults(max_tokens=SWE_BUDGET, store=InMemoryStore())
    agent = ContextReActAgent(tools=rec.tools(), llm=ScriptedLLM(rec.react_answers()[:30]),
                              system_prompt=rec.system_prompt)

    async def run() -> list[Any]:
        ctx = Context(agent)
        handler = agent.run(user_msg=rec.user_message(), memory=memory, ctx=ctx,
                            max_iterations=1000)
        seen: list[Any] = []
        async for event in handler.stream_events():
            if type(event).__name__ == "ToolCallResult":
                seen.append(await ctx.store.get("current_reasoning", default=[]))
        await handler
        return seen

    snapshots = run_sync(run)
    assert any(isinstance(step, CompressedObservationStep) for steps in snapshots
               for step in steps)


# --- tau-bench: one run per user turn -------------------------------------------------


def tau_conversation(trajectory: Trajectory, make_agent: Callable[..., Any], *,
                     resume: bool = False, budget: int = TAU_BUDGET
                     ) -> tuple[PromptChecker, ScriptedLLM, ContextMemory]:
    """Each user turn is one ``run()`` of an ``AgentWorkflow`` on the same ``Context``
    (serialised to JSON and rebuilt between turns when ``resume``)."""
    rec = RecordedRun.from_messages(trajectory.messages)
    memory = ContextMemory.from_defaults(max_tokens=budget, store=InMemoryStore(),
                                         session_id=f"tau-{trajectory.id}")
    checker = PromptChecker(memory, trajectory)
    llm = ScriptedLLM(on_call=checker)
    checker.llm = llm
    workflow = make_agent(rec, memory, llm)

    async def turns() -> None:
        ctx = Context(workflow)
        for k in range(len(rec.turns)):
            llm.load(rec.answer_messages(k))
            if resume and k:
                ctx = Context.from_dict(workflow, json.loads(json.dumps(ctx.to_dict())))
                checker.memory = await rebuilt(ctx, memory)
                await workflow.run(user_msg=rec.user_message(k), ctx=ctx)
            else:
                await workflow.run(user_msg=rec.user_message(k), ctx=ctx, memory=memory)
        checker.memory = await rebuilt(ctx, memory)

    run_sync(turns)
    return checker, llm, checker.memory


async def rebuilt(ctx: Context, original: ContextMemory) -> ContextMemory:
    """The memory a ``Context`` holds (a copy rebuilt from its dict), with the parts of the
    memory it was built from: what the agent whose tools are bound to it does."""
    copy: ContextMemory = await ctx.store.get("memory")
    copy.adopt(original)
    return copy


def workflow_of(rec: RecordedRun, memory: ContextMemory, llm: ScriptedLLM) -> AgentWorkflow:
    agent = ContextFunctionAgent(name="support", description="Airline support agent.",
                                 tools=[*rec.tools(), *memory.as_tools()], llm=llm,
                                 system_prompt=rec.system_prompt)
    return AgentWorkflow(agents=[agent], root_agent="support")


def test_tau_conversations_through_agent_workflow_stay_in_budget_and_reload_exactly(
        fixture_trajectories: list[Trajectory]) -> None:
    tau = [t for t in fixture_trajectories if t.id.startswith("tau")]
    compressed = 0
    for trajectory in tau:
        checker, llm, memory = tau_conversation(trajectory, workflow_of)
        answers = sum(m.role == "assistant" for m in trajectory.messages)
        assert llm.answered == answers
        compressed += checker.compressed_calls
        assert memory.scratch == []
    assert compressed > 10  # the checks saw compressed prompts (edits the window does not
    # need wait until they pay back, so short conversations compress late or never)


def test_a_conversation_resumed_from_a_serialised_context_keeps_its_memory(
        fixture_trajectories: list[Trajectory]) -> None:
    """Regression: a memory keeping its messages in a private attribute comes back empty
    from ``Context.to_dict()`` / ``from_dict()``, and the ``memory=`` passed to the next
    run is ignored since the context already has one."""
    trajectory = by_name(fixture_trajectories, "tau-airline-10-t0")
    checker, llm, memory = tau_conversation(trajectory, workflow_of, resume=True)
    first_task = RecordedRun.from_messages(trajectory.messages).turns[0].text
    last_prompt = "\n".join(str(m.content) for m in llm.received[-1])
    assert first_task in last_prompt  # the first turn reached the last turn's prompt
    assert isinstance(memory, ContextMemory) and len(memory.messages) > 10
    assert checker.calls == len(llm.received)  # every resumed call was checked too


def test_a_resumed_memory_in_a_fresh_process_reloads_from_the_default_file_store(
        fixture_trajectories: list[Trajectory], monkeypatch: pytest.MonkeyPatch) -> None:
    trajectory = by_name(fixture_trajectories, "tau-airline-10-t0")
    rec = RecordedRun.from_messages(trajectory.messages)
    memory = ContextMemory.from_defaults(max_tokens=TAU_BUDGET, session_id="on-disk")
    llm = ScriptedLLM()
    workflow = workflow_of(rec, memory, llm)

    async def first_turns() -> tuple[ContextMemory, dict[str, Any]]:
        ctx = Context(workflow)
        for k in range(len(rec.turns)):
            llm.load(rec.answer_messages(k))
            await workflow.run(user_msg=rec.user_message(k), ctx=ctx, memory=memory)
        return await ctx.store.get("memory"), ctx.to_dict()

    live, saved = run_sync(first_turns)
    data = json.loads(json.dumps(saved))
    async def restore() -> ContextMemory:
        ctx = Context.from_dict(workflow, data)
        restored: ContextMemory = await ctx.store.get("memory")
        return restored

    restored = run_sync(restore)
    assert restored.messages == live.messages and restored.session_state == live.session_state
    tags = [t for m in restored.view for t in find_offload_ids(message_text(m))]
    assert tags
    for oid in tags:
        assert restored.processor.reload(oid) == live.processor.reload(oid)


def test_a_handoff_in_an_agent_workflow_carries_the_compressed_run_to_the_next_agent(
        swe_trajectories: list[Trajectory]) -> None:
    """Two ContextFunctionAgents share one memory: the triage agent hands off, the coder
    does the recorded run's 49 steps; every call of both stays within budget."""
    trajectory = by_name(swe_trajectories, "pydicom-1256")
    rec = RecordedRun.from_messages(trajectory.messages)
    memory = ContextMemory.from_defaults(max_tokens=SWE_BUDGET, store=InMemoryStore())
    checker = PromptChecker(memory, trajectory)  # pairing and budget on every call
    handoff = ChatMessage(role=MessageRole.ASSISTANT, blocks=[ToolCallBlock(
        tool_call_id="h1", tool_name="handoff",
        tool_kwargs={"to_agent": "coder", "reason": "a code change is needed"})])
    llm = ScriptedLLM([handoff, *rec.answer_messages()], on_call=checker)
    triage = ContextFunctionAgent(name="triage", description="Routes the request.",
                                  llm=llm, system_prompt="Route the request.",
                                  can_handoff_to=["coder"])
    coder = ContextFunctionAgent(name="coder", description="Changes code.",
                                 tools=[*rec.tools(), *memory.as_tools()], llm=llm,
                                 system_prompt=rec.system_prompt)
    workflow = AgentWorkflow(agents=[triage, coder], root_agent="triage")
    result = run_sync(lambda: workflow.run(user_msg=rec.user_message(), memory=memory,
                                           max_iterations=1000))
    assert llm.answered == len(rec.answers[0]) + 1 and str(result) == FINAL_ANSWER
    assert checker.compressed_calls > 10
    assert checker.peak_tokens <= memory.config.budget_tokens


def test_an_overflow_that_no_compression_can_fix_is_the_one_error_a_run_raises(
        swe_trajectories: list[Trajectory]) -> None:
    rec = RecordedRun.from_messages(by_name(swe_trajectories, "pydicom").messages)
    memory = ContextMemory.from_defaults(max_tokens=1200, store=InMemoryStore())
    agent = ContextFunctionAgent(tools=rec.tools(), llm=rec.llm(),
                                 system_prompt=rec.system_prompt)
    with pytest.raises(ContextOverflowError):
        run_sync(lambda: agent.run(user_msg=rec.user_message(), memory=memory))


def test_a_context_agent_without_a_context_memory_says_what_to_pass() -> None:
    agent = ContextFunctionAgent(tools=[], llm=ScriptedLLM())
    with pytest.raises(TypeError, match=r"pass one: agent.run\(\.\.\., memory=ContextMemory"):
        run_sync(lambda: agent.run(user_msg="hello"))
