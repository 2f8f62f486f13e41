"""ctxmgr served the way LangGraph apps are served: ``langgraph dev``, driven by langgraph-sdk.

One server for the module (``benchmarks/langgraph_server.py``: the example app in
``examples/langgraph_server`` copied into a fresh state folder, 127.0.0.1, a free port,
no LangSmith key, offline), stopped at the end whatever happens. The graph is a real
``create_agent`` with ``ContextMiddleware`` at an 8,000-token window; only the model is
scripted (``agent.py``: it reads a build log of 1,300-token parts, one per call, and
reports its input tokens as a provider does). Every test drives its own threads.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_server import LangGraphServer, serve

from ctxmgr import AutoContextConfig

WINDOW = 8_000
BUDGET = AutoContextConfig(max_tokens=WINDOW).budget_tokens
TAG = re.compile(r"CONTEXT_OFFLOAD: uuid=([0-9a-f]+)")
THREAD_MARK = re.compile(r"\[([0-9a-f-]{36})\]")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LangGraphServer]:
    folder = tmp_path_factory.mktemp("langgraph_server")
    with serve(folder, env={"MODEL_WINDOW": str(WINDOW)}) as running:
        yield running


def read(parts: int) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": f"read the build log, {parts} parts"}]}


def ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content or [])


async def offload_items(client: Any, thread_id: str) -> dict[str, dict[str, Any]]:
    """The thread's offloaded ranges in the server's store, by offload id."""
    answer = await client.store.list_namespaces(prefix=["ctxmgr"], suffix=[thread_id],
                                                limit=100)
    found: dict[str, dict[str, Any]] = {}
    for namespace in answer["namespaces"]:
        if namespace[2] != "offload":
            continue
        page = await client.store.search_items(namespace, limit=10_000)
        for item in page["items"]:
            if item["key"].endswith(".json"):
                found[item["key"].removesuffix(".json")] = item
    return found


def originals(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages an offload item holds (ctxmgr's JSON, kept as UTF-8 text)."""
    assert item["value"]["encoding"] == "utf-8"
    return json.loads(item["value"]["data"])["messages"]


def ai_input_tokens(messages: list[dict[str, Any]]) -> list[int]:
    return [m["usage_metadata"]["input_tokens"] for m in messages
            if m.get("type") == "ai" and m.get("usage_metadata")]


def test_many_threads_at_once_each_stays_in_budget_and_sees_only_its_own_data(
        server: LangGraphServer) -> None:
    async def main() -> None:
        client = get_client(url=server.url)
        threads = [(await client.threads.create())["thread_id"] for _ in range(12)]
        results = await asyncio.gather(*(client.runs.wait(t, "agent", input=read(12))
                                         for t in threads))
        for thread_id, result in zip(threads, results, strict=True):
            messages = result["messages"]
            assert text_of(messages[-1]) == "Read all 12 parts of the build log."
            assert text_of(messages[0]) == "read the build log, 12 parts", "the task is pinned"
            tokens = ai_input_tokens(messages)
            assert tokens and max(tokens) <= BUDGET, (max(tokens), BUDGET)
            state_text = "\n".join(text_of(m) for m in messages)
            assert set(THREAD_MARK.findall(state_text)) <= {thread_id}
            items = await offload_items(client, thread_id)
            assert items, "the thread's compressions went to the server's store"
            for item in items.values():
                stored = "\n".join(text_of(m) for m in originals(item))
                assert set(THREAD_MARK.findall(stored)) <= {thread_id}
            for offload_id in TAG.findall(state_text):
                assert offload_id in items, f"stand-in {offload_id} has no original"

    asyncio.run(main())


def test_a_thread_resumes_from_its_checkpoint_run_after_run(server: LangGraphServer) -> None:
    """Interrupted before the tools five times, each run picks up from the checkpoint
    the last one left, through the compressions, to the same end."""
    async def main() -> None:
        client = get_client(url=server.url)
        thread_id = (await client.threads.create())["thread_id"]
        await client.runs.wait(thread_id, "agent", input=read(10),
                               interrupt_before=["tools"])
        runs = 1
        while (await client.threads.get(thread_id))["status"] == "interrupted":
            interrupt = ["tools"] if runs < 6 else []
            await client.runs.wait(thread_id, "agent", input=None,
                                   interrupt_before=interrupt)
            runs += 1
        state = (await client.threads.get_state(thread_id))["values"]
        messages = state["messages"]
        assert text_of(messages[-1]) == "Read all 10 parts of the build log."
        assert runs == 7, runs
        assert max(ai_input_tokens(messages)) <= BUDGET
        items = await offload_items(client, thread_id)
        tags = TAG.findall("\n".join(text_of(m) for m in messages))
        assert tags and all(t in items for t in tags)

    asyncio.run(main())


