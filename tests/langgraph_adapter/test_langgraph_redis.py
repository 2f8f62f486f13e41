"""The LangGraph adapter on Redis: ``create_agent`` with langgraph-checkpoint-redis's
``RedisSaver`` and ``RedisStore`` (a Valkey with the RedisJSON and RediSearch modules, one
per xdist worker: ``scripts/valkey.sh``), and workers in two processes writing memos to
one session, where memo writes hold a Redis lock key with a lease.

(The store contract on ``RedisStore`` is in ``test_langgraph_store.py``.)
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.checkpoint.redis import RedisSaver
from langgraph.store.redis import RedisStore
from memo_race import (
    assert_a_holder_elsewhere_blocks_until_it_goes,
    assert_every_memo_kept,
    assert_only_accepted_memos_stay,
    race,
    shared_memos,
)
from profiles import repeats

from ctxmgr import AutoContextConfig
from ctxmgr.autocontext import OffloadStore
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.store import Namespace
from ctxmgr.store.redis_lock import redis_lock_key
from ctxmgr_langgraph import ContextMiddleware, LangGraphStore
from ctxmgr_langgraph.testing import RecordedRun, ScriptedChatModel

PROJECT = "redis-agents"
WRITES = repeats(100, long=200)
"""Memos each process writes in a race (a RedisStore put is a search, a delete and a write:
100 keep the race under 10 s)."""


def text_of(message: BaseMessage) -> str:
    return message.text if isinstance(message.text, str) else str(message.content)


def call(name: str, **args: Any) -> AIMessage:
    return AIMessage(content="", id=f"ask-{name}",
                     tool_calls=[{"name": name, "args": args, "id": f"call-{name}"}])


def test_an_agent_resumes_from_redis_in_another_worker_and_its_offloads_reload(
        valkey_uri: str, swe_trajectories: list[Trajectory]) -> None:
    run = RecordedRun.from_messages(next(t for t in swe_trajectories
                                         if "pydicom-1256" in t.id).messages)
    thread = {"configurable": {"thread_id": "ticket-7"}, "recursion_limit": 1_000}
    config = AutoContextConfig(max_tokens=8_000, project=PROJECT)

    with RedisSaver.from_conn_string(valkey_uri) as saver, \
            RedisStore.from_conn_string(valkey_uri) as store:
        saver.setup()
        store.setup()
        first = create_agent(run.model(), run.tools(), system_prompt=run.system_prompt,
                             middleware=[ContextMiddleware(config)], checkpointer=saver,
                             store=store)
        done = first.invoke({"messages": run.inputs()}, thread)
        tags = sorted({i for m in done["messages"] for i in find_offload_ids(text_of(m))})
        assert tags, "the run was compressed"

    # another worker: new connections, a new agent; the model searches, then reloads
    def reload_first_tag(prompt: list[BaseMessage]) -> AIMessage:
        found = sorted({i for m in prompt for i in find_offload_ids(text_of(m))})
        return call("context_reload", uuid=found[0])

    model = ScriptedChatModel(messages=iter([call("context_search", query="pydicom"),
                                             reload_first_tag]))
    with RedisSaver.from_conn_string(valkey_uri) as saver, \
            RedisStore.from_conn_string(valkey_uri) as store:
        second = create_agent(model, run.tools(), system_prompt=run.system_prompt,
                              middleware=[ContextMiddleware(config)], checkpointer=saver,
                              store=store)
        resumed = second.invoke({"messages": [("user", "what did you change?")]}, thread)
        asked = max(i for i, m in enumerate(resumed["messages"]) if m.type == "human")
        answers = {m.name: text_of(m) for m in resumed["messages"][asked:]
                   if m.type == "tool"}
        offloads = OffloadStore(LangGraphStore(store), project=PROJECT, session="ticket-7")
        for offload_id in tags:  # every stand-in of the first worker reloads from Redis
            assert offloads.load(offload_id)
    # the history came from Redis: the first worker's task, then the new question
    humans = [m for m in resumed["messages"] if m.type == "human"]
    assert [m.id for m in humans[:1]] == [done["messages"][0].id]
    assert text_of(humans[-1]) == "what did you change?" and len(humans) >= 2
    assert "pydicom" in answers["context_search"].lower()
    assert answers["context_reload"].startswith("Reloaded"), answers["context_reload"]


_STORE = """
from langgraph.store.redis import RedisStore
from ctxmgr_langgraph import LangGraphStore
opened = RedisStore.from_conn_string({uri!r})  # held: it closes when collected
store = LangGraphStore(opened.__enter__())  # set up once, before the race (set_up)
"""


def set_up(uri: str) -> None:
    """The store's index, made once (two processes making it at once collide)."""
    with RedisStore.from_conn_string(uri) as base:
        base.setup()


@pytest.mark.parametrize("run", range(repeats(1, long=20)))
def test_two_processes_writing_memos_to_one_redis_store_lose_none(
        valkey_uri: str, tmp_path: Path, run: int) -> None:
    set_up(valkey_uri)
    accepted = race(_STORE.format(uri=valkey_uri), tmp_path, cap=1000, writes=WRITES)

    with RedisStore.from_conn_string(valkey_uri) as base:
        assert_every_memo_kept(shared_memos(LangGraphStore(base), cap=1000), accepted,
                               writes=WRITES)


def test_the_memo_cap_holds_exactly_when_two_processes_race_past_it_on_redis(
        valkey_uri: str, tmp_path: Path) -> None:
    set_up(valkey_uri)
    accepted = race(_STORE.format(uri=valkey_uri), tmp_path, cap=50, writes=60)

    with RedisStore.from_conn_string(valkey_uri) as base:
        assert len(accepted) == 50  # one writer at a time across the processes
        assert_only_accepted_memos_stay(shared_memos(LangGraphStore(base), cap=50), accepted)


def test_a_redis_lock_held_elsewhere_times_out_then_frees_when_its_lease_runs_out(
        valkey_uri: str, caplog: pytest.LogCaptureFixture) -> None:
    import redis

    ns = Namespace(project="p", session="shared", kind="notes")
    with RedisStore.from_conn_string(valkey_uri) as base:
        base.setup()
        store = LangGraphStore(base, lock_timeout_s=0.3)
        holder = redis.Redis.from_url(valkey_uri)  # another worker, killed holding it
        assert holder.lock(redis_lock_key("ctxmgr", ns), timeout=0.8).acquire(blocking=False)

        assert_a_holder_elsewhere_blocks_until_it_goes(store, ns, lambda: time.sleep(0.9))
        holder.close()
    assert not [r for r in caplog.records if "cannot lock" in r.getMessage()]
