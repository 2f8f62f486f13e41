"""A ``create_agent`` worker SIGKILLed mid-run; a new process resumes it from the checkpointer.

The first worker process (``tests/kill_worker.py``) runs a recorded coding run with
``ContextMiddleware`` on a SQLite (or PostgreSQL) checkpointer and store, and is
killed with SIGKILL in the middle of a model call, after compressions have been
offloaded; with ``durability="sync"`` every finished step is checkpointed, with the
default ``"async"`` the latest checkpoints may be lost, so the resumed run redoes
steps whose offloads the killed process already wrote. A second process opens the
same checkpointer and store, finishes the run and reloads every offload id: those
the killed process wrote and those tagged in the final state.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parents[1]
THREAD = f"killed-{uuid.uuid4().hex[:8]}"
KILL_AT = 30
"""Model calls before the kill (django-11099 has 42; several compressions by 30)."""


def worker(target: str, mode: str, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.Popen([sys.executable, "-m", "kill_worker", "--target", target,
                             "--mode", mode, "--thread", THREAD, *extra], env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def lines(proc: subprocess.Popen[str]) -> Any:
    assert proc.stdout is not None
    for line in proc.stdout:
        yield json.loads(line)


def kill_and_resume(target: str, durability: str
                    ) -> tuple[list[str], dict[str, Any], dict[str, Any]]:
    first = worker(target, "run", "--block-at", str(KILL_AT), "--durability", durability)
    offloads: list[str] = []
    try:
        for msg in lines(first):
            if "offload" in msg:
                offloads.append(msg["offload"])
            if "blocked" in msg:
                first.send_signal(signal.SIGKILL)
                break
            assert "finished" not in msg, "the worker finished before it was killed"
    finally:
        first.kill()
        first.wait(timeout=60)
    assert first.returncode == -signal.SIGKILL

    second = worker(target, "resume")
    out, err = second.communicate(json.dumps(offloads) + "\n", timeout=300)
    assert second.returncode == 0, err
    replies = [json.loads(line) for line in out.splitlines()]
    resumed = next(r for r in replies if "resumed_after" in r)
    return offloads, resumed, replies[-1]


def check(offloads: list[str], resumed: dict[str, Any], report: dict[str, Any], *,
          exact: bool) -> None:
    assert len(offloads) >= 2, "the killed worker had offloaded compressions"
    if exact:  # every finished step was checkpointed: only the killed call is redone
        assert resumed["resumed_after"] == KILL_AT - 1
    else:  # background checkpoints: the run resumes from the latest one that was written
        assert 1 <= resumed["resumed_after"] <= KILL_AT - 1
    assert report["final"] == "The recorded run ends here."
    assert report["calls"] == 42 - resumed["resumed_after"] + 1
    assert report["missing"] == []
    assert report["in_state"], "the final state still points at offloads"
    assert report["reloaded"] == len(set(offloads) | set(report["in_state"]))


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_a_sigkilled_worker_resumes_from_sqlite_with_every_offload_reloadable(
        durability: str, tmp_path: Path) -> None:
    offloads, resumed, report = kill_and_resume(str(tmp_path / "worker"), durability)
    check(offloads, resumed, report, exact=durability == "sync")


def test_a_sigkilled_worker_resumes_from_postgres_with_every_offload_reloadable(
        postgres_uri: str) -> None:
    offloads, resumed, report = kill_and_resume(postgres_uri, "sync")
    check(offloads, resumed, report, exact=True)
