"""The registry of replay policies: the built-in ones and the peers, by name.

``none`` and ``ctxmgr`` are built in; the peers (other libraries' context management)
live in the adapter of their framework and register under the
``ctxmgr.replay_policies`` entry-point group. A peer imports its framework only when
created, and says which extra to install when it is missing.
"""

from __future__ import annotations

import importlib.metadata

from ctxmgr.errors import ConfigError
from ctxmgr.replay.ctxmgr_policy import CtxmgrPolicy
from ctxmgr.replay.policy import (
    NonePolicy,
    Policy,
    PolicyContext,
    PolicyFactory,
    PolicyUnavailableError,
)

__all__ = [
    "BUILTIN_POLICIES",
    "ENTRY_POINT_GROUP",
    "available_policies",
    "create_policy",
    "peer_names",
    "policy_names",
    "policy_status",
    "register_policy",
]


ENTRY_POINT_GROUP = "ctxmgr.replay_policies"
"""The entry-point group peers register under: ``NAME = "module:factory"``, the factory
taking a :class:`PolicyContext`. The adapters register theirs in ctxmgr's ``pyproject.toml``."""

BUILTIN_POLICIES: tuple[str, ...] = ("none", "ctxmgr")
"""The policies of the core: no management, and ctxmgr's own."""

_FACTORIES: dict[str, PolicyFactory] = {}


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    found: dict[str, importlib.metadata.EntryPoint] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)
    return found


def peer_names() -> list[str]:
    """The peers registered here (installed or not), in registration order."""
    return [n for n in _entry_points() if n not in BUILTIN_POLICIES]


def policy_names() -> list[str]:
    """Every known policy name, in report order: built-in, peers, then registered ones."""
    names = [*BUILTIN_POLICIES, *peer_names()]
    return names + [n for n in _FACTORIES if n not in names]


def register_policy(name: str, factory: PolicyFactory) -> None:
    """Make ``name`` available to :func:`create_policy` (replaces a built-in of that name)."""
    _FACTORIES[name] = factory


def _factory(name: str) -> PolicyFactory:
    """The factory behind ``name``, importing its module (and framework) if it is a peer.

    Raises:
        ConfigError: an unknown name.
        PolicyUnavailableError: a peer whose framework is not installed.
    """
    if name in _FACTORIES:
        return _FACTORIES[name]
    if name == "none":
        return NonePolicy
    if name == "ctxmgr":
        return CtxmgrPolicy
    ep = _entry_points().get(name)
    if ep is None:
        raise ConfigError(
            f"unknown policy {name!r}; choose from {', '.join(policy_names())} (peers come "
            'with the adapters: pip install ".[all]" registers them)')
    try:
        factory: PolicyFactory = ep.load()
    except ImportError as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        raise PolicyUnavailableError(f"policy {name!r} is not available: {reason}") from None
    return factory


def create_policy(name: str, context: PolicyContext) -> Policy:
    """A fresh policy by name.

    Raises:
        ConfigError: an unknown name.
        PolicyUnavailableError: the policy's framework is not installed (the message
            names the extra to install).
    """
    return _factory(name)(context)


def policy_status() -> dict[str, str | None]:
    """Every known policy, in report order: ``None`` when it can run here, else why not
    (naming the extra to install). Imports each peer's framework to find out."""
    status: dict[str, str | None] = {}
    for name in policy_names():
        try:
            _factory(name)
        except PolicyUnavailableError as exc:
            status[name] = str(exc)
        else:
            status[name] = None
    return status


def available_policies() -> list[str]:
    """The policy names that can run here (importing each peer's framework to check)."""
    return [name for name, problem in policy_status().items() if problem is None]
