"""``--summarizer``: the built-in names, or ``provider:model`` for a real chat model."""

from __future__ import annotations

from typing import Any

from ctxmgr.cli._common import UsageError

__all__ = ["model_summarizer"]


def model_summarizer(spec: str, flag: str = "--summarizer") -> Any:
    """A summarizer backed by the chat model ``provider:model``, or one clear error line."""
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise UsageError(f'{flag} {spec} needs LangChain: pip install "ctxmgr[langgraph]" '
                         "plus the provider's package (e.g. langchain-openai)") from None
    try:
        model = init_chat_model(spec)
    except Exception as exc:  # provider packages raise many kinds of errors
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"cannot create summarizer {spec!r}: {first_line}") from None
    from ctxmgr_langgraph.summarizer import LangChainSummarizer

    return LangChainSummarizer(model)
