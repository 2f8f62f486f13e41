"""LlamaIndex ``ChatMessage`` <-> neutral messages for replay, and the fake summary LLM.

Imported only by the LlamaIndex peers (needs ``ctxmgr[llamaindex]``).

Tool calls travel the way current LlamaIndex stores them: an assistant's calls
as ``ToolCallBlock`` blocks next to its text (what ``MockFunctionCallingLLM``
returns and what ``Memory`` knows to skip when it counts tokens), a tool
result's id in ``additional_kwargs["tool_call_id"]`` (as ``FunctionAgent``
writes it). Older integrations put OpenAI dicts in
``additional_kwargs["tool_calls"]``; those are read back too.

LlamaIndex memories serialise messages (SQL store) or rebuild them, so object
identity is lost on the way back; messages are matched on their content
instead: an unchanged message converts back to the original neutral object.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
    ToolCallBlock,
)
from llama_index.core.base.llms.types import TextBlock as LlamaTextBlock
from llama_index.core.bridge.pydantic import Field
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.custom import CustomLLM

from ctxmgr.messages import (
    ContentBlock,
    Message,
    Role,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    text_message,
    thaw,
)
from ctxmgr.replay.policy import IncrementalPolicy, PolicyContext
from ctxmgr.tokens import TokenCounter

__all__ = ["FakeSummaryLLM", "LlamaIndexConverter", "LlamaIndexPolicyBase", "TokenizerFn"]

_ROLE_OUT = {"system": MessageRole.SYSTEM, "user": MessageRole.USER,
             "assistant": MessageRole.ASSISTANT, "tool": MessageRole.TOOL}
_ROLE_IN: dict[str, Role] = {
    "system": "system", "developer": "system", "user": "user", "assistant": "assistant",
    "tool": "tool", "chatbot": "assistant", "model": "assistant", "function": "tool"}


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


def _role(msg: ChatMessage) -> Role:
    role = msg.role.value if isinstance(msg.role, MessageRole) else str(msg.role)
    return _ROLE_IN.get(role, "user")


def _calls(msg: ChatMessage) -> list[tuple[str, str, Any]]:
    """(id, name, arguments) of every tool call, from blocks or additional_kwargs."""
    out: list[tuple[str, str, Any]] = [(b.tool_call_id or "", b.tool_name, b.tool_kwargs)
                                       for b in msg.blocks if isinstance(b, ToolCallBlock)]
    for call in msg.additional_kwargs.get("tool_calls") or ():
        fn = call.get("function", {}) if isinstance(call, dict) else {}
        out.append((str(call.get("id", "")), str(fn.get("name", "")), fn.get("arguments")))
    return out


def _key(msg: ChatMessage) -> tuple[Any, ...]:
    calls = _calls(msg)
    return (_role(msg), msg.content, msg.additional_kwargs.get("tool_call_id"),
            json.dumps(calls, sort_keys=True, default=str) if calls else None)


class LlamaIndexConverter:
    """Neutral -> ``ChatMessage`` for the memory, ``ChatMessage`` -> neutral for the prompt."""

    def __init__(self) -> None:
        self._cache: dict[tuple[Any, ...], Message] = {}

    def reset(self) -> None:
        self._cache.clear()

    def to_llamaindex(self, m: Message) -> list[ChatMessage]:
        out: list[ChatMessage] = []
        fields = m.extra.get("openai", {}).get("fields", {})
        if m.tool_results:
            for r in m.tool_results:
                kw: dict[str, Any] = {"tool_call_id": r.tool_use_id}
                if "name" in fields:
                    kw["name"] = fields["name"]
                out.append(ChatMessage(role=MessageRole.TOOL, content=r.text,
                                       additional_kwargs=kw))
            if m.text:
                out.append(ChatMessage(role=MessageRole.USER, content=m.text))
        elif m.tool_uses:
            blocks: list[Any] = [LlamaTextBlock(text=m.text)] if m.text else []
            blocks += [ToolCallBlock(tool_call_id=b.id, tool_name=b.name,
                                     tool_kwargs=thaw(b.input)) for b in m.tool_uses]
            out.append(ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks))
        else:
            out.append(ChatMessage(role=_ROLE_OUT[m.role], content=m.text))
        if len(out) == 1:
            self._cache.setdefault(_key(out[0]), m)
        return out

    def to_llamaindex_all(self, messages: Iterable[Message]) -> list[ChatMessage]:
        return [c for m in messages for c in self.to_llamaindex(m)]

    def to_neutral(self, msg: ChatMessage) -> Message:
        key = _key(msg)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = from_llamaindex(msg)
        return hit

    def to_neutral_all(self, messages: Iterable[ChatMessage]) -> list[Message]:
        return [self.to_neutral(m) for m in messages]


def from_llamaindex(msg: ChatMessage) -> Message:
    """One ``ChatMessage`` as a neutral message (text, tool calls, tool result)."""
    role = _role(msg)
    kw = msg.additional_kwargs
    text = msg.content or ""
    if role == "tool":
        block = ToolResultBlock(tool_use_id=str(kw.get("tool_call_id", "")), content=text)
        return Message(role="tool", content=(block,))
    blocks: list[ContentBlock] = [TextBlock(text=text)] if text else []
    for call_id, name, raw in _calls(msg):
        if isinstance(raw, dict):
            args: Any = raw
        else:
            try:
                args = json.loads(raw or "{}")
            except json.JSONDecodeError:
                args = {"_raw": raw}
        blocks.append(ToolUseBlock(id=call_id, name=name,
                                   input=args if isinstance(args, dict) else {"_": args},
                                   raw_input=raw if isinstance(raw, str) else None))
    if not blocks:
        return text_message(role, "")
    return Message(role=role, content=tuple(blocks))


class FakeSummaryLLM(CustomLLM):
    """A LlamaIndex LLM that is the shared :class:`FakeSummarizer`.

    ``chat`` counts the messages it was sent (as neutral messages, with the shared
    counter), ``complete`` counts the prompt text; both answer the fixed summary.
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
        request = [from_llamaindex(m) for m in messages]
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

    def _new_memory(self) -> Any:
        raise NotImplementedError

    def reset(self) -> None:
        super().reset()
        self.converter.reset()
        self.memory = self._new_memory()

    def _prompt(self, messages: Sequence[ChatMessage]) -> tuple[Message, ...]:
        return (*self.system, *self.converter.to_neutral_all(messages))
