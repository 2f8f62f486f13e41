"""A compression's work is bounded by what its call holds, however long the chat before
it: counted, never timed, in what ctxmgr tokenizes and in how often the reader of the
user's words looks at a sentence (a long chat of short turns, the note rolling forward
on every call)."""

from __future__ import annotations

from typing import Any

from short_turns import chat

from ctxmgr import AutoContextConfig, InMemoryStore, Message, default_counter
from ctxmgr.autocontext.standing import statements_of, value_kinds
from ctxmgr.messages import text_message
from ctxmgr.session import SessionEngine
from ctxmgr.tokens.counters import CallableCounter

TURNS = 1200
TOKENIZED_PER_PROMPT_CHAR = 15
"""The note is built a few times while its size is searched, and each build is counted
whole: a note rebuilt for every place its range could end counts 25-50 times the prompt."""
READS_PER_STATEMENT = 10
"""Each statement is read, scored and weighed against the few that share something with
it: weighing every pair reads a statement as often as there are statements."""


def test_the_work_of_each_call_is_bounded_by_its_prompt_however_long_the_chat() -> None:
    tokenized = [0]
    tiktoken = default_counter()

    def count(text: str) -> int:
        tokenized[0] += len(text)
        return tiktoken.count_text(text)

    engine = SessionEngine(AutoContextConfig(max_tokens=2000),
                           counter=CallableCounter(count, name="counting"))
    store = InMemoryStore()
    history: list[Message] = []
    state: dict[str, Any] = {}
    compressed = 0
    for turn in chat(TURNS, seed=3):
        history.append(text_message("user", turn.user, id=turn.user_id))
        chars_before, reads_before = tokenized[0], _reads()
        prepared = engine.prepare(history, state, store=store, session="chat",
                                  persisted=lambda _: True)
        chars = tokenized[0] - chars_before
        reads = _reads() - reads_before
        prompt_chars = sum(len(m.text) for m in prepared.prompt)
        statements = sum(len(statements_of(m)) for m in prepared.prompt if m.role == "user")
        assert chars <= TOKENIZED_PER_PROMPT_CHAR * max(prompt_chars, 500), len(history)
        assert reads <= READS_PER_STATEMENT * max(statements, 20), len(history)
        compressed += bool(prepared.events)
        state = prepared.state
        history = [*prepared.messages, text_message("assistant", turn.answer,
                                                    id=turn.answer_id)]
    assert compressed > TURNS // 3  # the window is full: the note rolls on and on
    assert len(history) < 200  # what was compressed left the history (bounded by the window)


def _reads() -> int:
    """How often the reader has asked what values a sentence holds (it asks for every
    sentence it reads and every pair it weighs)."""
    info = value_kinds.cache_info()
    return int(info.hits + info.misses)
