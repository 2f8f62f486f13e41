"""What each language brings to the polyglot suite, one data module per language.

``planted/languages/<code>.py`` defines ``LANGUAGE``, a :class:`Language`: how people who
write that language say each planted subject (:data:`SUBJECTS`), how they change a value,
what they chat about around it, what the assistant answers, what they paste, and how
they write amounts, dates, times and names. Each file is written in its own language's
idiom and punctuation, not translated from another file's templates, so a reviewer can
read one language at a time. :mod:`planted.polyglot` turns them into sessions.

Subjects are shared: the same key means the same thing in every language (the
production database, the refund cap, "no emojis" ...), so the same seed plants the same
items at the same turns in every language and languages are compared on equal terms.
A subject with a value kind has ``{v}`` in every phrasing; one without (``None``) is an
*instruction without a value* ("always reply in Czech", "no emojis"): its sentence is
what must survive.
"""

from __future__ import annotations

import importlib
import random
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

__all__ = [
    "FORMS",
    "ITEM_TYPES",
    "LANGUAGE_CODES",
    "OUTSIDE_CODES",
    "SUBJECTS",
    "Form",
    "ItemType",
    "Language",
    "Outside",
    "Said",
    "Script",
    "SubjectText",
    "ValueMaker",
    "language",
    "script_share",
    "subjects_of",
]

ItemType = Literal["safety", "constraint", "instruction", "fact", "goal", "preference"]
ITEM_TYPES: tuple[ItemType, ...] = ("safety", "constraint", "instruction", "fact", "goal",
                                    "preference")
Form = Literal["imperative", "polite", "modal", "negation", "conditional", "first person",
               "question", "casual", "statement"]
FORMS: tuple[Form, ...] = ("imperative", "polite", "modal", "negation", "conditional",
                           "first person", "question", "casual", "statement")
Script = Literal["Latin", "Cyrillic", "Han", "Japanese", "Hangul", "Arabic"]
ValueMaker = Callable[[random.Random], str]

LANGUAGE_CODES: tuple[str, ...] = ("en", "de", "fr", "es", "pt", "it", "nl", "ru", "pl", "tr",
                                   "zh", "ja", "ko", "ar")
OUTSIDE_CODES: tuple[str, ...] = ("en", "de", "ru", "zh")
"""Languages that also write the outside-style family (:class:`Outside`)."""

SUBJECTS: Mapping[str, tuple[ItemType, str | None]] = {
    # safety rules: what must never be done (with the target as the value, or none)
    "prod_db": ("safety", "host"),
    "release_branch": ("safety", "branch"),
    "export_dir": ("safety", "dir"),
    "unsubscribed": ("safety", "email"),
    "ledger_table": ("safety", "table"),
    "backups": ("safety", None),
    "secrets": ("safety", None),
    # constraints with a value
    "refund_cap": ("constraint", "money"),
    "discount": ("constraint", "percent"),
    "ad_budget": ("constraint", "money"),
    "batch_size": ("constraint", "count:rows"),
    "timeout": ("constraint", "count:seconds"),
    # instructions without any value
    "reply_language": ("instruction", None),
    "no_emojis": ("instruction", None),
    "short": ("instruction", None),
    "no_competitor": ("instruction", None),
    "formal": ("instruction", None),
    "no_markdown": ("instruction", None),
    "ask_first": ("instruction", None),
    # facts with a value
    "account": ("fact", "account"),
    "order": ("fact", "order"),
    "staging_ip": ("fact", "ip"),
    "contact": ("fact", "email"),
    "meeting": ("fact", "date"),
    "config": ("fact", "file"),
    # goals
    "tests": ("goal", "suite"),
    "backlog": ("goal", "count:tickets"),
    "latency": ("goal", "count:ms"),
    "invoice": ("goal", "invoice"),
    # preferences
    "call_me": ("preference", "name"),
    "summaries_to": ("preference", "email"),
    "update_time": ("preference", "time"),
    "signature": ("preference", "name"),
}
"""Every subject: its item type and the kind of value it takes (``None``: no value)."""

LOCAL_KINDS: tuple[str, ...] = ("money", "percent", "date", "time", "name", "count:rows",
                                "count:seconds", "count:tickets", "count:ms")
"""Value kinds each language writes its own way; the rest (hosts, paths, ids, emails)
are the same strings everywhere (:data:`planted.values.VALUE_KINDS`)."""


def subjects_of(type_: ItemType) -> tuple[str, ...]:
    """The subject keys of ``type_``, in :data:`SUBJECTS` order."""
    return tuple(k for k, (t, _) in SUBJECTS.items() if t == type_)


