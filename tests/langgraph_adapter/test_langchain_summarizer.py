"""LangChainSummarizer: any LangChain chat model summarizes for AutoContextMemory."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage

from ctxmgr import AutoContextConfig, AutoContextMemory, validate_pairing
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_langgraph.summarizer import LangChainSummarizer


class Prompts(BaseCallbackHandler):
    """Records what the chat model was sent."""

    def __init__(self) -> None:
        self.prompts: list[list[BaseMessage]] = []

    def on_chat_model_start(self, serialized: dict[str, Any],
                            messages: list[list[BaseMessage]], **kwargs: Any) -> None:
        self.prompts.extend(messages)


def model(answer: str, seen: Prompts) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(AIMessage(content=answer) for _ in range(100)),
                                callbacks=[seen])


def test_the_instruction_is_the_system_message_and_the_messages_a_transcript(
        swe_trajectories: list[Trajectory]) -> None:
    seen = Prompts()
    run = swe_trajectories[0].messages[:6]
    text = LangChainSummarizer(model("the summary", seen)).summarize(run, "Keep the paths.")
    assert text == "the summary"
    [prompt] = seen.prompts
    assert [m.type for m in prompt] == ["system", "human"]
    assert prompt[0].content == "Keep the paths."
    call = next(b for m in run for b in m.tool_uses)
    assert call.name in prompt[1].content and call.id in prompt[1].content


def test_an_empty_instruction_or_transcript_never_sends_an_empty_message() -> None:
    """Some providers (Anthropic) refuse empty messages with a 400."""
    seen = Prompts()
    LangChainSummarizer(model("ok", seen)).summarize([], "  ")
    [prompt] = seen.prompts
    assert [m.type for m in prompt] == ["human"]
    assert prompt[0].content == "(no messages)"


def test_the_async_twin_awaits_the_model(swe_trajectories: list[Trajectory]) -> None:
    seen = Prompts()
    summarizer = LangChainSummarizer(model("async summary", seen))
    text = asyncio.run(summarizer.asummarize(swe_trajectories[0].messages[:4], "x"))
    assert text == "async summary" and len(seen.prompts) == 1


def test_autocontext_memory_compresses_a_real_run_with_a_chat_model(
        swe_trajectories: list[Trajectory]) -> None:
    seen = Prompts()
    run = max(swe_trajectories, key=lambda t: len(t.messages)).messages
    # summaries before the history notes (by default the run needs none)
    config = AutoContextConfig(max_tokens=16_000).evolve(history_notes_first=False)
    memory = AutoContextMemory(config,
                               summarizer=LangChainSummarizer(model("MODEL SUMMARY", seen)))
    memory.add(run)
    events = memory.compress_if_needed()
    applied = [e for e in events if e.status == "applied"]
    assert applied and seen.prompts
    assert any("MODEL SUMMARY" in m.text for m in memory.messages)
    assert validate_pairing(memory.messages) == []
    assert memory.tokens < memory.config.trigger_tokens
