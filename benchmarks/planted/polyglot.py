"""Seeded sessions with planted items in any of fourteen languages, and an outside-style
family.

A session is a system prompt, the task (the first user message), then user turns
answered by the assistant (``"chat"``) or by tool calls and results (``"tools"``), all
in one language (:mod:`planted.languages`; tool output stays what tools print). About
eighteen *planted items* are said in user turns spread over the early, middle and late
thirds: safety rules, constraints with a value, **instructions without a value**,
facts, goals and preferences. Some are said twice in other words, and some are
*updated* with a new value later.

Two families:

* ``"native"``: each language's own phrasings, chatter, pasted emails and logs;
* ``"outside"``: written unlike any of our generators (for the languages with
  :class:`~planted.languages.Outside` data): typed checklists and markdown lists holding
  several items at once, terse fragments, all-caps warnings, a rule said once in the
  middle of a long paragraph, a rule buried in a forwarded email or a pasted log.

The structure (which subjects, in which turns, which are updated, where the pastes go)
follows from ``(seed, kind, family)`` alone, so the same seed plants the same items at
the same turns in every language; the words and values follow from the language too.
Neither the task nor the latest user message carries an item, and no value, and no
sentence of an item without a value, occurs outside its item's messages
(:func:`check_polyglot_session`, after :func:`~planted.kept.normalize`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ctxmgr.messages import Message, text_message
from ctxmgr.pairing import validate_pairing
from ctxmgr.replay.fidelity import visible_text
from planted import filler
from planted.generator import POSITIONS, Position
from planted.kept import normalize
from planted.languages import (
    ITEM_TYPES,
    LANGUAGE_CODES,
    OUTSIDE_CODES,
    SUBJECTS,
    ItemType,
    Language,
    language,
    subjects_of,
)
from planted.values import VALUE_KINDS, is_distinctive

__all__ = [
    "FAMILIES",
    "KINDS",
    "LAYOUTS",
    "Family",
    "Kind",
    "PolyglotItem",
    "PolyglotSession",
    "PolyglotSpec",
    "check_polyglot_session",
    "generate_polyglot_session",
    "generate_polyglot_sessions",
]

Kind = Literal["chat", "tools"]
KINDS: tuple[Kind, ...] = ("chat", "tools")
Family = Literal["native", "outside"]
FAMILIES: tuple[Family, ...] = ("native", "outside")
Layout = Literal["sentence", "checklist", "markdown", "terse", "caps", "passing", "email",
                 "log"]
LAYOUTS: tuple[Layout, ...] = ("sentence", "checklist", "markdown", "terse", "caps", "passing",
                               "email", "log")
"""How an item is laid out in its message: ``"sentence"`` for every native item; the
outside family uses all of them."""
_GROUPED: tuple[Layout, ...] = ("checklist", "markdown")
_SINGLE: tuple[Layout, ...] = ("terse", "caps", "passing", "email", "log", "sentence")
_UPDATE_LAYOUTS: tuple[Layout, ...] = ("terse", "caps", "passing")
_ATTEMPTS = 40
_SENTINEL = "\x00"


@dataclass(frozen=True, slots=True, kw_only=True)
class PolyglotSpec:
    """What to generate. ``None`` sizes take the family's and kind's default: 48 user
    turns and 2 pastes for native chat, 28 turns (up to 3 tool calls after each) and 1
    paste for tools, 36 turns and 3 pastes for the outside family."""

    language: str = "en"
    kind: Kind = "chat"
    family: Family = "native"
    items: int = 18
    updates: int = 5
    restatements: int = 2
    user_turns: int | None = None
    pastes: int | None = None

    def __post_init__(self) -> None:
        if self.language not in LANGUAGE_CODES:
            raise ValueError(f"language must be one of {LANGUAGE_CODES}, got "
                             f"{self.language!r}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {FAMILIES}, got {self.family!r}")
        if self.family == "outside" and self.language not in OUTSIDE_CODES:
            raise ValueError(f"the outside family is written in {OUTSIDE_CODES}, not "
                             f"{self.language!r}")
        most = len(ITEM_TYPES) * min(len(subjects_of(t)) for t in ITEM_TYPES)
        if not len(ITEM_TYPES) <= self.items <= most:
            raise ValueError(f"items must be in [{len(ITEM_TYPES)}, {most}], got {self.items}")
        updatable = sum(1 for k in range(self.items) if _type_at(k) not in _FIXED)
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

    @property
    def turns(self) -> int:
        """User turns, the task and the latest message included."""
        if self.user_turns:
            return self.user_turns
        return 36 if self.family == "outside" else 48 if self.kind == "chat" else 28

    @property
    def paste_count(self) -> int:
        if self.pastes is not None:
            return self.pastes
        return 3 if self.family == "outside" else 2 if self.kind == "chat" else 1


_FIXED: tuple[ItemType, ...] = ("safety", "instruction")
"""Types never updated: a second protected target is a second rule, and an instruction
without a value has nothing to change."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PolyglotItem:
    """One thing the user said that must still stand in a prompt."""

    key: str
    """``"i00"`` ... in planting order."""
    type: ItemType
    subject: str
    """Its key in :data:`planted.languages.SUBJECTS`, the same in every language."""
    language: str
    position: Position
    values: tuple[str, ...]
    """Every string a prompt must hold (the latest value, for an updated item); empty
    for an instruction without a value, whose sentence must be there instead."""
    replaced: tuple[str, ...] = ()
    latest: str | None = None
    said: tuple[str, ...]
    """The sentences (or list lines) that said it, in order."""
    message_ids: tuple[str, ...]
    form: str
    """The planting's grammatical form (native) or layout (outside)."""
    layout: Layout = "sentence"

    @property
    def updated(self) -> bool:
        return self.latest is not None

    @property
    def valueless(self) -> bool:
        return not self.values


