"""An oversized argument of a call a ctxmgr tool refused is counted and shown as a short
placeholder; an accepted call, a refused call of ordinary size and a refused memo's
content are shown as they were made (the frameworks' runs are in
``tests/langgraph_adapter/test_refused_tool_arguments.py`` and ``test_tools.py`` of the
LlamaIndex adapter)."""

from __future__ import annotations

from builders import call, result, system, user

from ctxmgr import AutoContextConfig, InMemoryStore, Message, ToolUseBlock
from ctxmgr.session import SessionEngine
from ctxmgr.session.refused import ELIDED_ABOVE_CHARS, elide_refused

HUGE = "ab" * 100_000


def _args(messages: list[Message], cid: str) -> dict[str, object]:
    [use] = [b for m in messages for b in m.content
             if isinstance(b, ToolUseBlock) and b.id == cid]
    return dict(use.input)


def test_only_the_oversized_argument_of_a_refused_call_is_elided() -> None:
    history = [
        user("find the note", id="u0"),
        call("r1", "a1", name="context_reload", args={"uuid": HUGE, "page": 1}),
        result("r1", "Error: uuid is 200000 characters long; ...", id="t1"),
        call("s1", "a2", name="context_search", args={"query": "x" * 500}),
        result("s1", "Error: nothing is compressed yet", id="t2"),
        call("m1", "a3", name="memo", args={"action": "write", "key": "k" * 2000,
                                            "summary": "s", "content": HUGE}),
        result("m1", "Error: invalid memo key", id="t3"),
        call("h1", "a4", name="message_archiving",
             args={"action": "archive", "tool_use_ids": ["r1"], "summary": "y" * 2000}),
        result("h1", "Archived 1 tool result(s)", id="t4"),
    ]
    shown = elide_refused(history)

    assert _args(shown, "r1") == {
        "uuid": "[elided by ctxmgr: 200,000 characters, which context_reload refused]",
        "page": 1}
    assert _args(shown, "s1") == _args(history, "s1")  # refused, but not oversized
    memo = _args(shown, "m1")
    assert memo["key"] == "[elided by ctxmgr: 2,000 characters, which memo refused]"
    assert memo["content"] == HUGE  # the memo's own rule: sent again after the fix
    assert _args(shown, "h1") == _args(history, "h1")  # accepted
    changed = [h.id for m, h in zip(shown, history, strict=True) if m is not h]
    assert changed == ["a1", "a3"]
    assert ELIDED_ABOVE_CHARS == 1_000


def test_the_engine_counts_a_refused_oversized_call_as_its_placeholder() -> None:
    engine = SessionEngine(AutoContextConfig(max_tokens=8000, project="p"))
    history = [system(), user("find the note", id="u0"),
               call("r1", "a1", name="context_reload", args={"uuid": HUGE}),
               result("r1", "Error: uuid is 200000 characters long; ...", id="t1")]

    turn = engine.prepare(history, None, store=InMemoryStore(), session="s")

    assert turn.tokens < 1000 and not turn.events  # nothing to compress: it is not sent
    assert HUGE not in str(_args(turn.prompt, "r1"))
    assert turn.messages == history  # the history keeps the call as it was made
