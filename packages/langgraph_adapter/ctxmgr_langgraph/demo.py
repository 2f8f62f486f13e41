"""``ctxmgr demo`` with LangGraph: a real ``create_agent`` agent replays a recorded run.

The agent is ``langchain.agents.create_agent`` with :class:`ContextMiddleware`;
only the model is scripted (it answers as the recorded assistant did) and the
tools return the recorded outputs. After the recorded answers the model calls
``context_reload`` once, on the latest offload id it was shown, and the demo
checks that a compressed message came back byte for byte.

The core command finds :func:`run_agent_demo` through the ``ctxmgr.demos`` entry
point, so ``ctxmgr`` itself never imports LangChain.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ctxmgr import (
    AutoContextConfig,
    CompressionEvent,
    FileStore,
    Message,
    default_counter,
    validate_pairing,
)
from ctxmgr.demo import DemoReport, bundled_trajectory
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.session.kit import delete_session, find_offload_ids, home, message_to_dict
from ctxmgr_langgraph.convert import from_langchain
from ctxmgr_langgraph.middleware import ContextMiddleware
from ctxmgr_langgraph.testing import RecordedRun

try:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangChain: pip install ".[langgraph]"') from exc

__all__ = ["ReloadShown", "run_agent_demo"]

RELOAD_CALL_ID = "ctxmgr-demo-reload"
DEMO_PROJECT, DEMO_THREAD = "ctxmgr-demo", "demo"
"""Where the demo's offloads are kept in the files under ``CTXMGR_HOME``."""
_NEXT_PAGE = re.compile(r'"page": (\d+)\} for the next')
_MAX_PAGES = 5
ASK_RELOAD = "Bring back one detail you compressed earlier, exactly."


@dataclass(frozen=True, slots=True, kw_only=True)
class ReloadShown:
    """The agent's one ``context_reload`` call and the detail it brought back."""

    offload_id: str
    message_id: str
    detail: str
    """The restored message's text (a recorded tool output, say)."""
    exact: bool
    """The restored text equals the recorded original byte for byte."""


def run_agent_demo(*, budget: int = 16_000, trajectory: Trajectory | None = None,
                   progress: Callable[..., object] | None = None) -> DemoReport:
    """Replay the bundled run (or ``trajectory``) through a real ``create_agent`` agent.

    Args:
        budget: the model's context window.
        trajectory: a recorded run to replay instead of the bundled one.
        progress: called after each recorded model call with ``(call, calls, tokens,
            fired)``: the prompt's tokens (tool schemas included) and the compressions
            made right before the call.
    """
    if trajectory is None:
        tid, recorded = bundled_trajectory()
    else:
        tid, recorded = trajectory.id, list(trajectory.messages)
    run = RecordedRun.from_messages(recorded)
    counter = default_counter()
    report = DemoReport(trajectory_id=tid, budget=budget, runner="create_agent + ContextMiddleware")
    calls = len(run.answers)
    baseline = _baseline(recorded, counter)
    events: list[CompressionEvent] = []
    pending: list[str] = []
    reload_box: dict[str, Any] = {}

    def on_event(event: CompressionEvent) -> None:
        if event.status == "applied":
            events.append(event)
            if event.offload_id:
                pending.append(f"{event.name}: {len(event.replaced_ids)} message(s) -> "
                               f"offload {event.offload_id[:8]}")

    def on_call(prompt: list[BaseMessage]) -> None:
        k = len(model.received) - 1
        if k >= calls:
            return
        neutral = from_langchain(list(prompt))
        tools = sum(counter.count_text(json.dumps(convert_to_openai_tool(t), default=str))
                    for t in model.bound_tools)
        report.baseline.append(baseline[k] + tools)
        report.managed.append(counter.count_messages(neutral) + tools)
        report.pairing_violations += len(validate_pairing(neutral))
        if pending:
            report.fired[k] = list(pending)
            pending.clear()
        if progress is not None:
            progress(k + 1, calls, report.managed[-1], tuple(report.fired.get(k, ())))

    script: list[Any] = [*run.answer_messages("demo"), _ask_reload(reload_box),
                         *(_read_reload(reload_box) for _ in range(_MAX_PAGES))]
    model = run.model(id_prefix="demo", on_call=on_call)
    model.messages = iter(script)
    store = InMemoryStore()
    # the offloads go to files, where `ctxmgr reload ID --project ctxmgr-demo` finds them;
    # the last run's are removed first, so demos never pile up
    files = FileStore(home())
    delete_session(files, project=DEMO_PROJECT, session=DEMO_THREAD)
    middleware = ContextMiddleware(AutoContextConfig(max_tokens=budget, project=DEMO_PROJECT),
                                   on_event=on_event, store=files)
    agent = create_agent(model, run.tools(), system_prompt=run.system_prompt,
                         middleware=[middleware], checkpointer=InMemorySaver(), store=store)
    config: RunnableConfig = {"configurable": {"thread_id": DEMO_THREAD},
                              "recursion_limit": 10 * calls + 100}
    turns = [run.inputs(t) for t in range(len(run.turns))] or [[HumanMessage(ASK_RELOAD)]]
    for turn in turns:
        inputs: Any = {"messages": turn}
        agent.invoke(inputs, config)
    if "text" not in reload_box and reload_box.get("asked") is not False:
        agent.invoke({"messages": [HumanMessage(ASK_RELOAD)]}, config)

    processor = middleware.sessions.processor(DEMO_THREAD, store)
    report.kept = (str(files.root), DEMO_PROJECT, DEMO_THREAD)
    originals = _originals(agent, config)
    for event in events:
        report.strategies[event.name] += 1
        if event.offload_id:
            _check_reload(processor.reload(event.offload_id), originals)
            report.reload_checked += 1
    report.reload_shown = _shown(reload_box, processor, originals)
    return report


