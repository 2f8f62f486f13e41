"""LangChain ``SummarizationMiddleware`` as a replay policy.

Driven the way ``create_agent`` drives it: before each model call its
``before_model(state, runtime)`` hook sees the agent state (the conversation
without the system prompt, which ``create_agent`` keeps apart and prepends to
the request); an update it returns (``RemoveMessage(REMOVE_ALL_MESSAGES)``, the
summary, the kept messages) is applied with LangGraph's ``add_messages``
reducer, so the summary persists in the state for later calls.

Settings: ``trigger=("tokens", 75 % of the budget)``, ``keep=("messages", 20)``,
the shared token counter, the shared fake summarizer as ``model``; every other
argument is the middleware's default (notably ``trim_tokens_to_summarize=4000``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, cast

from ctxmgr import Message
from ctxmgr.replay.policy import IncrementalPolicy, PolicyContext, PolicyResult
from ctxmgr_langgraph.replay_peers._shared import LangChainBridge, summary_chat_model

try:
    from langchain.agents.middleware.summarization import SummarizationMiddleware
    from langchain_core.messages import AnyMessage
    from langgraph.graph.message import Messages, add_messages
    from langgraph.runtime import Runtime
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f'the LangChain replay peers need LangChain: pip install ".[langgraph]" ({exc})'
    ) from exc

__all__ = ["LangChainSummarizationPolicy"]

TRIGGER_RATIO = 0.75
KEEP_MESSAGES = 20


class LangChainSummarizationPolicy(IncrementalPolicy):
    """``SummarizationMiddleware(trigger=75 % of budget, keep 20 messages)``."""

    name = "langchain_summarization"

    def __init__(self, context: PolicyContext) -> None:
        super().__init__(context)
        self.converter = LangChainBridge(context.counter)
        self.middleware = SummarizationMiddleware(
            model=summary_chat_model(context.summarizer),
            trigger=("tokens", int(context.budget * TRIGGER_RATIO)),
            keep=("messages", KEEP_MESSAGES),
            token_counter=self.converter.count,
        )
        self.runtime: Runtime[Any] = Runtime(context=None)
        self.state: list[AnyMessage] = []

    def reset(self) -> None:
        super().reset()
        self.converter.reset()
        self.state = []

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        self.state.extend(self.converter.to_langchain(self.take_new(history)))
        start = time.perf_counter()
        update = self.middleware.before_model({"messages": self.state}, self.runtime)
        if update and "messages" in update:
            # cast: langgraph types add_messages as Messages -> Messages (an invariant list
            # of any message-like value, or one such value); it takes any list of messages
            # and always returns a list of messages, which is what the state holds.
            merged = add_messages(cast("Messages", self.state), update["messages"])
            self.state = cast("list[AnyMessage]", merged)
        seconds = time.perf_counter() - start
        prompt = (*self.system, *self.converter.from_langchain(self.state))
        return PolicyResult(messages=prompt, events=("summarize",) if update else (),
                            seconds=seconds)
