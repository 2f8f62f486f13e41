"""A ctxmgr summarizer backed by any LangChain chat model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxmgr import Message, render_transcript

try:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import HumanMessage, SystemMessage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangChain: pip install "ctxmgr[langgraph]"') from exc

__all__ = ["LangChainSummarizer"]


class LangChainSummarizer:
    """Summarize with a LangChain chat model (sync ``invoke`` and async ``ainvoke``).

    The instruction goes in a system message and the messages, rendered as a
    plain transcript, in one human message: any chat model can read that,
    whatever its tool-calling support. Neither is ever empty (some providers
    refuse empty messages): no instruction means no system message, and an
    empty transcript reads "(no messages)".
    """

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model

    def _prompt(self, messages: Sequence[Message], instruction: str) -> list[Any]:
        prompt: list[Any] = [SystemMessage(content=instruction)] if instruction.strip() else []
        prompt.append(HumanMessage(content=render_transcript(messages) or "(no messages)"))
        return prompt

    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        return _text(self.model.invoke(self._prompt(messages, instruction)))

    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        return _text(await self.model.ainvoke(self._prompt(messages, instruction)))


def _text(reply: Any) -> str:
    content = getattr(reply, "text", None)
    if isinstance(content, str):  # langchain-core >= 1.0: a property (a callable str)
        return str(content)
    if callable(content):  # langchain-core < 1.0 exposed text() as a method
        return str(content())
    return str(getattr(reply, "content", ""))
