"""Token counting behind one small interface, cached on each message.

* :mod:`ctxmgr.tokens.counters`: :class:`TokenCounter` and the exact
  (:class:`TiktokenCounter`), approximate and callable counters, and
  :func:`default_counter`;
* :mod:`ctxmgr.tokens.tally`: :class:`TokenTally`, a running total in O(1) per message;
* :mod:`ctxmgr.tokens.bpe`: which tiktoken encoding a model uses, and loading its
  BPE file (from disk, else tiktoken fetches and caches it; how to run offline is
  written there).
"""

from ctxmgr.tokens.bpe import encoding_name_for_model
from ctxmgr.tokens.counters import (
    LINE_START,
    PER_MESSAGE,
    PER_REQUEST,
    PER_TOOL_CALL,
    ApproximateCounter,
    CallableCounter,
    LineSum,
    TiktokenCounter,
    TokenCounter,
    default_counter,
)
from ctxmgr.tokens.tally import TokenTally

__all__ = [
    "LINE_START",
    "PER_MESSAGE",
    "PER_REQUEST",
    "PER_TOOL_CALL",
    "ApproximateCounter",
    "CallableCounter",
    "LineSum",
    "TiktokenCounter",
    "TokenCounter",
    "TokenTally",
    "default_counter",
    "encoding_name_for_model",
]
