"""AutoContextMemory: six-strategy progressive compression, reversible by id."""

from ctxmgr.autocontext.config import STRATEGY_NAMES, AutoContextConfig
from ctxmgr.autocontext.events import CompressionEvent
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OffloadStore, offload_tag
from ctxmgr.autocontext.pipeline import CompressionResult, acompress, compress
from ctxmgr.autocontext.reload import CONTEXT_RELOAD_TOOL, handle_reload_call
from ctxmgr.autocontext.summarizers import (
    AsyncSummarizer,
    ExtractiveSummarizer,
    Summarizer,
    render_transcript,
)

__all__ = [
    "CONTEXT_RELOAD_TOOL",
    "STRATEGY_NAMES",
    "AsyncSummarizer",
    "AutoContextConfig",
    "AutoContextMemory",
    "CompressionEvent",
    "CompressionResult",
    "ExtractiveSummarizer",
    "OffloadStore",
    "Summarizer",
    "acompress",
    "compress",
    "handle_reload_call",
    "offload_tag",
    "render_transcript",
]
