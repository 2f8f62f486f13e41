"""Generated user sessions driven through a real framework, and what each prompt must keep.

The sessions come from :mod:`planted` (held-out phrasings): a
hundred user turns with twenty planted items (safety rules, constraints and facts
with values, goals, preferences), five of them changed later to a new value. A
:class:`SurvivalCheck` follows which user turns the framework has been given so far
and, on every prompt the fake model receives, asks
:func:`~planted.score_prompt` whether each item said so far is
there with the value it has at that point: the planted value until the change is
said, from then on the new one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from planted import (
    PlantedItem,
    Session,
    SessionSpec,
    prompt_text,
    score_prompt,
)

from ctxmgr import CompressionEvent, Message, default_counter
from ctxmgr.autocontext.standing import USER_NOTE_HEADER

WINDOW = 4000
"""The model's window in every run here (issue 16: "100 turns at a 4k window")."""
CHAT = SessionSpec(kind="chat", family="heldout", user_turns=100, pastes=24)
"""A support chat of 100 user turns, a quarter of them pasted emails, policies and logs:
about twice the window, the user's turns alone more than the budget, so the oldest
of them must go into the note of the user's words."""
TOOLS = SessionSpec(kind="tools", family="heldout", user_turns=100)
"""An agent session of 100 user turns with up to three tool calls after each: about
nine times the window."""
USER_TURNS_STRATEGY = "user_turns"
"""The strategy that moves the oldest user turns into that note."""


def as_said(item: PlantedItem, said: set[str]) -> PlantedItem | None:
    """``item`` as it stands once the user messages ``said`` have been sent: ``None``
    before it is first said, with its planted value until its change is said."""
    if item.message_ids[0] not in said:
        return None
    if item.updated and item.message_ids[-1] not in said:
        return dataclasses.replace(item, values=item.replaced, replaced=(), latest=None,
                                   update_form=None)
    return item


@dataclass(frozen=True, slots=True)
class Loss:
    """An item said so far that one prompt does not keep."""

    call: int
    item: PlantedItem
    missing: tuple[str, ...]
    """Values it needs that the prompt does not hold."""
    overruled: tuple[str, ...]
    """Values the user replaced that the prompt shows after the latest one."""

    def __str__(self) -> str:
        i = self.item
        why = (f"missing {self.missing}" if self.missing else
               f"{self.overruled} shown after the latest value")
        return (f"call {self.call}: {i.key} ({i.type}, {i.form}) needs {i.values}: {why}; "
                f"said as {i.said}")


@dataclass
class SurvivalCheck:
    """Checks every prompt against the items said so far (call :meth:`said` before
    handing the framework each user turn, and this with every prompt the model gets).

    An item is kept as :func:`~planted.score_prompt` says: every value
    it needs at that point is in the prompt and, once the user changed it, the new value
    has the last word (the user's turns, or a note written before the change, may still
    show the old value earlier on).
    """

    session: Session
    heard: set[str] = field(default_factory=set)
    calls: int = 0
    scored: int = 0
    """Item checks made (an item said so far, on one prompt)."""
    losses: list[Loss] = field(default_factory=list)
    last_prompt: list[Message] = field(default_factory=list)
    events: list[CompressionEvent] = field(default_factory=list)

    def said(self, message: Message) -> None:
        self.heard.add(message.id)

    def on_event(self, event: CompressionEvent) -> None:
        self.events.append(event)

    def __call__(self, prompt: Sequence[Message]) -> None:
        self.calls += 1
        self.last_prompt = list(prompt)
        items = [i for i in (as_said(i, self.heard) for i in self.session.items) if i]
        text = prompt_text(prompt)
        for item, score in zip(items, score_prompt(items, prompt), strict=True):
            self.scored += 1
            if not score.kept:
                missing = tuple(v for v in item.values if v not in text)
                overruled = () if missing else tuple(v for v in item.replaced if v in text)
                self.losses.append(Loss(self.calls, item, missing, overruled))

    def assert_kept(self) -> None:
        """Raises :class:`InstructionLost` naming, for each item lost, the first prompt
        that missed it or still showed a value the user replaced."""
        first: dict[str, Loss] = {}
        for loss in self.losses:
            first.setdefault(loss.item.key, loss)
        if first:
            raise InstructionLost("\n".join([f"{len(first)} instruction(s) lost:",
                                             *(f"  {loss}" for loss in first.values())]))

    def applied(self, strategy: str) -> list[CompressionEvent]:
        return [e for e in self.events if e.status == "applied" and e.name == strategy]

    def assert_compressed(self) -> None:
        """The user's own turns had to go: the note of their words is in the last prompt,
        which is less than half of the whole session."""
        assert self.applied(USER_TURNS_STRATEGY)
        assert USER_NOTE_HEADER in prompt_text(self.last_prompt)
        counter = default_counter()
        whole = counter.count_messages(self.session.messages)
        assert counter.count_messages(self.last_prompt) < whole / 2


class InstructionLost(AssertionError):
    """An instruction the user gave did not reach the model as it stands (a failure of
    its own type, so a known loss is expected exactly and nothing else with it)."""


# ---------------------------------------------------------------- what ctxmgr loses today

_LOST: dict[tuple[str, int], str] = {
}
"""What today's compressor loses on the sessions these tests drive, by (kind, seed).
Remove an entry once the compressor keeps what it names."""


def known_loss(kind: str, seed: int) -> list[pytest.MarkDecorator]:
    """A strict xfail naming what is lost, for a case that loses something today."""
    reason = _LOST.get((kind, seed))
    return ([pytest.mark.xfail(strict=True, raises=InstructionLost, reason=reason)]
            if reason else [])
