"""Loading recorded runs for replay, from wherever the user keeps them.

One entry, :func:`load_trajectories`, for every source of
:mod:`ctxmgr.replay.sources`: the shared format (OpenAI chat messages, ``*.json`` /
``*.jsonl``), LangSmith runs, OpenTelemetry GenAI spans in OTLP JSON, and, with
``ctxmgr[langgraph]``, a LangGraph checkpointer (a SQLite file or a Postgres URI).
Each file's format is detected unless ``format`` names it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from ctxmgr.replay.sources import (
    SourceOptions,
    Trajectory,
    is_database_uri,
    read_source,
    source_files,
)

__all__ = ["Trajectory", "load_trajectories"]


def load_trajectories(paths: Iterable[str | Path], *, format: str = "auto",
                      threads: Sequence[str] | None = None,
                      system_prompt: str | None = None) -> list[Trajectory]:
    """Read recorded runs; a directory means every ``*.json`` / ``*.jsonl`` file and
    every SQLite file (``*.sqlite``, ``*.sqlite3``, ``*.db``) in it.

    Args:
        paths: files, directories, or Postgres URIs of a LangGraph checkpointer.
        format: ``auto`` (detect per file), ``messages``, ``langgraph``, ``langsmith``
            or ``otlp``.
        threads: the LangGraph threads (LangSmith threads or traces, OpenTelemetry
            conversations or traces) to read; default all.
        system_prompt: put first in every run that has no system message (a LangGraph
            checkpoint of ``create_agent`` never holds its ``system_prompt``).

    Raises:
        InvalidMessageError: a file that is not valid JSON (nested too deeply or holding
            an integer too long for Python included) or not in a known layout (the
            message names the file and line).
        ConfigError: an unknown format, or one whose extra is not installed.
        OSError: a file that cannot be read.
    """
    options = SourceOptions(threads=None if threads is None else tuple(threads),
                            system_prompt=system_prompt)
    out: list[Trajectory] = []
    for target in paths:
        files: list[str | Path] = ([str(target)] if is_database_uri(str(target))
                                   else list(source_files(target)))
        for f in files:
            out.extend(read_source(f, format=format, options=options))
    return out
