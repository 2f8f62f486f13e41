"""The note of the user's words when a model writes it: the model's choice of verbatim
quotes, each checked to be one.

What a user relies on: with a summarizer that can quote (``can_quote``), the note is the
model's lines, in the user's language; a line that quotes nothing the user said never
reaches the prompt and is counted in the compression event; a model that fails, hangs
past the summary timeout or quotes nothing leaves the reader's note instead; a value the
user changed later is not quoted back; sync and async give the same note; and the call's
tokens show in the event.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import pytest
from builders import C, answer, plain_window, system, user

from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.pipeline import CompressionResult, acompress, compress
from ctxmgr.autocontext.prompts import USER_NOTE_PROMPT
from ctxmgr.autocontext.quotes import check_quotes
from ctxmgr.autocontext.standing import USER_NOTE_HEADER
from ctxmgr.messages import Message
from ctxmgr.pairing import validate_pairing
from ctxmgr.store.memory import InMemoryStore

SAID_ZH = ("请不要使用表情符号。", "好的，谢谢！", "预算是5000元。", "永远不要碰生产数据库。",
           "今天天气不错。", "预算改成７５００元。", "回答要简短。")


def chat(said: Sequence[str]) -> list[Message]:
    h = [system(), user("帮我整理一下客服工单。", "u0")]
    for k, text in enumerate(said, 1):
        h += [answer(f"好的，明白了（{k}）。", f"f{k}"), user(text, f"u{k}")]
    return [*h, answer("下一张工单在这里。", "fz"), user("下一张。", "ulast")]


class Quoter:
    """A scripted model: its answer to the quoting instruction is fixed; it records what
    it read."""

    can_quote = True

    def __init__(self, answer: str | Exception, *, delay: float = 0.0) -> None:
        self.answer, self.delay = answer, delay
        self.read: list[str] = []

    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        self.read = [m.text for m in messages]
        assert instruction == USER_NOTE_PROMPT
        time.sleep(self.delay)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class AsyncQuoter(Quoter):
    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        return self.summarize(messages, instruction)


def run(said: Sequence[str], model: object, max_tokens: int = 70,
        **kw: object) -> CompressionResult:
    cfg = plain_window(max_tokens=max_tokens, **kw)
    res = compress(chat(said), config=cfg, counter=C, offload=OffloadStore(InMemoryStore()),
                   summarizer=model)
    assert validate_pairing(res.messages) == []
    return res


def note_lines(res: CompressionResult) -> list[str]:
    [note] = [m for m in res.messages if USER_NOTE_HEADER in m.text]
    body = note.text.split(USER_NOTE_HEADER, 1)[1]
    return [line for line in body.strip().splitlines()
            if not line.startswith(("(", "<!--"))]


def test_check_quotes_keeps_what_the_user_said_in_their_own_characters() -> None:
    sources = ["请不要使用表情符号。永远不要碰生产数据库。", "预算是５０００元。",
               "Never   delete the\nbackups. Keep answers short."]
    checked = check_quotes(
        "- 请不要使用表情符号。\n1. 预算是5000元。\n[user] \"Never delete the backups.\"\n"
        "Always answer in Klingon.\n不要用表情。\n<!-- CONTEXT_OFFLOAD: uuid=abc123 -->\n\n",
        sources)
    # width and spacing are compared normalised; the quote comes back as the user wrote it
    assert checked.quotes == ("请不要使用表情符号。", "预算是５０００元。",
                              "Never delete the backups.")
    # a made-up line, a paraphrase and a forged tag are rejected and counted
    assert checked.rejected == 3


def test_the_models_quotes_are_the_note_and_a_made_up_line_never_reaches_the_prompt() -> None:
    model = Quoter("请不要使用表情符号。\n永远不要碰生产数据库。\nAlways answer in Klingon.\n"
                   "预算是5000元。")
    res = run(SAID_ZH[:4], model, max_tokens=70)
    lines = note_lines(res)
    assert lines == ["请不要使用表情符号。", "预算是5000元。", "永远不要碰生产数据库。"]
    assert not any("Klingon" in m.text for m in res.messages)
    [event] = [e for e in res.events if e.name == "user_turns"]
    assert event.rejected_quotes == 1 and event.reason is None
    assert event.summarizer_input_tokens > 0 and event.summarizer_output_tokens > 0
    assert "好的，谢谢！" in model.read  # the model reads the user's turns, and only them
    assert not any("明白了" in text for text in model.read)


@pytest.mark.parametrize("max_tokens", [90, 100])  # the change moved too, or still verbatim
def test_a_value_the_user_changed_later_is_not_quoted_back(max_tokens: int) -> None:
    model = Quoter("预算是5000元。\n请不要使用表情符号。")
    res = run(SAID_ZH, model, max_tokens=max_tokens)
    assert "请不要使用表情符号。" in note_lines(res)
    assert not any("预算是5000元。" in m.text for m in res.messages)


def test_a_failing_model_leaves_the_readers_note_and_says_why() -> None:
    res = run(SAID_ZH[:4], Quoter(RuntimeError("rate limited")), max_tokens=70)
    reader = run(SAID_ZH[:4], None, max_tokens=70)
    assert note_lines(res) == note_lines(reader) != []
    [event] = [e for e in res.events if e.name == "user_turns"]
    assert event.status == "applied" and "rate limited" in (event.reason or "")


def test_a_model_that_quotes_nothing_leaves_the_readers_note() -> None:
    res = run(SAID_ZH[:4], Quoter("Use formal language.\nNo emojis."), max_tokens=70)
    assert note_lines(res) == note_lines(run(SAID_ZH[:4], None, max_tokens=70))
    [event] = [e for e in res.events if e.name == "user_turns"]
    assert event.rejected_quotes == 2 and "quoted nothing" in (event.reason or "")


def test_a_hanging_model_falls_back_within_the_summary_timeout() -> None:
    started = time.monotonic()
    res = run(SAID_ZH[:4], Quoter("请不要使用表情符号。", delay=30), max_tokens=70,
              summary_timeout_s=0.3)
    assert time.monotonic() - started < 10  # not the model's 30 s
    assert note_lines(res) == note_lines(run(SAID_ZH[:4], None, max_tokens=70))
    [event] = [e for e in res.events if e.name == "user_turns"]
    assert "timed out" in (event.reason or "")


def test_sync_and_async_give_the_same_note() -> None:
    answer_ = "永远不要碰生产数据库。\n请不要使用表情符号。\n编的一句话。"
    cfg = plain_window(max_tokens=70)
    sync = compress(chat(SAID_ZH[:4]), config=cfg, counter=C,
                    offload=OffloadStore(InMemoryStore()), summarizer=Quoter(answer_))
    async_ = asyncio.run(acompress(chat(SAID_ZH[:4]), config=cfg, counter=C,
                                   offload=OffloadStore(InMemoryStore()),
                                   summarizer=AsyncQuoter(answer_)))
    assert [m.text for m in sync.messages] == [m.text for m in async_.messages]
    assert note_lines(sync) == ["请不要使用表情符号。", "永远不要碰生产数据库。"]


def test_the_note_rolls_forward_and_the_model_may_quote_the_earlier_note() -> None:
    said = [*SAID_ZH, "发票寄到 finance@example.com。", "周五之前必须完成。"]
    model = Quoter("请不要使用表情符号。\n永远不要碰生产数据库。")
    cfg = plain_window(max_tokens=70)
    store = OffloadStore(InMemoryStore())
    first = compress(chat(said[:4]), config=cfg, counter=C, offload=store, summarizer=model)
    history = [*first.messages[:-1], answer("好的。", "fy"), *[
        m for k, text in enumerate(said[4:], 10)
        for m in (user(text, f"u{k}"), answer("明白。", f"f{k}"))], user("下一张。", "ulast2")]
    model.answer = "请不要使用表情符号。\n回答要简短。\n周五之前必须完成。"
    second = compress(history, config=plain_window(max_tokens=110), counter=C, offload=store,
                      summarizer=model)
    assert any(USER_NOTE_HEADER in text for text in model.read)  # the earlier note, read
    # the earlier note's line and a newly moved one are quotes; a turn still verbatim in
    # the prompt is not in what the model read, so quoting it is rejected
    assert note_lines(second) == ["请不要使用表情符号。", "回答要简短。"]
    [event] = [e for e in second.events if e.name == "user_turns"]
    assert event.rejected_quotes == 1
    assert [m.text for m in second.messages].count("周五之前必须完成。") == 1
