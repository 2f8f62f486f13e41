"""A ctxmgr summarizer backed by any LlamaIndex LLM."""

from __future__ import annotations

from collections.abc import Sequence

from ctxmgr import Message
from ctxmgr.session import summary_prompt

try:
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.llms import LLM
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["LlamaIndexSummarizer"]


class LlamaIndexSummarizer:
    """Summarize with a LlamaIndex LLM (``chat`` and ``achat``), asked as every adapter asks
    its model (:func:`ctxmgr.session.summary_prompt`)."""

    can_quote = True
    """A model can quote: it writes the note of the user's words as verbatim quotes,
    each checked to be one (:mod:`ctxmgr.autocontext.quotes`)."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def _prompt(self, messages: Sequence[Message], instruction: str) -> list[ChatMessage]:
        system, transcript = summary_prompt(messages, instruction)
        prompt = [ChatMessage(role=MessageRole.SYSTEM, content=system)] if system else []
        prompt.append(ChatMessage(role=MessageRole.USER, content=transcript))
        return prompt

    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        return self.llm.chat(self._prompt(messages, instruction)).message.content or ""

    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        reply = await self.llm.achat(self._prompt(messages, instruction))
        return reply.message.content or ""
