"""What every compressor front is built from: config, counter, summarizer, offload store.

:class:`~ctxmgr.autocontext.memory.AutoContextMemory` (a history the caller owns)
and :class:`~ctxmgr.autocontext.processor.ContextProcessor` (a history a framework
owns) differ in how they take the history, not in these parts, so both build on
:class:`CompressorParts`.
"""

from __future__ import annotations

from typing import TypedDict

from ctxmgr._unset import UNSET
from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.cooldown import SummaryCooldown
from ctxmgr.autocontext.events import EventCallback
from ctxmgr.autocontext.hidden import HiddenOriginals
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.strategies import check_strategies
from ctxmgr.autocontext.summarizers import SummaryWorker, choose_summarizer
from ctxmgr.errors import ConfigError
from ctxmgr.messages import Message
from ctxmgr.prompts import reload_hint_message
from ctxmgr.store.base import Store
from ctxmgr.store.files import project_dir_name
from ctxmgr.store.memory import InMemoryStore
from ctxmgr.tokens import TokenCounter, default_counter

__all__ = ["HINT_MAX_BUDGET_SHARE", "CompressorParts", "PartsOptions", "reload_hint_for"]

HINT_MAX_BUDGET_SHARE = 0.05
"""The reload hint is left out on a window so small that it would take more than this
share of the prompt budget (under about 1,000 tokens of budget): what the user said
needs the room more, and the tool's description explains the offload tags too."""

def reload_hint_for(config: AutoContextConfig, counter: TokenCounter) -> Message | None:
    """The reload hint for a prompt of ``config``'s budget (``None`` on a window so small
    that the hint would take more than :data:`HINT_MAX_BUDGET_SHARE` of it)."""
    hint = reload_hint_message()
    if counter.count(hint) > HINT_MAX_BUDGET_SHARE * config.budget_tokens:
        return None  # a tiny window: the conversation needs the room more
    return hint


class PartsOptions(TypedDict, total=False):
    """The keyword arguments of :class:`CompressorParts` (and of its subclasses)."""

    counter: TokenCounter | None
    summarizer: object | None
    store: Store | None
    project: str | None
    session: str
    on_event: EventCallback | None
    summary_cooldown: SummaryCooldown | None


class CompressorParts:
    """The settings, counter, summarizer and offload store a compressor works with.

    Args:
        config: every setting (the reload hint, store retries and cool-down from its
            ``tuning``).
        counter: token counter; default: exact tiktoken.
        summarizer: object with ``summarize`` / ``asummarize``; left out, the
            deterministic :class:`ExtractiveSummarizer`; ``None`` runs only the
            strategies that need no LLM.
        store: where offloaded originals go; default in memory. Use a shared store
            (files, a database) when several workers or restarts share a session.
        project: the namespace above the sessions; default the config's, else derived
            from the working directory.
        session: the session's namespace inside ``project``.
        on_event: called with every :class:`CompressionEvent`.
        summary_cooldown: the cool-down after a summarizer timeout, to share with other
            compressors (default: one of this compressor's own, of
            ``config.tuning.summary_cooldown_s``).
    """

    def __init__(
        self,
        config: AutoContextConfig | None = None,
        *,
        counter: TokenCounter | None = None,
        summarizer: object | None = UNSET,
        store: Store | None = None,
        project: str | None = None,
        session: str = "default",
        on_event: EventCallback | None = None,
        summary_cooldown: SummaryCooldown | None = None,
    ) -> None:
        self.config = config if config is not None else AutoContextConfig()
        if not isinstance(self.config, AutoContextConfig):
            raise ConfigError(f"config must be an AutoContextConfig, got {config!r:.80}")
        check_strategies(self.config)
        self.counter = counter or default_counter()
        self.summarizer = choose_summarizer(summarizer)
        if project is None:
            project = (self.config.project if self.config.project is not UNSET
                       else project_dir_name())
        self.offload = OffloadStore(store or InMemoryStore(), project=project, session=session,
                                    retry=self.config.tuning.store_retry)
        self.on_event = on_event
        self.hint = (reload_hint_for(self.config, self.counter)
                     if self.config.tuning.reload_hint else None)
        self.hint_tokens = self.counter.count(self.hint) if self.hint is not None else 0
        self.hidden = HiddenOriginals(self.offload)
        """The offloaded originals ``context_search`` looks in, read once each."""
        # one summarizer thread at most, even while one hangs; and after a timeout, no
        # call for config.tuning.summary_cooldown_s (an engine shares one cool-down)
        self._worker = SummaryWorker(summary_cooldown if summary_cooldown is not None
                                     else SummaryCooldown(self.config.tuning.summary_cooldown_s))

    def reload(self, offload_id: str) -> list[Message]:
        """The original messages behind an offload tag, exactly as they were.

        Raises:
            OffloadNotFoundError: unknown id.
        """
        return self.offload.load(offload_id)
