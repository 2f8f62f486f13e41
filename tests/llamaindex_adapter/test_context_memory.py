"""ContextMemory as a LlamaIndex BaseMemory: the contract, the budget, the state."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from builders import call, group, result, split_settings, system, user
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.llms import MockLLM
from llama_index.core.memory import Memory
from llama_index.core.storage.kvstore import SimpleKVStore
from llamaindex_agents import message_text

import ctxmgr_llamaindex.memory as memory_module
from ctxmgr import (
    AutoContextConfig,
    ConfigError,
    FileStore,
    InMemoryStore,
    MemoStore,
    Message,
    Tuning,
    validate_pairing,
)
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr_llamaindex import ContextMemory, LlamaIndexKVStore, from_llamaindex, to_llamaindex


def long_history(n: int = 30, chars: int = 1500) -> list[Message]:
    h = [user("fix the bug in module.py", id="u0")]
    for k in range(n):
        h += group(f"c{k}", chars)
    return h


def memory(max_tokens: int = 8000, **kw: Any) -> ContextMemory:
    settings, kw = split_settings(kw)
    return ContextMemory.from_defaults(max_tokens=max_tokens, store=InMemoryStore(),
                                       config=AutoContextConfig().evolve(**settings), **kw)


def tokens(mem: ContextMemory, prompt: list[ChatMessage]) -> int:
    return mem.counter.count_messages(from_llamaindex(prompt))


def test_get_compresses_to_the_budget_and_persists_the_compression() -> None:
    mem = memory()
    mem.put_messages(to_llamaindex(long_history()))
    prompt = mem.get()
    assert tokens(mem, prompt) <= mem.config.trigger_tokens
    assert len(mem.messages) < 61 and mem.session_state  # persisted in the memory's own view
    assert "context_reload" in str(prompt[0].content)  # the model is told what tags mean
    assert validate_pairing(from_llamaindex(prompt)) == []
    again = mem.get()
    assert [m.model_dump() for m in again] == [m.model_dump() for m in prompt]  # idempotent


def test_tool_calls_count_towards_the_budget() -> None:
    """LlamaIndex's Memory counts a ToolCallBlock as 0 tokens (llama_index #21950): a
    history of large tool-call arguments never triggers its flush."""
    history: list[Message] = [user("write the files", id="u0")]
    for k in range(30):
        history += [call(f"w{k}", f"a{k}", name="write_file",
                         args={"path": f"f{k}.py", "text": f"# file {k}\n" + "x = 1\n" * 300}),
                    result(f"w{k}", "ok", f"t{k}")]
    chats = to_llamaindex(history)
    assert any(isinstance(b, ToolCallBlock) for b in chats[1].blocks)
    mem = memory(max_tokens=16_000)
    mem.put_messages(chats)
    sent = tokens(mem, mem.get())
    assert sent <= mem.config.budget_tokens < 16_000 < mem.counter.count_messages(history)
    theirs = Memory.from_defaults(token_limit=16_000)
    theirs.put_messages(chats)
    assert mem.counter.count_messages(from_llamaindex(theirs.get())) > 16_000


def test_async_methods_match_the_sync_ones() -> None:
    chats = to_llamaindex(long_history())
    sync, asyn = memory(session_id="sync"), memory(session_id="async")
    sync.put(chats[0])
    sync.put_messages(chats[1:])

    async def run() -> tuple[list[ChatMessage], list[ChatMessage]]:
        await asyn.aput(chats[0])
        await asyn.aput_messages(chats[1:])
        return await asyn.aget(), await asyn.aget_all()

    got, everything = asyncio.run(run())
    assert [m.model_dump() for m in got] == [m.model_dump() for m in sync.get()]
    assert [m.model_dump() for m in everything] == [m.model_dump() for m in sync.get_all()]

    async def clear() -> list[ChatMessage]:
        await asyn.areset()
        await asyn.aset(chats[:3])
        return await asyn.aget_all()

    assert [m.content for m in asyncio.run(clear())] == [m.content for m in chats[:3]]


def test_get_all_is_the_working_view_with_compressed_ranges_as_their_stand_ins() -> None:
    mem = memory()
    mem.put_messages(to_llamaindex(long_history()))
    mem.get()
    everything = from_llamaindex(mem.get_all())
    assert all("context_reload" not in m.text for m in everything)  # no reload hint
    ids = [oid for m in everything for oid in find_offload_ids(message_text(m))]
    assert ids and all(mem.processor.reload(oid) for oid in ids)


def test_a_history_handed_back_uncompressed_gets_the_same_prompt() -> None:
    """``set`` with the original messages: known messages keep their ids, so the stand-ins
    recorded in the state are put back in place of their ranges."""
    chats = to_llamaindex(long_history())
    mem = memory()
    mem.put_messages(chats)
    first = mem.get()
    mem.set(chats)
    assert [m.model_dump() for m in mem.get()] == [m.model_dump() for m in first]


def test_the_state_survives_to_dict_and_from_dict_whole() -> None:
    mem = memory(session_id="round-trip")
    mem.put_messages(to_llamaindex(long_history()))
    prompt = mem.get()
    data = json.loads(json.dumps(mem.to_dict()))
    back = ContextMemory.from_dict(data, store=mem.store)  # the parts are given again
    assert back.messages == mem.messages and back.session_state == mem.session_state
    assert back.store is mem.store
    assert [m.model_dump() for m in back.get()] == [m.model_dump() for m in prompt]
    assert "runtime" not in data


def test_two_memories_of_one_session_id_keep_their_own_store_and_summarizer() -> None:
    """Regression: a process-wide registry of parts, keyed by session id, made the second
    memory built for an id override the first's store and summarizer."""
    class Named:
        def __init__(self, name: str) -> None:
            self.name = name

        def summarize(self, messages: object, instruction: str) -> str:
            return self.name

    first = memory(session_id="shared", summarizer=Named("first"))
    second = memory(session_id="shared", summarizer=Named("second"))
    first.put_messages(to_llamaindex(long_history()))
    first.get()
    assert first.store is not second.store
    assert (first.engine.summarizer.name, second.engine.summarizer.name) == ("first", "second")
    assert second.store.keys(first.processor.offload.namespace) == []  # nothing shared


