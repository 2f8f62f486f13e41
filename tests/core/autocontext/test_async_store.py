"""The async path never calls the store on the event loop (async-only stores live there)."""

from __future__ import annotations

import asyncio
import threading

from builders import C, call, result, system, user

from ctxmgr import AutoContextConfig, AutoContextMemory, InMemoryStore
from ctxmgr.autocontext import ContextProcessor
from ctxmgr.store.base import Namespace


class OffLoopStore(InMemoryStore):
    """Raises when used from the thread that runs an event loop, as a sync call on an
    async-only LangGraph store does."""

    calls = 0

    def _check(self) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            OffLoopStore.calls += 1
            return
        raise RuntimeError(f"store called on the event loop ({threading.current_thread().name})")

    def get(self, namespace: Namespace, key: str) -> bytes | None:
        self._check()
        return super().get(namespace, key)

    def put(self, namespace: Namespace, key: str, data: bytes) -> None:
        self._check()
        super().put(namespace, key, data)


def history() -> list:
    h = [system(), user("task", id="u0")]
    for k in range(40):
        h += [call(f"c{k}", id=f"a{k}"), result(f"c{k}", "x" * 3000, id=f"t{k}")]
    return h


def test_acompress_writes_offloads_off_the_event_loop() -> None:
    store = OffLoopStore()
    mem = AutoContextMemory(AutoContextConfig(max_tokens=16_000), counter=C, store=store)
    mem.add(history())
    events = asyncio.run(mem.acompress_if_needed())
    applied = [e for e in events if e.status == "applied"]
    assert applied and OffLoopStore.calls >= len(applied)
    assert all(mem.reload(e.offload_id) for e in applied if e.offload_id)


def test_aprocess_writes_offloads_off_the_event_loop() -> None:
    processor = ContextProcessor(AutoContextConfig(max_tokens=16_000), counter=C,
                                 store=OffLoopStore())
    out = asyncio.run(processor.aprocess(history()))
    assert [e for e in out.events if e.status == "skipped"] == []
    assert len(out.messages) < len(history())
