"""What the protocol compresses with: ctxmgr, and two references to read it against.

A compressor takes the messages and a window and returns the prompt. Besides
ctxmgr out of the box, two references, neither of them a policy to ship:

* ``checklist``: the naive approach a reader would try first. It keeps the system
  messages, the task and the last exchange, and between them one note with every
  user sentence that carries a value (a digit, an amount, an address, a path, a
  capitalised name) or reads as an instruction (a short list of imperative and
  modal words), oldest dropped first until the prompt fits. It has no notion of
  an update, so a changed value is there twice.
* ``ceiling``: knows what was planted, and keeps the shortest sentence that says
  each item's latest value, as many as fit, beside the same pinned messages, in a
  note laid out as ctxmgr's is (its header, a line each, how many were left out, and
  the offload tag SPEC §5 asks of every stand-in): roughly the most a note of whole
  sentences can keep at that window.

Both hold the prompt to ctxmgr's budget for the window
(:attr:`AutoContextConfig.budget_tokens`), so they are measured on the same room.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.marker import offload_tag
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.pins import is_user_turn
from ctxmgr.autocontext.strategies.user_turns import user_note_text
from ctxmgr.errors import ContextOverflowError
from ctxmgr.messages import Message, text_message
from ctxmgr.pairing import tool_groups
from ctxmgr.tokens import TokenCounter, default_counter
from planted.generator import Session
from planted.scoring import prompt_text

__all__ = [
    "Compressed",
    "Compressor",
    "ceiling_compressor",
    "checklist_compressor",
    "ctxmgr_compressor",
]


@dataclass(frozen=True, slots=True)
class Compressed:
    """A compressor's answer: the prompt, and whether it gave up over the budget (for
    ctxmgr: ``ContextOverflowError``, the pinned messages alone do not fit)."""

    prompt: list[Message]
    overflow: bool = False


Compressor = Callable[[Sequence[Message], int], Compressed]
"""``(messages, window) -> Compressed``."""


def ctxmgr_compressor(messages: Sequence[Message], window: int) -> Compressed:
    """ctxmgr out of the box: a fresh ``AutoContextMemory`` with ``max_tokens=window`` and
    its default summarizer, everything added, ``compress_if_needed()``. On
    ``ContextOverflowError`` the memory keeps what it did, and that is the prompt."""
    memory = AutoContextMemory(AutoContextConfig(max_tokens=window))
    memory.add(messages)
    try:
        memory.compress_if_needed()
    except ContextOverflowError:
        return Compressed(memory.prompt, overflow=True)
    return Compressed(memory.prompt)


# ---------------------------------------------------------------- references

_NOTE_HEADER = "Notes from earlier in this conversation:"
_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_VALUE = re.compile(r"\d|[$€£%@/_]|(?<=\w )[A-Z][a-z]+")
_IMPERATIVE = re.compile(
    r"^(?:please |pls |always |never |don'?t |do not |make sure |keep |use |send |call |"
    r"cap |stop |avoid |remember )|\b(?:must|mustn't|should|shouldn't|never|always|can't|"
    r"cannot|not allowed|forbidden|limit|prefer)\b", re.I)


def _budget(window: int) -> int:
    return AutoContextConfig(max_tokens=window).budget_tokens


def _parts(messages: Sequence[Message]) -> tuple[list[Message], list[Message], list[Message],
                                                 list[Message]]:
    """(system messages, the task, the user turns between, the last exchange)."""
    systems = [m for m in messages if m.role == "system"]
    users = [i for i, m in enumerate(messages) if is_user_turn(m)]
    if not users:
        return systems, [], [], [m for m in messages if m.role != "system"]
    first, last = users[0], users[-1]
    middle = [messages[i] for i in users[1:-1]] if last > first else []
    task = [messages[first]] if last > first else []
    return systems, task, middle, [m for m in messages[last:] if m.role != "system"]


def _note(lines: Sequence[str]) -> Message:
    return text_message("user", "\n".join([_NOTE_HEADER, *(f"- {s}" for s in lines)]))


def _tagged_note(lines: Sequence[str], left_out: int, offload_id: str) -> Message:
    """A note laid out as ctxmgr's
    (:func:`~ctxmgr.autocontext.strategies.user_turns.user_note_text`), with the offload
    tag every stand-in carries: a reference without them would spend their tokens on
    lines (with the header, nearly a fifth of the note at a tenth of a chat session)."""
    return text_message("user", f"{user_note_text(lines, left_out)}\n{offload_tag(offload_id)}")


def _trim_tail(head: list[Message], tail: list[Message], budget: int,
               counter: TokenCounter) -> tuple[list[Message], bool]:
    """``tail`` with its oldest tool calls (and their results) dropped until ``head +
    tail`` fits ``budget``; ``True`` when even the bare exchange does not."""
    tail = list(tail)
    while counter.count_messages(head + tail) > budget:
        groups = tool_groups(tail)
        if not groups:
            return tail, True
        g = groups[0]
        tail = tail[:g.start] + tail[g.end:]
    return tail, False


def _fit(head: list[Message], lines: Sequence[str], tail: list[Message], budget: int,
         counter: TokenCounter) -> Compressed:
    """``head`` + a note of as many ``lines`` as fit (the first ones dropped first) +
    ``tail`` (trimmed by :func:`_trim_tail`)."""
    tail, overflow = _trim_tail(head, tail, budget, counter)
    if overflow:
        return Compressed(head + tail, overflow=True)
    kept = list(lines)
    while kept:
        prompt = [*head, _note(kept), *tail]
        if counter.count_messages(prompt) <= budget:
            return Compressed(prompt)
        kept.pop(0)
    return Compressed(head + tail)


def _sentences(text: str) -> list[str]:
    out = []
    for piece in _SPLIT.split(text):
        piece = piece.strip().removeprefix("- ").strip()
        if piece and piece != _NOTE_HEADER:
            out.append(piece)
    return out


def checklist_compressor(messages: Sequence[Message], window: int) -> Compressed:
    """The naive reference: system, task, a note of every user sentence with a value or
    an imperative (oldest dropped first to fit), the last exchange."""
    counter = default_counter()
    systems, task, middle, tail = _parts(messages)
    lines: list[str] = []
    for m in middle:
        for s in _sentences(m.text):
            if (_VALUE.search(s) or _IMPERATIVE.search(s)) and s not in lines:
                lines.append(s)
    return _fit(systems + task, lines, tail, _budget(window), counter)


def ceiling_compressor(session: Session) -> Compressor:
    """The oracle reference for ``session``: the shortest sentence still in the input that
    says each item's latest value (and no replaced one), shortest first while they fit,
    in session order, in a note with ctxmgr's markup (:func:`_tagged_note`)."""
    counter = default_counter()

    def compress(messages: Sequence[Message], window: int) -> Compressed:
        systems, task, middle, tail = _parts(messages)
        head, budget = systems + task, _budget(window)
        tail, overflow = _trim_tail(head, tail, budget, counter)
        if overflow:
            return Compressed(head + tail, overflow=True)
        text = prompt_text(messages)
        candidates: list[tuple[int, str]] = []
        for order, item in enumerate(session.items):
            said = [s for s in item.said if s in text and all(v in s for v in item.values)
                    and not any(r in s for r in item.replaced)]
            if said:
                candidates.append((order, min(said, key=len)))
        offload_id = OffloadStore.id_for(middle)

        def note(chosen: Sequence[tuple[int, str]]) -> Message:
            # the items left out, in later rounds too: they are in the originals
            return _tagged_note([s for _, s in chosen], len(session.items) - len(chosen),
                                offload_id)

        chosen: list[tuple[int, str]] = []
        for candidate in sorted(candidates, key=lambda c: len(c[1])):
            trial = sorted([*chosen, candidate])
            if counter.count_messages([*head, note(trial), *tail]) <= budget:
                chosen = trial
        return Compressed([*head, *([note(chosen)] if chosen else []), *tail])

    return compress
