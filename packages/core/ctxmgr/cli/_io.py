"""Reading and writing the command line's JSON files.

Reading: any reason a file cannot be read (not UTF-8, not JSON, nested deeper
than Python can parse, an integer over Python's 4,300-digit conversion limit)
becomes one error line naming the file.

Writing: output is valid JSON. Numbers JSON cannot hold (``NaN``, ``Infinity``,
which Python's reader accepts in input) are written as ``null``, and the command
says how many on stderr. Text holding lone surrogates (recorded tool output can)
is written with ``\\u`` escapes. A file appears whole or not at all (a temporary
file in the same folder, then a rename), keeps the mode of the file it replaces
(a new one gets the usual mode under the umask), writes through a symlink, writes
straight into a device or pipe (``-o /dev/stdout``), and every error names the
path the user gave. :func:`check_output` checks an output path before any work is done.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from typing import TYPE_CHECKING, Any

from ctxmgr._atomic import write_atomic
from ctxmgr.cli._common import UsageError, plural

if TYPE_CHECKING:
    from ctxmgr.messages import Message
    from ctxmgr.replay.trajectories import Trajectory

__all__ = ["check_output", "json_text", "loads", "read_json", "read_messages",
           "read_trajectories", "write_output", "write_text_file"]


def read_json(path: str) -> Any:
    """The JSON value in the file at ``path``.

    Raises:
        UsageError: the file is not UTF-8 JSON that Python can read (one line, naming it).
        OSError: the file cannot be opened or read.
    """
    with open(path, "rb") as f:
        blob = f.read()
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: cannot be read as UTF-8 text ({exc.reason} at byte "
                         f"{exc.start})") from None
    return loads(text, path)


def loads(text: str, where: str) -> Any:
    """``json.loads`` with one-line errors that name ``where``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} "
                         f"column {exc.colno})") from None
    except RecursionError:
        raise UsageError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # an integer over Python's int/str conversion limit
        raise UsageError(f"{where}: a number too long to read "
                         f"({str(exc).split(';')[0]})") from None


def _finite(value: Any, replaced: list[int]) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        replaced[0] += 1
        return None
    if isinstance(value, dict):
        return {k: _finite(v, replaced) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v, replaced) for v in value]
    return value


def json_text(data: Any) -> tuple[str, int]:
    """Readable, valid JSON for ``data``, and how many non-finite numbers became ``null``."""
    replaced = [0]
    data = _finite(data, replaced)
    text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=2, allow_nan=False) + "\n"
    return text, replaced[0]


def check_output(path: str | None, flag: str) -> None:
    """Fail now, not after the work, if ``path`` cannot be written (``flag`` names the option).

    Raises:
        UsageError: the path is a folder, or its folder is missing or not writable.
    """
    if not path:
        return
    if os.path.isdir(path):
        raise UsageError(f"{flag} {path}: is a directory; give a file name")
    target = os.path.realpath(path) if os.path.islink(path) else path
    if os.path.exists(target) and not os.path.isfile(target):  # a device or a pipe
        if not os.access(target, os.W_OK):
            raise UsageError(f"{flag} {path}: not writable")
        return
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise UsageError(f"{flag} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {path}: the folder {folder} is not writable")


def write_output(data: Any, out: str | None, *, command: str) -> None:
    """Write ``data`` as JSON to ``out`` (stdout when ``None``); see the module docstring."""
    text, replaced = json_text(data)
    if replaced:
        print(f"ctxmgr {command}: note: {plural(replaced, 'number')} that JSON cannot hold "
              "(NaN, Infinity) written as null", file=sys.stderr)
    if not out:
        sys.stdout.write(text)
        return
    write_text_file(out, text)


def write_text_file(out: str, text: str) -> None:
    """Replace ``out`` with ``text`` atomically, keeping its mode; errors name ``out``.

    A symlink is written through (its target is replaced, the link kept); a device or
    pipe (``-o /dev/stdout``) is written to directly, never replaced.
    """
    target = os.path.realpath(out) if os.path.islink(out) else out
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None  # a new file: 0666 under the umask, as open() gives
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, out) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, out) from None
        return
    try:
        write_atomic(target, text.encode("utf-8"), temp_prefix=f".{os.path.basename(target)}.",
                     mode=stat.S_IMODE(st.st_mode) if st is not None else None)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, out) from None


def read_messages(path: str) -> list[Message]:
    """OpenAI messages from a file (a list, or an object with a ``"messages"`` list),
    with valid tool pairing.

    Raises:
        UsageError: not JSON, or not in either layout.
        InvalidMessageError: a message that is not valid OpenAI chat format.
        PairingError: a tool call without its result, or a result without its call.
    """
    from ctxmgr.convert import from_openai
    from ctxmgr.pairing import assert_valid_pairing

    data = read_json(path)
    raw = data.get("messages") if isinstance(data, dict) else data
    if not isinstance(raw, list):
        raise UsageError(f"{path}: expected a list of messages or an object with a "
                         "'messages' list")
    try:
        messages = from_openai(raw)
    except RecursionError:
        raise UsageError(f"{path}: a message nested too deeply to process") from None
    assert_valid_pairing(messages)
    return messages


_THREADS_SHOWN = 10
"""Thread ids a ``--thread`` that matched nothing lists from what the files hold."""


def _nothing_found(paths: list[str], *, format: str, threads: list[str] | None) -> str:
    """Why ``read_trajectories`` found nothing: for ``--thread``, the threads there are."""
    from ctxmgr.replay.trajectories import load_trajectories

    where = ", ".join(paths)
    if not threads:
        return f"no trajectories found in {where}"
    there = [t.id for t in load_trajectories(paths, format=format)]
    asked = ", ".join(repr(t) for t in threads)
    if not there:
        return f"no trajectories found in {where} (looked for thread {asked})"
    shown = ", ".join(there[:_THREADS_SHOWN])
    more = f" and {len(there) - _THREADS_SHOWN} more" if len(there) > _THREADS_SHOWN else ""
    return f"no thread {asked} in {where}; it holds {shown}{more}"


def read_trajectories(paths: list[str], *, format: str = "auto",
                      threads: list[str] | None = None,
                      system_prompt: str | None = None) -> list[Trajectory]:
    """Recorded runs from files, folders or checkpointer URIs, each with valid tool
    pairing (options as :func:`ctxmgr.replay.load_trajectories` takes them).

    Raises:
        UsageError: nothing found, or a run whose tool calls and results do not pair.
        InvalidMessageError: a file that is not a trajectory (the message names it).
        OSError: a file that cannot be read.
    """
    from ctxmgr.pairing import validate_pairing
    from ctxmgr.replay.trajectories import load_trajectories

    trajectories = load_trajectories(paths, format=format, threads=threads,
                                     system_prompt=system_prompt)
    if not trajectories:
        raise UsageError(_nothing_found(paths, format=format, threads=threads))
    for t in trajectories:
        broken = validate_pairing(t.messages)
        if broken:
            raise UsageError(f"{t.id}: broken tool pairing in the input: {broken[0]}"
                             + (f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""))
    return trajectories
