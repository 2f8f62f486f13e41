"""ctxmgr for LangGraph and LangChain.

Needs ``pip install "ctxmgr[langgraph]"``: every name here imports LangChain
when first used, and says which extra to install when it is missing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxmgr_langgraph.convert import from_langchain, to_langchain
    from ctxmgr_langgraph.store import DEFAULT_PREFIX, LangGraphStore, resolve_store
    from ctxmgr_langgraph.summarizer import LangChainSummarizer

__all__ = ["DEFAULT_PREFIX", "LangChainSummarizer", "LangGraphStore", "from_langchain",
           "resolve_store", "to_langchain"]

_WHERE = {"from_langchain": "convert", "to_langchain": "convert",
          "LangChainSummarizer": "summarizer", "DEFAULT_PREFIX": "store",
          "LangGraphStore": "store", "resolve_store": "store"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'ctxmgr_langgraph' has no attribute {name!r}")
    return getattr(importlib.import_module(f"ctxmgr_langgraph.{_WHERE[name]}"), name)
