"""One reading of a model's tool input, shared by every ctxmgr tool.

Models send tool arguments as an object or, through some frameworks, as its
JSON text. Every tool accepts both and words a bad input the same way, so a
model that learns to fix one tool's call can fix the others'. The values of a call's
arguments (:func:`argument_strings`) are read one way too, wherever ctxmgr names what
a call was about.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["argument_strings", "parse_tool_input"]


def parse_tool_input(tool_input: Any, usage: str) -> Mapping[str, Any] | str:
    """The tool input as a mapping, or the error text to send back to the model.

    Args:
        tool_input: a mapping, or JSON text (``str`` / ``bytes``) of one.
        usage: the tool's expected input, quoted in every error (``expected {...}``).

    Returns:
        The mapping, or ``"Error: ...; <usage>"``. Never raises.
    """
    if isinstance(tool_input, str | bytes | bytearray):
        try:
            tool_input = json.loads(tool_input)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return f"Error: the input is not a JSON object; {usage}"
    if not isinstance(tool_input, Mapping):
        return f"Error: the input must be an object, got {type(tool_input).__name__}; {usage}"
    return tool_input


def argument_strings(value: object) -> Iterator[str]:
    """The values of tool-call arguments, in order: strings, and numbers written out;
    nested lists and objects are walked; names, booleans and nulls are not read."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        yield str(value)
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from argument_strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from argument_strings(v)
