"""What the user asked for stays: 100-turn chats through LlamaIndex chat engines at 4k.

Generated support chats (held-out phrasings, a quarter of the turns pasted text;
twenty planted instructions, five changed later) go turn by turn through a real
``SimpleChatEngine`` or ``CondensePlusContextChatEngine`` (with a one-paragraph
retriever) holding a ``ContextMemory`` in a 4,000-token window; only the LLM is fake:
it answers with the session's own replies and records every prompt. On each prompt
the LLM receives, every instruction said so far is there, with the value it has at
that point; the prompt is within the budget, pairing is valid and every message sent
so far is in it or reloadable (:class:`PromptChecker`). The chats are about twice the
window, so the user's own turns go into the note of their words.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, LLMMetadata
from llama_index.core.chat_engine import CondensePlusContextChatEngine, SimpleChatEngine
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llamaindex_agents import PromptChecker
from planted import generate_session
from planted_instructions import CHAT, WINDOW, SurvivalCheck, known_loss
from profiles import LONG

from ctxmgr import AutoContextConfig, InMemoryStore
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_llamaindex import ContextMemory, from_llamaindex
from ctxmgr_llamaindex.testing import ScriptedLLM

HANDBOOK = "Support handbook: answer politely, one case at a time, and log every refund."


class Handbook(BaseRetriever):
    """A tiny knowledge base: always the one handbook paragraph."""

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [NodeWithScore(node=TextNode(text=HANDBOOK), score=1.0)]


class WindowLLM(ScriptedLLM):
    """The scripted LLM with a 4,000-token window, answers sized as ctxmgr reserves them
    (the engines size what they add by these)."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=WINDOW,
                           num_output=AutoContextConfig(max_tokens=WINDOW).reserve_tokens,
                           is_chat_model=True, is_function_calling_model=True)


def converse(engine_name: str, mode: str, seed: int) -> tuple[SurvivalCheck, PromptChecker]:
    """Every user turn of the chat of ``seed`` through a real chat engine (``chat`` or
    ``achat``), each prompt checked as it reaches the LLM."""
    s = generate_session(seed, CHAT)
    users = [m for m in s.messages if m.role == "user"]
    replies = [m.text for m in s.messages if m.role == "assistant"]
    survival = SurvivalCheck(s)
    memory = ContextMemory.from_defaults(max_tokens=WINDOW, store=InMemoryStore(),
                                         on_event=survival.on_event)
    checker = PromptChecker(memory, Trajectory(id=s.id, source="", messages=s.messages,
                                               raw=()),
                            match="exact" if engine_name == "simple" else "text")
    condensed = 0

    def on_call(prompt: list[ChatMessage], tools: Sequence[Any]) -> None:
        nonlocal condensed
        if len(llm.completions) > condensed:  # the engine condensing a question
            condensed += 1
            return
        checker(prompt, tools)
        survival(from_llamaindex(prompt))

    llm = WindowLLM(replies, on_call=on_call)
    checker.llm = llm
    system = s.messages[0].text
    engine = (SimpleChatEngine.from_defaults(llm=llm, memory=memory, system_prompt=system)
              if engine_name == "simple" else
              CondensePlusContextChatEngine.from_defaults(Handbook(), llm=llm, memory=memory,
                                                          system_prompt=system))

    async def achat_all() -> list[str]:
        answers = []
        for m in users:
            survival.said(m)
            answers.append(str(await engine.achat(m.text)))
        return answers

    def chat_all() -> list[str]:
        answers = []
        for m in users:
            survival.said(m)
            answers.append(str(engine.chat(m.text)))
        return answers

    assert (asyncio.run(achat_all()) if mode == "achat" else chat_all()) == replies
    assert survival.calls == checker.calls == len(users)
    return survival, checker


@pytest.mark.parametrize(("engine_name", "mode", "seed"), [
    pytest.param(engine, mode, seed, id=f"{engine}-{mode}-{seed}",
                 marks=known_loss("chat", seed))
    for engine, mode, seed in [("simple", "chat", 0), ("simple", "achat", 2),
                               ("condense", "chat", 3),
                               *([("simple", "chat", 1)] if LONG else [])]])
def test_a_chat_engine_at_4k_sends_every_instruction_as_it_stands_in_100_turns(
        engine_name: str, mode: str, seed: int) -> None:
    survival, _ = converse(engine_name, mode, seed)

    survival.assert_compressed()
    survival.assert_kept()


def test_the_check_flags_an_instruction_dropped_or_overruled_by_its_old_value() -> None:
    """The measure the chats above pass can fail: on the whole chat every item is kept;
    without the turn that first said an item it is missing; with a changed item's old
    turn after its change the old value has the last word."""
    s = generate_session(0, CHAT)
    check = SurvivalCheck(s)
    for m in s.messages:
        if m.role == "user":
            check.said(m)
    plain = next(i for i in s.items if not i.updated and len(i.message_ids) == 1)
    changed = next(i for i in s.items if i.updated)
    old = next(m for m in s.messages if m.id == changed.message_ids[0])

    check(s.messages)
    check([m for m in s.messages if m.id != plain.message_ids[0]])
    check([*[m for m in s.messages if m.id != old.id], old])

    assert [(x.call, x.item.key, bool(x.missing), bool(x.overruled))
            for x in check.losses] == [(2, plain.key, True, False),
                                       (3, changed.key, False, True)]
