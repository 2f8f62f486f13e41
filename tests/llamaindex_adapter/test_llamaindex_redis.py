"""The LlamaIndex adapter on Debian's redis-server: a real ``ContextFunctionAgent`` whose
``ContextMemory`` keeps its offloads and memos in a ``RedisKVStore``, read back by another
process. (The store contract, the lock and the memo races on Redis are in
``test_llamaindex_store.py`` and ``test_llamaindex_memo_race.py``.)"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest
from doc_pages import blocks_with, run_block
from llama_index.core.workflow import Context
from llamaindex_agents import PromptChecker

from ctxmgr import AutoContextConfig, MemoStore
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory, LlamaIndexKVStore
from ctxmgr_llamaindex.testing import FINAL_ANSWER, RecordedRun, ScriptedLLM

_READER = """
import json, sys
from llama_index.storage.kvstore.redis import RedisKVStore
from ctxmgr import MemoStore
from ctxmgr.autocontext import OffloadStore
from ctxmgr.messages import message_to_dict
from ctxmgr_llamaindex import LlamaIndexKVStore
uri, project, session = sys.argv[1:4]
store = LlamaIndexKVStore(RedisKVStore(redis_uri=uri))
offloads = OffloadStore(store, project=project, session=session)
memos = MemoStore(store, project=project, session=session)
print(json.dumps({"offloads": {i: [message_to_dict(m) for m in offloads.load(i)]
                               for i in offloads.ids()},
                  "memos": {m.key: memos.read(m.key) for m in memos.list_memos()}}))
"""


def test_a_function_agent_keeps_offloads_and_memos_in_redis_for_every_process(
        swe_trajectories: list[Trajectory], redis_kvstore: Any, redis_kv_uri: str,
        caplog: pytest.LogCaptureFixture) -> None:
    trajectory = next(t for t in swe_trajectories if "pydicom-1256" in t.id)
    rec = RecordedRun.from_messages(trajectory.messages)
    memory = ContextMemory.from_defaults(
        config=AutoContextConfig(max_tokens=8_000, memo=True, project="redis-agents"),
        store=LlamaIndexKVStore(redis_kvstore), session_id="ticket-7")
    checker = PromptChecker(memory, trajectory, match="exact")
    llm = ScriptedLLM(rec.answer_messages(0), on_call=checker)
    checker.llm = llm
    tools = memory.as_tools()
    agent = ContextFunctionAgent(tools=[*rec.tools(), *tools], llm=llm,
                                 system_prompt=rec.system_prompt)

    async def main() -> tuple[Any, Any]:
        result = await agent.run(user_msg=rec.user_message(0), memory=memory,
                                 max_iterations=1000)
        memo = next(t for t in tools if t.metadata.name == "memo")  # as the agent calls it
        answer = await memo.acall(ctx=Context(agent), action="write", key="plan",
                                  summary="the fix",
                                  content="1. reproduce\n2. patch pydicom/dataset.py")
        return result, answer

    result, answer = asyncio.run(main())
    assert str(result) == FINAL_ANSWER
    assert checker.compressed_calls > 0  # every prompt in budget, everything reloadable
    assert "saved" in str(answer).lower(), answer
    assert not [r for r in caplog.records if "cannot lock" in r.getMessage()], \
        "the memo write held a lock across processes (a Redis key)"

    read = subprocess.run([sys.executable, "-c", _READER, redis_kv_uri, "redis-agents",
                           "ticket-7"], capture_output=True, text=True, timeout=120,
                          check=False)
    assert read.returncode == 0, read.stderr
    found = json.loads(read.stdout)
    assert found["memos"] == {"plan": "1. reproduce\n2. patch pydicom/dataset.py"}
    in_memory = memory.processor.offload
    assert found["offloads"] and set(found["offloads"]) == set(in_memory.ids())
    for offload_id, messages in found["offloads"].items():
        assert [m["id"] for m in messages] == [m.id for m in in_memory.load(offload_id)]


def test_the_deploy_guides_redis_memory_keeps_its_memos_in_redis(
        redis_kvstore: Any, redis_kv_uri: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", redis_kv_uri)
    (block,) = blocks_with("RedisKVStore(redis_uri")
    memory = run_block(block)["memory"]
    assert isinstance(memory, ContextMemory)
    store = memory.store
    assert isinstance(store, LlamaIndexKVStore)
    memos = MemoStore(store, project="support-bot", session="ticket-42")
    memos.write("plan", "1. reproduce", "the plan")
    reader = MemoStore(LlamaIndexKVStore(redis_kvstore), project="support-bot",
                       session="ticket-42")  # another worker on the same Redis
    assert reader.read("plan") == "1. reproduce"
