"""Hand-made messages and helpers shared by the autocontext tests.

Sizes are in characters; :data:`C` (an ``ApproximateCounter``) counts 4 per
token. Builders give every message an explicit id so tests can name them.

:func:`group` has keyword arguments for the details a test file's histories
were tuned with (the tool's command and the first line of its result); a file
that wants other values than the defaults binds them once with
``functools.partial`` rather than spelling them at every call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

from ctxmgr.autocontext.config import AutoContextConfig, Tuning
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.messages import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    message_to_dict,
    text_message,
)
from ctxmgr.replay.policy import PolicyResult
from ctxmgr.tokens import ApproximateCounter

C = ApproximateCounter()
LARGE = 6000  # characters: over the 5 KiB large-payload threshold
SMALL = 100

Reload = Callable[[str], Sequence[Message]]


# ---------------------------------------------------------------- messages


def system(text: str = "You are a coding agent.", id: str = "sys") -> Message:
    """A system prompt, id ``sys`` unless given."""
    return text_message("system", text, id=id)


def user(text: str, id: str) -> Message:
    """A user turn."""
    return text_message("user", text, id=id)


def answer(text: str, id: str) -> Message:
    """A final assistant answer (no tool blocks)."""
    return text_message("assistant", text, id=id)


def call(cid: str, id: str, *, name: str = "bash", text: str = "",
         args: dict[str, object] | None = None) -> Message:
    """An assistant message with one tool call ``cid``, after a text block if ``text``;
    the arguments default to ``{"command": "cat <cid>.py"}``."""
    blocks: list[TextBlock | ToolUseBlock] = [TextBlock(text=text)] if text else []
    blocks.append(ToolUseBlock(id=cid, name=name, input=args or {"command": f"cat {cid}.py"}))
    return Message(role="assistant", content=tuple(blocks), id=id)


def result(cid: str, text: str, id: str, *, is_error: bool = False) -> Message:
    """The tool message answering call ``cid``."""
    return Message(role="tool", content=(ToolResultBlock(tool_use_id=cid, content=text,
                                                         is_error=is_error),), id=id)


def group(key: str, chars: int, *, name: str = "bash", text: str = "",
          command: str = "cat {key}.py", head: str = "output line") -> list[Message]:
    """One tool call and its result: ids ``key.call`` / ``key.result``, call id ``key``.

    The call runs ``command`` (``{key}`` in it is replaced by the key); the result is
    the line ``"<key> <head>"`` followed by ``chars`` characters.
    """
    return [call(key, f"{key}.call", name=name, text=text,
                 args={"command": command.format(key=key)}),
            result(key, f"{key} {head}\n" + "r" * chars, f"{key}.result")]


def groups(prefix: str, n: int, chars: int, **kw: Any) -> list[Message]:
    """``n`` groups keyed ``<prefix>0`` .. ``<prefix>{n-1}``; ``kw`` goes to :func:`group`."""
    return [m for k in range(n) for m in group(f"{prefix}{k}", chars, **kw)]


# ---------------------------------------------------------------- checking results


def dicts(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The messages as plain dicts, for comparisons that show a readable diff."""
    return [message_to_dict(m) for m in messages]


def expand(messages: Sequence[Message],
           source: OffloadStore | AutoContextMemory | Reload) -> list[Message]:
    """Every stand-in replaced by the messages its offload id reloads, recursively.

    ``source`` is an offload store, a memory (its ``reload``) or any function from an
    offload id to the messages stored under it.
    """
    reload: Reload
    if isinstance(source, OffloadStore):
        reload = source.load
    elif isinstance(source, AutoContextMemory):
        reload = source.reload
    else:
        reload = source
    out: list[Message] = []
    for m in messages:
        meta = m.metadata.get("ctxmgr")
        if meta and meta.get("compressed"):
            out.extend(expand(reload(meta["offload_id"]), reload))
        else:
            out.append(m)
    return out


def expand_one(store: OffloadStore, m: Message) -> list[Message]:
    """The original messages behind the stand-in ``m``, reloading nested stand-ins too."""
    return expand(store.load(str(m.metadata["ctxmgr"]["offload_id"])), store)


def plain_window(**kw: Any) -> AutoContextConfig:
    """A config whose budget is the whole window, that keeps no working set, writes no
    identifiers line and makes every edit its strategies plan (no payback gate), with
    the target the hand-made histories were sized for (0.15): the strategies' own
    mechanics. (The defaults hold back a reserve for the answer and a safety margin,
    keep the last tool results verbatim, name what a stand-in replaced and wait with an
    edit the window does not need until it pays back; tests of those use
    ``AutoContextConfig`` itself or set them.)"""
    base: dict[str, Any] = {"reserve_output_tokens": 0, "safety_margin": 0.0,
                            "keep_tool_results": 0, "identifiers_chars": 0,
                            "target_ratio": 0.15, "cached_token_price": None}
    base.update(kw)
    return AutoContextConfig().evolve(**base)


SETTINGS = frozenset(f.name for cls in (AutoContextConfig, Tuning) for f in fields(cls))
"""Every setting's name (of the config and of its tuning group)."""


def split_settings(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A test helper's keyword options split into settings (for the config) and the rest
    (for the constructor), so helpers keep taking both as keywords."""
    settings = {k: v for k, v in options.items() if k in SETTINGS}
    return settings, {k: v for k, v in options.items() if k not in SETTINGS}


# ---------------------------------------------------------------- replay


class Scripted:
    """A replay policy under the test's control: ``make(history)`` is the prompt."""

    def __init__(self, name: str, make: Callable[[list[Message]], list[Message]]) -> None:
        self.name = name
        self.make = make

    def reset(self) -> None:
        return None

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        return PolicyResult(messages=tuple(self.make(list(history))))
