"""What an integration uses when the user gives none: window, tokenizer, store, summarizer.

One rule each, the same for every framework; an adapter only reads the facts its
framework holds (a model's window and name, whether the history outlives the process)
and hands them over:

* **window**: the config's ``max_tokens``; else the model's own
  (:class:`ModelInfo`: LangChain's ``profile["max_input_tokens"]``, LlamaIndex's
  ``metadata.context_window``); else :data:`DEFAULT_MAX_TOKENS`, with a warning once per
  process that says how to set it;
* **tokenizer**: the counter given; else exact tiktoken for the model's name (its
  encoding chosen by name); else exact tiktoken's default encoding;
* **store**: the store given; else the framework's own (a LangGraph graph store);
  else one that lives as long as the history: files under ``CTXMGR_HOME`` for a history
  that can outlive the process (a durable checkpointer, a LlamaIndex memory, which can
  be serialised), this process's in-memory store for one that cannot;
* **summarizer**: left out (:data:`~ctxmgr.session.UNSET`), the deterministic
  :class:`~ctxmgr.ExtractiveSummarizer`; ``None``, no summaries (only the strategies that
  need none run); an object with ``summarize`` / ``asummarize``, as it is; a framework's
  own model (a LangChain chat model, a LlamaIndex LLM), wrapped by its adapter.

The two summarizer adapters ask their model the same way (:func:`summary_prompt`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxmgr._unset import UNSET, Unset
from ctxmgr._warnings import warn_once
from ctxmgr.autocontext.config import DEFAULT_MAX_TOKENS
from ctxmgr.autocontext.summarizers import choose_summarizer, render_transcript
from ctxmgr.errors import ConfigError
from ctxmgr.messages import Message
from ctxmgr.store import FileStore, InMemoryStore, Store
from ctxmgr.tokens import TokenCounter, default_counter

__all__ = [
    "ASSUMED_WINDOW_WARNING",
    "DEFAULT_MAX_TOKENS",
    "EMPTY_TRANSCRIPT",
    "ModelInfo",
    "choose_counter",
    "choose_store",
    "choose_summarizer",
    "choose_window",
    "in_process_store",
    "summary_prompt",
]


ASSUMED_WINDOW_WARNING = (
    "ctxmgr: no context window given, so a {window:,}-token window is assumed; pass your "
    "model's window as max_tokens= (ContextMiddleware(max_tokens=...), ContextHook, "
    "ContextNode, ContextMemory.from_defaults(max_tokens=...)), in "
    "AutoContextConfig(max_tokens=...), or as CTXMGR_MAX_TOKENS in the environment; or "
    "hand over the model (its window is read from it)")

EMPTY_TRANSCRIPT = "(no messages)"
"""What a summarizer model is sent for an empty range (some providers refuse empty text)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelInfo:
    """What an adapter read from the framework's model (``None``: the model does not say)."""

    window: int | None = None
    """Tokens the model takes in (LangChain ``max_input_tokens``, LlamaIndex
    ``context_window``)."""
    name: str | None = None
    """The model's name, which picks its tokenizer."""

    def __post_init__(self) -> None:
        window = self.window
        if window is not None and (isinstance(window, bool) or not isinstance(window, int)
                                   or window <= 0):
            object.__setattr__(self, "window", None)  # a model that says nothing useful
        if self.name is not None and not (isinstance(self.name, str) and self.name):
            object.__setattr__(self, "name", None)


def choose_window(given: int | Unset, model: ModelInfo | None = None) -> int:
    """The window a session works with (see the module doc for the rule).

    Raises:
        ConfigError: ``given`` is more than the model says it takes in.
    """
    if given is not UNSET:
        if model is not None and model.window is not None and given > model.window:
            raise ConfigError(
                f"max_tokens must not exceed the model's window, got {given} for a model "
                f"that takes {model.window}: leave max_tokens out to use the model's")
        return given
    if model is not None and model.window is not None:
        return model.window
    warn_once("assumed-window", ASSUMED_WINDOW_WARNING.format(window=DEFAULT_MAX_TOKENS))
    return DEFAULT_MAX_TOKENS


def choose_counter(given: TokenCounter | Unset | None,
                   model: ModelInfo | None = None) -> TokenCounter:
    """The token counter a session counts with (see the module doc for the rule).

    Raises:
        ConfigError: ``given`` is not a :class:`~ctxmgr.TokenCounter`.
    """
    if given is UNSET or given is None:
        return default_counter(model.name if model is not None else None)
    if not isinstance(given, TokenCounter):
        raise ConfigError(f"counter must be a ctxmgr TokenCounter, got {given!r:.80}")
    return given


_PROCESS_STORE = InMemoryStore()


def in_process_store() -> Store:
    """This process's in-memory store, for histories that live in this process only (they
    go together): ``delete_session`` empties a session of it."""
    return _PROCESS_STORE


def choose_store(given: Store | None, *, durable: bool, home: str | os.PathLike[str]
                 ) -> Store:
    """The store a session keeps its originals and memos in (see the module doc).

    Args:
        given: the store the user (or the framework) gives, if any.
        durable: whether the framework's history can outlive this process.
        home: the folder of the default file store (``CTXMGR_HOME``).
    """
    if given is not None:
        return given
    return FileStore(Path(home)) if durable else in_process_store()


def summary_prompt(messages: Sequence[Message], instruction: str) -> tuple[str | None, str]:
    """How every adapter asks its framework's model for a summary: the instruction as a
    system message (none when the instruction is blank) and the messages as a plain
    transcript in one user message (:data:`EMPTY_TRANSCRIPT` when there are none). Any
    chat model reads that, whatever its tool-calling support, and neither part is empty."""
    system = instruction if instruction.strip() else None
    return system, render_transcript(messages) or EMPTY_TRANSCRIPT

