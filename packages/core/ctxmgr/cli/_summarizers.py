"""``--summarizer provider:model``: a real chat model, through a discovered adapter.

The core knows no framework: an adapter registers a factory ``spec -> summarizer``
under the ``ctxmgr.model_summarizers`` entry-point group (the LangChain adapter
does, with ``init_chat_model``), and this module finds it.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any

from ctxmgr.cli._common import UsageError

__all__ = ["ENTRY_POINT_GROUP", "model_summarizer"]

ENTRY_POINT_GROUP = "ctxmgr.model_summarizers"
_NEEDS = ('needs LangChain: pip install ".[langgraph]" plus the provider\'s package '
          "(e.g. langchain-openai)")


def model_summarizer(spec: str, flag: str = "--summarizer") -> Any:
    """A summarizer backed by the chat model ``spec``, or one clear error line."""
    found = {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    ep = found.get("langchain") or next(iter(found.values()), None)
    if ep is None:
        raise UsageError(f"{flag} {spec} {_NEEDS}")
    try:
        factory = ep.load()
    except ImportError:
        raise UsageError(f"{flag} {spec} {_NEEDS}") from None
    try:
        return factory(spec)
    except (ValueError, ImportError) as exc:
        text = str(exc).strip()
        raise UsageError(text.splitlines()[0] if text else f"cannot create summarizer "
                         f"{spec!r}") from None
