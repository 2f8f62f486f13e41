"""langmem ``summarize_messages`` as a replay policy.

Used the way langmem's own ``SummarizationNode`` uses it: every call passes
the full conversation plus the ``RunningSummary`` returned by the previous
call, and sends the messages it returns (summary as a system message + the
messages not yet summarized). The conversation is passed with its system
message first, which ``summarize_messages`` sets aside and keeps out of the
summary by design.

Settings: ``max_tokens=budget``, ``max_tokens_before_summary=75 % of the
budget`` (the same trigger as the LangChain peers; with the default, the
budget itself, it summarizes later and goes over budget more often), the
shared fake summarizer as ``model``, the shared counter as ``token_counter``;
other arguments default (``max_summary_tokens=256``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence

try:  # first, so a machine without langmem (or LangChain) is told to install this extra
    from langchain_core.messages import BaseMessage

    with warnings.catch_warnings():
        # langmem's dependency trustcall imports a name LangGraph 1.x deprecated; not ours.
        warnings.simplefilter("ignore", DeprecationWarning)
        from langmem.short_term import RunningSummary, summarize_messages
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f'the langmem replay peer needs langmem: pip install ".[langmem]" ({exc})'
    ) from exc

from ctxmgr import Message
from ctxmgr.replay.policy import IncrementalPolicy, PolicyContext, PolicyResult
from ctxmgr_langgraph.replay_peers._shared import LangChainBridge, summary_chat_model

__all__ = ["LangmemSummarizePolicy"]

TRIGGER_RATIO = 0.75


class LangmemSummarizePolicy(IncrementalPolicy):
    """``summarize_messages(history, running_summary=..., max_tokens=budget,
    max_tokens_before_summary=75 % of budget)``."""

    name = "langmem_summarize"

    def __init__(self, context: PolicyContext) -> None:
        super().__init__(context)
        self.converter = LangChainBridge(context.counter)
        self.model = summary_chat_model(context.summarizer)
        self.messages: list[BaseMessage] = []
        self.running_summary: RunningSummary | None = None

    def reset(self) -> None:
        super().reset()
        self.converter.reset()
        self.messages = []
        self.running_summary = None

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        new = self.take_new(history)
        if not self.messages and self.system:
            self.messages.extend(self.converter.to_langchain(self.system))
        self.messages.extend(self.converter.to_langchain(new))
        start = time.perf_counter()
        with warnings.catch_warnings():
            # "Failed to trim messages to fit within max_tokens" is langmem's documented
            # fallback (it then summarizes the untrimmed list); counted, not shown.
            warnings.simplefilter("ignore", RuntimeWarning)
            result = summarize_messages(
                self.messages,
                running_summary=self.running_summary,
                model=self.model,
                max_tokens=self.context.budget,
                max_tokens_before_summary=int(self.context.budget * TRIGGER_RATIO),
                token_counter=self.converter.count,
            )
        seconds = time.perf_counter() - start
        summarized = result.running_summary is not None and (
            self.running_summary is None
            or result.running_summary.last_summarized_message_id
            != self.running_summary.last_summarized_message_id)
        if result.running_summary is not None:
            self.running_summary = result.running_summary
        prompt = tuple(self.converter.from_langchain(result.messages))
        return PolicyResult(messages=prompt, events=("summarize",) if summarized else (),
                            seconds=seconds)
