"""Lossless converters between neutral messages and provider formats.

:class:`StableIds` is here for the adapters' converters: formats whose messages
carry no id get ids derived from content, the same way everywhere.
"""

from ctxmgr.convert._ids import StableIds
from ctxmgr.convert.anthropic import from_anthropic, to_anthropic
from ctxmgr.convert.openai import from_openai, to_openai

__all__ = ["StableIds", "from_anthropic", "from_openai", "to_anthropic", "to_openai"]
