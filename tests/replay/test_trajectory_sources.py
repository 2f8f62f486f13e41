"""Replay reads runs where users keep them: LangSmith runs and OpenTelemetry GenAI spans.

Each file is made by the owning library from a real ``create_agent`` run (only the model
is scripted): LangSmith runs by LangChain's own ``LangChainTracer``, saved as the SDK's
``schemas.Run``; spans by the OpenTelemetry SDK, encoded by its OTLP exporter's encoder.
Read back, the run must replay into the prompt tokens of its own message file.
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.tracers.langchain import LangChainTracer
from langgraph.checkpoint.memory import InMemorySaver
from recorded_conversation import conversation, prompt_tokens, within_one_percent
from traced_runs import GenAISpans, RecordingClient, tracer_and_exporter, write_otlp_json

from ctxmgr import AutoContextConfig
from ctxmgr.cli import main
from ctxmgr.errors import InvalidMessageError
from ctxmgr.replay import load_trajectories
from ctxmgr.replay.sources import ModelCall, detect_format, merge_calls
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.testing import RecordedRun


def run_agent(tmp_path: Path, callback: object, *, managed: bool = False) -> RecordedRun:
    """The conversation through create_agent, one invoke per user turn on one thread."""
    run = RecordedRun.from_messages(conversation(tmp_path).messages)
    middleware = [ContextMiddleware(AutoContextConfig(max_tokens=3000))] if managed else []
    agent = create_agent(run.model(), run.tools(), system_prompt=run.system_prompt,
                         middleware=middleware, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "support-1"}, "callbacks": [callback]}
    for turn in range(len(run.turns)):
        agent.invoke({"messages": run.inputs(turn)}, config)  # type: ignore[arg-type]
    return run


def assert_replays_like_the_message_file(path: Path, tmp_path: Path) -> str:
    [read] = load_trajectories([path])
    original = conversation(tmp_path)
    [(calls, tokens), (expected_calls, expected)] = prompt_tokens([read, original])
    assert [m.role for m in read.messages] == [m.role for m in original.messages]
    assert calls == expected_calls
    assert within_one_percent(tokens, expected), (tokens, expected)
    return read.id


def text_message(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


@pytest.mark.parametrize("events", [False, True], ids=["attributes", "events"])
def test_otlp_spans_written_by_the_sdk_replay_into_the_message_file_s_tokens(
        tmp_path: Path, events: bool) -> None:
    """Attributes (v1.37+) under an agent span's trace (the agent span has the run's input
    and output messages too, and is no model call); events (v1.28-v1.36) joined by
    conversation."""
    tracer, exporter = tracer_and_exporter()
    spans = GenAISpans(tracer, events=events, conversation="support-1" if events else None)
    agent = tracer.start_as_current_span("invoke_agent support", attributes={
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.input.messages": text_message("user", "Hi! I need to cancel my flights")})
    with nullcontext() if events else agent as span:
        run = run_agent(tmp_path, spans)
        if span is not None:
            span.set_attribute("gen_ai.output.messages",
                               text_message("assistant", run.answers[-1].text))
    path = write_otlp_json(exporter.get_finished_spans(), tmp_path / "spans.json")
    assert detect_format(path) == "otlp"
    tid = assert_replays_like_the_message_file(path, tmp_path)
    assert tid == "support-1" if events else len(tid) == 32  # the trace id, in hex


def test_otlp_spans_of_a_compressing_agent_give_back_the_uncompressed_run(
        tmp_path: Path) -> None:
    """Later prompts hold ctxmgr's stand-ins; the run is rebuilt call by call."""
    tracer, exporter = tracer_and_exporter()
    run_agent(tmp_path, GenAISpans(tracer, conversation="support-1"), managed=True)
    spans = exporter.get_finished_spans()
    assert any("CONTEXT_OFFLOAD" in str(s.attributes["gen_ai.input.messages"]) for s in spans)
    path = write_otlp_json(spans, tmp_path / "spans.jsonl")
    assert assert_replays_like_the_message_file(path, tmp_path) == "support-1"


def test_langsmith_runs_of_a_thread_replay_into_the_message_file_s_tokens(
        tmp_path: Path) -> None:
    client = RecordingClient()
    tracer = LangChainTracer(client=client, project_name="support")  # type: ignore[arg-type]
    run_agent(tmp_path, tracer, managed=True)
    tracer.wait_for_futures()
    path = client.export(tmp_path / "runs.jsonl")
    assert detect_format(path) == "langsmith"
    # five invokes are five traces; the thread in the runs' metadata joins them
    assert len({r["trace_id"] for r in client.runs.values()}) == 5
    assert assert_replays_like_the_message_file(path, tmp_path) == "support-1"


