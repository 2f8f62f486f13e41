"""LangChain ``ContextEditingMiddleware`` (``ClearToolUsesEdit``) as a replay policy.

The middleware is view-only: ``wrap_model_call`` edits a deep copy of the
request's messages and hands the edited request to the model handler; the
agent state is never changed, so the edit is recomputed on every call. Replay
builds the ``ModelRequest`` ``create_agent`` would build (state messages, the
system prompt apart) and captures the messages the handler receives.

Settings: ``ClearToolUsesEdit(trigger=75 % of the budget, keep=3)``, other
fields default; the shared token counter as ``token_counter`` (the middleware
then counts the conversation without the system message, as its code does).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ctxmgr import Message
from ctxmgr.replay.policy import IncrementalPolicy, PolicyContext, PolicyResult
from ctxmgr_langgraph.replay_peers._shared import LangChainBridge, summary_chat_model

try:
    from langchain.agents.middleware.context_editing import (
        ClearToolUsesEdit,
        ContextEditingMiddleware,
    )
    from langchain.agents.middleware.types import ModelRequest, ModelResponse
    from langchain_core.messages import AIMessage, AnyMessage, SystemMessage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f'the LangChain replay peers need LangChain: pip install ".[langgraph]" ({exc})'
    ) from exc

__all__ = ["LangChainContextEditingPolicy"]

TRIGGER_RATIO = 0.75
KEEP_TOOL_RESULTS = 3


class LangChainContextEditingPolicy(IncrementalPolicy):
    """``ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=75 %, keep=3)])``."""

    name = "langchain_context_editing"

    def __init__(self, context: PolicyContext) -> None:
        super().__init__(context)
        self.converter = LangChainBridge(context.counter)
        self.middleware = ContextEditingMiddleware(
            edits=[ClearToolUsesEdit(trigger=int(context.budget * TRIGGER_RATIO),
                                     keep=KEEP_TOOL_RESULTS)],
            token_counter=self.converter.count,
        )
        self.model = summary_chat_model(context.summarizer)  # never called: the handler answers
        self.state: list[AnyMessage] = []
        self._system_message: SystemMessage | None = None

    def reset(self) -> None:
        super().reset()
        self.converter.reset()
        self.state = []
        self._system_message = None

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        new = self.take_new(history)
        if self._system_message is None and self.system:
            # ModelRequest holds one system message; further leading ones stay in line.
            first = self.converter.to_langchain(self.system[:1])[0]
            assert isinstance(first, SystemMessage), "a system message converts to one"
            self._system_message = first
            self.state[:0] = self.converter.to_langchain(self.system[1:])
        self.state.extend(self.converter.to_langchain(new))
        request = ModelRequest(model=self.model, messages=list(self.state),
                               system_message=self._system_message,
                               state={"messages": self.state}, runtime=None)
        sent: list[ModelRequest] = []

        def handler(req: ModelRequest) -> ModelResponse:
            sent.append(req)
            return ModelResponse(result=[AIMessage(content="")])

        start = time.perf_counter()
        self.middleware.wrap_model_call(request, handler)
        seconds = time.perf_counter() - start
        final = sent[0]
        lc = ([final.system_message] if final.system_message else []) + list(final.messages)
        prompt = tuple(self.converter.from_langchain(lc))
        cleared = any(m.response_metadata.get("context_editing", {}).get("cleared")
                      for m in final.messages)
        return PolicyResult(messages=prompt, events=("clear_tool_uses",) if cleared else (),
                            seconds=seconds)
