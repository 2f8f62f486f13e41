"""Seeded sessions with planted user instructions, chat-only or tool-heavy.

A session is a system prompt, the task (the first user message), then user turns
answered by the assistant (``"chat"``) or by tool calls and results between the
user's turns (``"tools"``). About twenty *planted items* (safety rules, hard
constraints, facts, goals, preferences) are said in user turns spread over the
early, middle and late thirds; some are said again later (same value, other
words) and some are *updated* with a new value. Neither the task nor the latest
user message (both always kept verbatim by ctxmgr) carries an item, and no value
occurs anywhere but in its own item's messages (:func:`check_session`), so a
value in a prompt means the item survived.

Everything follows from ``(seed, spec)``: the same pair gives the same session.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ctxmgr.messages import Message, text_message
from ctxmgr.pairing import validate_pairing
from ctxmgr.replay.fidelity import visible_text
from planted import filler
from planted.phrasings import (
    FAMILIES,
    ITEM_TYPES,
    SUBJECTS,
    TEMPLATES,
    UPDATABLE,
    UPDATES,
    Family,
    ItemType,
    Subject,
    Template,
    pick_style,
    render,
)
from planted.values import draw, is_distinctive

__all__ = [
    "KINDS",
    "POSITIONS",
    "Kind",
    "PlantedItem",
    "Position",
    "Session",
    "SessionSpec",
    "check_session",
    "generate_session",
    "generate_sessions",
]

Kind = Literal["chat", "tools"]
KINDS: tuple[Kind, ...] = ("chat", "tools")
Position = Literal["early", "middle", "late"]
POSITIONS: tuple[Position, ...] = ("early", "middle", "late")

_ATTEMPTS = 40  # a drawn session with a value collision is redrawn (rare)
_RESTATE_LEADS = ("Just to repeat something from earlier.", "I know I said this already.",
                  "Saying this again because it matters.", "")


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionSpec:
    """What to generate. ``None`` sizes take the kind's default: 64 user turns and 2
    pasted texts for ``"chat"`` (about 130 messages), 32 user turns with up to
    ``max_tool_steps`` tool calls after each and 1 pasted text for ``"tools"``."""

    kind: Kind = "chat"
    family: Family = "design"
    items: int = 20
    updates: int = 5
    restatements: int = 2
    user_turns: int | None = None
    pastes: int | None = None
    max_tool_steps: int = 3

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {FAMILIES}, got {self.family!r}")
        most = sum(len(SUBJECTS[t]) for t in ITEM_TYPES)
        if not 1 <= self.items <= most:
            raise ValueError(f"items must be in [1, {most}], got {self.items}")
        updatable = sum(1 for k in range(self.items) if _type_at(k) in UPDATABLE)
        if not 0 <= self.updates <= updatable:
            raise ValueError(f"updates must be in [0, {updatable}] for {self.items} items, "
                             f"got {self.updates}")
        if not 0 <= self.restatements <= self.items:
            raise ValueError(f"restatements must be in [0, {self.items}], got "
                             f"{self.restatements}")
        events = self.items + self.updates + self.restatements
        if (self.turns - 2) * 2 < events + 6:
            raise ValueError(f"user_turns={self.turns} is too few for {events} planted "
                             f"sentences; give at least {(events + 6) // 2 + 3}")
        if self.max_tool_steps < 1:
            raise ValueError(f"max_tool_steps must be >= 1, got {self.max_tool_steps}")

    @property
    def turns(self) -> int:
        """User turns, the task and the latest message included."""
        return self.user_turns or (64 if self.kind == "chat" else 32)

    @property
    def paste_count(self) -> int:
        return self.pastes if self.pastes is not None else (2 if self.kind == "chat" else 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlantedItem:
    """One thing the user said that must still stand in a prompt."""

    key: str
    """``"i00"`` ... in planting order within the session."""
    type: ItemType
    position: Position
    """The third of the session (by user turn) where it was first said."""
    values: tuple[str, ...]
    """Every string a prompt must hold for the item to count as kept (for an updated
    item, its latest value)."""
    replaced: tuple[str, ...] = ()
    """Earlier values of an updated item: a prompt that still holds one does not let
    the latest value stand."""
    latest: str | None = None
    """The value the update set (``None``: never updated)."""
    said: tuple[str, ...]
    """The sentences that said it, in order (planting, restatements, update)."""
    message_ids: tuple[str, ...]
    """The user messages they are in, in the same order."""
    form: str
    """The planting's structural form (``"passive"``, ``"question"`` ...)."""
    update_form: str | None = None
    """``"same"`` (the subject's words again) or ``"rephrased"``; ``None``: no update."""

    @property
    def updated(self) -> bool:
        return self.latest is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
    """A generated conversation and what was planted in it."""

    id: str
    seed: int
    spec: SessionSpec
    messages: tuple[Message, ...]
    items: tuple[PlantedItem, ...]


