"""What a context policy is to replay, the registry of policies, and the ``none`` policy.

Replay walks a recorded run; at every recorded assistant message (a model
call) it hands the policy the history so far and records the prompt the
policy would send. A policy is anything with ``name``, ``reset()`` and
``prompt(history) -> PolicyResult``:

* ``reset()`` is called before each trajectory.
* ``prompt(history)`` is called once per model call, in order; ``history`` is
  every recorded message before that call and only ever grows by appending
  (the recorded assistant reply and tool results of the previous step). A
  policy that persists its edits (a summary replacing old messages, a memory
  buffer) keeps that state itself between calls of one trajectory, as the
  agent's memory would.

Policies are created by name from a :class:`PolicyContext` (budget, the shared
token counter, the shared fake summarizer), so every policy in a run sees the
same counter and summarizer. ``none`` and ``ctxmgr`` are built in; the peers
(other libraries' context management) live in the adapter of their framework and
register under the ``ctxmgr.replay_policies`` entry-point group. A peer imports
its framework only when created, and says which extra to install when it is missing.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ctxmgr.errors import ConfigError
from ctxmgr.messages import Message
from ctxmgr.replay.summarizer import FakeSummarizer, SummarizerUsage
from ctxmgr.tokens import TokenCounter

__all__ = [
    "BUILTIN_POLICIES",
    "ENTRY_POINT_GROUP",
    "IncrementalPolicy",
    "NonePolicy",
    "Policy",
    "PolicyContext",
    "PolicyFactory",
    "PolicyResult",
    "PolicyUnavailableError",
    "available_policies",
    "create_policy",
    "peer_names",
    "policy_names",
    "policy_status",
    "register_policy",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyResult:
    """The prompt a policy would send for one model call, and what producing it cost."""

    messages: tuple[Message, ...]
    """Every message of the prompt, system messages included, in order."""
    events: tuple[str, ...] = ()
    """One strategy name per compression the policy performed for this call."""
    summarizer: SummarizerUsage | None = None
    """Summarizer usage of this call; ``None`` lets the runner read it off the shared
    fake summarizer (right for every policy that uses it)."""
    seconds: float | None = None
    """The policy's own wall time for this call, when it can measure it more precisely
    than the runner (leaving out format conversions, say); ``None`` lets the runner time
    the whole ``prompt`` call. Time spent inside the shared summarizer is subtracted
    either way."""


@runtime_checkable
class Policy(Protocol):
    """A context-management policy under replay."""

    name: str

    def reset(self) -> None:
        """Forget everything: a new trajectory starts."""
        ...

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        """The prompt for the model call that follows ``history``."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyContext:
    """What every policy of one replay run shares."""

    budget: int
    """The context window under test, in tokens (``--max-tokens``)."""
    counter: TokenCounter
    summarizer: FakeSummarizer

    def __post_init__(self) -> None:
        if isinstance(self.budget, bool) or not isinstance(self.budget, int) or self.budget < 1:
            raise ConfigError(f"budget must be a positive int of tokens, got {self.budget!r}")


PolicyFactory = Callable[[PolicyContext], Policy]


class PolicyUnavailableError(ConfigError):
    """A policy whose framework (or implementation) is not installed."""


# --- the none policy and a base for stateful peers --------------------------------------


class NonePolicy:
    """No management at all: the prompt is the whole history (the baseline)."""

    name = "none"

    def __init__(self, context: PolicyContext | None = None) -> None:
        self.context = context

    def reset(self) -> None:
        return None

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        return PolicyResult(messages=tuple(history))


class IncrementalPolicy:
    """Base for policies that keep their own copy of the history between calls.

    :meth:`take_new` returns the messages appended since the previous call and
    splits off the leading system messages: agent frameworks hold the system
    prompt apart from the conversation (LangChain ``create_agent(system_prompt=)``,
    LlamaIndex ``FunctionAgent(system_prompt=)``) and prepend it to every request,
    so peers see it the same way.
    """

    name: str = "incremental"

    def __init__(self, context: PolicyContext) -> None:
        self.context = context
        self.system: list[Message] = []
        self._seen = 0
        self._in_preamble = True

    def reset(self) -> None:
        self.system = []
        self._seen = 0
        self._in_preamble = True

    def take_new(self, history: Sequence[Message]) -> list[Message]:
        """Messages added to ``history`` since the last call, minus the leading system ones."""
        if len(history) < self._seen:
            raise ConfigError(
                f"{self.name}: history shrank from {self._seen} to {len(history)} messages; "
                "call reset() before replaying another trajectory"
            )
        new = list(history[self._seen:])
        self._seen = len(history)
        if self._in_preamble:
            k = 0
            while k < len(new) and new[k].role == "system":
                k += 1
            self.system.extend(new[:k])
            new = new[k:]
            if new:
                self._in_preamble = False
        return new


# --- registry ---------------------------------------------------------------------------

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
        from ctxmgr.replay.ctxmgr_policy import CtxmgrPolicy

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
