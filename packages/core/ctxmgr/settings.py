"""Switches and paths, resolved once: constructor arguments > environment > ``.env``.

The agent-driven tools are off unless switched on. ``Settings.resolve()`` reads
``CTXMGR_MESSAGE_ARCHIVING``, ``CTXMGR_MEMO`` and ``CTXMGR_HOME`` from the
environment and, for names the environment does not set, from a ``.env`` file
in the working directory. The ``.env`` file is only read, never loaded into
``os.environ``, so resolving settings changes nothing for the rest of the
process.

Example::

    settings = Settings.resolve(memo=True)      # archiving from env / .env, memo on
    if settings.memo: ...

The compressor's knobs can come from the environment too, for a deployment that sets
them without code: with no ``config`` given, the session engine behind every adapter
builds its :class:`~ctxmgr.AutoContextConfig` with :func:`config_from_env`, which reads
``CTXMGR_<FIELD>`` for each knob (``CTXMGR_MAX_TOKENS=32000``,
``CTXMGR_TOKEN_RATIO=0.8``, ``CTXMGR_DISABLED_STRATEGIES=6,7``). A config passed in code
is used as given. :func:`config_env_vars` writes a config back as those variables
(``ctxmgr tune`` prints them).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TypedDict

from ctxmgr._unset import UNSET
from ctxmgr.autocontext.config import AUTO, AutoContextConfig
from ctxmgr.errors import ConfigError

__all__ = ["ENV_CONFIG_PREFIX", "ENV_HOME", "ENV_MEMO", "ENV_MESSAGE_ARCHIVING", "Settings",
           "config_env_names", "config_env_vars", "config_from_env", "parse_bool"]

ENV_MESSAGE_ARCHIVING = "CTXMGR_MESSAGE_ARCHIVING"
ENV_MEMO = "CTXMGR_MEMO"
ENV_HOME = "CTXMGR_HOME"
ENV_CONFIG_PREFIX = "CTXMGR_"
"""``CTXMGR_`` + an ``AutoContextConfig`` field in capitals names that knob."""

_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})


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
    raise ConfigError(
        f"{name} must be one of true, false, 1, 0, yes, no, got {value!r}")


def _default_home() -> Path:
    return Path.home() / ".ctxmgr"


class _Resolved(TypedDict, total=False):
    """The :class:`Settings` fields a source gave; the rest keep their defaults."""

    message_archiving: bool
    memo: bool
    home: Path


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Resolved switches and paths (immutable; build with :meth:`resolve`)."""

    message_archiving: bool = False
    """Offer the message-archiving tool (``CTXMGR_MESSAGE_ARCHIVING``)."""
    memo: bool = False
    """Offer the memo tool (``CTXMGR_MEMO``)."""
    home: Path = field(default_factory=_default_home)
    """Root of the file store (``CTXMGR_HOME``, default ``~/.ctxmgr``)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "message_archiving",
                           parse_bool(self.message_archiving, name="message_archiving"))
        object.__setattr__(self, "memo", parse_bool(self.memo, name="memo"))
        if not isinstance(self.home, str | os.PathLike) or not os.fspath(self.home):
            raise ConfigError(f"home must be a non-empty path, got {self.home!r}")
        object.__setattr__(self, "home", Path(self.home).expanduser())

    @classmethod
    def resolve(
        cls,
        *,
        message_archiving: bool | str | None = None,
        memo: bool | str | None = None,
        home: str | os.PathLike[str] | None = None,
        environ: Mapping[str, str] | None = None,
        dotenv_path: str | os.PathLike[str] | None = None,
        use_dotenv: bool = True,
    ) -> Settings:
        """Resolve each setting from the first source that gives it.

        Order: the argument here (``None`` = not given), then the environment,
        then the ``.env`` file, then the default (switches off, home
        ``~/.ctxmgr``). An empty value counts as not given.

        Args:
            message_archiving: switch the archiving tool on or off.
            memo: switch the memo tool on or off.
            home: the store's root folder.
            environ: the environment to read (default ``os.environ``).
            dotenv_path: the ``.env`` file (default ``.env`` in the working directory).
            use_dotenv: read the ``.env`` file at all.

        Raises:
            ConfigError: a switch that is not true/false/1/0/yes/no; the message
                names the variable (and the ``.env`` file when it came from there).
        """
        env = os.environ if environ is None else environ
        dotenv = _read_dotenv(dotenv_path) if use_dotenv else {}

        def from_env(name: str) -> tuple[str, str] | None:
            """``name``'s value and where it came from: the environment, else ``.env``."""
            if env.get(name):
                return env[name], name
            if dotenv.get(name):
                return dotenv[name], f"{name} (in {dotenv_path or '.env'})"
            return None

        def switch(arg: bool | str | None, name: str) -> bool | None:
            if arg is not None and arg != "":
                return parse_bool(arg, name=name.removeprefix("CTXMGR_").lower())
            found = from_env(name)
            return None if found is None else parse_bool(found[0], name=found[1])

        values: _Resolved = {}
        if (archiving := switch(message_archiving, ENV_MESSAGE_ARCHIVING)) is not None:
            values["message_archiving"] = archiving
        if (memo_on := switch(memo, ENV_MEMO)) is not None:
            values["memo"] = memo_on
        if home is not None and home != "":
            values["home"] = Path(os.fspath(home)).expanduser()
        elif (found_home := from_env(ENV_HOME)) is not None:
            values["home"] = Path(found_home[0]).expanduser()
        return cls(**values)


