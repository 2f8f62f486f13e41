"""Test doubles: a recorded agent run replayed through a real LlamaIndex agent, offline.

:class:`ScriptedLLM` is LlamaIndex's ``MockFunctionCallingLLM`` answering with
the recorded assistant messages in order (tool calls as ``ToolCallBlock`` s) and
remembering every prompt it was sent. :class:`RecordedRun` splits a recording
into what a real agent needs: the system prompt, the user turns, the answers of
each turn and tools that return the recorded outputs. The examples, the demo,
the tests and the benchmark drive ``FunctionAgent``, ``AgentWorkflow``,
``ReActAgent`` and the chat engines with it; only the model is fake.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxmgr import Message, TokenCounter
from ctxmgr.replay.recorded_tools import RecordedTools
from ctxmgr.session.kit import thaw
from ctxmgr_llamaindex.convert import from_llamaindex, to_llamaindex
from ctxmgr_llamaindex.tools import schema_model

try:
    from llama_index.core.base.llms.types import (
        ChatMessage,
        ChatResponse,
        ChatResponseAsyncGen,
        CompletionResponse,
        MessageRole,
    )
    from llama_index.core.bridge.pydantic import PrivateAttr
    from llama_index.core.llms import MockFunctionCallingLLM
    from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
    from llama_index.core.tools import FunctionTool, ToolMetadata
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["FINAL_ANSWER", "RecordedRun", "ScriptedLLM"]

FINAL_ANSWER = "The recorded run ends here."

Answer = ChatMessage | str | Callable[[list[ChatMessage]], ChatMessage]
"""A scripted answer: a message, its text, or a function of the prompt."""


class ScriptedLLM(MockFunctionCallingLLM):
    """Answers with the queued answers in order and records what it receives.

    When the queue is empty it answers :data:`FINAL_ANSWER` (no tool call), so an
    agent run ends. ``on_call(prompt, tools)`` is called before each answer (tests
    check their invariants there). With ``usage_counter`` it reports the input tokens of
    each chat call (times ``usage_ratio``) as OpenAI's integration does, in the
    response's ``additional_kwargs["prompt_tokens"]``.
    """

    _queue: deque[Answer] = PrivateAttr(default_factory=deque)
    _on_call: Callable[[list[ChatMessage], Sequence[Any]], None] | None = PrivateAttr(
        default=None)
    _received: list[list[ChatMessage]] = PrivateAttr(default_factory=list)
    _completions: list[str] = PrivateAttr(default_factory=list)
    _answered: int = PrivateAttr(default=0)
    _usage: tuple[TokenCounter, float] | None = PrivateAttr(default=None)
    _reported: list[int] = PrivateAttr(default_factory=list)

    def __init__(self, answers: Sequence[Answer] = (),
                 on_call: Callable[[list[ChatMessage], Sequence[Any]], None] | None = None,
                 *, usage_counter: TokenCounter | None = None, usage_ratio: float = 1.0,
                 **kwargs: Any) -> None:
        super().__init__(response_generator=self._answer, is_chat_model=True, **kwargs)
        self._queue: deque[Answer] = deque(answers)
        self._on_call = on_call
        self._received: list[list[ChatMessage]] = []
        self._usage = None if usage_counter is None else (usage_counter, usage_ratio)

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self._with_usage(super().chat(messages, **kwargs), messages, kwargs)

    @llm_chat_callback()
    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self._with_usage(await super().achat(messages, **kwargs), messages, kwargs)

    @llm_chat_callback()
    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any
                           ) -> ChatResponseAsyncGen:
        chunks = await super().astream_chat(messages, **kwargs)

        async def reported() -> ChatResponseAsyncGen:
            last = None
            async for chunk in chunks:
                if last is not None:
                    yield last
                last = chunk
            if last is not None:  # the usage comes with the stream's last chunk
                yield self._with_usage(last, messages, kwargs)

        return reported()

    def _with_usage(self, response: ChatResponse, messages: Sequence[ChatMessage],
                  kwargs: dict[str, Any]) -> ChatResponse:
        if self._usage is not None:
            counter, ratio = self._usage
            tools = kwargs.get("tools") or []
            schemas = sum(counter.count_text(json.dumps(t.metadata.to_openai_tool(),
                                                        sort_keys=True, ensure_ascii=False))
                          for t in tools)
            sent = counter.count_messages(from_llamaindex(list(messages))) + schemas
            response.additional_kwargs["prompt_tokens"] = round(sent * ratio)
            self._reported.append(round(sent * ratio))
        return response

    @property
    def reported(self) -> list[int]:
        """The input tokens reported for each chat call (with ``usage_counter``)."""
        return self._reported

    @property
    def received(self) -> list[list[ChatMessage]]:
        """Every prompt the model was sent, in order."""
        return self._received

    @property
    def answered(self) -> int:
        """Queued answers given so far (the :data:`FINAL_ANSWER` fallback not counted)."""
        return self._answered

    @property
    def completions(self) -> list[str]:
        """Every prompt of a ``complete`` call (e.g. a chat engine condensing a question)."""
        return self._completions

    def load(self, answers: Sequence[Answer]) -> None:
        """Queue the answers of the next turn (those left over are dropped)."""
        self._queue = deque(answers)

    def _answer(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        prompt = list(messages)
        self._received.append(prompt)
        if self._on_call is not None:
            self._on_call(prompt, kwargs.get("tools") or [])
        if self._queue:
            item = self._queue.popleft()
            self._answered += 1
        else:
            item = FINAL_ANSWER
        if isinstance(item, str):
            return ChatMessage(role=MessageRole.ASSISTANT, content=item)
        if isinstance(item, ChatMessage):
            return item.model_copy(deep=True)  # the agent may edit what it is given
        return item(prompt)


    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any
                 ) -> CompletionResponse:
        """Answers the prompt's last line (a chat engine's condensed question)."""
        self._completions.append(prompt)
        if self._on_call is not None:
            self._on_call([ChatMessage(role=MessageRole.USER, content=prompt)], [])
        lines = [line for line in prompt.strip().splitlines() if line.strip()]
        return CompletionResponse(text=lines[-1] if lines else "")

    @llm_completion_callback()
    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any
                        ) -> CompletionResponse:
        return self.complete(prompt, formatted=formatted, **kwargs)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedRun:
    """A recorded conversation, ready to replay through a LlamaIndex agent.

    Build it with :meth:`from_messages`; then ``run.llm(turn)`` answers as the
    recorded assistant did in that turn and ``run.tools()`` return the recorded outputs.
    """

    system_prompt: str | None
    turns: tuple[Message, ...]
    """The user message that starts each turn (one for a single-task run)."""
    answers: tuple[tuple[Message, ...], ...]
    """The recorded assistant messages of each turn, in order."""
    outputs: dict[tuple[str, str], tuple[str, ...]] = field(repr=False)
    """Recorded tool outputs by (tool name, canonical JSON arguments), in call order."""
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
        """Split a recording: system prompt, user turns, each turn's answers, tool outputs.

        Consecutive user messages are joined into one turn (a run starts with one).
        """
        system = [m for m in messages if m.role == "system"]
        turns: list[list[Message]] = []
        answers: list[list[Message]] = []
        first_turn = len(messages)
        for i, m in enumerate(messages):
            if m.role == "user" and not m.tool_results:
                if not turns or answers[-1]:
                    turns.append([])
                    answers.append([])
                    first_turn = min(first_turn, i)
                turns[-1].append(m)
            elif m.role == "assistant" and turns:
                answers[-1].append(m)
        recorded = RecordedTools.from_messages(messages[first_turn:])  # calls of the turns
        return cls(system_prompt="\n\n".join(m.text for m in system) or None,
                   turns=tuple(_joined(t) for t in turns),
                   answers=tuple(tuple(a) for a in answers),
                   outputs=recorded.outputs, arguments=recorded.arguments)

    def user_message(self, turn: int = 0) -> ChatMessage:
        """The user message that starts ``turn``."""
        return to_llamaindex([self.turns[turn]])[0]

    def answer_messages(self, turn: int = 0) -> list[ChatMessage]:
        """The recorded answers of ``turn``, tool calls as ``ToolCallBlock`` s."""
        return to_llamaindex(list(self.answers[turn]))

    def react_answers(self, turn: int = 0) -> list[str]:
        """The recorded answers of ``turn`` as ReAct text: one ``Action`` per tool call,
        a text answer as the final ``Answer``."""
        out: list[str] = []
        for m in self.answers[turn]:
            for use in m.tool_uses:
                args = json.dumps(thaw(use.input), ensure_ascii=False)
                thought = m.text.strip().replace("\n", " ")[:300] or f"I will use {use.name}."
                out.append(f"Thought: {thought}\nAction: {use.name}\nAction Input: {args}")
            if not m.tool_uses and m.text.strip():
                out.append(f"Thought: I can answer without using any more tools.\n"
                           f"Answer: {m.text.strip()}")
        return out

    def llm(self, turn: int = 0, **kwargs: Any) -> ScriptedLLM:
        """A :class:`ScriptedLLM` with the answers of ``turn`` queued."""
        return ScriptedLLM(self.answer_messages(turn), **kwargs)

    def tools(self) -> list[FunctionTool]:
        """One tool per recorded tool name; each call returns the recorded output of the
        same call (same name and arguments, in recorded order)."""
        replayers = RecordedTools(outputs=self.outputs, arguments=self.arguments).replayers()
        return [self._tool(name, replay) for name, replay in replayers.items()]

    def _tool(self, name: str, replay: Callable[..., str]) -> FunctionTool:
        # LangChain's recorded tool has this schema: one tool costs the same in either adapter
        schema = {"type": "object", "properties": {a: {} for a in self.arguments.get(name, ())}}
        return FunctionTool.from_defaults(fn=replay, tool_metadata=ToolMetadata(
            name=name, description=f"The recorded {name} tool.",
            fn_schema=schema_model(name, schema)))


def _joined(messages: Sequence[Message]) -> Message:
    if len(messages) == 1:
        return messages[0]
    first = messages[0]
    return Message(role="user", content=tuple(b for m in messages for b in m.content),
                   id=first.id)

