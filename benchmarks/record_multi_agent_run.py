"""Record a multi-agent run for replay: a scripted deep agent and its two subagents.

A real ``deepagents.create_deep_agent`` agent, with scripted models (only the models are
fake), hands tasks to a ``researcher`` and a ``writer`` subagent, each of which reads
files with a ``read`` tool before it answers. A recording middleware in every agent keeps
what each agent run held at its end (its system prompt and its whole history: no context
management runs), and the runs are written as JSON lines in the shared trajectory format,
one per agent run, the subagents' runs naming their agent (``"agent": "researcher"``):

    python benchmarks/record_multi_agent_run.py [--out FILE]

(default ``tests/fixtures/multi_agent/deep_agent_scripted.jsonl``).

The file is deterministic (the scripts fix every id and text); ``ctxmgr replay FILE``
replays it per agent, each beside the peers (see docs/replay.md).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "multi_agent" / "deep_agent_scripted.jsonl"
SUBAGENTS = ("researcher", "writer")
SOURCE = ("scripted deepagents run (benchmarks/record_multi_agent_run.py): "
          "create_deep_agent with a researcher and a writer subagent")


def file_text(path: str) -> str:
    """What the scripted ``read`` tool returns for ``path`` (about 2,000 characters)."""
    return f"# {path}\n" + "".join(
        f"def step_{k}(value):  # {path}:{k}\n    return value * {k} + {len(path)}\n"
        for k in range(30))


def _reads(who: str, ids: Iterator[int], n: int) -> Iterator[Any]:
    from langchain_core.messages import AIMessage

    for _ in range(n):
        k = next(ids)
        yield AIMessage(content=f"Reading the next file for {who}.", id=f"{who}-{k}",
                        tool_calls=[{"name": "read", "args": {"path": f"src/{who}_{k}.py"},
                                     "id": f"{who}-read-{k}"}])


def main_script(tasks: int, per_task: int) -> Iterator[Any]:
    from langchain_core.messages import AIMessage

    ids = itertools.count()
    for t in range(tasks):
        yield from _reads("main", ids, per_task)
        who = SUBAGENTS[t % 2]
        yield AIMessage(content="", id=f"main-task-{t}", tool_calls=[
            {"name": "task", "id": f"task-{t}",
             "args": {"description": f"Task {t}: study the files of part {t}.",
                      "subagent_type": who}}])
    yield "Every part is studied: the step functions scale their input linearly."


def sub_script(name: str, per_task: int) -> Iterator[Any]:
    ids = itertools.count()
    for t in itertools.count():
        yield from _reads(name, ids, per_task)
        yield (f"{name} finished task {t}: {per_task} files read; every step_k returns "
               f"value * k plus the length of its path.")


class _Recorder:
    """Builds the recording middleware: what each agent run held when it ended."""

    def __init__(self) -> None:
        self.runs: list[tuple[str | None, str, list[Any]]] = []

    def middleware(self) -> Any:
        from langchain.agents.middleware import AgentMiddleware
        from langgraph.config import get_config

        recorder = self

        class Record(AgentMiddleware):  # type: ignore[type-arg]
            system = ""

            def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
                message = request.system_message
                self.system = message.text if message is not None else ""
                return handler(request)

            def after_agent(self, state: Any, runtime: Any) -> None:
                agent = get_config().get("metadata", {}).get("lc_agent_name")
                recorder.runs.append((agent, self.system, list(state["messages"])))

        return Record()


def record(tasks: int = 4, per_task: int = 6, sub_steps: int = 10) -> list[dict[str, Any]]:
    """Run the scripted deep agent; one trajectory record per agent run, in the order the
    runs ended (each subagent task, then the main agent)."""
    from deepagents import create_deep_agent
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver

    from ctxmgr import to_openai
    from ctxmgr.messages import text_message
    from ctxmgr_langgraph.convert import from_langchain
    from ctxmgr_langgraph.testing import ScriptedChatModel

    @tool
    def read(path: str) -> str:
        """Read a file."""
        return file_text(path)

    recorder = _Recorder()
    subagents = [{"name": n, "description": f"The {n}.", "system_prompt": f"You are the {n}.",
                  "model": ScriptedChatModel(messages=sub_script(n, sub_steps)),
                  "tools": [read], "middleware": [recorder.middleware()]} for n in SUBAGENTS]
    agent = create_deep_agent(ScriptedChatModel(messages=main_script(tasks, per_task)), [read],
                              system_prompt="You lead: read the overview, then hand each part "
                                            "of the code base to a subagent.",
                              subagents=subagents, middleware=[recorder.middleware()],
                              checkpointer=InMemorySaver())
    agent.invoke({"messages": [{"role": "user", "content": "Study the code base, part by part."}]},
                 {"configurable": {"thread_id": "deep-agent"}, "recursion_limit": 10_000})
    out: list[dict[str, Any]] = []
    tasks_of: dict[str, int] = {}
    for agent_name, system, messages in recorder.runs:
        history = [text_message("system", system, id="system"), *from_langchain(messages)]
        raw = [{k: v for k, v in m.items() if k != "id"} for m in to_openai(history)]
        if agent_name is None:
            out.append({"id": "deep-agent/main", "source": SOURCE, "messages": raw})
            continue
        n = tasks_of[agent_name] = tasks_of.get(agent_name, 0) + 1
        out.append({"id": f"deep-agent/{agent_name}/{n}", "source": SOURCE,
                    "agent": agent_name, "messages": raw})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    records = record()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                        encoding="utf-8")
    calls = sum(m["role"] == "assistant" for r in records for m in r["messages"])
    print(f"wrote {args.out}: {len(records)} agent runs, {calls} model calls", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
