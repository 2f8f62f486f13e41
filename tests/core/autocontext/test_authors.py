"""Who said what survives compression: stand-ins keep their agent's name, and handoffs
between agents are never split or folded."""

from __future__ import annotations

from dataclasses import replace

from builders import C, call, result, system, user

from ctxmgr import AutoContextConfig, Message, Tuning, validate_pairing
from ctxmgr.autocontext.authors import author_of
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.pipeline import compress
from ctxmgr.autocontext.summarizers import ExtractiveSummarizer
from ctxmgr.store.memory import InMemoryStore


def named(m: Message, agent: str, fmt: str = "langchain") -> Message:
    return replace(m, extra={fmt: {"fields": {"name": agent}}})


def work(agent: str, n: int, fmt: str = "langchain", chars: int = 3000) -> list[Message]:
    """``n`` tool calls of one agent, its answers named as its framework names them."""
    out: list[Message] = []
    for k in range(n):
        key = f"{agent}{k}"
        out += [named(call(key, f"{key}.call", args={"command": f"cat {agent}_{k}.py"}),
                      agent, fmt),
                result(key, f"{key} output\n" + "x" * chars, f"{key}.result")]
    return out


def handoff(agent: str, to: str, key: str) -> list[Message]:
    return [named(call(key, f"{key}.call", name=f"transfer_to_{to}", args={}), agent),
            result(key, f"Successfully transferred to {to}", f"{key}.result")]


def squeeze(history: list[Message], **tuning: object) -> list[Message]:
    config = AutoContextConfig(max_tokens=8000, tuning=Tuning(
        min_compression_tokens=500, cached_token_price=None, **tuning))  # type: ignore[arg-type]
    out = compress(history, config=config, counter=C, offload=OffloadStore(InMemoryStore()),
                   summarizer=ExtractiveSummarizer())
    assert validate_pairing(out.messages) == []
    return out.messages


def stand_ins(messages: list[Message]) -> list[Message]:
    return [m for m in messages if CompressedMarker.of(m) is not None
            and CompressedMarker.of(m).range]  # type: ignore[union-attr]


def test_a_summary_of_one_agents_work_carries_its_name_in_its_format() -> None:
    for fmt in ("langchain", "openai"):
        history = [system(), user("fix it", "u0"), *work("alice", 30, fmt)]
        summaries = stand_ins(squeeze(history))
        assert summaries and all(author_of(m) == "alice" for m in summaries)
        assert all(m.extra[fmt]["fields"]["name"] == "alice" for m in summaries)


def test_a_summary_of_unnamed_work_names_no_one() -> None:
    history = [system(), user("fix it", "u0"), *work("x", 30)]
    history = [replace(m, extra={}) for m in history]
    summaries = stand_ins(squeeze(history))
    assert summaries and all(author_of(m) is None for m in summaries)


def test_handoffs_stay_whole_and_verbatim_between_the_agents_work() -> None:
    history = [system(), user("research, then write", "u0"), *work("alice", 14),
               *handoff("alice", "bob", "h1"), *work("bob", 14),
               *handoff("bob", "alice", "h2"), *work("alice", 14, chars=2000)]
    out = squeeze(history)
    kept = {m.id: m for m in out}
    for key in ("h1", "h2"):
        for mid in (f"{key}.call", f"{key}.result"):
            original = next(m for m in history if m.id == mid)
            assert kept.get(mid) == original, f"{mid} was split or folded"
    # the summaries on either side of a handoff are each one agent's, and say so
    authors = [author_of(m) for m in stand_ins(out)]
    assert authors and set(authors) <= {"alice", "bob"} and "bob" in authors


def test_without_handoff_tools_a_handoff_is_compressed_like_any_call() -> None:
    history = [system(), user("research, then write", "u0"), *work("alice", 14),
               *handoff("alice", "bob", "h1"), *work("bob", 14),
               *handoff("bob", "alice", "h2"), *work("alice", 14, chars=2000)]
    out = squeeze(history, handoff_tools=frozenset())
    assert "h1.call" not in {m.id for m in out}
