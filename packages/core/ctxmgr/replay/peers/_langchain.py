"""LangChain messages <-> neutral messages for replay, and the fake summary chat model.

Imported only by the LangChain and langmem peers (needs ``ctxmgr[langgraph]``).

The converter keeps a two-way map for one trajectory: a LangChain message it
made from a neutral one, still carrying the same id and content, converts back
to that very neutral object, so unchanged messages keep their cached token
count and compare identical for the prompt-cache metric; a message the peer
created or edited (a summary, a cleared tool result) is converted once and the
result reused for as long as it stays the same.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any, TypeAlias

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

from ctxmgr.messages import (
    ContentBlock,
    Message,
    OpaqueBlock,
    Role,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    thaw,
)
from ctxmgr.tokens import TokenCounter

__all__ = ["FakeSummaryChatModel", "LangChainConverter"]

_LcContent: TypeAlias = str | list[str | dict[str, Any]]
"""What a LangChain message's ``content`` holds: text, or a list of parts."""


def _content_key(content: Any) -> Any:
    if isinstance(content, str):
        return content
    return json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)


def _key(m: BaseMessage) -> tuple[Any, ...]:
    calls: Any = ()
    if isinstance(m, AIMessage) and m.tool_calls:
        calls = tuple((c.get("id"), c["name"], json.dumps(c["args"], sort_keys=True, default=str))
                      for c in m.tool_calls)
    return (m.type, m.id, _content_key(m.content), getattr(m, "tool_call_id", None), calls)


class LangChainConverter:
    """Neutral -> LangChain for the peer's input, LangChain -> neutral for its prompt."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._cache: dict[tuple[Any, ...], Message] = {}
        # The LangChain messages this converter made, by identity: a peer that passes one
        # back unchanged (same object, same content object) gets its neutral original
        # without rebuilding the content key. No peer here edits a message in place
        # (they copy: model_copy, deepcopy), so identity plus content is enough.
        self._made: dict[int, tuple[BaseMessage, Any, Message]] = {}

    def reset(self) -> None:
        self._cache.clear()
        self._made.clear()

    # --- neutral -> LangChain ------------------------------------------------------

    def to_langchain(self, m: Message) -> list[AnyMessage]:
        """One neutral message as LangChain messages (several tool results -> several)."""
        out: list[AnyMessage] = []
        if m.role == "tool" or m.tool_results:
            results = m.tool_results
            for k, r in enumerate(results):
                content: _LcContent = r.content if isinstance(r.content, str) else [
                    _part(b) for b in r.content]
                out.append(ToolMessage(content=content, tool_call_id=r.tool_use_id,
                                       id=m.id if k == 0 else f"{m.id}#{k}",
                                       status="error" if r.is_error else "success"))
            rest = [b for b in m.content if not isinstance(b, ToolResultBlock)]
            if rest:
                out.append(HumanMessage(content=_content(rest), id=f"{m.id}#text"))
            if len(out) == 1:
                self._remember(out[0], m)
            return out
        content = _content([b for b in m.content if not isinstance(b, ToolUseBlock)])
        lc: AnyMessage
        if m.role == "system":
            lc = SystemMessage(content=content, id=m.id)
        elif m.role == "user":
            lc = HumanMessage(content=content, id=m.id)
        else:
            calls = [{"name": b.name, "args": thaw(b.input), "id": b.id, "type": "tool_call"}
                     for b in m.tool_uses]
            lc = AIMessage(content=content, tool_calls=calls, id=m.id)
        self._remember(lc, m)
        return [lc]

    def _remember(self, lc: BaseMessage, m: Message) -> None:
        self._cache[_key(lc)] = m
        self._made[id(lc)] = (lc, lc.content, m)

    def to_langchain_all(self, messages: Iterable[Message]) -> list[AnyMessage]:
        return [lc for m in messages for lc in self.to_langchain(m)]

    # --- LangChain -> neutral ------------------------------------------------------

    def to_neutral(self, lc: BaseMessage, *, remember: bool = True) -> Message:
        """The neutral form of ``lc`` (the original object when ``lc`` is unchanged)."""
        made = self._made.get(id(lc))
        if made is not None and made[0] is lc and made[1] is lc.content:
            return made[2]
        key = _key(lc)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        m = _from_langchain(lc)
        if remember:
            self._cache[key] = m
        return m

    def to_neutral_all(self, messages: Iterable[BaseMessage]) -> list[Message]:
        return [self.to_neutral(m) for m in messages]

    def count(self, messages: Iterable[Any]) -> int:
        """LangChain ``token_counter``: the shared counter over the neutral forms.

        Messages the peer only builds while searching (trim candidates) are not
        remembered, so the map holds what was actually in a prompt or a state.
        """
        msgs = messages if isinstance(messages, list) and all(
            isinstance(m, BaseMessage) for m in messages) else convert_to_messages(messages)
        count = self.counter.count
        return sum(count(self.to_neutral(m, remember=False)) for m in msgs)


def _part(b: ContentBlock) -> dict[str, Any]:
    if isinstance(b, TextBlock):
        return {"type": "text", "text": b.text}
    if isinstance(b, OpaqueBlock):
        return thaw(b.data)
    raise AssertionError(f"unexpected block {b.type}")


def _content(blocks: Sequence[ContentBlock]) -> _LcContent:
    if all(isinstance(b, TextBlock) for b in blocks):
        return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))
    return [_part(b) for b in blocks]


def _blocks(content: Any) -> list[ContentBlock]:
    if isinstance(content, str):
        return [TextBlock(text=content)] if content else []
    out: list[ContentBlock] = []
    for part in content or ():
        if isinstance(part, str):
            out.append(TextBlock(text=part))
        elif isinstance(part, dict) and part.get("type") == "text" and isinstance(
                part.get("text"), str):
            out.append(TextBlock(text=part["text"]))
        else:
            out.append(OpaqueBlock(data=part if isinstance(part, dict) else {"value": part}))
    return out


def _from_langchain(lc: BaseMessage) -> Message:
    mid = lc.id or None
    kw: dict[str, Any] = {"id": mid} if mid else {}
    if isinstance(lc, ToolMessage):
        content = lc.content if isinstance(lc.content, str) else tuple(
            b for b in _blocks(lc.content) if isinstance(b, TextBlock | OpaqueBlock))
        block = ToolResultBlock(tool_use_id=lc.tool_call_id, content=content,
                                is_error=lc.status == "error")
        return Message(role="tool", content=(block,), **kw)
    if isinstance(lc, AIMessage):
        blocks = _blocks(lc.content)
        blocks.extend(ToolUseBlock(id=c.get("id") or "", name=c["name"], input=c["args"])
                      for c in lc.tool_calls)
        return Message(role="assistant", content=tuple(blocks), **kw)
    role: Role = "system" if lc.type == "system" else "user"
    return Message(role=role, content=tuple(_blocks(lc.content)), **kw)


class FakeSummaryChatModel(BaseChatModel):
    """A LangChain chat model that is the shared :class:`FakeSummarizer`.

    Every call counts the request with the shared token counter and answers the
    fixed summary text.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    summarizer: Any
    """The :class:`~ctxmgr.replay.summarizer.FakeSummarizer` behind this model."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        start = time.perf_counter()
        neutral = [_from_langchain(m) for m in messages]
        tokens = self.summarizer.counter.count_messages(neutral)
        text = self.summarizer.record(tokens, started=start, request=neutral)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    @property
    def _llm_type(self) -> str:
        return "ctxmgr-fake-summarizer"

