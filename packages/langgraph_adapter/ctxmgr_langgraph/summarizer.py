"""A ctxmgr summarizer backed by any LangChain chat model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxmgr import Message
from ctxmgr.session import summary_prompt

try:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import HumanMessage, SystemMessage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangChain: pip install ".[langgraph]"') from exc

__all__ = ["LangChainSummarizer", "summarizer_from_spec"]


class LangChainSummarizer:
    """Summarize with a LangChain chat model (sync ``invoke`` and async ``ainvoke``).

    It is asked as every adapter asks its model (:func:`ctxmgr.session.summary_prompt`):
    the instruction in a system message (none when blank) and the messages as a plain
    transcript in one human message (``"(no messages)"`` when empty).
    """

    can_quote = True
    """A model can quote: it writes the note of the user's words as verbatim quotes,
    each checked to be one (:mod:`ctxmgr.autocontext.quotes`)."""

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model

    def _prompt(self, messages: Sequence[Message], instruction: str) -> list[Any]:
        system, transcript = summary_prompt(messages, instruction)
        prompt: list[Any] = [SystemMessage(content=system)] if system is not None else []
        prompt.append(HumanMessage(content=transcript))
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


def summarizer_from_spec(spec: str) -> LangChainSummarizer:
    """A summarizer on the chat model ``provider:model`` (LangChain's ``init_chat_model``),
    as ``--summarizer provider:model`` asks for.

    Raises:
        ValueError: the model cannot be created (unknown provider, its package not
            installed, no credentials...); the message is one line naming ``spec``.
    """
    try:
        from langchain.chat_models import init_chat_model
    except ImportError as exc:  # pragma: no cover - langchain ships with the extra
        raise ValueError(f'{spec}: needs LangChain: pip install ".[langgraph]"') from exc
    try:
        model = init_chat_model(spec)
    except Exception as exc:  # provider packages raise many kinds of errors
        text = str(exc).strip()
        reason = text.splitlines()[0] if text else type(exc).__name__
        raise ValueError(f"cannot create summarizer {spec!r}: {reason}") from None
    return LangChainSummarizer(model)