def _baseline(recorded: Sequence[Message], counter: Any) -> list[int]:
    """Prompt tokens before each recorded answer, with nothing compressed."""
    return [counter.count_messages(recorded[:i]) for i, m in enumerate(recorded)
            if m.role == "assistant"]


def _originals(agent: Any, config: Any) -> dict[str, dict[str, Any]]:
    """Every message the agent's state ever held, as first written (before any stand-in
    took its id), from the checkpoints, oldest first."""
    first: dict[str, BaseMessage] = {}
    for snapshot in reversed(list(agent.get_state_history(config))):
        for m in snapshot.values.get("messages", ()):
            if m.id and m.id not in first:
                first[m.id] = m
    return {i: message_to_dict(from_langchain([m])[0]) for i, m in first.items()}


def _ask_reload(box: dict[str, Any]) -> Callable[[list[BaseMessage]], AIMessage]:
    """The scripted model's extra step: reload the latest offload id it was shown, a
    tool output cut to a preview first (one detail, not a whole summarized range)."""
    def answer(prompt: list[BaseMessage]) -> AIMessage:
        previews = [i for m in prompt if isinstance(m, ToolMessage)
                    for i in find_offload_ids(_text(m))]
        ids = previews or [i for m in prompt for i in find_offload_ids(_text(m))]
        if not ids:
            box["asked"] = False
            return AIMessage(content="Nothing was compressed, so there is nothing to reload.")
        box["asked"], box["offload_id"] = True, ids[-1]
        return AIMessage(content="", tool_calls=[{
            "name": "context_reload", "args": {"uuid": ids[-1]}, "id": RELOAD_CALL_ID}])
    return answer


def _read_reload(box: dict[str, Any]) -> Callable[[list[BaseMessage]], AIMessage]:
    """Read the reload's answer; while the pages so far hold only earlier summaries (no
    original tool output yet), ask for the next page, as a model would."""
    def answer(prompt: list[BaseMessage]) -> AIMessage:
        reply = next((m for m in reversed(prompt) if isinstance(m, ToolMessage)
                      and str(m.tool_call_id).startswith(RELOAD_CALL_ID)), None)
        if reply is not None:
            box["text"] = box.get("text", "") + _text(reply)
            more = _NEXT_PAGE.search(_text(reply))
            if more is not None and "[tool result" not in _text(reply) and int(
                    more.group(1)) <= _MAX_PAGES:
                return AIMessage(content="", tool_calls=[{
                    "name": "context_reload", "id": f"{RELOAD_CALL_ID}-{more.group(1)}",
                    "args": {"uuid": box["offload_id"], "page": int(more.group(1))}}])
        return AIMessage(content="Done: the detail is back.")
    return answer


def _shown(box: dict[str, Any], processor: Any, originals: dict[str, Any]
           ) -> ReloadShown | None:
    """The first original of the reloaded range whose text (a tool output first) came back
    whole in the ``context_reload`` reply."""
    offload_id, text = box.get("offload_id"), box.get("text")
    if not offload_id or text is None:
        return None
    restored = [m for m in processor.reload(offload_id)
                if not message_to_dict(m).get("metadata", {}).get("ctxmgr")]
    candidates = ([(m, r.text.strip()) for m in restored for r in m.tool_results]
                  + [(m, m.text.strip()) for m in restored])
    for m, body in candidates:
        if len(body) >= 20 and body in text:
            exact = message_to_dict(m) == originals.get(m.id)
            return ReloadShown(offload_id=offload_id, message_id=m.id, detail=body, exact=exact)
    return None


def _check_reload(restored: list[Message], originals: dict[str, Any]) -> None:
    for m in restored:
        d = message_to_dict(m)
        # a range may hold earlier stand-ins; compare those that are originals
        if not d.get("metadata", {}).get("ctxmgr") and d != originals.get(m.id):
            raise AssertionError(f"reload gave message {m.id} back changed")


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(part if isinstance(part, str) else str(part.get("text", ""))
                   for part in content)
