"""Loading recorded trajectories (shared format, JSONL, or a plain messages file)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxmgr.convert.openai import from_openai
from ctxmgr.errors import InvalidMessageError
from ctxmgr.messages import Message

__all__ = ["Trajectory", "load_trajectories"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Trajectory:
    """One recorded run: its id, where it came from, and its messages."""

    id: str
    source: str
    messages: tuple[Message, ...]
    raw: tuple[dict[str, Any], ...] = field(repr=False, compare=False)
    """The OpenAI-format messages exactly as read."""


def _record(data: Any, default_id: str, where: str) -> Trajectory:
    if isinstance(data, list):
        raw, tid, source = data, default_id, "messages file"
    elif isinstance(data, dict) and isinstance(data.get("messages"), list):
        raw = data["messages"]
        tid = str(data.get("id") or default_id)
        source = str(data.get("source", ""))
    else:
        raise InvalidMessageError(
            f"{where}: expected a list of messages or an object with a 'messages' list")
    try:
        messages = from_openai(raw)
    except InvalidMessageError as exc:
        raise InvalidMessageError(f"{where}: {exc}") from None
    except RecursionError:
        raise InvalidMessageError(f"{where}: a message nested too deeply to process") from None
    return Trajectory(id=tid, source=source, messages=tuple(messages), raw=tuple(raw))


def load_trajectories(paths: Iterable[str | Path]) -> list[Trajectory]:
    """Read trajectory files; a directory means every ``*.json`` / ``*.jsonl`` in it.

    Raises:
        InvalidMessageError: a file that is not valid JSON (nested too deeply or holding
            an integer too long for Python included) or not in a known layout (the
            message names the file and line).
        OSError: a file that cannot be read.
    """
    out: list[Trajectory] = []
    for p in map(Path, paths):
        files = sorted([*p.glob("*.json"), *p.glob("*.jsonl")]) if p.is_dir() else [p]
        for f in files:
            try:
                text = f.read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidMessageError(f"{f}: cannot be read as utf-8 text ({exc.reason} "
                                          f"at byte {exc.start})") from None
            if f.suffix == ".jsonl":
                for n, line in enumerate(text.splitlines(), 1):
                    if line.strip():
                        out.append(_record(_loads(line, f"{f}:{n}"), f"{f.stem}:{n}",
                                           f"{f}:{n}"))
            else:
                out.append(_record(_loads(text, str(f)), f.stem, str(f)))
    return out


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
