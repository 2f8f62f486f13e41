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
same counter and summarizer. Peer policies import their framework only when
created, and say which extra to install when it is missing.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ctxmgr.errors import ConfigError
from ctxmgr.messages import Message
from ctxmgr.replay.summarizer import FakeSummarizer, SummarizerUsage
from ctxmgr.tokens import TokenCounter

__all__ = [
    "PEER_POLICIES",
    "POLICY_NAMES",
    "IncrementalPolicy",
    "NonePolicy",
    "Policy",
    "PolicyContext",
    "PolicyFactory",
    "PolicyResult",
    "PolicyUnavailableError",
    "available_policies",
    "create_policy",
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

_FACTORIES: dict[str, PolicyFactory] = {}
_LAZY: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    # name -> (module, class, extra to install, modules it needs)
    "ctxmgr": ("ctxmgr.replay.ctxmgr_policy", "CtxmgrPolicy", "ctxmgr",
               ("ctxmgr.autocontext.memory",)),
    "langchain_summarization": (
        "ctxmgr.replay.peers.langchain_summarization", "LangChainSummarizationPolicy",
        "ctxmgr[langgraph]", ("langchain", "langgraph")),
    "langchain_context_editing": (
        "ctxmgr.replay.peers.langchain_context_editing", "LangChainContextEditingPolicy",
        "ctxmgr[langgraph]", ("langchain", "langgraph")),
    "langmem_summarize": (
        "ctxmgr.replay.peers.langmem_summarize", "LangmemSummarizePolicy", "langmem",
        ("langmem", "langgraph")),
    "llamaindex_memory": (
        "ctxmgr.replay.peers.llamaindex_memory", "LlamaIndexMemoryPolicy",
        "ctxmgr[llamaindex]", ("llama_index.core", "aiosqlite")),
    "llamaindex_summary_buffer": (
        "ctxmgr.replay.peers.llamaindex_summary_buffer", "LlamaIndexSummaryBufferPolicy",
        "ctxmgr[llamaindex]", ("llama_index.core",)),
}

POLICY_NAMES: tuple[str, ...] = ("none", *_LAZY)
"""Every built-in policy, in report order."""
PEER_POLICIES: tuple[str, ...] = tuple(n for n in _LAZY if n != "ctxmgr")
"""The five peers ctxmgr is compared with."""


def register_policy(name: str, factory: PolicyFactory) -> None:
    """Make ``name`` available to :func:`create_policy` (replaces a built-in of that name)."""
    _FACTORIES[name] = factory


def create_policy(name: str, context: PolicyContext) -> Policy:
    """A fresh policy by name.

    Raises:
        ConfigError: an unknown name.
        PolicyUnavailableError: the policy's framework is not installed (the message
            names the extra to install).
    """
    if name in _FACTORIES:
        return _FACTORIES[name](context)
    if name == "none":
        return NonePolicy(context)
    if name not in _LAZY:
        known = ", ".join([*POLICY_NAMES, *(n for n in _FACTORIES if n not in POLICY_NAMES)])
        raise ConfigError(f"unknown policy {name!r}; choose from {known}")
    module_name, cls_name, extra, _ = _LAZY[name]
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, cls_name)
    except ImportError as exc:
        raise PolicyUnavailableError(
            f"policy {name!r} needs {exc.name or 'a framework'} that is not installed; "
            f'pip install "{extra}"'
        ) from None
    except AttributeError:
        raise PolicyUnavailableError(
            f"policy {name!r} is not implemented yet ({module_name}.{cls_name} missing)"
        ) from None
    return cls(context)


def policy_status() -> dict[str, str | None]:
    """Every known policy, in report order: ``None`` when it can run here, else why not
    (naming the extra to install). Imports each peer's framework to find out."""
    status: dict[str, str | None] = {}
    for name in [*POLICY_NAMES, *(n for n in _FACTORIES if n not in POLICY_NAMES)]:
        if name in _FACTORIES or name == "none":
            status[name] = None
            continue
        module_name, _, extra, _ = _LAZY[name]
        try:
            importlib.import_module(module_name)
        except ImportError as exc:
            status[name] = (f"needs {exc.name or 'a framework'} that is not installed; "
                            f'pip install "{extra}"')
        else:
            status[name] = None
    return status


def available_policies() -> list[str]:
    """Built-in and registered policy names that can run here (their modules are installed).

    Checks without importing any framework, so it is cheap.
    """
    out = []
    for name in [*POLICY_NAMES, *(n for n in _FACTORIES if n not in POLICY_NAMES)]:
        if name in _FACTORIES or name == "none" or all(map(_installed, _LAZY[name][3])):
            out.append(name)
    return out


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