@dataclass(frozen=True, slots=True, kw_only=True)
class PolyglotSession:
    """A generated conversation and what was planted in it."""

    id: str
    seed: int
    spec: PolyglotSpec
    messages: tuple[Message, ...]
    items: tuple[PolyglotItem, ...]


def generate_polyglot_session(seed: int, spec: PolyglotSpec | None = None) -> PolyglotSession:
    """The session of ``seed`` under ``spec`` (default: English native chat).

    Raises:
        ValueError: ``spec`` is inconsistent (raised when the spec is built).
    """
    spec = spec or PolyglotSpec()
    lang = language(spec.language)
    plan = _plan(seed, spec)
    for attempt in range(_ATTEMPTS):
        rng = random.Random(f"ctxmgr.polyglot/{spec.language}/{spec.kind}/{spec.family}/"
                            f"{seed}/{attempt}")
        session = _Writer(rng, lang, spec, seed, plan).write()
        if not check_polyglot_session(session):
            return session
    raise RuntimeError(f"no valid session for seed {seed} in {_ATTEMPTS} draws: {spec}")


def generate_polyglot_sessions(n: int, spec: PolyglotSpec | None = None, *,
                               first_seed: int = 0) -> list[PolyglotSession]:
    """``n`` sessions, seeds ``first_seed`` .. ``first_seed + n - 1``."""
    return [generate_polyglot_session(s, spec) for s in range(first_seed, first_seed + n)]


def check_polyglot_session(session: PolyglotSession) -> list[str]:
    """What is wrong with ``session`` as a measuring instrument (empty: nothing): pairing,
    values that are not distinctive or occur outside their item's messages, a sentence
    without a value that occurs elsewhere, replaced values after their update, a latest
    value before it, an item in the task or the latest user message."""
    problems = [f"pairing: {v}" for v in validate_pairing(session.messages,
                                                          allow_in_flight=False)]
    texts = {m.id: normalize(visible_text(m)) for m in session.messages}
    order = {m.id: i for i, m in enumerate(session.messages)}
    users = [m.id for m in session.messages if m.role == "user"]
    for item in session.items:
        own = set(item.message_ids)
        if own & {users[0], users[-1]}:
            problems.append(f"{item.key}: said in the task or the latest message")
        update_at = order[item.message_ids[-1]] if item.updated else None
        needles = [*item.values, *item.replaced] if item.values else list(item.said)
        for raw in needles:
            needle = normalize(raw)
            where = [i for i, t in texts.items() if needle in t]
            if item.values and not is_distinctive(needle):
                problems.append(f"{item.key}: value {raw!r} is not distinctive")
            if not where:
                problems.append(f"{item.key}: {raw!r} is nowhere in the session")
            stray = [i for i in where if i not in own]
            if stray:
                problems.append(f"{item.key}: {raw!r} also occurs in {stray[:3]}")
            if update_at is not None and raw in item.replaced and any(
                    order[i] >= update_at for i in where):
                problems.append(f"{item.key}: replaced value {raw!r} after the update")
            if update_at is not None and raw == item.latest and any(
                    order[i] < update_at for i in where):
                problems.append(f"{item.key}: latest value {raw!r} before the update")
    return problems


