"""LlamaIndex ``Memory`` (the current short-term memory) as a replay policy.

Driven the way ``FunctionAgent`` drives it: new messages go in with
``put_messages`` (which runs the FIFO flush), the prompt is the system prompt
(kept apart, as the agent does) followed by ``get()``.

Settings: ``Memory.from_defaults(token_limit=budget, tokenizer_fn=<shared
counter>)``, other arguments default (no memory blocks, so flushed messages are
dropped; ``chat_history_token_ratio=0.7``; the default in-memory SQLite store).
The memory flushes only whole turns that start with a user message, so on a
coding run with one user message and hundreds of tool steps it never flushes
anything: that is its behaviour, kept as is.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence

from ctxmgr import Message
from ctxmgr.replay.policy import PolicyContext, PolicyResult
from ctxmgr_llamaindex.replay_peers._shared import LlamaIndexPolicyBase

try:
    from llama_index.core.memory import Memory
    from llama_index.core.storage.chat_store.sql import SQLAlchemyChatStore
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f'the LlamaIndex replay peers need LlamaIndex: pip install ".[llamaindex]" ({exc})'
    ) from exc

__all__ = ["LlamaIndexMemoryPolicy"]


class LlamaIndexMemoryPolicy(LlamaIndexPolicyBase):
    """``Memory.from_defaults(token_limit=budget)``."""

    name = "llamaindex_memory"

    def __init__(self, context: PolicyContext) -> None:
        super().__init__(context)
        # One in-memory SQLite store for the run, one session per trajectory.
        self.store = SQLAlchemyChatStore(table_name="llama_index_memory")
        self.memory = self._new_memory()

    def _new_memory(self) -> Memory:
        return Memory.from_defaults(session_id=f"replay-{uuid.uuid4().hex}",
                                    token_limit=self.context.budget,
                                    tokenizer_fn=self.tokenizer.as_llamaindex(),
                                    chat_store=self.store)

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        new = self.converter.to_llamaindex(self.take_new(history))
        start = time.perf_counter()
        if new:
            self.memory.put_messages(new)
        messages = self.memory.get()
        seconds = time.perf_counter() - start
        return PolicyResult(messages=self._prompt(messages), seconds=seconds)
