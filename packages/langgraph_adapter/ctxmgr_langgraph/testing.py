"""A recorded agent run replayed through a real LangGraph agent, offline.

:class:`ScriptedChatModel` is LangChain's ``GenericFakeChatModel`` that answers
with the recorded assistant messages in order (tool calls included), accepts
``bind_tools`` and remembers every prompt it was sent. :class:`RecordedRun`
splits a recording into what a real agent needs: the system prompt, the user
turns, the scripted model and tools that return the recorded outputs. The
demo, the examples and the tests drive ``create_agent``, ``create_react_agent``
and hand-built graphs with it; only the model is fake.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxmgr import Message, TokenCounter
from ctxmgr.replay.recorded_tools import RecordedTools
from ctxmgr_langgraph.convert import to_langchain

try:
    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import BaseTool, StructuredTool
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangChain: pip install ".[langgraph]"') from exc

__all__ = ["RecordedRun", "ScriptedChatModel"]

FINAL_ANSWER = "The recorded run ends here."


class ScriptedChatModel(GenericFakeChatModel):
    """Answers with the given messages in order and records what it receives.

    An item of ``messages`` is an ``AIMessage``, a string, or a function from the
    prompt to an ``AIMessage`` (an answer that depends on what the model was sent).

    After the last scripted answer it replies with a plain ``final_answer`` (no tool
    call), so an agent loop ends. ``bind_tools`` returns the model itself and keeps
    the tools in :attr:`bound_tools`.
    """

    messages: Iterator[Any]
    received: list[list[BaseMessage]] = Field(default_factory=list)
    """Every prompt the model was sent, in order."""
    bound_tools: list[Any] = Field(default_factory=list)
    """The tools of the latest ``bind_tools`` call."""
    final_answer: str = FINAL_ANSWER
    usage_counter: Any = None
    """A :class:`~ctxmgr.TokenCounter` used to report ``usage_metadata`` input tokens
    (times :attr:`usage_ratio`), as a provider with its own tokenizer would."""
    usage_ratio: float = 1.0
    on_call: Callable[[list[BaseMessage]], None] | None = None
    """Called with each prompt before it is answered (tests check invariants here)."""
    disable_streaming: bool = True  # the fake's stream drops tool calls

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        self.bound_tools = list(tools)
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        prompt = list(messages)
        self.received.append(prompt)
        if self.on_call is not None:
            self.on_call(prompt)
        item = next(self.messages, None)
        if item is None:
            answer = AIMessage(content=self.final_answer)
        elif isinstance(item, str):
            answer = AIMessage(content=item)
        elif isinstance(item, AIMessage):
            answer = item
        else:  # a function of the prompt: an answer that depends on what the model sees
            answer = item(prompt)
        if self.usage_counter is not None:
            tokens = self.usage_tokens(prompt)
            answer.usage_metadata = {"input_tokens": tokens, "output_tokens": 1,
                                     "total_tokens": tokens + 1}
        return ChatResult(generations=[ChatGeneration(message=answer)])

    def usage_tokens(self, prompt: Sequence[BaseMessage]) -> int:
        """What this model reports as input tokens for ``prompt`` and its bound tools."""
        from langchain_core.utils.function_calling import convert_to_openai_tool

        from ctxmgr_langgraph.convert import from_langchain

        counter: TokenCounter = self.usage_counter
        neutral = from_langchain([m if m.id else m.model_copy(update={"id": f"p{i}"})
                                  for i, m in enumerate(prompt)])
        tools = sum(counter.count_text(json.dumps(convert_to_openai_tool(t), sort_keys=True,
                                                  ensure_ascii=False, default=str))
                    for t in self.bound_tools)
        return round((counter.count_messages(neutral) + tools) * self.usage_ratio)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedRun:
    """A recorded conversation, ready to replay through an agent.

    Build it with :meth:`from_messages`; then ``run.model()`` answers as the recorded
    assistant did and ``run.tools()`` return the recorded outputs.
    """

    system_prompt: str | None
    turns: tuple[tuple[Message, ...], ...]
    """The user messages that start each turn (one turn for a single-task run)."""
    answers: tuple[Message, ...]
    """The recorded assistant messages, in order."""
    outputs: dict[tuple[str, str], tuple[Any, ...]] = field(repr=False)
    """Recorded tool outputs by (tool name, canonical JSON arguments), in call order."""
    tool_names: tuple[str, ...]
    arguments: dict[str, tuple[str, ...]] = field(repr=False)
    """Argument names seen per tool."""

    @staticmethod
    def bundled_messages() -> list[Message]:
        """The real coding-agent run ``ctxmgr demo`` replays (232 messages, MIT licence,
        shipped with ctxmgr): ``RecordedRun.from_messages(RecordedRun.bundled_messages())``."""
        from ctxmgr.demo import bundled_trajectory

        return bundled_trajectory()[1]

    @classmethod
    def from_messages(cls, messages: Sequence[Message]) -> RecordedRun:
        """Split a recording (system prompt, user turns, answers, tool outputs)."""
        system = [m for m in messages if m.role == "system"]
        turns: list[list[Message]] = []
        answers: list[Message] = []
        previous = None
        for m in messages:
            if m.role == "user":
                if previous != "user":
                    turns.append([])
                turns[-1].append(m)
            elif m.role == "assistant":
                answers.append(m)
            if m.role != "system":
                previous = m.role
        recorded = RecordedTools.from_messages(messages)
        return cls(system_prompt="\n\n".join(m.text for m in system) or None,
                   turns=tuple(tuple(t) for t in turns), answers=tuple(answers),
                   outputs=recorded.outputs, tool_names=tuple(sorted(recorded.arguments)),
                   arguments=recorded.arguments)

    def inputs(self, turn: int = 0) -> list[BaseMessage]:
        """The user messages of one turn, as LangChain messages (ids kept)."""
        return to_langchain(list(self.turns[turn]))

    def answer_messages(self, id_prefix: str = "answer") -> list[AIMessage]:
        """The recorded answers as ``AIMessage`` s with ids ``<prefix>-<n>``."""
        out: list[AIMessage] = []
        for n, m in enumerate(to_langchain(list(self.answers))):
            assert isinstance(m, AIMessage)
            out.append(m.model_copy(update={"id": f"{id_prefix}-{n}"}))
        return out

    def model(self, *, id_prefix: str = "answer", **kwargs: Any) -> ScriptedChatModel:
        """A fresh :class:`ScriptedChatModel` scripted with the recorded answers."""
        answers: Iterator[AIMessage | str] = iter(self.answer_messages(id_prefix))
        return ScriptedChatModel(messages=answers, **kwargs)

    def tools(self) -> list[BaseTool]:
        """One tool per recorded tool name; each call returns the recorded output of the
        same call (same name and arguments, in recorded order)."""
        replayers = RecordedTools(outputs=self.outputs, arguments=self.arguments).replayers()
        return [self._tool(name, replayers[name]) for name in self.tool_names]

    def _tool(self, name: str, replay: Callable[..., str]) -> BaseTool:
        schema = {"type": "object", "title": name,
                  "properties": {a: {} for a in self.arguments.get(name, ())}}
        return StructuredTool.from_function(replay, name=name, args_schema=schema,
                                            description=f"The recorded {name} tool.")

