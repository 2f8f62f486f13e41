"""Where runs come from: each trajectory source, the format detection, the registry.

Built in (no framework needed, JSON read by the core): ``messages`` (the shared format,
OpenAI chat messages), ``langsmith`` (runs as the SDK exports them) and ``otlp``
(OpenTelemetry GenAI spans in OTLP JSON). Sources that need a framework live in its
adapter and register under the ``ctxmgr.trajectory_sources`` entry-point group:
``langgraph`` (a checkpointer's SQLite file or Postgres URI) comes with
``ctxmgr[langgraph]``. :func:`detect_format` looks at a target's first bytes or its
first JSON record; :func:`read_source` reads it.
"""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from ctxmgr.errors import ConfigError, InvalidMessageError
from ctxmgr.replay.sources.base import (
    SourceOptions,
    SourceReader,
    Trajectory,
    trajectory_from_openai,
)
from ctxmgr.replay.sources.calls import ModelCall, merge_calls
from ctxmgr.replay.sources.langsmith import is_langsmith_run, read_langsmith_runs
from ctxmgr.replay.sources.messages import is_messages_record, read_messages_records
from ctxmgr.replay.sources.otlp import SEMCONV_VERSIONS, is_otlp_request, read_otlp_requests

__all__ = [
    "FORMATS",
    "SEMCONV_VERSIONS",
    "SOURCE_ENTRY_POINT_GROUP",
    "Format",
    "ModelCall",
    "SourceOptions",
    "SourceReader",
    "Trajectory",
    "detect_format",
    "is_database_uri",
    "merge_calls",
    "read_source",
    "register_source",
    "source_files",
    "trajectory_from_openai",
]

Format = Literal["auto", "messages", "langgraph", "langsmith", "otlp"]
FORMATS: tuple[str, ...] = get_args(Format)
"""Every ``format`` a caller may name; ``auto`` detects it per file."""

SOURCE_ENTRY_POINT_GROUP = "ctxmgr.trajectory_sources"
"""The entry-point group of sources that need a framework: ``NAME = "module:reader"``,
the reader a :data:`~ctxmgr.replay.sources.base.SourceReader`."""

_EXTRAS = {"langgraph": "langgraph"}
"""The extra that installs each framework source."""
_SQLITE_HEADER = b"SQLite format 3\x00"
_DB_SCHEMES = ("postgres://", "postgresql://")
_DB_SUFFIXES = (".sqlite", ".sqlite3", ".db")
_JSON_FORMATS = ("messages", "langsmith", "otlp")

_READERS: dict[str, SourceReader] = {}


def register_source(name: str, reader: SourceReader) -> None:
    """Make ``reader`` the one behind ``format=name`` (replaces a registered one; a
    registered format is read when named, never detected)."""
    _READERS[name] = reader


def is_database_uri(target: str) -> bool:
    """A Postgres connection URI (read by the LangGraph checkpointer source)."""
    return target.startswith(_DB_SCHEMES)


def source_files(target: str | Path) -> list[Path]:
    """The files a target names: itself, or in a directory every ``*.json`` and
    ``*.jsonl`` file and every SQLite file (``*.sqlite``, ``*.sqlite3``, ``*.db``)."""
    p = Path(target)
    if not p.is_dir():
        return [p]
    return sorted(f for f in p.iterdir()
                  if f.is_file() and f.suffix in (".json", ".jsonl", *_DB_SUFFIXES))


def detect_format(target: str | Path) -> str:
    """The format of one file (or database URI): a SQLite file or a Postgres URI is a
    LangGraph checkpointer; JSON is told apart by its first record.

    Raises:
        InvalidMessageError: a file in no known format (one line naming it).
        OSError: a file that cannot be read.
    """
    if is_database_uri(str(target)) or _is_sqlite(target):
        return "langgraph"
    return _detect_records(_records(Path(target)), str(target))


def _is_sqlite(target: str | Path) -> bool:
    with open(target, "rb") as f:
        return f.read(len(_SQLITE_HEADER)) == _SQLITE_HEADER


