"""Distinctive strings: the paths, identifiers and numbers an agent copies from output.

A summary keeps the gist of what it replaced, but an agent's next step often
names a file path, a function, a line-anchored symbol or a hash it read earlier.
The rule below finds such strings; a stand-in can carry the ones its summary
lost, so the agent still sees them without a reload. Replay's fidelity measure
(``ctxmgr.replay.fidelity``) scores prompts by the same rule.

**The rule.** Tokens are the maximal runs of ``[A-Za-z0-9_./:-]`` with leading and
trailing ``.``, ``:``, ``-`` and ``/`` removed. A token is distinctive when it has
at least six characters and is not a *plain word*: ASCII letters only, and all
lowercase, all uppercase or one capital followed by lowercase.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, thaw

__all__ = ["MIN_FACT_CHARS", "distinctive_strings", "identifiers_note", "is_plain_word"]

MIN_FACT_CHARS = 6
"""Shortest distinctive string."""

_TOKEN_RE = re.compile(r"[A-Za-z0-9_./:-]+")
_STRIP = ".:-/"
_PLAIN_RE = re.compile(r"[a-z]+|[A-Z]+|[A-Z][a-z]+")


def is_plain_word(token: str) -> bool:
    """ASCII letters only, and all lowercase, all uppercase or capitalised."""
    return _PLAIN_RE.fullmatch(token) is not None


def distinctive_strings(text: str) -> Iterator[str]:
    """The distinctive strings of ``text``, in order (with repeats)."""
    for raw in _TOKEN_RE.findall(text):
        token = raw.strip(_STRIP)
        if len(token) >= MIN_FACT_CHARS and not is_plain_word(token):
            yield token


def _texts(m: Message) -> Iterator[str]:
    for b in m.content:
        if isinstance(b, ToolResultBlock):
            yield b.text
        elif isinstance(b, ToolUseBlock):
            yield str(thaw(b.input))
        elif isinstance(b, TextBlock):
            yield b.text


def identifiers_note(replaced: Sequence[Message], kept_text: str, max_chars: int) -> str:
    """One line naming the distinctive strings of ``replaced`` that ``kept_text`` lacks,
    the most recently seen first, within ``max_chars`` ("" when none or 0)."""
    if max_chars <= 0:
        return ""
    seen: dict[str, None] = {}
    for m in reversed(replaced):
        found = [t for text in _texts(m) for t in distinctive_strings(text)]
        for token in reversed(found):
            if token not in seen and token not in kept_text:
                seen[token] = None
    head = "Identifiers in the original: "
    out: list[str] = []
    size = len(head)
    for token in seen:
        if size + len(token) + 2 > max_chars:
            break
        out.append(token)
        size += len(token) + 2
    return head + ", ".join(out) if out else ""
