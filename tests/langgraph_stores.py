"""LangGraph stores for tests and benchmarks: a loop in a thread, throwaway databases.

Shared by tests/langgraph_adapter (fixtures in its conftest) and the scale-out worker.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass
from typing import Any, TypeVar

from langgraph.store.base import BaseStore
from langgraph.store.postgres import AsyncPostgresStore
from langgraph.store.sqlite.aio import AsyncSqliteStore
from postgres_db import POSTGRES_ENV, create_database, database_uri, drop_database

__all__ = ["BACKENDS", "POSTGRES_ENV", "Backend", "LoopThread", "create_database",
           "database_uri", "drop_database", "open_async"]
BACKENDS = ["memory", "sqlite", "async-sqlite", "postgres", "async-postgres", "redis"]

_T = TypeVar("_T")


class LoopThread:
    """An event loop running in its own thread, where an async store lives.

    Sync code on the test's thread then calls the store as a sync caller in an
    application does: from a thread other than the one running the store's loop.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, _T], timeout: float = 120) -> _T:
        """Run ``coro`` on the loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.run(_cancel_tasks())  # e.g. an async store's batching task
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)
        self.loop.close()


async def _cancel_tasks() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@dataclass
class Backend:
    """A LangGraph store under test, and the loop async code must run on for it."""

    name: str
    base: BaseStore
    loop: LoopThread

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        return self.loop.run(coro)


async def open_async(stack: ExitStack, loop: LoopThread, name: str, target: str) -> BaseStore:
    """Enter the async store's context on its loop; leave it there at teardown."""
    astack = AsyncExitStack()
    stack.callback(lambda: loop.run(astack.aclose()))
    opener = (AsyncSqliteStore.from_conn_string(target) if name == "async-sqlite"
              else AsyncPostgresStore.from_conn_string(target))
    store: AsyncSqliteStore | AsyncPostgresStore = await astack.enter_async_context(opener)
    await store.setup()
    return store