# ---------------------------------------------------------------- the structure


class _Redraw(Exception):
    """This structure cannot be completed (no room for an event): draw again."""


@dataclass(frozen=True, slots=True)
class _Event:
    item: int
    what: Literal["plant", "restate", "update"]
    slot: int
    layout: Layout


@dataclass(frozen=True, slots=True)
class _Plan:
    subjects: tuple[str, ...]
    positions: tuple[Position, ...]
    updated: frozenset[int]
    events: tuple[_Event, ...]
    pastes: frozenset[int]


def _type_at(k: int) -> ItemType:
    return ITEM_TYPES[k % len(ITEM_TYPES)]


def _plan(seed: int, spec: PolyglotSpec) -> _Plan:
    for attempt in range(_ATTEMPTS):
        rng = random.Random(f"ctxmgr.polyglot/{spec.kind}/{spec.family}/{seed}/{attempt}")
        try:
            return _draw_plan(rng, spec)
        except _Redraw:
            continue
    raise RuntimeError(f"no room for {spec.items} items in {spec.turns} turns")  # pragma: no cover


def _draw_plan(rng: random.Random, spec: PolyglotSpec) -> _Plan:
    types = [_type_at(k) for k in range(spec.items)]
    rng.shuffle(types)
    pools = {t: rng.sample(subjects_of(t), len(subjects_of(t))) for t in ITEM_TYPES}
    subjects = [pools[t].pop() for t in types]
    positions = [POSITIONS[k % 3] for k in range(spec.items)]
    rng.shuffle(positions)
    updatable = [k for k, t in enumerate(types) if t not in _FIXED]
    rng.shuffle(updatable)
    updatable.sort(key=lambda k: positions[k] == "late")  # an update needs room after
    updated = frozenset(updatable[:spec.updates])

    first, last = 1, spec.turns - 2  # turn 0 is the task, turns - 1 the latest message
    span = last - first + 1
    bounds = {"early": (first, first + span // 3 - 1),
              "middle": (first + span // 3, first + 2 * span // 3 - 1),
              "late": (first + 2 * span // 3, last)}
    load: dict[int, int] = {}
    events: list[_Event] = []

    def place(item: int, what: Literal["plant", "restate", "update"], lo: int, hi: int,
              avoid: set[int], layout: Layout = "sentence") -> int:
        free = [s for s in range(lo, hi + 1) if load.get(s, 0) == 0 and s not in avoid]
        shared = [s for s in range(lo, hi + 1) if load.get(s, 0) == 1 and s not in avoid]
        pool = free if free and (not shared or rng.random() < 0.8) else shared
        if not pool:
            raise _Redraw
        slot = rng.choice(pool)
        load[slot] = load.get(slot, 0) + 1
        events.append(_Event(item, what, slot, layout))
        return slot

    outside = spec.family == "outside"
    plants: dict[int, int] = {}
    lists: dict[Position, tuple[int, Layout]] = {}
    for k in range(spec.items):
        lo, hi = bounds[positions[k]]
        if k in updated:
            hi = min(hi, last - 2)
        if outside and positions[k] != "late" and rng.random() < 0.45:
            if positions[k] not in lists:  # one list per third, holding several items
                free = [s for s in range(lo, hi + 1) if s not in load]
                if not free:
                    raise _Redraw
                slot = rng.choice(free)
                load[slot] = 99
                lists[positions[k]] = (slot, rng.choice(_GROUPED))
            slot, layout = lists[positions[k]]
            if k in updated and slot > last - 2:
                raise _Redraw
            events.append(_Event(k, "plant", slot, layout))
            plants[k] = slot
            continue
        layout = rng.choice(_SINGLE) if outside else "sentence"
        plants[k] = place(k, "plant", lo, hi, set(), layout)
    ends: dict[int, int] = {}
    for k in sorted(updated):
        soonest = plants[k] + 2
        lo = max(soonest, bounds["late"][0]) if rng.random() < 0.6 else soonest
        layout = rng.choice(_UPDATE_LAYOUTS) if outside else "sentence"
        ends[k] = place(k, "update", min(lo, last), last, {plants[k]}, layout)
    restatable = [k for k in range(spec.items) if ends.get(k, last + 1) - plants[k] >= 3]
    for k in rng.sample(restatable, min(spec.restatements, len(restatable))):
        layout = rng.choice(("sentence", "terse")) if outside else "sentence"
        place(k, "restate", plants[k] + 1, ends.get(k, last + 1) - 1, {plants[k]}, layout)
    pastes = frozenset(rng.sample([s for s in range(first, last + 1) if load.get(s) != 99],
                                  spec.paste_count))
    return _Plan(subjects=tuple(subjects), positions=tuple(positions), updated=updated,
                 events=tuple(sorted(events, key=lambda e: (e.slot, e.item))), pastes=pastes)


# ---------------------------------------------------------------- the words


@dataclass(slots=True)
class _Said:
    """One event in words: the text that says it, and the message it went into."""

    event: _Event
    text: str
    form: str
    message: int = -1


@dataclass(slots=True)
class _Draft:
    value: str | None
    new_value: str | None
    said: list[_Said] = field(default_factory=list)


class _Writer:
    def __init__(self, rng: random.Random, lang: Language, spec: PolyglotSpec, seed: int,
                 plan: _Plan) -> None:
        self.rng, self.lang, self.spec, self.seed, self.plan = rng, lang, spec, seed, plan
        self.id = f"{spec.language}-{spec.kind}-{spec.family}-{seed}"
        self.join = " " if lang.spaced else ""
        self.messages: list[Message] = []
        self.taken: set[str] = set()
        self._ids = 0

    def _next(self) -> str:
        """Message ids in order: ``<session id>-000``, ``-001`` ..."""
        self._ids += 1
        return f"{self.id}-{self._ids - 1:03d}"

    # -- values -------------------------------------------------------------------

    def draw(self, kind: str) -> str:
        """A fresh value of ``kind``, written this language's way, that neither contains
        nor is contained in another value of the session (normalized)."""
        maker = self.lang.values.get(kind) or VALUE_KINDS[kind]
        for _ in range(200):
            value = maker(self.rng)
            norm = normalize(value)
            if is_distinctive(norm) and not any(norm in t or t in norm for t in self.taken):
                self.taken.add(norm)
                return value
        raise RuntimeError(f"could not draw a fresh {kind} value")  # pragma: no cover

    # -- the session --------------------------------------------------------------

    def write(self) -> PolyglotSession:
        plan = self.plan
        drafts = []
        for k, subject in enumerate(plan.subjects):
            kind = SUBJECTS[subject][1]
            value = self.draw(kind) if kind else None
            new = self.draw(kind) if kind and k in plan.updated else None
            drafts.append(_Draft(value, new))
        used: dict[int, set[str]] = {}
        for e in plan.events:
            drafts[e.item].said.append(self.phrase(e, drafts[e.item], used.setdefault(e.item,
                                                                                     set())))
        self.converse(drafts)
        return PolyglotSession(id=self.id, seed=self.seed, spec=self.spec,
                               messages=tuple(self.messages),
                               items=tuple(self.item(k, d) for k, d in enumerate(drafts)))

    def phrase(self, e: _Event, d: _Draft, used: set[str]) -> _Said:
        """The words of one event; a restatement never repeats the planting's words."""
        rng, lang = self.rng, self.lang
        subject = self.plan.subjects[e.item]
        text_of = lang.subjects[subject]
        if e.what == "update":
            assert d.new_value is not None
            if self.spec.family == "outside":
                assert lang.outside is not None
                template = rng.choice(lang.outside.updates)
            else:
                template = rng.choice(lang.updates)
            text = template.replace("{label}", text_of.label)
            if e.layout == "passing":  # a terse line inside a paragraph ends as a sentence
                text += "." if lang.spaced else "。"
            return _Said(e, self.render(text, d.new_value, e.layout), "update")
        if e.layout == "sentence" and self.spec.family == "native":
            options = [s for s in text_of.said if s.text not in used]
            choice = rng.choice(options)
            used.add(choice.text)
            return _Said(e, self.render(choice.text, d.value, e.layout), choice.form)
        assert lang.outside is not None
        terse = e.layout in ("checklist", "markdown", "terse")
        source = lang.outside.terse if terse else lang.outside.sentence
        text = source[subject]
        if text in used:  # said the other way already
            text = (lang.outside.sentence if terse else lang.outside.terse)[subject]
        used.add(text)
        return _Said(e, self.render(text, d.value, e.layout), e.layout)

    def render(self, template: str, value: str | None, layout: Layout) -> str:
        """``template`` with its value; shouted for ``"caps"``, the value kept as is."""
        text = template.replace("{v}", _SENTINEL)
        if layout == "caps":
            assert self.lang.outside is not None
            text = self.lang.outside.shout(text)
        return text.replace(_SENTINEL, value or "")

    def item(self, k: int, d: _Draft) -> PolyglotItem:
        subject = self.plan.subjects[k]
        value = d.new_value or d.value
        first = d.said[0]
        return PolyglotItem(
            key=f"i{k:02d}", type=SUBJECTS[subject][0], subject=subject,
            language=self.spec.language, position=self.plan.positions[k],
            values=(value,) if value else (), replaced=(d.value,) if d.new_value and d.value
            else (), latest=d.new_value, said=tuple(s.text for s in d.said),
            message_ids=tuple(self.messages[s.message].id for s in d.said), form=first.form,
            layout=first.event.layout)

    # -- the conversation ---------------------------------------------------------

    def converse(self, drafts: Sequence[_Draft]) -> None:
        rng, lang, spec = self.rng, self.lang, self.spec
        by_slot: dict[int, list[_Said]] = {}
        for d in drafts:
            for s in d.said:
                by_slot.setdefault(s.event.slot, []).append(s)
        self.messages.append(text_message("system", rng.choice(lang.system_prompts[spec.kind]),
                                          id=self._next()))
        for slot in range(spec.turns):
            if slot == 0:
                text = rng.choice(lang.tasks[spec.kind])
            elif slot in by_slot:
                said = sorted(by_slot[slot], key=lambda s: rng.random())
                text = self.compose(said, slot in self.plan.pastes)
                for s in said:
                    s.message = len(self.messages)
            elif slot in self.plan.pastes:
                text = self.paste()
            else:
                text = self.chatter()
            self.messages.append(text_message("user", text, id=self._next()))
            self.answer(final=slot == spec.turns - 1, first=slot == 0,
                        after_instruction=slot in by_slot)

    def compose(self, said: Sequence[_Said], paste: bool) -> str:
        """One user message around its planted sentences, laid out as they say."""
        layout = said[0].event.layout
        if layout in _GROUPED:
            return self.listing(said, layout)
        if layout != "sentence" or self.spec.family == "outside":
            body = "\n\n".join(self.single(s) for s in said)
        else:
            body = self.around([self.restated(s) for s in said])
        return f"{self.paste()}\n\n{body}" if paste else body

    def around(self, sentences: Sequence[str]) -> str:
        """Native layout: the sentences alone, as a two-item list, after a lead-in or
        before a closing remark."""
        rng, lang = self.rng, self.lang
        if len(sentences) == 2 and lang.two_things and rng.random() < 0.35:
            body = rng.choice(lang.two_things) + "\n" + "\n".join(f"- {s}" for s in sentences)
        else:
            body = rng.choice((self.join or "", "\n\n", self.join or "")).join(sentences)
        shape = rng.random()
        if shape < 0.25:
            body = f"{rng.choice(lang.leads)}{self.join}{body}"
        elif shape < 0.4:
            body = f"{body}{self.join}{self.tail()}"
        elif shape < 0.6:
            body = f"{rng.choice(lang.leads)}{self.join}{body}{self.join}{self.tail()}"
        return body

    def restated(self, s: _Said) -> str:
        """A native sentence, after a remark that it was said before when it was."""
        lead = self.rng.choice(self.lang.restate_leads) if s.event.what == "restate" else ""
        return f"{lead}{self.join}{s.text}" if lead else s.text

    def tail(self) -> str:
        return self.rng.choice(self.lang.tails + self.lang.status)

    def listing(self, said: Sequence[_Said], layout: Layout) -> str:
        """A typed checklist or a markdown list of several items, and a chatty line after."""
        rng, out = self.rng, self.lang.outside
        assert out is not None
        lines = []
        numbered = rng.random() < 0.5
        marker = rng.choice(("- ", "* ", "• "))
        after = rng.choice(out.paragraph)
        for n, s in enumerate(said, 1):
            if layout == "markdown":
                kind = SUBJECTS[self.plan.subjects[s.event.item]][0]
                lines.append(f"- **{out.type_names[kind]}:** {s.text}")
            else:
                lines.append(f"{n}) {s.text}" if numbered else f"{marker}{s.text}")
        if layout == "markdown":
            return f"{rng.choice(out.markdown_heads)}\n\n" + "\n".join(lines) + f"\n\n{after}"
        return f"{rng.choice(out.checklist_heads)}\n" + "\n".join(lines) + f"\n\n{after}"

    def single(self, s: _Said) -> str:
        """One outside-style item in its frame (native sentences stand alone)."""
        rng, out, layout = self.rng, self.lang.outside, s.event.layout
        if layout in ("sentence", "terse", "caps") or out is None:
            return s.text
        if layout == "passing":
            before = rng.sample(out.paragraph, rng.randrange(2, 4))
            after = [p for p in rng.sample(out.paragraph, 3) if p not in before][:2]
            return self.join.join([*before, s.text, *after])
        if layout == "email":
            opening, closing = rng.choice(out.email_frames)
            body = rng.sample(out.email_lines, rng.randrange(4, 7))
            body.insert(rng.randrange(1, len(body)), s.text)
            quote = "> " if opening.splitlines()[-1].startswith(">") else ""
            return "\n".join([opening, *(f"{quote}{line}" for line in body), closing])
        rows = filler.log_lines(rng, rng.randrange(14, 26))
        rows.insert(rng.randrange(4, len(rows) - 3), out.log_note.format(text=s.text))
        return rng.choice(out.log_intros) + "\n" + "\n".join(rows)

    def chatter(self) -> str:
        """One short user turn that carries no planted item."""
        rng, lang = self.rng, self.lang
        kind = rng.choices(("courtesy", "question", "request", "status", "small talk",
                            "number"), (5, 4, 4, 3, 2, 4))[0]
        if kind == "number":
            return rng.choice(lang.numbers)(rng)
        return rng.choice({"courtesy": lang.courtesies, "question": lang.questions,
                           "request": lang.requests, "status": lang.status,
                           "small talk": lang.small_talk}[kind])

    def paste(self) -> str:
        """A long pasted text: a customer's email, a policy excerpt or a log."""
        rng, lang = self.rng, self.lang
        kind = rng.choice(("email", "policy", "log"))
        if kind == "email":
            lines = rng.sample(lang.email_lines, rng.randrange(4, len(lang.email_lines) + 1))
            return (f"{lang.email_intro}\n\n{lang.email_greeting}\n\n"
                    f"{self.join.join(lines)}\n\n{lang.email_signoff}")
        if kind == "policy":
            lines = rng.sample(lang.policy_lines, rng.randrange(3, len(lang.policy_lines) + 1))
            return f"{lang.policy_intro}\n\n" + "\n\n".join(lines)
        return lang.log_intro + "\n" + "\n".join(filler.log_lines(rng, rng.randrange(8, 16)))

    def answer(self, *, final: bool, first: bool, after_instruction: bool) -> None:
        """The assistant's side of one turn: a reply (chat) or tool steps then, mostly,
        a reply (tools)."""
        rng, lang = self.rng, self.lang
        if self.spec.kind == "tools":
            steps = rng.choices(range(4), (1, 3, 3, 3))[0]
            for _ in range(max(steps, 1 if first or final else 0)):
                self.messages.extend(filler.tool_step(rng, self._next,
                                                      intros=lang.tool_intros))
            if not (final or rng.random() < 0.75):
                return  # the user speaks up between tool calls
        weights = (12, 3, 1, 1) if after_instruction else (3, 5, 2, 1)
        kind = rng.choices(("ack", "explain", "plan", "clarify"), weights)[0]
        if kind == "ack":
            reply = rng.choice(lang.acks)
        elif kind == "explain":
            reply = self.join.join(rng.sample(lang.explanations, rng.randrange(1, 4)))
        elif kind == "plan":
            steps_ = rng.sample(lang.steps, rng.randrange(3, 6))
            reply = lang.plan_head + "\n" + "\n".join(f"{i}. {s}"
                                                      for i, s in enumerate(steps_, 1))
        else:
            reply = rng.choice(lang.clarify)
        self.messages.append(text_message("assistant", reply, id=self._next()))