def test_a_memory_validated_by_pydantic_alone_rebuilds_its_default_parts() -> None:
    mem = ContextMemory.from_defaults(max_tokens=8000, session_id="validated")  # files
    mem.put_messages(to_llamaindex(long_history()))
    prompt = mem.get()
    back = ContextMemory.model_validate(json.loads(json.dumps(mem.model_dump())))
    assert isinstance(back.store, FileStore) and back.store.root == mem.store.root
    assert [m.model_dump() for m in back.get()] == [m.model_dump() for m in prompt]


def test_a_memory_with_another_store_rebuilt_without_it_says_what_to_do() -> None:
    mem = ContextMemory.from_defaults(store=LlamaIndexKVStore(SimpleKVStore()),
                                      session_id="kv-session")
    assert mem.store_path is None
    data = mem.to_dict()
    back = ContextMemory.from_dict(data)  # rebuilt: no store of its own to use
    with pytest.raises(ConfigError, match="'kv-session' was saved with a store that cannot be "
                                          "rebuilt from its dict: pass it again"):
        back.get()
    kv = SimpleKVStore()
    assert isinstance(ContextMemory.from_dict(data, store=kv).store, LlamaIndexKVStore)
    back.adopt(mem)  # or the parts of the memory it was rebuilt from
    assert back.store is mem.store


def test_the_default_store_is_a_file_store_under_ctxmgr_home(_isolated_home: Path) -> None:
    mem = ContextMemory.from_defaults(max_tokens=8000)
    assert isinstance(mem.store, FileStore) and mem.store_path == str(_isolated_home)


