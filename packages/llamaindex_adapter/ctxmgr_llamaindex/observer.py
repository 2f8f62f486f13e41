"""What the model was really sent and what it reported, read from LlamaIndex's events.

A memory sees only its own part of a prompt: a chat engine wraps it in its system
prompt, the retrieved context and the question, and an agent's model reports the
input tokens it counted only in its response. LlamaIndex announces every chat call
on its instrumentation dispatcher (``LLMChatStartEvent`` with the messages,
``LLMChatEndEvent`` with the response). When a :class:`ContextMemory` serves a
prompt it says so in a context variable, for the model call that follows in the
same task; one event handler, registered once, then

* compares the messages the model received with those the memory served, and hands
  the difference to the engine (:meth:`~ctxmgr.session.SessionEngine.observe`): the
  largest is counted in every later call (a call whose messages do not hold what was
  served, such as a chat engine condensing the question, is not one to learn from);
* gives the engine the input tokens the provider reported, for calibration against
  what the model received, counted (:meth:`~ctxmgr.session.SessionEngine.received_tokens`:
  the messages of the event, and the tool schemas an agent step sent beside them).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ctxmgr import Message
from ctxmgr_llamaindex.convert import LlamaIndexConverter
from ctxmgr_llamaindex.tools import BoundMemory

try:
    from llama_index.core.instrumentation import get_dispatcher
    from llama_index.core.instrumentation.event_handlers import BaseEventHandler
    from llama_index.core.instrumentation.events import BaseEvent
    from llama_index.core.instrumentation.events.llm import LLMChatEndEvent, LLMChatStartEvent
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["Served", "reported_input_tokens", "serving"]


@dataclass(slots=True, kw_only=True)
class Served:
    """A prompt a memory served, waiting for the model call it is sent with."""

    memory: BoundMemory
    expected: list[Message]
    """What the model is to receive of it, in ctxmgr's messages."""
    question: Message | None = None
    """A chat engine's question, sent with it but not in the memory yet."""
    prefix: int | None
    """Messages an agent sends before it (its system prompt), counted already; ``None``
    for a chat engine, whose additions are what is to be measured."""
    overhead: int = 0
    """Tokens sent beside the messages (an agent step's tool schemas)."""
    sent_tokens: int | None = None
    """What the model received, counted (once its start event was seen)."""
    reported: bool = False


_SERVED: ContextVar[Served | None] = ContextVar("ctxmgr_llamaindex_served", default=None)


def serving(served: Served) -> None:
    """Announce ``served`` to the next model call of this task."""
    _SERVED.set(served)


def reported_input_tokens(response: Any) -> int | None:
    """The input tokens a provider reported in a LlamaIndex ``ChatResponse``, if any
    (OpenAI's ``prompt_tokens``, Anthropic's ``input_tokens``, in ``additional_kwargs``
    or in the raw response's ``usage``)."""
    places: list[Any] = [getattr(response, "additional_kwargs", None)]
    raw = getattr(response, "raw", None)
    usage = raw.get("usage") if isinstance(raw, Mapping) else getattr(raw, "usage", None)
    places.append(usage)
    for place in places:
        for name in ("prompt_tokens", "input_tokens"):
            value = place.get(name) if isinstance(place, Mapping) else getattr(place, name, None)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return None


class _Observer(BaseEventHandler):
    """The one handler: routes chat events to the memory that served the prompt."""

    @classmethod
    def class_name(cls) -> str:
        return "CtxmgrObserver"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        served = _SERVED.get()
        if served is None:
            return
        if isinstance(event, LLMChatStartEvent):
            _measure(served, event.messages)
        elif isinstance(event, LLMChatEndEvent) and not served.reported:
            _report(served, event.response)


def _measure(served: Served, chats: list[Any]) -> None:
    memory = served.memory
    sent = LlamaIndexConverter(served.expected).from_llamaindex(chats)
    engine = memory.engine
    if served.prefix is None:  # a chat engine: what it added beside the memory
        present = {id(m) for m in sent}
        if not all(id(m) in present for m in served.expected):
            return  # not the call this prompt went to (a question being condensed)
        expected = [*served.expected, *([served.question] if served.question else [])]
        memory.apply(engine.observe(memory.session_state, expected=expected, sent=sent,
                                    store=memory.store, session=memory.session))
    served.sent_tokens = engine.received_tokens(sent, memory.session_state,
                                                store=memory.store, session=memory.session,
                                                overhead=served.overhead)


def _report(served: Served, response: Any) -> None:
    reported = reported_input_tokens(response)
    if reported is None or served.sent_tokens is None:
        return
    served.reported = True
    memory = served.memory
    memory.apply(memory.engine.usage(memory.session_state, reported, served.sent_tokens))


get_dispatcher().add_event_handler(_Observer())
