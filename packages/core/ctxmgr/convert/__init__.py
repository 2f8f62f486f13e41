"""Lossless converters between neutral messages and provider formats."""

from ctxmgr.convert.anthropic import from_anthropic, to_anthropic
from ctxmgr.convert.openai import from_openai, to_openai

__all__ = ["from_anthropic", "from_openai", "to_anthropic", "to_openai"]
