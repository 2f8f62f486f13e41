"""End to end with LlamaIndex's chat engines: SimpleChatEngine, ContextChatEngine and
CondensePlusContextChatEngine take ContextMemory as their memory, with nothing set by
hand: what an engine sends beside the memory is measured at the model.

The tau-bench conversations are replayed as chat (each user turn, answered with
the recorded assistant text of that turn) in a window small enough that the
memory compresses; every model call is checked as the agents' are.
"""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.chat_engine import (
    CondensePlusContextChatEngine,
    ContextChatEngine,
    SimpleChatEngine,
)
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llamaindex_agents import PromptChecker
from planted import SessionSpec, generate_session

from ctxmgr import InMemoryStore, Message
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr.messages import text_message
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_llamaindex import ContextMemory, from_llamaindex
from ctxmgr_llamaindex.testing import RecordedRun, ScriptedLLM

BUDGET = 2600
POLICY = "Baggage: one free checked bag for gold members, two for platinum."


def chat_only(trajectory: Trajectory) -> tuple[Trajectory, list[str], list[str]]:
    """The conversation as a chat: user turns and the assistant's text of each turn."""
    rec = RecordedRun.from_messages(trajectory.messages)
    users = [m.text for m in rec.turns]
    answers = ["\n".join(a.text for a in turn if a.text) or "(no answer)"
               for turn in rec.answers]
    messages: list[Message] = [text_message("system", rec.system_prompt or "")]
    for k, (u, a) in enumerate(zip(users, answers, strict=True)):
        messages += [text_message("user", u, id=f"u{k}"), text_message("assistant", a, id=f"a{k}")]
    chat = Trajectory(id=f"chat-{trajectory.id}", source="", messages=tuple(messages), raw=())
    return chat, users, answers


def tau(runs: list[Trajectory]) -> list[Trajectory]:
    return [t for t in runs if t.id.startswith("tau")]


def test_simple_chat_engine_conversations_stay_in_budget_and_reload_exactly(
        fixture_trajectories: list[Trajectory]) -> None:
    compressed = 0
    for trajectory in tau(fixture_trajectories):
        chat, users, answers = chat_only(trajectory)
        system = chat.messages[0].text
        memory = ContextMemory.from_defaults(max_tokens=BUDGET, store=InMemoryStore())
        checker = PromptChecker(memory, chat)
        llm = ScriptedLLM(answers, on_call=checker)
        checker.llm = llm
        engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory, system_prompt=system)
        for u, a in zip(users, answers, strict=True):
            assert str(engine.chat(u)) == a
        assert checker.calls == len(users)
        compressed += checker.compressed_calls
        assert [m.content for m in engine.chat_history][-1] == answers[-1]
    assert compressed >= 5  # the checks saw compressed prompts (edits the window does not
    # need wait until they pay back, so short conversations compress late or never)


class PolicyRetriever(BaseRetriever):
    """Always retrieves the one policy paragraph."""

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [NodeWithScore(node=TextNode(text=POLICY), score=1.0)]


def test_condense_plus_context_chat_engine_conversations_stay_in_budget(
        fixture_trajectories: list[Trajectory]) -> None:
    compressed = 0
    for trajectory in tau(fixture_trajectories)[:6]:
        chat, users, answers = chat_only(trajectory)
        # beside the memory: the policy, the context template, the retrieved text, the question
        memory = ContextMemory.from_defaults(max_tokens=3000, store=InMemoryStore())
        checker = PromptChecker(memory, chat, match="text")
        llm = ScriptedLLM(answers, on_call=checker)
        checker.llm = llm
        engine = CondensePlusContextChatEngine.from_defaults(
            PolicyRetriever(), llm=llm, memory=memory, system_prompt=chat.messages[0].text)

        async def converse(engine: CondensePlusContextChatEngine, users: list[str]
                           ) -> list[str]:
            return [str(await engine.achat(u)) for u in users]

        assert asyncio.run(converse(engine, users)) == answers
        compressed += checker.compressed_calls
        assert len(llm.completions) == len(users) - 1  # each later question was condensed
    assert compressed > 3


def build_log(turn: int) -> str:
    lines = [f"[{turn:02d}:{n:02d}] compiling module_{n}.c ... ok" for n in range(40)]
    return "\n".join([*lines, f"[{turn:02d}:40] error: undefined reference to 'init_{turn}'"])


class LinkerDocs(BaseRetriever):
    """Retrieves a page of documentation, as large as a typical retrieved chunk."""

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        text = "Linker docs: " + "the linker resolves symbols in link order. " * 40
        return [NodeWithScore(node=TextNode(text=text), score=1.0)]


@pytest.mark.parametrize("engine_cls", [ContextChatEngine, CondensePlusContextChatEngine])
def test_retrieval_chat_engines_need_no_hand_set_overhead(engine_cls: type) -> None:
    """A memory sized from the model's window leaves the engine room for its system
    prompt, the retrieved text and the question: it measures them at the model. (With
    the memory filling its budget, LlamaIndex raised ``Chunk size -219 is not positive``
    from turn 5 on.)"""
    sent: list[int] = []
    llm = ScriptedLLM(on_call=lambda prompt, tools: sent.append(
        memory.counter.count_messages(from_llamaindex(prompt))))
    memory = ContextMemory.from_defaults(llm=llm, store=InMemoryStore())
    engine = engine_cls.from_defaults(LinkerDocs(), llm=llm, memory=memory,
                                      system_prompt="You are a build engineer.")
    for k in range(25):
        engine.chat(f"Build {k} failed:\n{build_log(k)}\nWhat is wrong?")
    assert len(engine.chat_history) < 50  # every turn answered, the history compressed
    assert max(sent) <= llm.metadata.context_window - llm.metadata.num_output
    assert any(find_offload_ids(m.content or "") for m in memory.get_all())


@pytest.mark.parametrize("engine_cls", [ContextChatEngine, CondensePlusContextChatEngine])
def test_retrieval_chat_engines_keep_room_for_their_synthesizer_when_little_is_retrieved(
        engine_cls: type) -> None:
    """The engines' response synthesizer keeps 500 tokens free beside the prompt and the
    answer; a memory that measured only a short retrieved paragraph beside it filled that
    room, and this chat raised ``Chunk size -27 is not positive`` before its 60th turn."""
    chat = generate_session(0, SessionSpec(kind="chat", user_turns=60, pastes=16))
    sent: list[int] = []
    llm = ScriptedLLM(on_call=lambda prompt, tools: sent.append(
        memory.counter.count_messages(from_llamaindex(prompt))))
    memory = ContextMemory.from_defaults(llm=llm, store=InMemoryStore())
    engine = engine_cls.from_defaults(PolicyRetriever(), llm=llm, memory=memory,
                                      system_prompt=chat.messages[0].text)
    for m in chat.messages:
        if m.role == "user":
            engine.chat(m.text)
    assert len(llm.received) == 60
    assert max(sent) <= llm.metadata.context_window - llm.metadata.num_output
    assert any(find_offload_ids(m.content or "") for m in memory.get_all())