def test_a_serialised_store_path_outside_ctxmgr_home_is_refused(
        _isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mem = ContextMemory.from_defaults(max_tokens=8000, session_id="tampered")
    data = json.loads(json.dumps(mem.to_dict()))
    elsewhere = tmp_path / "elsewhere"

    for outside in (str(elsewhere), str(_isolated_home / ".." / "elsewhere"), ""):
        with pytest.raises(ConfigError, match="not inside CTXMGR_HOME"):
            ContextMemory.from_dict({**data, "store_path": outside})
    inside = ContextMemory.from_dict({**data, "store_path": str(_isolated_home / "team")})

    assert isinstance(inside.store, FileStore) and inside.store.root == _isolated_home / "team"
    assert not elsewhere.exists()


def test_delete_session_removes_the_conversations_offloads_and_memos_only(
        _isolated_home: Path) -> None:
    mems = {sid: ContextMemory.from_defaults(max_tokens=8000, session_id=sid,
                                             config=AutoContextConfig(memo=True))
            for sid in ("gone", "kept")}
    for mem in mems.values():
        mem.put_messages(to_llamaindex(long_history()))
        mem.get()
        MemoStore(mem.store, project=mem.project, session=mem.session).write(
            "plan", f"plan of {mem.session_id}", "the plan")
    gone = _isolated_home / "projects" / mems["gone"].project
    assert list((gone / "offload" / "gone").glob("*.json"))

    removed = mems["gone"].delete_session()

    assert removed > 2
    assert not (gone / "offload" / "gone").exists() and not (gone / "notes" / "gone").exists()
    assert mems["gone"].messages == [] and mems["gone"].session_state == {}
    assert list((gone / "offload" / "kept").glob("*.json"))
    kept = mems["kept"]
    assert MemoStore(kept.store, project=kept.project, session="kept").read("plan") \
        == "plan of kept"
    assert asyncio.run(kept.adelete_session()) > 2


def test_from_defaults_sizes_the_window_from_the_llm_or_token_limit() -> None:
    assert memory_module.ContextMemory.from_defaults(
        llm=MockLLM(max_tokens=10)).config.max_tokens == MockLLM().metadata.context_window
    assert ContextMemory.from_defaults(token_limit=5000).config.max_tokens == 5000
    cfg = AutoContextConfig(max_tokens=9000, tuning=Tuning(last_keep=7))
    mem = ContextMemory.from_defaults(config=cfg, max_tokens=12_000)
    assert (mem.config.max_tokens, mem.config.tuning.last_keep) == (12_000, 7)
    saved = mem.config_fields  # every setting, so the environment cannot change them later
    assert (saved["max_tokens"], saved["project"], saved["tuning"]["last_keep"]) == (
        12_000, mem.project, 7)
    assert AutoContextConfig.from_json(saved) == mem.config


def test_with_no_config_the_knobs_come_from_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXMGR_MAX_TOKENS", "24000")
    monkeypatch.setenv("CTXMGR_KEEP_TOOL_RESULTS", "5")
    mem = ContextMemory.from_defaults()
    assert (mem.config.max_tokens, mem.config.tuning.keep_tool_results) == (24_000, 5)
    assert ContextMemory.from_defaults(token_limit=5000).config.tuning.keep_tool_results == 5


def test_a_bad_setting_is_refused_when_the_memory_is_built() -> None:
    with pytest.raises(ConfigError, match="token_ratio must be in"):
        ContextMemory(config_fields={"token_ratio": 1.5})
    with pytest.raises(ConfigError, match="memo must be True or False, got 'maybe'"):
        ContextMemory.from_defaults(config=AutoContextConfig(memo="maybe"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="overhead_tokens must be an int >= 0, got -10"):
        ContextMemory.from_defaults(overhead_tokens=-10)
    with pytest.raises(TypeError, match=r"from_defaults\(AutoContextConfig\(memo=\.\.\.\)\)"):
        ContextMemory.from_defaults(memo=True)


def test_a_memory_saved_before_the_settings_moved_into_the_config_reads_them() -> None:
    old = {"session_id": "old", "project": "proj", "memo": True, "calibrate": False,
           "config_fields": {"max_tokens": 9000}, "store_path": None}
    mem = ContextMemory.model_validate(old)
    assert (mem.project, mem.config.memo, mem.config.calibrate) == ("proj", True, False)
    assert mem.config.max_tokens == 9000


def test_reset_forgets_the_conversation_but_not_the_offloads() -> None:
    mem = memory()
    mem.put_messages(to_llamaindex(long_history()))
    ids = [oid for m in from_llamaindex(mem.get()) for oid in find_offload_ids(message_text(m))]
    mem.reset()
    assert mem.get_all() == [] and mem.session_state == {}
    assert ids and mem.processor.reload(ids[0])


def test_chat_history_given_to_from_defaults_is_the_start_of_the_view() -> None:
    chats = to_llamaindex([system(), user("hello", id="u")])
    mem = ContextMemory.from_defaults(chat_history=chats, store=InMemoryStore())
    assert [m.content for m in mem.get_all()] == [m.content for m in chats]


def test_repeated_identical_messages_get_distinct_ids() -> None:
    mem = memory()
    twice = to_llamaindex([user("yes", id="a"), user("yes", id="b")])
    mem.put_messages(twice)
    mem.put(twice[0])
    ids = [m["id"] for m in mem.messages]
    assert len(ids) == len(set(ids)) == 3


def test_a_file_store_outside_ctxmgr_home_is_given_again_in_a_new_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mem = ContextMemory.from_defaults(max_tokens=8000, store=FileStore(tmp_path / "offloads"),
                                      session_id="files")
    mem.put_messages(to_llamaindex(long_history()))
    ids = [oid for m in from_llamaindex(mem.get()) for oid in find_offload_ids(message_text(m))]
    data = json.loads(json.dumps(mem.to_dict()))
    with pytest.raises(ConfigError, match="pass store= to use another one"):
        ContextMemory.from_dict(data)
    back = ContextMemory.from_dict(data, store=FileStore(tmp_path / "offloads"))
    assert isinstance(back.store, FileStore) and back.store.root == tmp_path / "offloads"
    assert ids and back.processor.reload(ids[0]) == mem.processor.reload(ids[0])


def test_store_retry_is_how_often_a_failing_put_is_tried() -> None:
    """A put that fails twice in a row: the default three tries get through, one try
    skips that step (it is never lost: the originals stay in the working view)."""
    from faults import FaultyStore

    from ctxmgr import StoreRetry

    def flaky() -> FaultyStore:
        return FaultyStore(fail_put=lambda key, n: n < 2,
                           error=lambda key: ConnectionError("connection reset"))

    events: dict[str, list[str]] = {}
    for name, retry in (("default", StoreRetry()), ("once", StoreRetry(attempts=1)),
                        ("fast", StoreRetry(attempts=3, backoff_s=0.001))):
        seen: list[str] = []
        mem = ContextMemory.from_defaults(
            max_tokens=8000, store=flaky(), summarizer=None,
            on_event=lambda e, seen=seen: seen.append(e.status),
            config=AutoContextConfig(tuning=Tuning(store_retry=retry)))
        mem.put_messages(to_llamaindex(long_history()))
        mem.get()
        events[name] = seen
    assert "skipped" not in events["default"] and "skipped" not in events["fast"]
    assert events["once"][0] == "skipped" and "applied" in events["once"]
    with pytest.raises(ConfigError, match="store_retry must be a StoreRetry"):
        memory(store_retry=3)
