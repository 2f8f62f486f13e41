"""A LangGraph checkpointer as a trajectory source: one trajectory per thread.

Read through the saver's own API (``SqliteSaver`` / ``PostgresSaver``, ``list``), never
its tables. A checkpointer keeps a checkpoint per step, so a thread's full history is in
it even when the agent compressed: ctxmgr's middleware, hook and node persist a
compression as a same-id stand-in plus ``RemoveMessage`` removals, and a peer such as
``SummarizationMiddleware`` removes messages too. Walking the thread's checkpoints
oldest first and keeping each message as first seen (by id, in order of first
appearance) gives the history before any compression; a message inserted before earlier
ones (a peer's summary) is left out, since ``add_messages`` only ever appends what a
step adds. A thread saved with ``durability="exit"`` keeps only its last checkpoint;
ctxmgr's stand-ins are then all that is left of what they replaced, and a warning says
how many.

``create_agent(system_prompt=...)`` keeps the system prompt out of the graph state, so
no checkpoint holds it: pass it as ``system_prompt`` (``--system-prompt`` on the command
line) to replay the prompts the model was sent.
"""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ctxmgr import to_openai
from ctxmgr.replay.sources import SourceOptions, Trajectory, trajectory_from_openai
from ctxmgr.session.kit import CompressedMarker, InvalidMessageError, StoreError
from ctxmgr_langgraph.convert import from_langchain

try:
    from langchain_core.messages import BaseMessage
    from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'reading LangGraph checkpoints needs LangGraph: pip install "ctxmgr[langgraph]"'
    ) from exc

__all__ = ["read_checkpoints", "thread_histories"]

_SQLITE_HEADER = b"SQLite format 3\x00"


def read_checkpoints(target: str, options: SourceOptions) -> list[Trajectory]:
    """One trajectory per thread of the checkpointer at ``target`` (a SQLite file, or a
    ``postgresql://`` URI), its history from before any compression.

    Raises:
        InvalidMessageError: ``target`` is not a LangGraph checkpoint database, or a
            damaged one (a copy cut short, a disk that filled).
        ConfigError: a Postgres URI without ``ctxmgr[postgres]`` installed.
        StoreError: SQLite could not read the file (locked, unreadable).
    """
    try:
        with _saver(target) as saver:
            histories = thread_histories(saver, options.threads)
    except sqlite3.OperationalError as exc:  # locked, unreadable: the file may be fine
        raise StoreError(f"{target}: SQLite cannot read it ({exc})") from exc
    except sqlite3.DatabaseError as exc:  # malformed: what SQLite says of a damaged file
        raise InvalidMessageError(f"{target}: a damaged SQLite file, its checkpoints cannot "
                                  f"be read ({exc})") from exc
    out = []
    for thread, messages in histories.items():
        history = from_langchain(messages)
        # ctxmgr's stand-ins by their marker: a tag in a message's text may be anyone's
        stand_ins = sum(1 for m in history if CompressedMarker.of(m) is not None)
        if stand_ins:
            warnings.warn(f"{target}: thread {thread}: {stand_ins} message(s) are ctxmgr "
                          "stand-ins whose originals no checkpoint holds (a run saved only "
                          "at exit); replayed as they are", stacklevel=2)
        raw = to_openai(history)
        out.append(trajectory_from_openai(raw, id=thread, source=f"langgraph {target}",
                                          where=f"{target} (thread {thread})",
                                          system_prompt=options.system_prompt))
    return out


def thread_histories(saver: BaseCheckpointSaver[Any], threads: Iterable[str] | None = None
                     ) -> dict[str, list[BaseMessage]]:
    """Each thread's messages (the root graph's ``messages`` channel) as first
    checkpointed, in order of first appearance; ``threads`` picks threads (default all,
    in order of their first checkpoint)."""
    tuples: list[CheckpointTuple] = []
    if threads is None:
        tuples = list(saver.list(None))
    else:
        for thread in dict.fromkeys(threads):
            tuples.extend(saver.list({"configurable": {"thread_id": thread}}))
    by_thread: dict[str, list[CheckpointTuple]] = {}
    for t in tuples:
        conf = t.config.get("configurable", {})
        if conf.get("checkpoint_ns", ""):
            continue  # a subgraph's own checkpoints
        by_thread.setdefault(str(conf.get("thread_id")), []).append(t)
    out: dict[str, list[BaseMessage]] = {}
    for thread, items in sorted(by_thread.items(), key=lambda kv: min(
            _order(t) for t in kv[1])):
        history = _first_seen(t.checkpoint.get("channel_values", {}).get("messages") or ()
                              for t in sorted(items, key=_order))
        if history:
            out[thread] = history
    return out


def _first_seen(snapshots: Iterable[Sequence[Any]]) -> list[BaseMessage]:
    """The messages of successive ``messages`` snapshots, each as first seen, in order of
    first appearance. ``add_messages`` appends what a step adds; a message with a new id
    placed before one seen earlier was inserted instead (a summary written after
    ``REMOVE_ALL_MESSAGES``, as ``SummarizationMiddleware`` does), so it stands for
    messages already kept and is left out."""
    seen: dict[str, BaseMessage] = {}
    inserted: set[str] = set()
    for snapshot in snapshots:
        messages = [m for m in snapshot if isinstance(m, BaseMessage) and m.id is not None]
        last_seen = max((i for i, m in enumerate(messages) if m.id in seen), default=-1)
        for i, m in enumerate(messages):
            assert m.id is not None
            if m.id in seen or m.id in inserted:
                continue
            if i < last_seen:
                inserted.add(m.id)
            else:
                seen[m.id] = m
    return list(seen.values())


def _order(t: CheckpointTuple) -> tuple[str, str]:
    return (str(t.checkpoint.get("ts", "")), str(t.checkpoint.get("id", "")))


@contextmanager
def _saver(target: str) -> Iterator[BaseCheckpointSaver[Any]]:
    if target.startswith(("postgres://", "postgresql://")):
        try:
            from langgraph.checkpoint.postgres import PostgresSaver
        except ImportError:
            from ctxmgr import ConfigError

            raise ConfigError('reading a Postgres checkpointer needs '
                              'pip install "ctxmgr[postgres]"') from None
        with PostgresSaver.from_conn_string(target) as postgres:
            yield postgres
        return
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = Path(target)
    with open(path, "rb") as f:
        if f.read(len(_SQLITE_HEADER)) != _SQLITE_HEADER:
            raise InvalidMessageError(f"{target}: not a SQLite file (a LangGraph SQLite "
                                      "checkpointer's database is one)")
    conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True,
                           check_same_thread=False)
    try:
        # only to refuse another application's database before the saver, which creates
        # its tables when they are missing, would write to it
        found = conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND "
                             "name='checkpoints'").fetchone()
        if found is None:
            raise InvalidMessageError(f"{target}: a SQLite file without LangGraph "
                                      "checkpoints (no checkpoints table)")
        saver = SqliteSaver(conn)
        saver.is_setup = True  # the tables exist; a read-only connection cannot set up
        yield saver
    finally:
        conn.close()
