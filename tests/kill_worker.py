"""One ``create_agent`` worker process for the kill test: run, or resume, a recorded run.

Run as ``python -m kill_worker --target PATH|URI --mode run|resume [--block-at N]
[--thread T] [--durability sync|async]`` with ``tests/`` on ``PYTHONPATH``. The
agent is a real ``create_agent`` with ``ContextMiddleware``; checkpoints go to a
``SqliteSaver`` (files next to a path) or a ``PostgresSaver`` (a ``postgresql://``
URI), offloads to the graph's store (``SqliteStore`` or ``PostgresStore`` on the
same target). It speaks
JSON lines on stdout:

* ``run``: ``{"offload": ID}`` per applied compression and ``{"call": N}`` per model
  call; at call ``--block-at`` it says ``{"blocked": N}`` and waits on stdin, in the
  middle of that model call, for the parent to SIGKILL it.
* ``resume``: reads the checkpoint, scripts the model from the answer after the last
  one in the state, finishes the run, then reloads every offload id it is given on
  stdin (one JSON list) and every id tagged in the final state, and prints a report.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage

from ctxmgr import AutoContextConfig, CompressionEvent, OffloadNotFoundError
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr.messages import message_to_dict
from ctxmgr.replay.trajectories import load_trajectories
from ctxmgr_langgraph import ContextMiddleware, from_langchain
from ctxmgr_langgraph.testing import RecordedRun

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "trajectories"
TRAJECTORY = "swe__deepseek_chat_test_1-100__django__django-11099.json"
MAX_TOKENS = 10_000


def _say(**fields: Any) -> None:
    print(json.dumps(fields), flush=True)


def recorded_run(name: str = TRAJECTORY) -> RecordedRun:
    [trajectory] = load_trajectories([str(FIXTURES / name)])
    return RecordedRun.from_messages(trajectory.messages)


def open_backend(stack: ExitStack, target: str) -> tuple[Any, Any]:
    """A checkpointer and a store on ``target`` (a SQLite file, or a Postgres URI or
    libpq ``key=value`` connection string)."""
    if target.startswith("postgres") or "dbname=" in target:
        from langgraph.checkpoint.postgres import PostgresSaver
        from langgraph.store.postgres import PostgresStore

        saver: Any = stack.enter_context(PostgresSaver.from_conn_string(target))
        store: Any = stack.enter_context(PostgresStore.from_conn_string(target))
    else:
        from langgraph.checkpoint.sqlite import SqliteSaver
        from langgraph.store.sqlite import SqliteStore

        saver = stack.enter_context(SqliteSaver.from_conn_string(target + ".checkpoints"))
        store = stack.enter_context(SqliteStore.from_conn_string(target + ".store"))
    saver.setup()
    store.setup()
    return saver, store


def text_of(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--target", required=True)
    p.add_argument("--mode", choices=["run", "resume"], required=True)
    p.add_argument("--block-at", type=int, default=0)
    p.add_argument("--thread", default="killed-worker")
    p.add_argument("--project", default="kill-test")
    p.add_argument("--trajectory", default=TRAJECTORY, help="a file in tests/fixtures")
    p.add_argument("--durability", choices=["sync", "async"], default="async",
                   help="LangGraph's checkpoint durability for the run (async: checkpoints "
                        "are written in the background and the latest may be lost)")
    args = p.parse_args()
    thread: Any = {"configurable": {"thread_id": args.thread}, "recursion_limit": 10_000}
    run = recorded_run(args.trajectory)
    answers = run.answer_messages()
    with ExitStack() as stack:
        saver, store = open_backend(stack, args.target)
        calls = 0

        def on_event(event: CompressionEvent) -> None:
            if event.status == "applied" and event.offload_id:
                _say(offload=event.offload_id)

        def on_call(prompt: list[BaseMessage]) -> None:
            nonlocal calls
            calls += 1
            _say(call=calls)
            if calls == args.block_at:
                _say(blocked=calls)
                sys.stdin.readline()  # the parent kills this process here

        model = run.model(on_call=on_call)
        middleware = ContextMiddleware(AutoContextConfig(max_tokens=MAX_TOKENS,
                                                         project=args.project),
                                       on_event=on_event)
        agent = create_agent(model, run.tools(), system_prompt=run.system_prompt,
                             middleware=[middleware], checkpointer=saver, store=store)
        if args.mode == "resume":
            # the model answers from the recorded answer after the last one in the state
            state = agent.get_state(thread).values
            last = max(int(str(m.id).rsplit("-", 1)[1]) for m in state["messages"]
                       if isinstance(m, AIMessage) and str(m.id).startswith("answer-"))
            _say(resumed_after=last + 1, messages=len(state["messages"]))
            script: Iterator[AIMessage] = iter(answers[last + 1:])
            model.messages = script
        if args.mode == "run":
            agent.invoke({"messages": run.inputs()}, thread, durability=args.durability)
            _say(finished=True)
            return 0
        result = agent.invoke(None, thread)
        processor = middleware.sessions.processor(args.thread, store)
        given: list[str] = json.loads(sys.stdin.readline())
        in_state = sorted({i for m in result["messages"] for i in find_offload_ids(text_of(m))})
        reloaded, missing = 0, []
        for offload_id in sorted(set(given) | set(in_state)):
            try:
                originals = processor.reload(offload_id)
            except OffloadNotFoundError:
                missing.append(offload_id)
                continue
            assert originals and all(message_to_dict(m) for m in originals)
            reloaded += 1
        final = from_langchain([result["messages"][-1]])[0].text
        _say(final=final, calls=calls, in_state=in_state, reloaded=reloaded, missing=missing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