def test_context_search_and_context_reload_answer_inside_the_server(
        server: LangGraphServer) -> None:
    async def main() -> None:
        client = get_client(url=server.url)
        thread_id = (await client.threads.create())["thread_id"]
        await client.runs.wait(thread_id, "agent", input=read(12))
        found = await client.runs.wait(thread_id, "agent", input=ask("search mod_2_7"))
        answer = text_of(found["messages"][-1])
        assert answer.startswith("context_search answered:"), answer
        line = next(x for x in answer.splitlines() if "compiled mod_2_7 " in x)
        assert f"{thread_id}] step 2.7" in line, answer

        reloaded = await client.runs.wait(thread_id, "agent", input=ask("reload"))
        tool = next(m for m in reversed(reloaded["messages"]) if m.get("type") == "tool")
        assert tool["name"] == "context_reload"
        offload_id = tool_call_argument(reloaded["messages"], tool["tool_call_id"], "uuid")
        items = await offload_items(client, thread_id)
        assert offload_id in items
        assert text_of(tool).startswith("Reloaded")
        for original in originals(items[offload_id]):
            assert text_of(original).strip() in text_of(tool)

    asyncio.run(main())


def tool_call_argument(messages: list[dict[str, Any]], call_id: str, name: str) -> Any:
    for message in messages:
        for call in message.get("tool_calls") or []:
            if call["id"] == call_id:
                return call["args"][name]
    raise AssertionError(f"no tool call {call_id}")


def test_deleting_a_thread_removes_its_offloads_and_only_its_own(
        server: LangGraphServer) -> None:
    async def main() -> None:
        client = get_client(url=server.url)
        gone, kept = [(await client.threads.create())["thread_id"] for _ in range(2)]
        await asyncio.gather(*(client.runs.wait(t, "agent", input=read(10))
                               for t in (gone, kept)))
        assert await offload_items(client, gone) and await offload_items(client, kept)
        kept_before = await offload_items(client, kept)

        await client.threads.delete(gone)

        assert await offload_items(client, gone) == {}
        left = await client.store.list_namespaces(prefix=["ctxmgr"], suffix=[gone])
        for namespace in left["namespaces"]:  # LangGraph lists a namespace emptied of items
            assert (await client.store.search_items(namespace, limit=10))["items"] == []
        assert (await offload_items(client, kept)).keys() == kept_before.keys()
        found = await client.runs.wait(kept, "agent", input=ask("search mod_1_3"))
        assert f"{kept}] step 1.3: compiled mod_1_3 " in text_of(found["messages"][-1])

    asyncio.run(main())


def test_compression_events_reach_the_client_through_the_runs_stream(
        server: LangGraphServer) -> None:
    async def main() -> None:
        client = get_client(url=server.url)
        thread_id = (await client.threads.create())["thread_id"]
        events: list[dict[str, Any]] = []
        async for chunk in client.runs.stream(thread_id, "agent", input=read(10),
                                              stream_mode="events",
                                              config={"recursion_limit": 1_000}):
            data = chunk.data
            if (chunk.event == "events" and data.get("event") == "on_custom_event"
                    and data.get("name") == "ctxmgr.compression"):
                events.append(data["data"])
        applied = [e for e in events if e["status"] == "applied"]
        assert applied, events
        items = await offload_items(client, thread_id)
        for event in applied:
            assert event["session"] == thread_id
            assert event["tokens_after"] < event["tokens_before"]
            assert event["offload_id"] in items
        state = await client.threads.get_state(thread_id)
        assert text_of(state["values"]["messages"][-1]) == "Read all 10 parts of the build log."

    asyncio.run(main())


def test_the_server_runs_offline_without_a_langsmith_key(server: LangGraphServer) -> None:
    import urllib.request

    with urllib.request.urlopen(f"{server.url}/info", timeout=10) as answer:
        info = json.loads(answer.read())
    assert info.get("flags", {}).get("langsmith") is False, info
    assert "LANGSMITH_API_KEY" not in server.env
    assert Path(server.folder, ".langgraph_api").is_dir(), "its state is in its own folder"
