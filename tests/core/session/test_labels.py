"""session_label: every thread id gets its own store label, and plain ids keep theirs."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from ctxmgr.session import (
    NO_THREAD_SESSION,
    agent_session_label,
    session_label,
    split_agent_label,
)
from ctxmgr.store import Namespace

ALICE = "alice@example.com/chat 1"


def test_an_id_and_the_label_its_old_digest_gave_never_share_a_session() -> None:
    old_digest = "thread-" + hashlib.sha256(ALICE.encode()).hexdigest()[:32]

    assert session_label(ALICE) != session_label(old_digest)


def test_empty_missing_and_default_ids_get_three_sessions() -> None:
    labels = {session_label(""), session_label(None), session_label("default")}

    assert len(labels) == 3
    assert session_label(None) == NO_THREAD_SESSION == "__no-thread"
    assert session_label("") == "__"


def test_plain_ids_keep_their_label() -> None:
    for plain in ("default", "ticket-42", "thread-1", "a.b_c-d", "x" * 200, "_x", "-"):
        assert session_label(plain) == plain


def test_other_ids_are_escaped_readably() -> None:
    assert session_label("a b") == "__a_20b"
    assert session_label("__x") == "___5f_5fx"
    assert session_label(".") == "__."
    assert session_label(ALICE) == "__alice_40example.com_2fchat_201"


def test_ids_too_long_to_escape_get_the_full_digest() -> None:
    long_id = "é" * 100

    assert session_label(long_id) == "__sha256-" + hashlib.sha256(long_id.encode()).hexdigest()
    assert session_label("x" * 201) != session_label("x" * 202)


_IDS = st.one_of(
    st.none(),
    st.text(max_size=120),
    st.text(alphabet="ab_.-~ é", max_size=8),
    st.builds(lambda s: "__" + s, st.text(alphabet="abc_-.", max_size=8)),
    st.builds(lambda s: "__sha256-" + s, st.text(alphabet="0123456789abcdef", max_size=70)),
    st.sampled_from(["__no-thread", "", ".", "..", "__", "__.", "__..", "default"]),
    st.text(min_size=190, max_size=260),
)


@given(st.lists(_IDS, min_size=2, max_size=12, unique=True))
def test_distinct_ids_get_distinct_valid_labels(ids: list[str | None]) -> None:
    labels = [session_label(i) for i in ids]

    assert len(set(labels)) == len(ids)
    for label in labels:
        Namespace(project="p", session=label, kind="offload")  # a valid label


# --- an agent's session under its thread's ----------------------------------------------


def test_an_agent_session_names_its_thread_and_agent_readably() -> None:
    assert agent_session_label("ticket-42", "researcher") == "__ticket-42_-researcher"
    assert split_agent_label("__ticket-42_-researcher") == ("ticket-42", "researcher")
    assert agent_session_label("t", "équipe/rédaction") == "__t_-_c3_a9quipe_2fr_c3_a9daction"


def test_a_thread_whose_id_looks_like_an_agent_session_keeps_its_own() -> None:
    agent = agent_session_label("t", "a")

    assert session_label(agent) != agent
    assert session_label("t_-a") not in (agent, agent_session_label("t_", "a"))
    assert split_agent_label(session_label("__t_-a")) is None
    assert split_agent_label("ticket-42") is None


def test_agents_too_long_to_escape_get_a_digest_of_thread_and_agent() -> None:
    long_agent = agent_session_label("t", "x" * 300)

    assert long_agent.startswith("__sha256-")
    assert long_agent != agent_session_label("t", "x" * 301)
    assert long_agent != session_label("t" + "x" * 300)
    assert split_agent_label(long_agent) is None


_AGENTS = st.one_of(st.text(max_size=40), st.text(alphabet="_-a.", max_size=6),
                    st.text(min_size=150, max_size=220))


@given(st.lists(st.tuples(_IDS, st.one_of(st.none(), _AGENTS)), min_size=2, max_size=12,
                unique=True))
def test_distinct_thread_and_agent_pairs_get_distinct_valid_labels(
        pairs: list[tuple[str | None, str | None]]) -> None:
    labels = [session_label(t) if a is None else agent_session_label(session_label(t), a)
              for t, a in pairs]

    assert len(set(labels)) == len(pairs)
    for (thread, agent), label in zip(pairs, labels, strict=True):
        Namespace(project="p", session=label, kind="offload")  # a valid label
        split = split_agent_label(label)
        if agent is None:
            assert split is None
        elif split is not None:
            assert split == (session_label(thread), agent)