def read_source(target: str | Path, *, format: str = "auto",
                options: SourceOptions | None = None) -> list[Trajectory]:
    """The runs in one file or database (``format`` names its format, ``auto``
    detects it).

    Raises:
        ConfigError: an unknown format, or a framework source whose extra is missing.
        InvalidMessageError: content the format's reader cannot read (naming the file).
        OSError: a file that cannot be read.
    """
    options = options or SourceOptions()
    if format not in FORMATS and format not in _READERS:
        raise ConfigError(f"unknown trajectory format {format!r}; choose from "
                          f"{', '.join(FORMATS)}")
    text, path = str(target), Path(target)
    records: list[tuple[Any, str, str]] | None = None
    if format == "auto":  # parsed once: to tell the format, then to read it
        if is_database_uri(text) or _is_sqlite(target):
            format = "langgraph"
        else:
            records = _records(path)
            format = _detect_records(records, text)
    if format in _READERS:
        return _READERS[format](text, options)
    if format not in _JSON_FORMATS:
        return _framework_reader(format)(text, options)
    if records is None:
        records = _records(path)
    if format == "messages":
        runs = read_messages_records(records, system_prompt=options.system_prompt)
        return [t for t in runs if options.threads is None or t.id in options.threads]
    items = _flatten(records)
    if format == "langsmith":
        return read_langsmith_runs(items, source=path.name, threads=options.threads,
                                   system_prompt=options.system_prompt)
    return read_otlp_requests(items, source=path.name, threads=options.threads,
                              system_prompt=options.system_prompt)


def _framework_reader(name: str) -> SourceReader:
    found = {ep.name: ep for ep in importlib.metadata.entry_points(
        group=SOURCE_ENTRY_POINT_GROUP)}
    ep = found.get(name)
    extra = _EXTRAS.get(name, "all")
    if ep is None:
        raise ConfigError(f"no reader for {name!r} trajectories is installed: "
                          f'pip install "ctxmgr[{extra}]"')
    try:
        reader: SourceReader = ep.load()
    except ImportError as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        raise ConfigError(f"the {name} trajectory reader is not available ({reason}): "
                          f'pip install "ctxmgr[{extra}]"') from None
    return reader


def _detect_records(records: Sequence[tuple[Any, str, str]], where: str) -> str:
    items = _flatten(records)
    first = items[0][0] if items else None
    if is_otlp_request(first):
        return "otlp"
    if is_langsmith_run(first):
        return "langsmith"
    if records and is_messages_record(records[0][0]):
        return "messages"
    raise InvalidMessageError(
        f"{where}: not a kind of trajectory ctxmgr knows: expected a list of messages or an "
        "object with a 'messages' list (OpenAI chat format), LangSmith runs, OTLP JSON "
        "spans or a LangGraph SQLite checkpoint (--format, or format=, chooses one)")


def _flatten(records: Sequence[tuple[Any, str, str]]) -> list[tuple[Any, str]]:
    """``(value, where)`` per run or request: a file holding one JSON list of them gives
    its items."""
    if (len(records) == 1 and isinstance(records[0][0], list) and records[0][0]
            and not is_messages_record(records[0][0])):
        data, where, _ = records[0]
        return [(item, f"{where}[{n}]") for n, item in enumerate(data)]
    return [(data, where) for data, where, _ in records]


def _records(path: Path) -> list[tuple[Any, str, str]]:
    """The JSON values of a file, each with where it came from and the id a run found
    there gets when it names none: the whole file (``stem``), or one per line
    (``stem:LINE``) for ``*.jsonl`` and for a ``*.json`` file that holds JSON lines."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidMessageError(f"{path}: cannot be read as utf-8 text ({exc.reason} "
                                  f"at byte {exc.start})") from None
    if path.suffix != ".jsonl":
        try:
            return [(_loads(text, str(path)), str(path), path.stem)]
        except InvalidMessageError:
            lines = [line for line in text.splitlines() if line.strip()]
            if len(lines) < 2 or not _parses(lines[0]):
                raise
    return [(_loads(line, f"{path}:{n}"), f"{path}:{n}", f"{path.stem}:{n}")
            for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _loads(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidMessageError(
            f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise InvalidMessageError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # an integer over Python's int/str conversion limit
        raise InvalidMessageError(
            f"{where}: a number too long to read ({str(exc).split(';')[0]})") from None
