"""Generated user sessions driven through a real framework, and what each prompt must keep.

The sessions come from :mod:`ctxmgr.replay.instructions` (held-out phrasings): a
hundred user turns with twenty planted items (safety rules, constraints and facts
with values, goals, preferences), five of them changed later to a new value. A
:class:`SurvivalCheck` follows which user turns the framework has been given so far
and, on every prompt the fake model receives, asks
:func:`~ctxmgr.replay.instructions.score_prompt` whether each item said so far is
there with the value it has at that point: the planted value until the change is
said, from then on the new one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from ctxmgr import CompressionEvent, Message, default_counter
from ctxmgr.autocontext.standing import USER_NOTE_HEADER
from ctxmgr.replay.instructions import (
    PlantedItem,
    Session,
    SessionSpec,
    prompt_text,
    score_prompt,
)

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
    stale: tuple[str, ...]
    """Values the user replaced that ctxmgr still shows (see :class:`SurvivalCheck`)."""

    def __str__(self) -> str:
        i = self.item
        why = f"missing {self.missing}" if self.missing else f"still shows {self.stale}"
        return (f"call {self.call}: {i.key} ({i.type}, {i.form}) needs {i.values}: {why}; "
                f"said as {i.said}")


@dataclass
class SurvivalCheck:
    """Checks every prompt against the items said so far (call :meth:`said` before
    handing the framework each user turn, and this with every prompt the model gets).

    An item is *missing* from a prompt that lacks a value it needs at that point. It
    is *stale* when the user changed it and ctxmgr still shows the replaced value: in a
    note or stand-in, unless the change is still in the prompt verbatim, after it.
    The user's own message, verbatim, may still show the old value (the conversation
    reads as the user wrote it), and so may a note written before the change while the
    change follows it verbatim: a note is not rewritten on every turn (that would change
    the prompt's prefix on every call). A note that shows both values is stale.
    """

    session: Session
    heard: set[str] = field(default_factory=set)
    calls: int = 0
    scored: int = 0
    """Item checks made (an item said so far, on one prompt)."""
    losses: list[Loss] = field(default_factory=list)
    last_prompt: list[Message] = field(default_factory=list)
    events: list[CompressionEvent] = field(default_factory=list)
    _texts: dict[str, str] = field(default_factory=dict)
    _verbatim: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self._texts = {m.id: m.text for m in self.session.messages}
        self._verbatim = frozenset(t for t in self._texts.values() if t)

    def said(self, message: Message) -> None:
        self.heard.add(message.id)

    def on_event(self, event: CompressionEvent) -> None:
        self.events.append(event)

    def __call__(self, prompt: Sequence[Message]) -> None:
        self.calls += 1
        self.last_prompt = list(prompt)
        items = [i for i in (as_said(i, self.heard) for i in self.session.items) if i]
        text = prompt_text(prompt)
        shown = {m.text for m in prompt}
        by_ctxmgr = prompt_text([m for m in prompt if m.text not in self._verbatim])
        for item, score in zip(items, score_prompt(items, prompt), strict=True):
            self.scored += 1
            missing = tuple(v for v in item.values if v not in text)
            changed = item.updated and self._texts[item.message_ids[-1]] in shown
            stale = () if changed else tuple(v for v in item.replaced if v in by_ctxmgr)
            assert score.kept or missing or score.stale  # the measure is score_prompt's
            if missing or stale:
                self.losses.append(Loss(self.calls, item, missing, stale))

    def assert_kept(self) -> None:
        """Raises :class:`InstructionLost` naming, for each item lost, the first prompt
        that missed it or still showed a value the user replaced."""
        missing = _first_each([loss for loss in self.losses if loss.missing])
        stale = _first_each([loss for loss in self.losses if loss.stale])
        lines = [*(["missing from a prompt:", *missing] if missing else []),
                 *(["shown with a value the user replaced:", *stale] if stale else [])]
        if lines:
            raise InstructionLost("\n".join(lines))

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


def _first_each(losses: Sequence[Loss]) -> list[str]:
    first: dict[str, Loss] = {}
    for loss in losses:
        first.setdefault(loss.item.key, loss)
    return [f"  {loss}" for loss in first.values()]


# ---------------------------------------------------------------- what ctxmgr loses today

_STALE = ("the note shows a changed value beside the new one: standing.supersedes does "
          "not pair the held-out change with its planting")
_LOST: dict[tuple[str, int], dict[str, str]] = {
    ("chat", 0): {"stale": _STALE + (
        " (i05 'a hard limit of 8,150 EUR on the htoel rate' / 'treat €9,020.90 as the "
        "limit for the hotel rate': the typo leaves no shared word pair; i09 'they expect "
        "that every test in tests/piston_walrus passes' / 'the goal is that every test in "
        "tests/piston_thimble passes': no pair once the path's words are left out)")},
    ("chat", 1): {"stale": _STALE + (
        " (i09 'p95 latency is below 522 ms' / 'the slowest 5% of requests finish within "
        "686 ms': rephrased, and '5%' hides the unit 'ms'; i12 'Reading back through the "
        "thread, The number of retries shouldn't go past 9 attempts' reads 'The' as a name "
        "the change lacks)"),
        "missing": (
            "i03 (safety) 'Susbcription SUB-80025 is not to be cancelled by anyone but me' "
            "is dropped: the user ran it on from another item ('... cant go over 26 workers "
            "btw Susbcription SUB-80025 ...', no full stop), and standing.supersedes drops "
            "the whole run-on sentence when that item (parallel workers) changes")},
    ("chat", 2): {"stale": _STALE + (
        " (i06 'the staging sevrer's IP is 10.111.35.155?' / 'the staging server's IP is "
        "10.76.27.3, not what I told you': '10.76.27.3, not' reads as a number with the "
        "unit 'not', and the typo; i01 'answer in Czech?' / 'write to me in Tagalog now': "
        "no shared pair)")},
    ("chat", 3): {"stale": _STALE + (
        " (i02 'vresion v2.14.21 is tagged and released' / 'v8.30.11 is out'; i08 'Should "
        "the attachment size ever need to pass 427 MB' / 'each uploaded file can be up to "
        "386 MB': rephrased, no shared word pair)")},
    ("tools", 0): {"missing": (
        "standing.supersedes drops a sentence for a later one about something else that "
        "shares a contraction: i13 (fact) 'ORD-33866, that's the order in question.' for "
        "'It's db-minnow-primary-5, that's the primary database host.' (pair \"that' the\": "
        "'that's' less its s is taken for a content word), i08 (preference) 'send the "
        "summaries to torvald.halvorsen6@gracelane-mfg.com, thx I'll be offline ...' for "
        "'... the export lands in s3://orchid-piston-809/exports every night I'll be around "
        "...' (pair \"i'll be\", from run-on filler)")},
    ("tools", 1): {"missing": (
        "standing.supersedes takes two items about exports for one: i08 (preference) 'Try "
        "not to skip saving the exports to /var/lib/walrus/thimble-exports-78' is dropped "
        "for i15 (goal) 'the export lands in /srv/gannet-64/minnow/ every night', and i15 "
        "in turn for i08's change 'save the exports to /srv/ptarmigan-12/moraine/' (pair "
        "'the export')"),
        "stale": _STALE + (
            " (i03 'the ticket for this is TCK-79970' / 'use TCK-20189 for the support "
            "case': no shared word pair)")},
}
"""What today's compressor loses on the sessions these tests drive, by (kind, seed):
"missing", an item said so far is not in a prompt; "stale", a changed value still shows
beside the new one. Remove an entry once the compressor keeps what it names."""


def known_loss(kind: str, seed: int) -> list[pytest.MarkDecorator]:
    """A strict xfail naming what is lost, for a case that loses something today."""
    lost = _LOST.get((kind, seed), {})
    reason = "; ".join(f"{what}: {lost[what]}" for what in ("missing", "stale") if what in lost)
    return ([pytest.mark.xfail(strict=True, raises=InstructionLost, reason=reason)]
            if reason else [])
