"""What the LlamaIndex peers share: the shared counter as a tokenizer, the fake summary
LLM, and a base holding one memory per trajectory.

Conversions are :class:`ctxmgr_llamaindex.convert.LlamaIndexConverter`'s: LlamaIndex
memories serialise messages (SQL store) or rebuild them, so identity is lost on
the way back; the converter matches them on content and gives back the original
neutral object for every message the memory returns unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, cast

from ctxmgr import Message, TokenCounter
from ctxmgr.replay.policy import IncrementalPolicy, PolicyContext
from ctxmgr.session.kit import text_message
from ctxmgr_llamaindex.convert import LlamaIndexConverter, from_llamaindex

try:
    from llama_index.core.base.llms.types import (
        ChatMessage,
        ChatResponse,
        CompletionResponse,
        CompletionResponseGen,
        LLMMetadata,
        MessageRole,
    )
    from llama_index.core.bridge.pydantic import Field
    from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
    from llama_index.core.llms.custom import CustomLLM
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f'the LlamaIndex replay peers need LlamaIndex: pip install ".[llamaindex]" ({exc})'
    ) from exc

__all__ = ["FakeSummaryLLM", "LlamaIndexPolicyBase", "TokenizerFn"]


class TokenizerFn:
    """LlamaIndex's ``tokenizer_fn(text) -> list`` backed by the shared counter.

    The memories only take ``len()`` of the result, so a ``range`` of the count
    serves; counts are memoised per text (LlamaIndex recounts every message on
    every ``get``/``put``; tiktoken on the same strings again would only add noise
    to the peer's timing, which ctxmgr's per-message cache avoids too).
    """

    def __init__(self, counter: TokenCounter, max_entries: int = 200_000) -> None:
        self.counter = counter
        self._memo: dict[str, int] = {}
        self._max = max_entries

    def __call__(self, text: str) -> range:
        n = self._memo.get(text)
        if n is None:
            if len(self._memo) >= self._max:
                self._memo.clear()
            n = self._memo[text] = self.counter.count_text(text)
        return range(n)

    def as_llamaindex(self) -> Callable[[str], list[Any]]:
        """This tokenizer, typed as LlamaIndex's ``tokenizer_fn`` parameters are."""
        # cast: LlamaIndex annotates tokenizer_fn as returning a list, but its memories
        # only ever take len() of the result, so the range above serves (see class doc).
        return cast("Callable[[str], list[Any]]", self)


class FakeSummaryLLM(CustomLLM):
    """A LlamaIndex LLM that is the shared :class:`~ctxmgr.replay.FakeSummarizer`.

    ``chat`` counts the messages it was sent (as neutral messages, with the shared
    counter), ``complete`` counts the prompt text; both answer what the summarizer
    answers (its fixed text, or a real model's reply).
    """

    summarizer: Any = Field(default=None, exclude=True)
    """The :class:`~ctxmgr.replay.summarizer.FakeSummarizer` behind this LLM."""

    @classmethod
    def class_name(cls) -> str:
        return "CtxmgrFakeSummaryLLM"

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=1_000_000, num_output=1024, is_chat_model=True,
                           model_name="ctxmgr-fake-summarizer")

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        start = time.perf_counter()
        request = from_llamaindex(messages)
        tokens = self.summarizer.counter.count_messages(request)
        text = self.summarizer.record(tokens, started=start, request=request)
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text))

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        start = time.perf_counter()
        tokens = self.summarizer.counter.count_text(prompt)
        request = [text_message("user", prompt)]
        return CompletionResponse(text=self.summarizer.record(tokens, started=start,
                                                              request=request))

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        response = self.complete(prompt, formatted=formatted, **kwargs)

        def gen() -> CompletionResponseGen:
            yield CompletionResponse(text=response.text, delta=response.text)

        return gen()


class LlamaIndexPolicyBase(IncrementalPolicy):
    """What the LlamaIndex memory policies share: a converter, the shared counter as
    tokenizer, one memory per trajectory, and the prompt as system + ``get()``."""

    def __init__(self, context: PolicyContext) -> None:
        super().__init__(context)
        self.converter = LlamaIndexConverter()
        self.tokenizer = TokenizerFn(context.counter)
        self.llm = FakeSummaryLLM(summarizer=context.summarizer)

    def _new_memory(self) -> Any:
        raise NotImplementedError

    def reset(self) -> None:
        super().reset()
        self.converter.reset()
        self.memory = self._new_memory()

    def _prompt(self, messages: Sequence[ChatMessage]) -> tuple[Message, ...]:
        return (*self.system, *self.converter.from_llamaindex(messages))
