"""LlamaIndexSummarizer: any LlamaIndex LLM summarizes for AutoContextMemory."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.llms import MockLLM
from pydantic import PrivateAttr

from ctxmgr import AutoContextConfig, AutoContextMemory, validate_pairing
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_llamaindex.summarizer import LlamaIndexSummarizer


class RecordingLLM(MockLLM):
    """LlamaIndex's own mock, answering a fixed text and keeping what it was sent."""

    _answer: str = PrivateAttr(default="the summary")
    _prompts: list[list[ChatMessage]] = PrivateAttr(default_factory=list)

    @property
    def prompts(self) -> list[list[ChatMessage]]:
        return self._prompts

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        self._prompts.append(list(messages))
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT,
                                                content=self._answer))

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self.chat(messages, **kwargs)


def recording(answer: str = "the summary") -> RecordingLLM:
    llm = RecordingLLM()
    llm._answer = answer
    return llm


def test_the_instruction_is_the_system_message_and_the_messages_a_transcript(
        swe_trajectories: list[Trajectory]) -> None:
    llm = recording()
    run = swe_trajectories[0].messages[:6]
    assert LlamaIndexSummarizer(llm).summarize(run, "Keep the paths.") == "the summary"
    [prompt] = llm.prompts
    assert [m.role for m in prompt] == [MessageRole.SYSTEM, MessageRole.USER]
    assert prompt[0].content == "Keep the paths."
    call = next(b for m in run for b in m.tool_uses)
    assert call.name in (prompt[1].content or "") and call.id in (prompt[1].content or "")


def test_the_async_twin_awaits_the_llm(swe_trajectories: list[Trajectory]) -> None:
    llm = recording("async summary")
    text = asyncio.run(LlamaIndexSummarizer(llm).asummarize(swe_trajectories[0].messages[:4], "x"))
    assert text == "async summary" and len(llm.prompts) == 1


def test_autocontext_memory_compresses_a_real_run_with_a_llamaindex_llm(
        swe_trajectories: list[Trajectory]) -> None:
    llm = recording("LLM SUMMARY")
    run = max(swe_trajectories, key=lambda t: len(t.messages)).messages
    # summaries before the history notes (by default the run needs none)
    config = AutoContextConfig(max_tokens=16_000).evolve(history_notes_first=False)
    memory = AutoContextMemory(config, summarizer=LlamaIndexSummarizer(llm))
    memory.add(run)
    assert [e for e in memory.compress_if_needed() if e.status == "applied"] and llm.prompts
    assert any("LLM SUMMARY" in m.text for m in memory.messages)
    assert validate_pairing(memory.messages) == []
    assert memory.tokens < memory.config.trigger_tokens


def test_an_llm_given_as_the_memory_s_summarizer_summarizes() -> None:
    """The summarizer is chosen by the core's one rule in both adapters: a framework's own
    model is wrapped (here a LlamaIndex LLM, as LangGraph wraps a chat model)."""
    from llama_index.core.llms import MockLLM

    from ctxmgr import InMemoryStore
    from ctxmgr_llamaindex import ContextMemory

    memory = ContextMemory.from_defaults(max_tokens=8000, store=InMemoryStore(),
                                         summarizer=MockLLM())
    assert isinstance(memory.engine.summarizer, LlamaIndexSummarizer)
