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
same counter and summarizer: see :mod:`ctxmgr.replay.registry`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ctxmgr.errors import ConfigError
from ctxmgr.messages import Message
from ctxmgr.replay.summarizer import FakeSummarizer, SummarizerUsage
from ctxmgr.tokens import TokenCounter

__all__ = [
    "IncrementalPolicy",
    "NonePolicy",
    "Policy",
    "PolicyContext",
    "PolicyFactory",
    "PolicyResult",
    "PolicyUnavailableError",
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
