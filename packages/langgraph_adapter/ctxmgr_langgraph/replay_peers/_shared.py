"""What the LangChain and langmem peers share: a conversion memo and the fake summary model.

Conversions are :mod:`ctxmgr_langgraph.convert`'s; :class:`LangChainBridge` only
remembers them for one trajectory, so a LangChain message a peer passes back
unchanged converts to the very neutral object it came from: its token count is
cached on it, and it compares identical for the prompt-cache metric. A message
the peer made or edited (a summary, a cleared tool result) is converted once and
reused for as long as it stays the same.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any, cast

from ctxmgr import Message, TokenCounter
from ctxmgr.replay.summarizer import FakeSummarizer
from ctxmgr_langgraph.convert import from_langchain, to_langchain

try:
    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, convert_to_messages
    from langchain_core.outputs import ChatGeneration, ChatResult
    from pydantic import ConfigDict
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f'the LangChain replay peers need LangChain: pip install ".[langgraph]" ({exc})'
    ) from exc

__all__ = ["FakeSummaryChatModel", "LangChainBridge", "summary_chat_model"]

_SCRATCH_SIZE = 512


def _key(lc: BaseMessage) -> tuple[str, str | None, str]:
    """Class, id and content: what tells messages apart cheaply (text is hashed as the
    string it is); messages sharing a key are then compared whole."""
    content = lc.content if isinstance(lc.content, str) else json.dumps(
        lc.content, sort_keys=True, default=repr)
    return (type(lc).__name__, lc.id, content)


class LangChainBridge:
    """Neutral -> LangChain for a peer's input, LangChain -> neutral for its prompt, with
    every conversion of one trajectory remembered (see the module docstring)."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._by_key: dict[tuple[str, str | None, str], list[tuple[BaseMessage, Message]]] = {}
        # Messages this bridge made, by identity, with the content object they had: a peer
        # that passes one back untouched gets its neutral original without building a key.
        # No peer edits a message in place (they copy: model_copy, deepcopy), so the
        # messages kept here stay what they were when converted.
        self._made: dict[int, tuple[BaseMessage, Any, Message]] = {}
        # Messages a peer builds only to count them (trim candidates, a summary it is
        # about to write): remembered in a small memo that is emptied when full.
        self._scratch: dict[tuple[str, str | None, str], list[tuple[BaseMessage, Message]]] = {}

    def reset(self) -> None:
        self._by_key.clear()
        self._made.clear()
        self._scratch.clear()

    def to_langchain(self, messages: Iterable[Message]) -> list[AnyMessage]:
        out: list[AnyMessage] = []
        for m in messages:
            converted = to_langchain([m])
            if len(converted) == 1:
                lc = converted[0]
                self._by_key.setdefault(_key(lc), []).append((lc, m))
                self._made[id(lc)] = (lc, lc.content, m)
            # cast: to_langchain builds the concrete classes AnyMessage unites
            out.extend(cast("list[AnyMessage]", converted))
        return out

    def to_neutral(self, lc: BaseMessage, *, remember: bool = True) -> Message:
        """The neutral form of ``lc`` (the original object when ``lc`` is unchanged)."""
        made = self._made.get(id(lc))
        if made is not None and made[0] is lc and made[1] is lc.content:
            return made[2]
        key = _key(lc)
        for known, m in (*self._by_key.get(key, ()), *self._scratch.get(key, ())):
            if known == lc:  # pydantic compares every field: an exact match
                return m
        [m] = from_langchain([lc])
        if remember:
            self._by_key.setdefault(key, []).append((lc, m))
        else:
            if len(self._scratch) >= _SCRATCH_SIZE:
                self._scratch.clear()
            self._scratch.setdefault(key, []).append((lc, m))
        return m

    def from_langchain(self, messages: Iterable[BaseMessage]) -> list[Message]:
        return [self.to_neutral(m) for m in messages]

    def count(self, messages: Iterable[Any]) -> int:
        """LangChain's ``token_counter``: the shared counter over the neutral forms.

        Messages a peer only builds to count them (trim candidates) go to a small
        scratch memo, so the main one holds what was actually in a prompt or a state.
        """
        msgs = messages if isinstance(messages, list) and all(
            isinstance(m, BaseMessage) for m in messages) else convert_to_messages(messages)
        count = self.counter.count
        return sum(count(self.to_neutral(m, remember=False)) for m in msgs)


class FakeSummaryChatModel(BaseChatModel):
    """A LangChain chat model that is the shared :class:`~ctxmgr.replay.FakeSummarizer`:
    every call counts the request with the shared token counter and answers what the
    summarizer answers (its fixed text, or a real model's reply)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    summarizer: Any
    """The :class:`~ctxmgr.replay.FakeSummarizer` behind this model."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        start = time.perf_counter()
        request = from_langchain(messages)
        tokens = self.summarizer.counter.count_messages(request)
        text = self.summarizer.record(tokens, started=start, request=request)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    @property
    def _llm_type(self) -> str:
        return "ctxmgr-fake-summarizer"


def summary_chat_model(summarizer: FakeSummarizer) -> FakeSummaryChatModel:
    """The shared summarizer as a LangChain chat model, for a peer's ``model=``."""
    return FakeSummaryChatModel(summarizer=summarizer)
