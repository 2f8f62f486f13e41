"""AutoContextMemory: AgentScope's six strategies plus three last resorts, reversible by id."""

from ctxmgr.autocontext.config import AutoContextConfig, Tuning
from ctxmgr.autocontext.cooldown import SummaryCooldown
from ctxmgr.autocontext.edits import Edit, apply_edits, diff_edits
from ctxmgr.autocontext.events import CompressionEvent
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OffloadStore, offload_tag
from ctxmgr.autocontext.pipeline import CompressionResult, acompress, compress
from ctxmgr.autocontext.processor import (
    ContextProcessor,
    ProcessResult,
    async_history_processor,
    history_processor,
)
from ctxmgr.autocontext.reload import CONTEXT_RELOAD_TOOL, handle_reload_call
from ctxmgr.autocontext.search import CONTEXT_SEARCH_TOOL, handle_search_call
from ctxmgr.autocontext.strategies import STRATEGY_NAMES
from ctxmgr.autocontext.summarizers import (
    AsyncSummarizer,
    ExtractiveSummarizer,
    Summarizer,
    SummaryWorker,
    render_transcript,
)

__all__ = [
    "CONTEXT_RELOAD_TOOL",
    "CONTEXT_SEARCH_TOOL",
    "STRATEGY_NAMES",
    "AsyncSummarizer",
    "AutoContextConfig",
    "AutoContextMemory",
    "CompressionEvent",
    "CompressionResult",
    "ContextProcessor",
    "Edit",
    "ExtractiveSummarizer",
    "OffloadStore",
    "ProcessResult",
    "Summarizer",
    "SummaryCooldown",
    "SummaryWorker",
    "Tuning",
    "acompress",
    "apply_edits",
    "async_history_processor",
    "compress",
    "diff_edits",
    "handle_reload_call",
    "handle_search_call",
    "history_processor",
    "offload_tag",
    "render_transcript",
]
