"""Settings read from the environment: ``CTXMGR_<FIELD>``, then a ``.env`` file.

One rule, wherever a setting is read: a value given in code wins; else the variable
``CTXMGR_<FIELD>`` (the field's name in capitals) of the environment; else the same
variable in the ``.env`` file of the working directory; else the default. The ``.env``
file is only read, never loaded into ``os.environ``, and read again only when it
changes. An empty value counts as not set.

:func:`reading` lets a caller name other sources for the settings built inside it (a
test's environment, another ``.env`` file), as :meth:`ctxmgr.AutoContextConfig.from_env`
does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from ctxmgr._unset import UNSET
from ctxmgr.errors import ConfigError

__all__ = ["PREFIX", "Sources", "find", "parse", "parse_bool", "reading", "variable"]

PREFIX = "CTXMGR_"

_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})


@dataclass(frozen=True, slots=True)
class Sources:
    """Where settings not given in code are read from."""

    environ: Mapping[str, str] | None = None
    """The environment (``None``: ``os.environ`` as it is when read)."""
    dotenv_path: str | os.PathLike[str] | None = None
    """The ``.env`` file (``None``: ``.env`` in the working directory)."""
    use_dotenv: bool = True


_SOURCES: ContextVar[Sources | None] = ContextVar("ctxmgr_setting_sources", default=None)
_DOTENV_CACHE: dict[Path, tuple[tuple[int, int], dict[str, str]]] = {}


@contextmanager
def reading(sources: Sources) -> Iterator[None]:
    """Read the settings built inside the ``with`` block from ``sources``."""
    token = _SOURCES.set(sources)
    try:
        yield
    finally:
        _SOURCES.reset(token)


def variable(field: str) -> str:
    """The variable that sets ``field``: ``CTXMGR_`` and the name in capitals."""
    return PREFIX + field.upper()


def find(name: str) -> tuple[str, str] | None:
    """``name``'s value and where it came from (for messages): the environment, else the
    ``.env`` file; ``None`` when neither sets it."""
    sources = _SOURCES.get() or Sources()
    environ = os.environ if sources.environ is None else sources.environ
    if environ.get(name):
        return environ[name], name
    if sources.use_dotenv:
        dotenv = _dotenv(sources.dotenv_path)
        if dotenv.get(name):
            return dotenv[name], f"{name} (in {sources.dotenv_path or '.env'})"
    return None


def _dotenv(path: str | os.PathLike[str] | None) -> dict[str, str]:
    """``KEY=value`` pairs of the ``.env`` file (empty when there is none), cached until
    the file changes."""
    file = (Path(path) if path is not None else Path.cwd() / ".env").absolute()
    try:
        stat = file.stat()
    except OSError:
        return {}
    stamp = (stat.st_mtime_ns, stat.st_size)
    hit = _DOTENV_CACHE.get(file)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    if not file.is_file():
        return {}
    from dotenv import dotenv_values

    values = {k: v for k, v in dotenv_values(file).items() if v is not None}
    if len(_DOTENV_CACHE) > 64:
        _DOTENV_CACHE.clear()
    _DOTENV_CACHE[file] = (stamp, values)
    return values


def parse_bool(value: object, *, name: str) -> bool:
    """Read a switch: a bool, or one of true/false/1/0/yes/no (any case, spaces ignored).

    Raises:
        ConfigError: naming ``name``, the accepted values and the value given.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise ConfigError(f"{name} must be one of true, false, 1, 0, yes, no, got {value!r}")


_EXPECTED = {"int": "an integer", "int | Unset": "an integer", "float": "a number",
             "float | None": "a number or none", "Auto": "an integer or auto",
             "frozenset[int]": "a comma-separated list of integers",
             "frozenset[str]": "a comma-separated list"}


def parse(text: str, kind: str, where: str) -> object:
    """A variable's text as a value of the field type ``kind`` (the annotation's text),
    or :data:`~ctxmgr._unset.UNSET` for a type the environment cannot carry.

    Raises:
        ConfigError: the text is not of that type; names the variable.
    """
    value = text.strip()
    if kind == "bool":
        return parse_bool(value, name=where)
    try:
        match kind:
            case "int" | "int | Unset":
                return int(value)
            case "float":
                return float(value)
            case "float | None":
                return None if value.lower() == "none" else float(value)
            case "Auto":
                return "auto" if value.lower() == "auto" else int(value)
            case "frozenset[int]":
                return frozenset(int(v) for v in value.split(",") if v.strip())
            case "frozenset[str]":
                return frozenset(v.strip() for v in value.split(",") if v.strip())
            case "str | Unset":
                return value
            case "Path":
                return Path(value).expanduser()
    except ValueError:
        raise ConfigError(f"{where} must be {_EXPECTED[kind]}, got {text!r}") from None
    return UNSET
