"""The async path never calls the store on the event loop (async-only stores live there),
and a call with nothing to compress never leaves it."""

from __future__ import annotations

import asyncio
import threading

from builders import C, call, result, system, user

from ctxmgr import AutoContextConfig, AutoContextMemory, InMemoryStore
from ctxmgr.autocontext import ContextProcessor
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.session import SessionEngine
from ctxmgr.store import delete_session
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


def test_a_call_with_nothing_to_compress_is_answered_on_the_loop(monkeypatch) -> None:
    """Under load (many threads on one server loop) a hop to a worker thread makes a call
    wait for every other run's turn: below the trigger there is nothing to hand over."""
    processor = ContextProcessor(AutoContextConfig(max_tokens=128_000), counter=C,
                                 store=OffLoopStore())
    hops: list[object] = []

    async def to_thread(func, /, *args, **kwargs):  # the real one, counted
        hops.append(func)
        return await asyncio.get_running_loop().run_in_executor(
            None, lambda: func(*args, **kwargs))

    monkeypatch.setattr(asyncio, "to_thread", to_thread)
    out = asyncio.run(processor.aprocess(history()[:12]))
    assert out.events == [] and len(out.messages) == 12 and hops == []
    squeezed = ContextProcessor(AutoContextConfig(max_tokens=16_000), counter=C,
                                store=OffLoopStore())
    assert [e for e in asyncio.run(squeezed.aprocess(history())).events
            if e.status == "applied"] and hops  # compressing still runs off the loop


def test_a_range_missing_some_originals_is_read_off_the_loop_as_sync_reads_it() -> None:
    """A framework dropped one original of a compressed range: which messages the range
    held is read from the store (in a thread), and the view is the sync path's."""
    store = OffLoopStore()
    processor = ContextProcessor(AutoContextConfig(max_tokens=16_000), counter=C, store=store)
    raw = history()
    out = asyncio.run(processor.aprocess(raw))
    head = next(m for m in out.messages if (mark := CompressedMarker.of(m)) is not None
                and len(processor.reload(mark.offload_id)) > 2)
    inside = processor.reload(CompressedMarker.of(head).offload_id)[1].id  # type: ignore[union-attr]
    trimmed = [m for m in raw if m.id != inside]
    restarted = ContextProcessor(AutoContextConfig(max_tokens=16_000), counter=C, store=store)
    again = asyncio.run(restarted.aprocess(trimmed, out.state))  # nothing read yet: asks
    assert [m.id for m in again.messages] == [m.id for m in out.messages]
    assert [m.id for m in processor.process(trimmed, out.state).messages] == [
        m.id for m in out.messages]


def test_an_agents_session_is_registered_off_the_loop() -> None:
    """An agent's session is noted under its thread's in the store (so deleting the
    thread deletes it); from an async run that write happens in a worker thread."""
    store = OffLoopStore()
    engine = SessionEngine(AutoContextConfig(max_tokens=16_000, project="p"), counter=C)
    alice = engine.scope("t", "alice")
    turn = asyncio.run(engine.aprepare(history(), None, store=store, session=alice))
    assert turn.events and store.keys(Namespace("p", alice.session, "offload"))
    assert delete_session(store, project="p", session="t") > 0
    assert store.keys(Namespace("p", alice.session, "offload")) == []
