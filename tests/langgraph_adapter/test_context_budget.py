"""What the budget counts: system prompt, tool schemas, the answer's reserve, and the
model's own token counts once it reports them."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph_agents import (
    RECURSION,
    STYLES,
    Agent,
    CallChecker,
    build,
    reloader,
    tool_tokens,
)

from ctxmgr import AutoContextConfig, TokenCounter, default_counter
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.tokens import ApproximateCounter
from ctxmgr_langgraph import CONTEXT_KEY, ContextMiddleware
from ctxmgr_langgraph.convert import from_langchain
from ctxmgr_langgraph.testing import RecordedRun


@pytest.fixture(scope="module")
def run(swe_trajectories: list[Trajectory]) -> RecordedRun:
    trajectory = next(t for t in swe_trajectories if "django-11099" in t.id)
    return RecordedRun.from_messages(trajectory.messages)


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return default_counter()


def thread() -> dict[str, Any]:
    return {"configurable": {"thread_id": "t"}, **RECURSION}


def first_compression_call(style: str, run: RecordedRun, counter: TokenCounter,
                           **options: Any) -> int:
    checker = CallChecker(counter=counter, max_tokens=10_000,
                          reserve=options.get("reserve_output_tokens", 0))
    agent = build(style, run, config=AutoContextConfig(max_tokens=10_000), checker=checker,
                  checkpointer=InMemorySaver(), **options)
    checker.reload = reloader(agent, "t")
    agent.graph.invoke(agent.inputs(run), thread())
    return checker.compression_calls[0]


@pytest.mark.parametrize("style", STYLES)
def test_a_larger_reserve_for_the_answer_makes_compression_start_earlier(
        style: str, run: RecordedRun, counter: TokenCounter) -> None:
    small = first_compression_call(style, run, counter, reserve_output_tokens=0)
    large = first_compression_call(style, run, counter, reserve_output_tokens=3000)
    assert large < small


def test_the_system_prompt_and_tool_schemas_count(run: RecordedRun,
                                                  counter: TokenCounter) -> None:
    checker = CallChecker(counter=counter, max_tokens=10_000, reserve=700)
    agent = build("create_agent", run, config=AutoContextConfig(max_tokens=10_000),
                  checker=checker, checkpointer=InMemorySaver(), reserve_output_tokens=700)
    checker.reload = reloader(agent, "t")
    agent.graph.invoke(agent.inputs(run), thread())
    first = agent.model.received[0]
    sent = (counter.count_messages(from_langchain(first))
            + tool_tokens(counter, agent.model.bound_tools))
    overhead = agent.graph.get_state(thread()).values[CONTEXT_KEY]["overhead"]
    history = from_langchain([m for m in first if m.type == "human"])
    # what the middleware counts beside the history: system prompt, guidance, tools
    assert abs(overhead - (sent - counter.count_messages(history))) <= 10


@pytest.mark.parametrize("style", ["create_agent", "react_hook"])
def test_budgets_hold_in_the_models_own_tokens_once_it_reports_usage(
        style: str, run: RecordedRun, counter: TokenCounter) -> None:
    """A model whose tokenizer counts twice what tiktoken does: calibrated against its
    usage_metadata, every prompt fits its window in its own tokens; without
    calibration the same run overflows it."""
    def peak(calibrate: bool) -> tuple[int, float]:
        agent = build(style, run, config=AutoContextConfig(max_tokens=10_000),
                      checkpointer=InMemorySaver(), reserve_output_tokens=500,
                      calibrate=calibrate)
        agent.model.usage_counter = counter
        agent.model.usage_ratio = 2.0
        agent.graph.invoke(agent.inputs(run), thread())
        tokens = [agent.model.usage_tokens(p) + 500 for p in agent.model.received]
        context = agent.graph.get_state(thread()).values.get(CONTEXT_KEY, {})
        return max(tokens), context.get("calibration", {}).get("ratio", 1.0)

    calibrated, ratio = peak(True)
    uncalibrated, _ = peak(False)
    assert 1.8 <= ratio <= 2.2
    assert calibrated <= 10_000 < uncalibrated


def test_what_middleware_inside_it_adds_is_counted_from_the_next_call_with_a_warning(
        run: RecordedRun, counter: TokenCounter) -> None:
    """Listed first, ContextMiddleware wraps the others: a later one adds to the request
    after ContextMiddleware counted it. What the model received is measured, counted from
    the next call on, and the misplacement named once (the answer's reserve was eaten)."""
    policy = "Policy: never edit generated files; explain each change. " * 250

    class AddsPolicy(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            system = SystemMessage(content=f"{request.system_message.content}\n\n{policy}")
            return handler(request.override(system_message=system))

    checker = CallChecker(counter=counter, max_tokens=10_000, reserve=500)
    model = run.model(on_call=checker)
    checker.model = model
    context = ContextMiddleware(AutoContextConfig(max_tokens=10_000, reserve_output_tokens=500),
                                on_event=checker.on_event)
    agent = create_agent(model, run.tools(), system_prompt=run.system_prompt,
                         middleware=[context, AddsPolicy()], checkpointer=InMemorySaver())
    checker.reload = reloader(Agent(agent, model, context.sessions, context, "create_agent"), "t")
    with pytest.warns(UserWarning, match="put ContextMiddleware last") as caught:
        agent.invoke({"messages": run.inputs()}, thread())
    assert len([w for w in caught if "ContextMiddleware last" in str(w.message)]) == 1
    assert checker.calls == len(run.answers) + 1 and checker.peak <= 10_000
    unseen = agent.get_state(thread()).values[CONTEXT_KEY]["unseen_overhead"]
    assert abs(unseen - counter.count_text(policy)) <= 10


class CountingCounter(ApproximateCounter):
    """An approximate counter that tells how many times a whole prompt was counted."""

    prompts = 0

    def count_messages(self, messages: Any) -> int:
        self.prompts += 1
        return super().count_messages(messages)


@pytest.mark.parametrize("style", STYLES)
def test_each_model_call_counts_its_prompt_once(style: str, run: RecordedRun) -> None:
    counter = CountingCounter()
    agent = build(style, run, config=AutoContextConfig(max_tokens=10_000),
                  checkpointer=InMemorySaver(), counter=counter, calibrate=False)
    agent.graph.invoke(agent.inputs(run), thread())
    assert counter.prompts == len(agent.model.received)


def test_calibration_counts_what_the_model_received_after_the_middleware_inside_it(
        run: RecordedRun, counter: TokenCounter) -> None:
    """Regression: the usage report was set against what ContextMiddleware sent, so tokens a
    later middleware added were counted twice, in the ratio and in unseen_overhead. A model
    whose counts are ctxmgr's own must leave the ratio at 1."""
    policy = "Policy: never edit generated files; explain each change. " * 250

    class AddsPolicy(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            system = SystemMessage(content=f"{request.system_message.content}\n\n{policy}")
            return handler(request.override(system_message=system))

    model = run.model(usage_counter=counter, usage_ratio=1.0)
    context = ContextMiddleware(AutoContextConfig(max_tokens=10_000, reserve_output_tokens=500),
                                counter=counter)
    agent = create_agent(model, run.tools(), system_prompt=run.system_prompt,
                         middleware=[context, AddsPolicy()], checkpointer=InMemorySaver())
    with pytest.warns(UserWarning, match="put ContextMiddleware last"):
        agent.invoke({"messages": run.inputs()}, thread())
    calibration = agent.get_state(thread()).values[CONTEXT_KEY]["calibration"]
    assert calibration["samples"] >= 3 and abs(calibration["ratio"] - 1.0) < 0.02


def test_the_hook_calibrates_on_chat_turns_too() -> None:
    """Regression: the hook looked for the model's answer at the end of the history, so a
    user turn after it hid it, and a chat agent never calibrated."""
    import warnings

    from langgraph.prebuilt import create_react_agent
    from langgraph.warnings import LangGraphDeprecatedSinceV10

    from ctxmgr_langgraph import ContextAgentState, ContextHook
    from ctxmgr_langgraph.testing import ScriptedChatModel

    counter = ApproximateCounter()
    prompt = "You answer questions about the airline's rules. " * 40
    model = ScriptedChatModel(messages=iter(["first answer", "second answer", "third"]),
                              usage_counter=counter, usage_ratio=1.5)
    hook = ContextHook(AutoContextConfig(max_tokens=10_000), system_prompt=prompt,
                       counter=counter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        agent = create_react_agent(model, hook.tools, prompt=prompt, pre_model_hook=hook,
                                   state_schema=ContextAgentState,
                                   checkpointer=InMemorySaver())
    for question in ("may I bring a dog?", "and a cat?", "and a parrot?"):
        agent.invoke({"messages": [("user", question)]}, thread())
    calibration = agent.get_state(thread()).values[CONTEXT_KEY]["calibration"]
    assert calibration["samples"] == 2  # the answers to the first two calls
    assert abs(calibration["ratio"] - 1.5) < 0.1
