"""Settings read outside a config, by the config's own rule, and a config as variables.

Every setting is a field of :class:`~ctxmgr.AutoContextConfig`, read from
``CTXMGR_<FIELD>`` (the environment, then ``.env`` in the working directory) when code
does not give it (:mod:`ctxmgr._env`). Code that needs only the store's folder (the
command line, a store opened without a config) reads it here, by the same rule:
:func:`home`. :func:`config_env_vars` writes a config back as those variables
(``ctxmgr tune`` prints them), and :func:`config_from_env` reads them from a given
mapping.

Example::

    AutoContextConfig()                      # every field from CTXMGR_* / .env / defaults
    config_env_vars(AutoContextConfig(max_tokens=32_000, token_ratio=0.7))
    # {"CTXMGR_MAX_TOKENS": "32000", "CTXMGR_TOKEN_RATIO": "0.7"}
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path

from ctxmgr import _env
from ctxmgr._env import parse_bool
from ctxmgr._unset import UNSET
from ctxmgr.autocontext.config import AutoContextConfig, Tuning
from ctxmgr.errors import ConfigError

__all__ = ["ENV_CONFIG_PREFIX", "ENV_HOME", "config_env_names", "config_env_vars",
           "config_from_env", "home", "parse_bool"]

ENV_CONFIG_PREFIX = _env.PREFIX
"""``CTXMGR_`` + a setting's name in capitals names its variable."""
ENV_HOME = "CTXMGR_HOME"


def home(given: str | os.PathLike[str] | None = None) -> Path:
    """The folder of the default file store: ``given``, else ``CTXMGR_HOME`` (environment,
    then ``.env``), else ``~/.ctxmgr`` (what :attr:`AutoContextConfig.home` reads)."""
    if given is not None and os.fspath(given) != "":
        return Path(os.fspath(given)).expanduser()
    found = _env.find(ENV_HOME)
    return Path(found[0]).expanduser() if found is not None else Path.home() / ".ctxmgr"


def _readable() -> dict[str, str]:
    """The settings the environment may give, by variable name, to their field type."""
    out: dict[str, str] = {}
    for cls in (AutoContextConfig, Tuning):
        for f in fields(cls):
            if f.metadata.get("env", True) and _env.parse("0", str(f.type), "") is not UNSET:
                out[_env.variable(f.name)] = str(f.type)
    return out


def config_env_names() -> list[str]:
    """Every ``CTXMGR_<FIELD>`` variable a config reads."""
    return list(_readable())


def config_from_env(*, environ: Mapping[str, str] | None = None,
                    dotenv_path: str | os.PathLike[str] | None = None,
                    use_dotenv: bool = True) -> AutoContextConfig:
    """An :class:`~ctxmgr.AutoContextConfig` read from these sources (default: the
    process's environment and ``./.env``, as any config is).

    Raises:
        ConfigError: a value that does not parse or that the config refuses (the message
            names the variable).
    """
    return AutoContextConfig.from_env(environ=environ, dotenv_path=dotenv_path,
                                      use_dotenv=use_dotenv)


def config_env_vars(config: AutoContextConfig) -> dict[str, str]:
    """The ``CTXMGR_<FIELD>`` variables that give ``config`` through the environment: the
    window, and every setting that differs from its default (the home folder, a path of
    this machine, left out).

    Raises:
        ConfigError: a config whose custom prompts, store retry, or tools or ids holding a
            comma, the environment cannot carry.
    """
    readable = _readable()
    out: dict[str, str] = {}
    for holder in (config, config.tuning):
        for f in fields(holder):
            value = getattr(holder, f.name)
            default = f.default_factory() if callable(f.default_factory) else f.default
            if f.name == "tuning" or value is UNSET or f.metadata.get("local") or (
                    f.name != "max_tokens" and value == default):
                continue
            name = _env.variable(f.name)
            if name not in readable:
                raise ConfigError(f"{f.name} cannot be set through the environment; pass an "
                                  "AutoContextConfig in code")
            if isinstance(value, frozenset):
                items = sorted(str(v) for v in value)
                if any("," in v for v in items):
                    raise ConfigError(f"{f.name} holds a comma; pass it in code")
                out[name] = ",".join(items)
            elif isinstance(value, bool):
                out[name] = "true" if value else "false"
            else:
                out[name] = "none" if value is None else str(value)
    return out
