"""Scopes: each agent of a thread compresses, searches and writes memos in its own session."""

from __future__ import annotations

from builders import C, group, system, user

from ctxmgr import AutoContextConfig, InMemoryStore, Message, Tuning
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.session import Scope, SessionEngine, Turn, agent_session_label
from ctxmgr.store import Namespace, delete_session


def engine(**settings: object) -> SessionEngine:
    config = AutoContextConfig(max_tokens=8000, project="p", memo=True,
                               tuning=Tuning(min_compression_tokens=500,
                                             cached_token_price=None))
    return SessionEngine(config.evolve(**settings), counter=C)


def history(agent: str, n: int = 30) -> list[Message]:
    h = [system(), user(f"{agent}: fix the bug in module.py", id="u0")]
    for k in range(n):
        h += group(f"{agent}{k}", 1500, command=f"cat {agent}_file_{k}.py")
    return h


def compressed(e: SessionEngine, scope: Scope, store: InMemoryStore,
               agent: str = "alice") -> tuple[Turn, str]:
    turn = e.prepare(history(agent), None, store=store, session=scope)
    marker = next(m for m in map(CompressedMarker.of, turn.prompt) if m is not None)
    return turn, marker.offload_id


def test_an_agent_named_in_a_thread_gets_its_own_session_under_it() -> None:
    e = engine()
    assert e.scope("t") == Scope(session="t", memos="t", thread="t")
    alice = e.scope("t", "alice")
    assert alice.session == alice.memos == agent_session_label("t", "alice")
    assert alice.thread == "t" and alice.agent == "alice"


def test_an_agent_reloads_and_searches_its_own_offloads_never_a_peers() -> None:
    e, store = engine(), InMemoryStore()
    alice, bob = e.scope("t", "alice"), e.scope("t", "bob")
    turn, offload_id = compressed(e, alice, store)

    mine = e.reload({"uuid": offload_id}, turn.messages, turn.state, store=store,
                    session=alice)
    theirs = e.reload({"uuid": offload_id}, [], None, store=store, session=bob)
    thread = e.reload({"uuid": offload_id}, [], None, store=store, session="t")
    assert "alice_file_0.py" in mine.text
    assert theirs.text.startswith("No messages found") and offload_id in theirs.text
    assert "alice_file_0.py" not in thread.text
    found = e.search({"query": "alice_file_0"}, [], None, store=store, session=bob)
    assert "alice_file_0.py" not in found.text


def test_memos_are_each_agents_own_unless_the_team_shares_them() -> None:
    for team, bob_reads in ((False, False), (True, True)):
        e, store = engine(team_memos=team), InMemoryStore()
        alice, bob = e.scope("t", "alice"), e.scope("t", "bob")
        e.memo({"action": "write", "key": "plan", "content": "ship friday",
                "summary": "the plan"}, [],
               store=store, session=alice)
        read = e.memo({"action": "read", "key": "plan"}, [], store=store, session=bob)
        assert ("ship friday" in read.text) is bob_reads
        assert alice.session != bob.session  # offloads stay apart either way
        assert (alice.memos == bob.memos == "t") is team


def test_without_agent_sessions_every_agent_of_a_thread_shares_the_threads() -> None:
    e, store = engine(agent_sessions=False), InMemoryStore()
    alice, bob = e.scope("t", "alice"), e.scope("t", "bob")
    assert alice == bob == Scope.of_thread("t")
    turn, offload_id = compressed(e, alice, store)
    assert "alice_file_0.py" in e.reload({"uuid": offload_id}, [], None, store=store,
                                         session=bob).text


def test_agents_of_a_shared_history_share_its_offloads_and_keep_their_memos() -> None:
    e = engine()
    member = e.scope("t", "writer", shared_history=True)
    assert member.session == "t" and member.memos == agent_session_label("t", "writer")


def test_deleting_a_thread_deletes_the_sessions_of_its_agents() -> None:
    e, store = engine(), InMemoryStore()
    alice = e.scope("t", "alice")
    compressed(e, alice, store)
    e.memo({"action": "write", "key": "plan", "content": "x", "summary": "x"}, [],
           store=store, session=alice)
    offloads = Namespace("p", alice.session, "offload")
    assert store.keys(offloads)

    removed = delete_session(store, project="p", session="t")
    assert removed > len(store.keys(offloads)) == 0
    assert store.keys(Namespace("p", alice.memos, "notes")) == []