def _read_dotenv(path: str | os.PathLike[str] | None) -> dict[str, str]:
    """``KEY=value`` pairs of the ``.env`` file (empty when there is none)."""
    file = Path(path) if path is not None else Path.cwd() / ".env"
    if not file.is_file():
        return {}
    from dotenv import dotenv_values

    return {k: v for k, v in dotenv_values(file).items() if v is not None}


_NUMBER_TYPES = ("int", "int | Unset", "float", "float | None", "Auto")
_SET_TYPES = {"frozenset[int]": int, "frozenset[str]": str}


def _env_fields() -> dict[str, str]:
    """The knobs the environment may set, by variable name, to their field type (the
    custom prompts are left to code)."""
    return {f"{ENV_CONFIG_PREFIX}{f.name.upper()}": str(f.type)
            for f in fields(AutoContextConfig)
            if str(f.type) in _NUMBER_TYPES or str(f.type) in _SET_TYPES}


def config_env_names() -> list[str]:
    """Every ``CTXMGR_<FIELD>`` variable :func:`config_from_env` reads."""
    return list(_env_fields())


def _parse_knob(value: str, kind: str, where: str) -> object:
    text = value.strip()
    try:
        if kind in _SET_TYPES:
            return frozenset(_SET_TYPES[kind](v.strip()) for v in text.split(",") if v.strip())
        if kind == "float | None" and text.lower() == "none":
            return None
        if kind == "Auto" and text.lower() == AUTO:
            return AUTO
        return int(text) if kind in ("int", "int | Unset", "Auto") else float(text)
    except ValueError:
        expected = {"int": "an integer", "int | Unset": "an integer", "float": "a number",
                    "float | None": "a number or none", "Auto": "an integer or auto"
                    }.get(kind, "a comma-separated list")
        raise ConfigError(f"{where} must be {expected}, got {value!r}") from None


def config_from_env(*, environ: Mapping[str, str] | None = None,
                    dotenv_path: str | os.PathLike[str] | None = None,
                    use_dotenv: bool = True) -> AutoContextConfig:
    """An :class:`~ctxmgr.AutoContextConfig` with every knob the environment (then the
    ``.env`` file) sets as ``CTXMGR_<FIELD>``; the defaults for the rest.

    Raises:
        ConfigError: a value that does not parse or that the config refuses (the message
            names the variable).
    """
    env = os.environ if environ is None else environ
    dotenv = _read_dotenv(dotenv_path) if use_dotenv else {}
    knobs: dict[str, object] = {}
    for name, kind in _env_fields().items():
        if env.get(name):
            value, where = env[name], name
        elif dotenv.get(name):
            value, where = dotenv[name], f"{name} (in {dotenv_path or '.env'})"
        else:
            continue
        knobs[name.removeprefix(ENV_CONFIG_PREFIX).lower()] = _parse_knob(value, kind, where)
    if not knobs:
        return AutoContextConfig()
    try:
        return AutoContextConfig(**knobs)  # type: ignore[arg-type]  # types checked above
    except ConfigError as exc:
        raise ConfigError(f"{exc} (from the CTXMGR_* environment variables)") from None


def config_env_vars(config: AutoContextConfig) -> dict[str, str]:
    """The ``CTXMGR_<FIELD>`` variables that give ``config`` through
    :func:`config_from_env`: the window, and every knob that differs from its default.

    Raises:
        ConfigError: a config whose custom prompts, or whose tools or ids holding a comma,
            the environment cannot carry.
    """
    default = AutoContextConfig()
    out: dict[str, str] = {}
    for f in fields(AutoContextConfig):
        value = getattr(config, f.name)
        name = f"{ENV_CONFIG_PREFIX}{f.name.upper()}"
        if value is UNSET or (f.name != "max_tokens" and value == getattr(default, f.name)):
            continue
        if name not in _env_fields():
            raise ConfigError(f"{f.name} cannot be set through the environment; pass an "
                              "AutoContextConfig in code")
        if isinstance(value, frozenset):
            items = sorted(str(v) for v in value)
            if any("," in v for v in items):
                raise ConfigError(f"{f.name} holds a comma; pass it in code")
            out[name] = ",".join(items)
        else:
            out[name] = "none" if value is None else str(value)
    return out