def generate_session(seed: int, spec: SessionSpec | None = None) -> Session:
    """The session of ``seed`` under ``spec`` (default: chat, design family).

    Raises:
        ValueError: ``spec`` is inconsistent (raised when the spec is built).
    """
    spec = spec or SessionSpec()
    for attempt in range(_ATTEMPTS):
        rng = random.Random(f"ctxmgr.instructions/{spec.kind}/{spec.family}/{seed}/{attempt}")
        try:
            session = _Builder(rng, seed, spec).build()
        except _Redraw:
            continue
        if not check_session(session):
            return session
    raise RuntimeError(f"no valid session for seed {seed} in {_ATTEMPTS} draws: {spec}")


def generate_sessions(n: int, spec: SessionSpec | None = None, *, first_seed: int = 0
                      ) -> list[Session]:
    """``n`` sessions, seeds ``first_seed`` .. ``first_seed + n - 1``."""
    return [generate_session(s, spec) for s in range(first_seed, first_seed + n)]


def check_session(session: Session) -> list[str]:
    """What is wrong with ``session`` as a measuring instrument (empty: nothing):
    pairing, values that are not distinctive or occur outside their item's messages,
    replaced values after their update, a latest value before it."""
    problems = [f"pairing: {v}" for v in validate_pairing(session.messages,
                                                          allow_in_flight=False)]
    texts = {m.id: visible_text(m) for m in session.messages}
    order = {m.id: i for i, m in enumerate(session.messages)}
    for item in session.items:
        own = set(item.message_ids)
        update_at = order[item.message_ids[-1]] if item.updated else None
        for value in (*item.values, *item.replaced):
            where = [i for i, t in texts.items() if value in t]
            if not is_distinctive(value):
                problems.append(f"{item.key}: value {value!r} is not distinctive")
            if not where:
                problems.append(f"{item.key}: value {value!r} is nowhere in the session")
            stray = [i for i in where if i not in own]
            if stray:
                problems.append(f"{item.key}: value {value!r} also occurs in {stray[:3]}")
            if update_at is not None and value in item.replaced and any(
                    order[i] >= update_at for i in where):
                problems.append(f"{item.key}: replaced value {value!r} after the update")
            if update_at is not None and value == item.latest and any(
                    order[i] < update_at for i in where):
                problems.append(f"{item.key}: latest value {value!r} before the update")
    return problems


# ---------------------------------------------------------------- building


class _Redraw(Exception):
    """This draw cannot be completed (no room for an event): draw again."""


@dataclass(slots=True)
class _Event:
    item: int
    what: Literal["plant", "restate", "update"]
    slot: int = -1
    """The user turn it is said in; once written, the index of its message."""
    text: str = ""
    """The sentence that says it."""


@dataclass(slots=True)
class _Draft:
    type: ItemType
    subject: Subject
    position: Position
    value: str
    form: str = ""
    new_value: str | None = None
    update_form: str | None = None
    events: list[_Event] = field(default_factory=list)


def _type_at(k: int) -> ItemType:
    return ITEM_TYPES[k % len(ITEM_TYPES)]


