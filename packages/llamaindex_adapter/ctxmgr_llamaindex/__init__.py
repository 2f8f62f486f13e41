"""ctxmgr for LlamaIndex.

Needs ``pip install ".[llamaindex]"``: every name here imports LlamaIndex
when first used, and says which extra to install when it is missing.

One entry point, ``ContextMemory``, a drop-in ``BaseMemory`` for agents and chat
engines, on ctxmgr's session engine (:class:`ctxmgr.session.SessionEngine`); with
``ContextFunctionAgent`` (or ``ContextReActAgent``) a single long run stays in budget
too; each compression reaches LlamaIndex's instrumentation as a
``ContextCompressionEvent``. ``LlamaIndexKVStore`` puts offloads and memos in any
LlamaIndex key-value store.
The test doubles (a scripted LLM, a recorded run) are in :mod:`ctxmgr_llamaindex.testing`.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxmgr_llamaindex.agent import ContextFunctionAgent, ContextReActAgent
    from ctxmgr_llamaindex.convert import LlamaIndexConverter, from_llamaindex, to_llamaindex
    from ctxmgr_llamaindex.memory import ContextMemory
    from ctxmgr_llamaindex.store import LlamaIndexKVStore
    from ctxmgr_llamaindex.summarizer import LlamaIndexSummarizer
    from ctxmgr_llamaindex.tracing import ContextCompressionEvent

__all__ = [
    "ContextCompressionEvent",
    "ContextFunctionAgent",
    "ContextMemory",
    "ContextReActAgent",
    "LlamaIndexConverter",
    "LlamaIndexKVStore",
    "LlamaIndexSummarizer",
    "from_llamaindex",
    "to_llamaindex",
]

_WHERE = {
    "ContextCompressionEvent": "tracing",
    "ContextFunctionAgent": "agent",
    "ContextMemory": "memory",
    "ContextReActAgent": "agent",
    "LlamaIndexConverter": "convert",
    "LlamaIndexKVStore": "store",
    "LlamaIndexSummarizer": "summarizer",
    "from_llamaindex": "convert",
    "to_llamaindex": "convert",
}

_MOVED = {"RecordedRun": "testing", "ScriptedLLM": "testing", "StepPlan": "memory",
          "context_tools": "tools", "CompressedObservationStep": "agent",
          "CompressedThoughtStep": "agent"}
"""Names this package exported before; they still resolve, with a DeprecationWarning."""


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"ctxmgr_llamaindex.{_WHERE[name]}"), name)
    if name in _MOVED:
        where = f"ctxmgr_llamaindex.{_MOVED[name]}"
        warnings.warn(f"import {name} from {where}", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(where), name)
    raise AttributeError(f"module 'ctxmgr_llamaindex' has no attribute {name!r}")