def test_format_overrides_detection_and_says_what_does_not_fit(tmp_path: Path) -> None:
    messages = tmp_path / "conversation.json"
    messages.write_text(json.dumps(conversation(tmp_path).raw), encoding="utf-8")
    assert detect_format(messages) == "messages"
    with pytest.raises(InvalidMessageError, match="not an OTLP trace export"):
        load_trajectories([messages], format="otlp")
    with pytest.raises(InvalidMessageError, match="not a LangSmith run"):
        load_trajectories([messages], format="langsmith")


@pytest.mark.parametrize("content", [
    '{"resource": "spans?"}', '[{"run": 1}]', '"just text"', "{}\n{}\n"])
def test_a_file_of_an_unknown_shape_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str) -> None:
    path = tmp_path / "mystery.json"
    path.write_text(content, encoding="utf-8")
    assert main(["replay", str(path), "--policy", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a kind of trajectory ctxmgr knows" in err
    assert "--format" in err and "Traceback" not in err
    assert main(["replay", str(path), "--format", "yaml"]) == 2
    assert "invalid choice: 'yaml'" in capsys.readouterr().err


def test_thread_picks_the_runs_of_a_messages_file_by_id() -> None:
    from recorded_conversation import TAU

    picked = load_trajectories([TAU], threads=["tau-airline-2-t0", "tau-airline-8-t0"])
    assert [t.id for t in picked] == ["tau-airline-2-t0", "tau-airline-8-t0"]


def test_langsmith_runs_without_a_thread_are_one_run_per_trace(tmp_path: Path) -> None:
    """Stateless invokes, each handed the whole history: five traces, five runs, the
    last one the whole conversation."""
    client = RecordingClient()
    tracer = LangChainTracer(client=client, project_name="support")  # type: ignore[arg-type]
    run = RecordedRun.from_messages(conversation(tmp_path).messages)
    agent = create_agent(run.model(), run.tools(), system_prompt=run.system_prompt)
    history: list[Any] = []
    for turn in range(len(run.turns)):
        history = agent.invoke({"messages": [*history, *run.inputs(turn)]},
                               {"callbacks": [tracer]})["messages"]
    runs = load_trajectories([client.export(tmp_path / "runs.jsonl")])
    traces = {r["trace_id"] for r in client.runs.values()}
    assert len(runs) == 5 and {t.id for t in runs} == {str(t) for t in traces}
    [(_, tokens), (_, expected)] = prompt_tokens([runs[-1], conversation(tmp_path)])
    assert within_one_percent(tokens, expected)


def test_a_side_call_in_a_trace_is_not_a_step_of_the_run() -> None:
    """A summarizer's request between two steps does not hold the previous answer."""
    user = {"role": "user", "content": "fix the bug"}
    step1 = {"role": "assistant", "content": "looking"}
    side = ModelCall(prompt=({"role": "user", "content": "summarize: ..."},),
                     answer=({"role": "assistant", "content": "a summary"},), order=(2,))
    calls = [ModelCall(prompt=(user,), answer=(step1,), order=(1,)), side,
             ModelCall(prompt=({"role": "user", "content": "a summary"}, step1,
                               {"role": "user", "content": "and the test?"}),
                       answer=({"role": "assistant", "content": "done"},), order=(3,))]
    assert [m["content"] for m in merge_calls(calls)] == [
        "fix the bug", "looking", "and the test?", "done"]


@pytest.mark.parametrize("data", [
    {"resourceSpans": 3},
    {"resourceSpans": [{"scopeSpans": [{"spans": [{"events": 7}]}]}]},
    {"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [
        {"key": "gen_ai.input.messages", "value": {"stringValue": "{not json"}}]}]}]}]},
    [{"run_type": "llm", "trace_id": "t", "inputs": {"messages": [[{
        "lc": 1, "type": "constructor", "id": ["HumanMessage"], "kwargs": "?"}]]}}],
    [{"run_type": "llm", "trace_id": "t", "inputs": {"messages": [["hi"]]}}],
], ids=["resourceSpans", "events", "input messages", "kwargs", "message"])
def test_a_damaged_trace_file_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], data: object) -> None:
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["replay", str(path), "--policy", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err
