"""The LangGraph server's store for the store-fault tests: in memory, and writes under
ctxmgr's prefix fail, or hang, from one write to another.

Copied next to the example app and named in ``langgraph.json``
(``"store": {"path": "./faulty_server_store.py:store"}``). Set in the server's environment:

* ``FAULT``: ``refuse`` (the write raises ``ConnectionError``, as a backend that dropped
  the connection) or ``stall`` (the write hangs ``FAULT_STALL_S`` seconds, then succeeds);
* ``FAULT_FROM``, ``FAULT_UNTIL``: the fault lasts from the write numbered ``FAULT_FROM`` to
  the one before ``FAULT_UNTIL``, writes counted across the server (every try counts).

Like the server's own store, it is an ``AsyncBatchedBaseStore`` (one per event loop of the
server, all sharing one ``InMemoryStore``), so ctxmgr reaches it as it reaches the real one.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterable
from typing import Any

from langgraph.store.base import Op, PutOp, Result
from langgraph.store.base.batch import AsyncBatchedBaseStore
from langgraph.store.memory import InMemoryStore

_SHARED = InMemoryStore()
_COUNT_LOCK = threading.Lock()
_writes = 0


def _fault_of(ops: list[Op]) -> str | None:
    """The fault these ops meet (``None``: none), counting ctxmgr's writes among them."""
    global _writes
    ours = sum(isinstance(op, PutOp) and op.namespace[:1] == ("ctxmgr",) for op in ops)
    if not ours:
        return None
    with _COUNT_LOCK:
        first, _writes = _writes, _writes + ours
    start, end = int(os.environ["FAULT_FROM"]), int(os.environ["FAULT_UNTIL"])
    return os.environ["FAULT"] if start <= first < end else None


class FaultyStore(AsyncBatchedBaseStore):
    """The shared in-memory store, with the fault the environment sets."""

    def __init__(self) -> None:
        super().__init__()
        self._store = _SHARED

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        if _fault_of(ops) == "refuse":
            raise ConnectionError("the store refuses writes (a test fault)")
        return self._store.batch(ops)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        fault = _fault_of(ops)
        if fault == "refuse":
            raise ConnectionError("the store refuses writes (a test fault)")
        if fault == "stall":
            await asyncio.sleep(float(os.environ.get("FAULT_STALL_S", "0.3")))
        return await self._store.abatch(ops)


def store(*_: Any) -> FaultyStore:
    """What ``langgraph.json`` names: a store for the event loop that asks for it."""
    return FaultyStore()