class _Builder:
    def __init__(self, rng: random.Random, seed: int, spec: SessionSpec) -> None:
        self.rng, self.seed, self.spec = rng, seed, spec
        self.id = f"{spec.kind}-{spec.family}-{seed}"
        self.taken: set[str] = set()
        self.messages: list[Message] = []
        self._templates: dict[ItemType, Iterator[Template]] = {}
        self._ids = 0

    def new_id(self) -> str:
        """Message ids in order: ``<session id>-000``, ``-001`` ..."""
        self._ids += 1
        return f"{self.id}-{self._ids - 1:03d}"

    def build(self) -> Session:
        drafts = self._drafts()
        events = self._schedule(drafts)
        self._phrase(drafts, events)
        self._write(events)
        items = [self._item(k, d) for k, d in enumerate(drafts)]
        return Session(id=self.id, seed=self.seed, spec=self.spec,
                       messages=tuple(self.messages), items=tuple(items))

    # -- what is planted ----------------------------------------------------------

    def _drafts(self) -> list[_Draft]:
        spec, rng = self.spec, self.rng
        types = [_type_at(k) for k in range(spec.items)]
        rng.shuffle(types)
        subjects = {t: rng.sample(SUBJECTS[t], len(SUBJECTS[t])) for t in ITEM_TYPES}
        positions = [POSITIONS[k % 3] for k in range(spec.items)]
        rng.shuffle(positions)
        drafts = []
        for t, p in zip(types, positions, strict=True):
            subject = subjects[t].pop()
            drafts.append(_Draft(type=t, subject=subject, position=p,
                                 value=draw(subject.value, rng, self.taken)))
        updatable = [k for k, d in enumerate(drafts) if d.type in UPDATABLE]
        rng.shuffle(updatable)
        # an update needs room after the planting: early and middle items first
        updatable.sort(key=lambda k: drafts[k].position == "late")
        for k in updatable[:spec.updates]:
            drafts[k].new_value = draw(drafts[k].subject.value, rng, self.taken)
        return drafts

    def _schedule(self, drafts: Sequence[_Draft]) -> list[_Event]:
        """Put every event in a user turn: plantings in their third, updates later (most
        in the last third), restatements between."""
        rng, turns = self.rng, self.spec.turns
        first, last = 1, turns - 2  # turn 0 is the task, turn turns-1 the latest message
        span = last - first + 1
        bounds = {"early": (first, first + span // 3 - 1),
                  "middle": (first + span // 3, first + 2 * span // 3 - 1),
                  "late": (first + 2 * span // 3, last)}
        load: dict[int, int] = {}
        events: list[_Event] = []

        def place(event: _Event, lo: int, hi: int, avoid: set[int]) -> int:
            free = [s for s in range(lo, hi + 1) if load.get(s, 0) == 0 and s not in avoid]
            shared = [s for s in range(lo, hi + 1) if load.get(s, 0) == 1 and s not in avoid]
            pool = free if free and (not shared or rng.random() < 0.8) else shared
            if not pool:
                raise _Redraw
            event.slot = rng.choice(pool)
            load[event.slot] = load.get(event.slot, 0) + 1
            events.append(event)
            return event.slot

        plants = {}
        for k, d in enumerate(drafts):
            lo, hi = bounds[d.position]
            if d.new_value is not None:
                hi = min(hi, last - 2)
            plants[k] = place(_Event(k, "plant"), lo, hi, set())
        ends: dict[int, int] = {}
        for k, d in enumerate(drafts):
            if d.new_value is None:
                continue
            soonest = plants[k] + 2
            lo = max(soonest, bounds["late"][0]) if rng.random() < 0.6 else soonest
            ends[k] = place(_Event(k, "update"), min(lo, last), last, {plants[k]})
        restated = [k for k in range(len(drafts))
                    if ends.get(k, last + 1) - plants[k] >= 3]
        for k in rng.sample(restated, min(self.spec.restatements, len(restated))):
            place(_Event(k, "restate"), plants[k] + 1, ends.get(k, last + 1) - 1,
                  {plants[k]})
        for k, d in enumerate(drafts):
            d.events = sorted((e for e in events if e.item == k), key=lambda e: e.slot)
        return events

    # -- how it is said -----------------------------------------------------------

    def _template(self, type_: ItemType) -> Template:
        """The family's templates of ``type_`` in a shuffled cycle: a session uses every
        form before it repeats one."""
        if type_ not in self._templates:
            pool = [t for t in TEMPLATES[type_] if t.family == self.spec.family]
            self._templates[type_] = _cycle(pool, self.rng)
        return next(self._templates[type_])

    def _phrase(self, drafts: Sequence[_Draft], events: Sequence[_Event]) -> None:
        rng = self.rng
        for e in sorted(events, key=lambda e: e.slot):
            d = drafts[e.item]
            style = pick_style(rng)
            if e.what == "update":
                assert d.new_value is not None
                pool = [t for t in UPDATES[d.type] if t.family == self.spec.family]
                template = rng.choice(pool)
                d.update_form = template.form
                e.text = render(template, d.subject, d.new_value, style=style, rng=rng)
                continue
            template = self._template(d.type)
            if e.what == "plant":
                d.form = template.form
            text = render(template, d.subject, d.value, style=style, rng=rng)
            if e.what == "restate":
                text = " ".join(s for s in (rng.choice(_RESTATE_LEADS), text) if s)
            e.text = text

    def _compose(self, sentences: Sequence[str], paste: bool) -> str:
        """One user message around its planted sentences: alone, after a lead-in, before
        a closing remark, as a list, or after a pasted text."""
        rng = self.rng
        if len(sentences) == 2 and rng.random() < 0.35:
            body = rng.choice(("Two things:", "A couple of points.")) + "\n" + "\n".join(
                f"- {s}" for s in sentences)
        else:
            body = rng.choice((" ", "\n\n", " ")).join(sentences)
        shape = rng.random()
        if shape < 0.25:
            body = f"{filler.lead_in(rng)} {body}"
        elif shape < 0.4:
            body = f"{body} {filler.tail(rng)}"
        elif shape < 0.6:
            body = f"{filler.lead_in(rng)} {body} {filler.tail(rng)}"
        return f"{filler.paste(rng)}\n\n{body}" if paste else body

    # -- the conversation ---------------------------------------------------------

    def _write(self, events: Sequence[_Event]) -> None:
        rng, spec = self.rng, self.spec
        by_slot: dict[int, list[_Event]] = {}
        for e in events:
            by_slot.setdefault(e.slot, []).append(e)
        pastes = set(rng.sample(range(1, spec.turns - 1), spec.paste_count))
        self.messages.append(text_message("system", rng.choice(filler.SYSTEM_PROMPTS[spec.kind]),
                                          id=self.new_id()))
        for slot in range(spec.turns):
            if slot == 0:
                text = rng.choice(filler.TASKS[spec.kind])
            elif slot in by_slot:
                planted = sorted(by_slot[slot], key=lambda e: rng.random())
                text = self._compose([e.text for e in planted], slot in pastes)
                for e in planted:
                    e.slot = len(self.messages)
            elif slot in pastes:
                text = filler.paste(rng)
            else:
                text = filler.user_filler(rng)
            self.messages.append(text_message("user", text, id=self.new_id()))
            self._answer(final=slot == spec.turns - 1, first=slot == 0,
                         after_instruction=slot in by_slot)

    def _answer(self, *, final: bool, first: bool, after_instruction: bool) -> None:
        """The assistant's side of one turn: a reply (chat) or tool steps then, mostly,
        a reply (tools)."""
        rng = self.rng
        if self.spec.kind == "tools":
            steps = rng.choices(range(self.spec.max_tool_steps + 1),
                                [1] + [3] * self.spec.max_tool_steps)[0]
            for _ in range(max(steps, 1 if first or final else 0)):
                self.messages.extend(filler.tool_step(rng, self.new_id))
            if not (final or rng.random() < 0.75):
                return  # the user speaks up between tool calls
        reply = filler.assistant_reply(rng, after_instruction=after_instruction)
        self.messages.append(text_message("assistant", reply, id=self.new_id()))

    def _item(self, k: int, d: _Draft) -> PlantedItem:
        said, ids = [], []
        for e in d.events:
            ids.append(self.messages[e.slot].id)
            said.append(e.text)
        value = d.new_value or d.value
        return PlantedItem(key=f"i{k:02d}", type=d.type, position=d.position, values=(value,),
                           replaced=(d.value,) if d.new_value else (), latest=d.new_value,
                           said=tuple(said), message_ids=tuple(ids), form=d.form,
                           update_form=d.update_form)


def _cycle(pool: Sequence[Template], rng: random.Random) -> Iterator[Template]:
    while True:
        order = list(pool)
        rng.shuffle(order)
        yield from order
