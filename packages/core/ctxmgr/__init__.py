"""ctxmgr: keep long-running LLM agents inside their context window without losing
what they learned.

Everything listed in ``__all__`` is the public API; other names may change. One front
door per way of using ctxmgr, each built from one :class:`AutoContextConfig` (every
setting, read from ``CTXMGR_<FIELD>`` / ``.env`` when code leaves it out):

* a history your framework owns: ``ctxmgr_langgraph`` (``ContextMiddleware``,
  ``ContextHook``, ``ContextNode``) and ``ctxmgr_llamaindex`` (``ContextMemory``);
* a history you own: :class:`AutoContextMemory`;
* writing a framework integration: :class:`ctxmgr.session.SessionEngine`.

A name that left the public API raises an ``ImportError`` that names its replacement.
"""

from __future__ import annotations

from typing import Any

from ctxmgr._version import __version__
from ctxmgr.archive import handle_archive_call
from ctxmgr.autocontext import (
    AutoContextConfig,
    AutoContextMemory,
    CompressionEvent,
    ExtractiveSummarizer,
    Summarizer,
    Tuning,
)
from ctxmgr.convert import from_anthropic, from_openai, to_anthropic, to_openai
from ctxmgr.errors import ConfigError, ContextOverflowError, CtxmgrError, OffloadNotFoundError
from ctxmgr.memo import MemoStore
from ctxmgr.messages import Message, OpaqueBlock, TextBlock, ToolResultBlock, ToolUseBlock
from ctxmgr.pairing import validate_pairing
from ctxmgr.prompts import ToolSpec
from ctxmgr.store import FileStore, InMemoryStore, Store, StoreRetry
from ctxmgr.tokens import TokenCounter, default_counter

__all__ = [
    "AutoContextConfig",
    "AutoContextMemory",
    "CompressionEvent",
    "ConfigError",
    "ContextOverflowError",
    "CtxmgrError",
    "ExtractiveSummarizer",
    "FileStore",
    "InMemoryStore",
    "MemoStore",
    "Message",
    "OffloadNotFoundError",
    "OpaqueBlock",
    "Store",
    "StoreRetry",
    "Summarizer",
    "TextBlock",
    "TokenCounter",
    "ToolResultBlock",
    "ToolSpec",
    "ToolUseBlock",
    "Tuning",
    "__version__",
    "default_counter",
    "from_anthropic",
    "from_openai",
    "handle_archive_call",
    "to_anthropic",
    "to_openai",
    "validate_pairing",
]

_FRONT_DOOR = ("is gone from the public API: a history your framework owns goes through "
               "its adapter (ctxmgr_langgraph, ctxmgr_llamaindex) or, for a new framework, "
               "ctxmgr.session.SessionEngine; a history you own through "
               "ctxmgr.AutoContextMemory")
_MOVED: dict[str, str] = {
    **dict.fromkeys(("ContextProcessor", "ProcessResult", "history_processor",
                     "async_history_processor", "compress", "acompress", "CompressionResult",
                     "apply_edits", "Edit"), _FRONT_DOOR),
    "SessionEngine": "moved: from ctxmgr.session import SessionEngine",
    "Settings": "is gone: every setting is a field of ctxmgr.AutoContextConfig, read from "
                "CTXMGR_<FIELD> (environment, then .env) when code leaves it out",
    **{name: f"moved: from ctxmgr.{where} import {name}" for where, names in {
        "tokens": ("ApproximateCounter", "CallableCounter", "TiktokenCounter", "TokenTally"),
        "archive": ("ARCHIVE_TOOL", "ArchiveState", "archive_placeholder", "render_archived"),
        "memo": ("MEMO_TOOL", "elide_memo_content", "memo_placeholder", "validate_memo_key"),
        "autocontext": ("CONTEXT_RELOAD_TOOL", "CONTEXT_SEARCH_TOOL", "AsyncSummarizer",
                        "render_transcript"),
        "messages": ("ContentBlock", "Role", "message_from_dict", "message_to_dict",
                     "text_message"),
        "errors": ("HalfWrittenMemoError", "InvalidMemoKeyError", "InvalidMessageError",
                   "InvalidStateError", "MemoWriteError", "PairingError", "StoreError"),
        "store": ("Namespace", "delete_session", "project_dir_name"),
        "pairing": ("PairingViolation", "ToolGroup", "assert_valid_pairing", "tool_groups"),
        "prompts": ("context_usage_note", "system_prompt_fragment"),
    }.items() for name in names},
}
"""Names ``ctxmgr`` exported before, and what to use instead."""


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        # an ImportError, not an AttributeError: ``from ctxmgr import X`` would turn an
        # AttributeError into a bare "cannot import name", losing the replacement
        raise ImportError(f"ctxmgr.{name} {_MOVED[name]}", name=name, path=__file__)
    raise AttributeError(f"module 'ctxmgr' has no attribute {name!r}")