@dataclass(frozen=True, slots=True)
class Said:
    """One way of saying a subject: its grammatical form and the sentence (``{v}`` is the
    value)."""

    form: Form
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SubjectText:
    """A subject in one language: its phrasings (at least two, so a restatement has other
    words) and, for a subject that can be updated, a short noun phrase the update
    sentences name it by."""

    said: tuple[Said, ...]
    label: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Outside:
    """The outside-style family in one language: terse lines and full sentences per
    subject, and the frames they are buried in (checklists, markdown, emails, logs,
    long paragraphs)."""

    terse: Mapping[str, str]
    """A fragment per subject, as typed in a list or on its own ("no emojis pls")."""
    sentence: Mapping[str, str]
    """A full sentence per subject, said in passing, shouted or buried in a paste."""
    updates: tuple[str, ...]
    """Terse updates, with ``{label}`` and ``{v}``."""
    checklist_heads: tuple[str, ...]
    markdown_heads: tuple[str, ...]
    type_names: Mapping[ItemType, str]
    """The bold label a markdown line starts with, per item type."""
    paragraph: tuple[str, ...]
    """Chatty sentences (no values) around a sentence said in passing."""
    email_frames: tuple[tuple[str, str], ...]
    """(opening, closing) of a forwarded email; its body is ``email_lines``."""
    email_lines: tuple[str, ...]
    log_intros: tuple[str, ...]
    log_note: str
    """How a note is marked inside a pasted log, with ``{text}``."""
    shout: Callable[[str], str]
    """How the language shouts a sentence (upper case, or a mark where there is no case);
    the value is kept as it is."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Language:
    """Everything one language writes into a session (see the module docstring)."""

    code: str
    name: str
    script: Script
    spaced: bool
    """Sentences are separated by a space (``False`` for Chinese and Japanese)."""
    subjects: Mapping[str, SubjectText]
    updates: tuple[str, ...]
    """Update sentences, with ``{label}`` and ``{v}`` (never the old value)."""
    restate_leads: tuple[str, ...]
    values: Mapping[str, ValueMaker]
    """The :data:`LOCAL_KINDS`, written as people of this language write them."""
    system_prompts: Mapping[str, tuple[str, ...]]
    tasks: Mapping[str, tuple[str, ...]]
    courtesies: tuple[str, ...]
    questions: tuple[str, ...]
    requests: tuple[str, ...]
    status: tuple[str, ...]
    small_talk: tuple[str, ...]
    numbers: tuple[ValueMaker, ...]
    """Remarks that carry a number but no instruction ("I had 3 coffees")."""
    leads: tuple[str, ...]
    tails: tuple[str, ...]
    acks: tuple[str, ...]
    explanations: tuple[str, ...]
    plan_head: str
    steps: tuple[str, ...]
    clarify: tuple[str, ...]
    tool_intros: tuple[str, ...]
    email_intro: str
    email_greeting: str
    email_lines: tuple[str, ...]
    email_signoff: str
    policy_intro: str
    policy_lines: tuple[str, ...]
    log_intro: str
    outside: Outside | None = None
    two_things: tuple[str, ...] = field(default=())
    """Heads of a message that lists two planted sentences ("Two things:")."""


@cache
def language(code: str) -> Language:
    """The data of ``code`` (one of :data:`LANGUAGE_CODES`), checked once.

    Raises:
        ValueError: ``code`` is not a known language, or its data misses a subject, a
            value kind or a ``{v}``.
    """
    if code not in LANGUAGE_CODES:
        raise ValueError(f"language must be one of {LANGUAGE_CODES}, got {code!r}")
    data: Language = importlib.import_module(f"planted.languages.{code}").LANGUAGE
    problems = _problems(data)
    if problems:
        raise ValueError(f"planted/languages/{code}.py: {'; '.join(problems[:3])}")
    return data


def _problems(data: Language) -> list[str]:
    problems = [f"no value kind {k!r}" for k in LOCAL_KINDS if k not in data.values]
    for key, (_, kind) in SUBJECTS.items():
        text = data.subjects.get(key)
        if text is None:
            problems.append(f"no subject {key!r}")
            continue
        if len(text.said) < 2:
            problems.append(f"{key}: fewer than two phrasings")
        for s in text.said:
            if ("{v}" in s.text) != (kind is not None) or s.text.count("{v}") > 1:
                problems.append(f"{key}: {s.text!r} must hold {{v}} once iff it has a value")
        if kind is not None and SUBJECTS[key][0] != "safety" and not text.label:
            problems.append(f"{key}: no label for updates")
        if data.outside is not None:
            for part in (data.outside.terse, data.outside.sentence):
                line = part.get(key)
                if line is None or ("{v}" in line) != (kind is not None):
                    problems.append(f"{key}: outside line missing or without its {{v}}")
    return problems


_SCRIPT_PREFIXES: Mapping[Script, tuple[str, ...]] = {
    "Latin": ("LATIN",),
    "Cyrillic": ("CYRILLIC",),
    "Han": ("CJK UNIFIED", "CJK COMPATIBILITY IDEOGRAPH"),
    "Japanese": ("CJK UNIFIED", "HIRAGANA", "KATAKANA"),
    "Hangul": ("HANGUL",),
    "Arabic": ("ARABIC",),
}


def script_share(text: str, script: Script) -> float:
    """The share of ``text``'s letters that belong to ``script`` (1.0 for no letters):
    what a reader sees of a language at a glance, identifiers and values included."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 1.0
    prefixes = _SCRIPT_PREFIXES[script]
    return sum(unicodedata.name(c, "").startswith(prefixes) for c in letters) / len(letters)
