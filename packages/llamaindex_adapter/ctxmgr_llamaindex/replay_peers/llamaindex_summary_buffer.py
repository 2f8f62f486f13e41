"""LlamaIndex ``ChatSummaryMemoryBuffer`` as a replay policy.

Driven the way an agent or chat engine drives it: each new message is
``put`` into the buffer, and the prompt is the system prompt (kept apart, as
``FunctionAgent(system_prompt=...)`` does) followed by ``get()``. ``get()``
rewrites the stored history (summary + the recent messages that fit), so the
summary persists for later calls.

Settings: ``from_defaults(llm=<shared fake summarizer>, token_limit=budget,
tokenizer_fn=<shared counter>)``; other arguments default. The buffer counts
only message text (``str(content)``), not tool calls; that is its behaviour,
kept as is.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ctxmgr import Message
from ctxmgr.replay.policy import PolicyContext, PolicyResult
from ctxmgr_llamaindex.replay_peers._shared import LlamaIndexPolicyBase

try:
    from llama_index.core.memory import ChatSummaryMemoryBuffer
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f'the LlamaIndex replay peers need LlamaIndex: pip install ".[llamaindex]" ({exc})'
    ) from exc

__all__ = ["LlamaIndexSummaryBufferPolicy"]


class LlamaIndexSummaryBufferPolicy(LlamaIndexPolicyBase):
    """``ChatSummaryMemoryBuffer.from_defaults(llm=fake, token_limit=budget)``."""

    name = "llamaindex_summary_buffer"

    def __init__(self, context: PolicyContext) -> None:
        super().__init__(context)
        self.memory = self._new_memory()

    def _new_memory(self) -> ChatSummaryMemoryBuffer:
        return ChatSummaryMemoryBuffer.from_defaults(
            llm=self.llm, token_limit=self.context.budget,
            tokenizer_fn=self.tokenizer.as_llamaindex())

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        new = self.converter.to_llamaindex(self.take_new(history))
        calls_before = self.context.summarizer.usage.calls
        start = time.perf_counter()
        for m in new:
            self.memory.put(m)
        messages = self.memory.get()
        seconds = time.perf_counter() - start
        summarized = self.context.summarizer.usage.calls > calls_before
        return PolicyResult(messages=self._prompt(messages),
                            events=("summarize",) if summarized else (), seconds=seconds)
