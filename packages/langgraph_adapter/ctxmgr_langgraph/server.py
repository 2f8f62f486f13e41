"""ctxmgr on the LangGraph server: a thread's offloads and memos go when the thread goes.

Inside the server, ctxmgr writes to the server's own store, under
``("ctxmgr", project, kind, thread)``. The server deletes a thread's checkpoints on
``DELETE /threads/{thread_id}`` (``client.threads.delete``), never its store items;
:class:`DeleteThreadOffloads` makes that request remove ctxmgr's items of the thread
too, before the answer is sent. Add it to the server as a custom middleware::

    # webapp.py, named in langgraph.json: "http": {"app": "./webapp.py:app"}
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from ctxmgr_langgraph.server import DeleteThreadOffloads

    app = Starlette(middleware=[Middleware(DeleteThreadOffloads)])

From a client, :func:`adelete_thread_offloads` does the same for one thread through
langgraph-sdk (``get_client(url=...)``). Threads the server removes by itself (a thread
TTL) do not pass through either: give the store the same TTL
(``"store": {"ttl": ...}`` in ``langgraph.json``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from ctxmgr.session import session_label
from ctxmgr_langgraph.store import DEFAULT_PREFIX

__all__ = ["DeleteThreadOffloads", "adelete_thread_offloads"]

logger = logging.getLogger(__name__)

_Scope = MutableMapping[str, Any]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]
_ASGIApp = Callable[[_Scope, _Receive, _Send], Awaitable[None]]

_THREAD_PATH = re.compile(r"/threads/([^/]+)/?")
_PAGE = 1000


def thread_namespace_label(thread_id: object) -> str:
    """The namespace label a thread's items are under in a LangGraph store."""
    return session_label(thread_id).replace(".", "~")  # LangGraphStore's escape


async def adelete_thread_offloads(client: Any, thread_id: object, *,
                                  prefix: Sequence[str] = DEFAULT_PREFIX) -> int:
    """Remove a thread's offloads and memos from the server's store, every project's;
    the number of items removed.

    Args:
        client: a langgraph-sdk async client (``get_client(url=...)``; inside the
            server, ``get_client()``).
        thread_id: the thread you delete (``client.threads.delete(thread_id)``).
        prefix: the ``prefix`` ctxmgr's ``LangGraphStore`` was given (default ``("ctxmgr",)``).
    """
    label = thread_namespace_label(thread_id)
    depth = len(prefix) + 3  # prefix, project, kind, thread
    namespaces: list[list[str]] = []
    offset = 0
    while True:
        answer = await client.store.list_namespaces(prefix=list(prefix), suffix=[label],
                                                    limit=_PAGE, offset=offset)
        page = answer["namespaces"]
        namespaces += [list(n) for n in page if len(n) == depth]
        if len(page) < _PAGE:
            break
        offset += _PAGE
    removed = 0
    for namespace in namespaces:
        while True:  # each round deletes what it found, so the next starts at 0
            found = await client.store.search_items(namespace, limit=_PAGE)
            items = [i for i in found["items"] if list(i["namespace"]) == namespace]
            for item in items:
                await client.store.delete_item(namespace, item["key"])
            removed += len(items)
            if len(items) < _PAGE:
                break
    return removed


class DeleteThreadOffloads:
    """ASGI middleware for the LangGraph server: a successful ``DELETE /threads/{id}``
    also removes the thread's offloads and memos from the server's store, before the
    client gets the answer. A failure to remove them is logged, and the thread's
    deletion still answers as the server decided.

    Args:
        app: the application it wraps (Starlette passes it).
        prefix: see :func:`adelete_thread_offloads`.
    """

    def __init__(self, app: _ASGIApp, *, prefix: Sequence[str] = DEFAULT_PREFIX) -> None:
        self.app = app
        self.prefix = tuple(prefix)

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        thread_id = _deleted_thread(scope)
        if thread_id is None:
            await self.app(scope, receive, send)
            return

        async def send_after_cleanup(message: _Message) -> None:
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                await self._cleanup(thread_id)
            await send(message)

        await self.app(scope, receive, send_after_cleanup)

    async def _cleanup(self, thread_id: str) -> None:
        from langgraph_sdk import get_client

        try:
            removed = await adelete_thread_offloads(get_client(), thread_id,
                                                    prefix=self.prefix)
        except Exception as exc:  # noqa: BLE001 - the thread is deleted either way
            logger.warning("could not remove the offloads of deleted thread %s: %s: %s",
                           thread_id, type(exc).__name__, exc, exc_info=True)
            return
        logger.info("removed %d offload and memo item(s) of deleted thread %s",
                    removed, thread_id)


def _deleted_thread(scope: _Scope) -> str | None:
    """The thread id of a ``DELETE /threads/{id}`` request (after any mount prefix)."""
    if scope.get("type") != "http" or scope.get("method") != "DELETE":
        return None
    path = str(scope.get("path", ""))
    root = str(scope.get("root_path", ""))
    if root and path.startswith(root):
        path = path[len(root):]
    found = _THREAD_PATH.fullmatch(path)
    return found.group(1) if found else None
