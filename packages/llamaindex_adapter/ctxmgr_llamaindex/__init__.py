"""ctxmgr for LlamaIndex.

Needs ``pip install ".[llamaindex]"``: every name here imports LlamaIndex
when first used, and says which extra to install when it is missing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxmgr_llamaindex.agent import (
        CompressedObservationStep,
        CompressedThoughtStep,
        ContextFunctionAgent,
        ContextReActAgent,
    )
    from ctxmgr_llamaindex.convert import LlamaIndexConverter, from_llamaindex, to_llamaindex
    from ctxmgr_llamaindex.memory import ContextMemory, StepPlan
    from ctxmgr_llamaindex.scripted import RecordedRun, ScriptedLLM
    from ctxmgr_llamaindex.store import LlamaIndexKVStore
    from ctxmgr_llamaindex.summarizer import LlamaIndexSummarizer
    from ctxmgr_llamaindex.tools import context_tools

__all__ = [
    "CompressedObservationStep",
    "CompressedThoughtStep",
    "ContextFunctionAgent",
    "ContextMemory",
    "ContextReActAgent",
    "LlamaIndexConverter",
    "LlamaIndexKVStore",
    "LlamaIndexSummarizer",
    "RecordedRun",
    "ScriptedLLM",
    "StepPlan",
    "context_tools",
    "from_llamaindex",
    "to_llamaindex",
]

_WHERE = {
    "CompressedObservationStep": "agent",
    "CompressedThoughtStep": "agent",
    "ContextFunctionAgent": "agent",
    "ContextMemory": "memory",
    "ContextReActAgent": "agent",
    "LlamaIndexConverter": "convert",
    "LlamaIndexKVStore": "store",
    "LlamaIndexSummarizer": "summarizer",
    "RecordedRun": "scripted",
    "ScriptedLLM": "scripted",
    "StepPlan": "memory",
    "context_tools": "tools",
    "from_llamaindex": "convert",
    "to_llamaindex": "convert",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'ctxmgr_llamaindex' has no attribute {name!r}")
    return getattr(importlib.import_module(f"ctxmgr_llamaindex.{_WHERE[name]}"), name)
