"""ctxmgr for LangGraph and LangChain.

Needs ``pip install ".[langgraph]"``: every name here imports LangChain
when first used, and says which extra to install when it is missing.

One entry point per way of building an agent, one session engine underneath
(:class:`ctxmgr.session.SessionEngine`):

* ``ContextMiddleware`` for ``langchain.agents.create_agent``;
* ``ContextHook`` as ``create_react_agent``'s ``pre_model_hook`` (with
  ``ContextAgentState`` as its state schema);
* ``ContextNode`` and ``ContextState`` for a hand-built ``StateGraph``.

Each compression reaches the run's callback handlers as the custom event
``COMPRESSION_EVENT`` (``"ctxmgr.compression"``).

``LangGraphStore`` puts offloads and memos in any LangGraph ``BaseStore`` (and
``resolve_store`` finds the one a graph runs with). The test
doubles (a scripted chat model, a recorded run) are in :mod:`ctxmgr_langgraph.testing`.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxmgr_langgraph.convert import from_langchain, to_langchain
    from ctxmgr_langgraph.hook import ContextAgentState, ContextHook
    from ctxmgr_langgraph.middleware import ContextMiddleware, ContextMiddlewareState
    from ctxmgr_langgraph.node import ContextNode, ContextState
    from ctxmgr_langgraph.state import CONTEXT_KEY, merge_context_state
    from ctxmgr_langgraph.store import DEFAULT_PREFIX, LangGraphStore, resolve_store
    from ctxmgr_langgraph.summarizer import LangChainSummarizer
    from ctxmgr_langgraph.tracing import COMPRESSION_EVENT

__all__ = [
    "COMPRESSION_EVENT",
    "CONTEXT_KEY",
    "ContextAgentState",
    "ContextHook",
    "ContextMiddleware",
    "ContextMiddlewareState",
    "ContextNode",
    "ContextState",
    "DEFAULT_PREFIX",
    "LangChainSummarizer",
    "LangGraphStore",
    "from_langchain",
    "merge_context_state",
    "resolve_store",
    "to_langchain",
]

_WHERE = {
    "COMPRESSION_EVENT": "tracing",
    "CONTEXT_KEY": "state",
    "ContextAgentState": "hook",
    "ContextHook": "hook",
    "ContextMiddleware": "middleware",
    "ContextMiddlewareState": "middleware",
    "ContextNode": "node",
    "ContextState": "node",
    "DEFAULT_PREFIX": "store",
    "LangChainSummarizer": "summarizer",
    "LangGraphStore": "store",
    "from_langchain": "convert",
    "merge_context_state": "state",
    "resolve_store": "store",
    "to_langchain": "convert",
}

_MOVED = {"RecordedRun": "testing", "ScriptedChatModel": "testing"}
"""Names this package exported before; they still resolve, with a DeprecationWarning."""


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"ctxmgr_langgraph.{_WHERE[name]}"), name)
    if name in _MOVED:
        where = f"ctxmgr_langgraph.{_MOVED[name]}"
        warnings.warn(f"import {name} from {where}", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(where), name)
    raise AttributeError(f"module 'ctxmgr_langgraph' has no attribute {name!r}")
