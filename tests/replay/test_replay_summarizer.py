"""The shared fake summarizer: fixed answer, counted input and output, and the chat
model and LLM the adapters build around it for their peers."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxmgr.messages import text_message
from ctxmgr.replay import FIXED_SUMMARY, FakeSummarizer
from ctxmgr.tokens import default_counter

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trajectories"


@pytest.fixture
def fake() -> FakeSummarizer:
    return FakeSummarizer(default_counter())


def test_the_fixed_answer_is_about_1200_characters() -> None:
    assert 1100 <= len(FIXED_SUMMARY) <= 1300


def test_summarize_counts_messages_and_instruction(fake: FakeSummarizer) -> None:
    msgs = [text_message("user", "hello " * 50), text_message("assistant", "ok")]
    assert fake.summarize(msgs, "Summarize.") == FIXED_SUMMARY
    c = fake.counter
    assert fake.usage.calls == 1
    assert fake.usage.input_tokens == c.count_messages(msgs) + c.count_text("Summarize.")
    assert fake.usage.output_tokens == c.count_text(FIXED_SUMMARY)


async def _asummarize(fake: FakeSummarizer) -> str:
    return await fake.asummarize([text_message("user", "x")], "y")


def test_asummarize_is_the_same_summarizer(fake: FakeSummarizer) -> None:
    import asyncio

    assert asyncio.run(_asummarize(fake)) == FIXED_SUMMARY
    assert fake.usage.calls == 1


def test_langchain_face_counts_what_it_was_sent(fake: FakeSummarizer) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import HumanMessage

    from ctxmgr_langgraph.replay_peers._shared import summary_chat_model

    model = summary_chat_model(fake)
    reply = model.invoke([HumanMessage(content="summarize this " * 30)])
    assert reply.content == FIXED_SUMMARY
    assert fake.usage.calls == 1 and fake.usage.input_tokens > 30


def test_llamaindex_face_counts_chat_and_complete(fake: FakeSummarizer) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.llms import ChatMessage

    from ctxmgr_llamaindex.replay_peers._shared import FakeSummaryLLM

    llm = FakeSummaryLLM(summarizer=fake)
    reply = llm.chat([ChatMessage(role="user", content="summarize this " * 30)])
    assert reply.message.content == FIXED_SUMMARY
    assert llm.complete("a prompt").text == FIXED_SUMMARY
    assert fake.usage.calls == 2
    assert fake.usage.input_tokens == (
        fake.counter.count_messages([text_message("user", "summarize this " * 30)])
        + fake.counter.count_text("a prompt"))


def test_a_real_chat_model_answers_every_policys_summary_requests(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``--summarizer provider:model``: the model's own answers become the summaries,
    and its input and output are counted like the fake's. (ctxmgr folds the history
    into notes first by default, with no summary: here its summaries come first.)"""
    monkeypatch.setenv("CTXMGR_HISTORY_NOTES_FIRST", "false")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    from ctxmgr.replay import load_trajectories, replay
    from ctxmgr.replay.summarizer import ModelSummarizer
    from ctxmgr.tokens import ApproximateCounter
    from ctxmgr_langgraph.summarizer import LangChainSummarizer

    answer = "MODEL SUMMARY: ran grep and sed, tests pass"
    model = GenericFakeChatModel(messages=iter(AIMessage(content=answer) for _ in range(500)))
    counter = ApproximateCounter()
    summarizer = ModelSummarizer(counter, LangChainSummarizer(model))
    runs = [t for t in load_trajectories([FIXTURES]) if "django-15738" in t.id]
    report = replay(runs, ["ctxmgr", "langchain_summarization"], budget=8000,
                    counter=counter, summarizer=summarizer)
    for name in ("ctxmgr", "langchain_summarization"):
        assert report.aggregate(name)["summarizer_calls"] > 0, name
    assert summarizer.usage.output_tokens == summarizer.usage.calls * counter.count_text(answer)
    assert summarizer.usage.input_tokens > summarizer.usage.calls * 100
