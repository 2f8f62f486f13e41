"""ctxmgr for LlamaIndex.

Needs ``pip install "ctxmgr[llamaindex]"``: every name here imports LlamaIndex
when first used, and says which extra to install when it is missing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxmgr_llamaindex.convert import LlamaIndexConverter, from_llamaindex, to_llamaindex
    from ctxmgr_llamaindex.summarizer import LlamaIndexSummarizer

__all__ = ["LlamaIndexConverter", "LlamaIndexSummarizer", "from_llamaindex", "to_llamaindex"]

_WHERE = {"from_llamaindex": "convert", "to_llamaindex": "convert",
          "LlamaIndexConverter": "convert", "LlamaIndexSummarizer": "summarizer"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'ctxmgr_llamaindex' has no attribute {name!r}")
    return getattr(importlib.import_module(f"ctxmgr_llamaindex.{_WHERE[name]}"), name)
