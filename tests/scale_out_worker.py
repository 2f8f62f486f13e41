"""One worker of a scale-out run: its own process, project and thread, one shared Postgres.

Run as ``python -m scale_out_worker --uri URI --project P --thread T --trajectory N
[--async]`` with ``tests/`` on ``PYTHONPATH``. It talks JSON lines: it prints
``{"phase": "ready"}``, waits for a ``go`` line (so workers write at the same
time), offloads slices of a recorded run through ``OffloadStore`` and writes
memos through ``MemoStore``, both on a ``LangGraphStore`` over ``PostgresStore``
(or ``AsyncPostgresStore`` with ``--async``, its sync ctxmgr calls moved to a
thread as the store's rule says), and prints what it wrote. Then it reads one
line naming the other worker's offload ids and memo keys, reloads its own, tries
the other's through its own stores, and prints a report. :class:`WorkerProcess`
is the parent's side.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from ctxmgr import MemoStore, OffloadNotFoundError
from ctxmgr.autocontext import OffloadStore
from ctxmgr.messages import message_to_dict
from ctxmgr.replay.trajectories import load_trajectories
from ctxmgr_langgraph import LangGraphStore

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS / "fixtures" / "trajectories"
SHARED_OFFLOAD_ID = "5" * 32
"""Every worker saves one offload under this id: each must get its own back."""
SHARED_MEMO_KEY = "plan"


def digest(dicts: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(dicts, sort_keys=True).encode()).hexdigest()


def _say(**fields: Any) -> None:
    print(json.dumps(fields), flush=True)


def _hear() -> dict[str, Any]:
    line = sys.stdin.readline()
    if not line:
        raise SystemExit("the parent closed stdin")
    result: dict[str, Any] = json.loads(line)
    return result


class Work:
    """What a worker does with ctxmgr's stores (sync code, as the core is)."""

    def __init__(self, store: LangGraphStore, args: argparse.Namespace) -> None:
        self.args = args
        self.offloads = OffloadStore(store, project=args.project, session=args.thread)
        self.memos = MemoStore(store, project=args.project, session=args.thread)
        self.saved: dict[str, str] = {}

    def write(self) -> dict[str, Any]:
        messages = sorted(load_trajectories([FIXTURES]), key=lambda t: t.id)[
            self.args.trajectory].messages
        slices = [messages[i:i + 8] for i in range(0, 8 * self.args.offloads, 8)]
        for n, part in enumerate(slices):
            offload_id = self.offloads.save(part, SHARED_OFFLOAD_ID if n == 0 else None)
            self.saved[offload_id] = digest([message_to_dict(m) for m in part])
        self.memos.write(SHARED_MEMO_KEY, f"plan of {self.args.thread}", "the plan")
        self.memos.write(f"notes-{self.args.thread}", f"notes of {self.args.thread}", "notes")
        return {"offloads": self.saved, "memo_keys": [m.key for m in self.memos.list_memos()]}

    def probe(self, other: dict[str, Any]) -> dict[str, Any]:
        reloaded = {i: digest([message_to_dict(m) for m in self.offloads.load(i)])
                    for i in self.saved}
        foreign_found = []
        for offload_id in other["offloads"]:
            if offload_id in self.saved:
                continue  # the shared id: its own is checked above
            try:
                self.offloads.load(offload_id)
                foreign_found.append(offload_id)
            except OffloadNotFoundError:
                pass
        return {
            "reloaded_intact": reloaded == self.saved,
            "offload_ids": self.offloads.ids(),
            "memos": {m.key: self.memos.read(m.key) for m in self.memos.list_memos()},
            "foreign_offloads_found": foreign_found,
            "foreign_memos_found": [k for k in other["memo_keys"]
                                    if k != SHARED_MEMO_KEY and self.memos.read(k) is not None],
        }


def _run(work: Work) -> None:
    _say(phase="ready", pid=os.getpid())
    _hear()
    _say(phase="written", **work.write())
    other = _hear()
    _say(phase="report", **work.probe(other))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="scale_out_worker")
    parser.add_argument("--uri", required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--thread", required=True)
    parser.add_argument("--trajectory", type=int, default=0)
    parser.add_argument("--offloads", type=int, default=5)
    parser.add_argument("--async", dest="use_async", action="store_true")
    args = parser.parse_args(argv)
    if args.use_async:
        asyncio.run(_main_async(args))
        return
    from langgraph.store.postgres import PostgresStore

    with PostgresStore.from_conn_string(args.uri) as base:
        base.setup()
        _run(Work(LangGraphStore(base), args))


async def _main_async(args: argparse.Namespace) -> None:
    from langgraph.store.postgres import AsyncPostgresStore

    async with AsyncPostgresStore.from_conn_string(args.uri) as base:
        await base.setup()
        # Sync ctxmgr code must not run on the store's own loop: it runs in a thread,
        # and the loop stays free to serve the store's calls meanwhile.
        await asyncio.to_thread(_run, Work(LangGraphStore(base), args))


class WorkerProcess:
    """The parent's side of one worker: start it, send lines, read its JSON replies."""

    def __init__(self, *args: str, timeout: float = 120) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])])}
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "scale_out_worker", *args], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put("")

    def send(self, **fields: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(fields) + "\n")
        self.proc.stdin.flush()

    def read(self, phase: str) -> dict[str, Any]:
        """The worker's next reply, which must be ``phase``; its stderr if it died."""
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self.proc.kill()
            raise AssertionError(f"worker sent no {phase!r} within {self.timeout} s") from None
        if not line:
            self.proc.wait(30)
            stderr = self.proc.stderr.read() if self.proc.stderr else ""
            raise AssertionError(f"worker exited ({self.proc.returncode}) before {phase!r}:\n"
                                 f"{stderr}")
        reply: dict[str, Any] = json.loads(line)
        assert reply.pop("phase") == phase, reply
        return reply

    def finish(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(self.timeout)


if __name__ == "__main__":
    main()
