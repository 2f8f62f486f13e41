"""A tiny recorded conversation, its message file, and a real agent that replays it.

One tau-bench airline conversation of the bundled fixtures (16 messages, two tool
calls, five user turns), cut after its last assistant message: replay counts a model
call per recorded assistant message, and a trailing user turn would make the agent call
its model once more than the recording did. The sources' tests run it through a real
``create_agent`` (only the model is scripted) and compare what each source gives back
with the message file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trajectory_dirs import FIXTURES

from ctxmgr.replay import replay
from ctxmgr.replay.trajectories import Trajectory, load_trajectories
from ctxmgr.tokens import default_counter

TAU = FIXTURES / "tau_airline_gpt4o_first12.jsonl"
LINE = 7
"""tau-airline-12-t0: 16 messages, 10 KB."""


def conversation_file(tmp_path: Path) -> Path:
    """The conversation as a message file (the shared format) in ``tmp_path``."""
    record = json.loads(TAU.read_text(encoding="utf-8").splitlines()[LINE - 1])
    messages = record["messages"]
    last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps({"id": record["id"], "source": "tau-bench",
                                "messages": messages[: last + 1]}), encoding="utf-8")
    return path


def conversation(tmp_path: Path) -> Trajectory:
    [t] = load_trajectories([conversation_file(tmp_path)])
    return t


def prompt_tokens(trajectories: Sequence[Trajectory]) -> list[tuple[int, int]]:
    """(model calls, prompt tokens) per trajectory under no management."""
    report = replay(trajectories, ["none"], budget=100_000, counter=default_counter())
    rows: list[dict[str, Any]] = report.to_json()["policies"]["none"]["trajectories"]
    return [(r["model_calls"], r["prompt_tokens"]) for r in rows]


def within_one_percent(got: int, expected: int) -> bool:
    return abs(got - expected) <= 0.01 * expected
