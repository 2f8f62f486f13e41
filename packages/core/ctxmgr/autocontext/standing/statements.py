"""Reading a user message: its sentences, verbatim; what of them still stands once it
is compressed (courtesies, asides and closing remarks left out); a note ctxmgr wrote,
read back line by line; and the part the user pasted rather than said."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ctxmgr.autocontext.marker import OFFLOAD_TAG_RE
from ctxmgr.autocontext.record import without_record
from ctxmgr.autocontext.standing.grammar import _binds, _content_words, _is_trivial, _lead_in_end
from ctxmgr.autocontext.standing.values import value_kinds
from ctxmgr.autocontext.standing.weight import priority
from ctxmgr.autocontext.standing.words import (
    _ADDRESSEE,
    _APOSTROPHE,
    _CHANGE,
    _CONJUNCTIONS,
    _HEDGE,
    _POINTING,
    _STOP,
    _TOPIC,
    _words,
)
from ctxmgr.messages import Message

USER_NOTE_HEADER = "The user said earlier (later lines win):"
"""The first line of the note that carries the user's words (strategy 9). Short: at a
small window every token of it is room a sentence of the user's does not get."""
_OLD_HEADERS = ("What the user said earlier (verbatim; later lines win):",)
"""Headers notes were written with before: their lines are still read back."""
_HEADERS = frozenset((USER_NOTE_HEADER, *_OLD_HEADERS))
_NOTE_COUNT = re.compile(r"^\(\+\d+ more(?: in the original)?\)$|^\(nothing that still stands\)$")

PASTE_LINES = 6
"""A user message of more non-empty lines than this is mostly pasted material (a log, an
email): its paragraphs rank after what the user wrote, but for the user's own words
around the paste: a first paragraph of at most :data:`OWN_LINES` lines and
:data:`OWN_CHARS` characters, and each such one after the paste's last longer one (or,
when none is longer, the last)."""
OWN_LINES = 4
"""The most lines of the user's own paragraph before or after a paste: a lead line and a
short list ("A couple of points." and two bullets)."""
OWN_CHARS = 300
"""The most characters of the user's own paragraph: a longer one (an email's body on one
line) is pasted."""

_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_CAPITAL_WORD = re.compile(r"(?<=[A-Za-z0-9%])\s+([A-Z][a-z]*(?:['’][a-z]+)?)"
                           r"(?=,?\s+[a-z]|[.!?]*$)")
"""A capitalised word after a word or a percentage (no stop between) and before a lowercase
one or the end: "... stop and ask me first Don't stop before ...", "... fyi Thanks!",
"... under 38% The queue is ..."."""
_PARAGRAPH = re.compile(r"\n\s*\n")


def sentences(text: str) -> list[str]:
    """The sentences of one message, verbatim (bullets and ctxmgr's markup left out:
    offload tags, the record of a stand-in, the note's header)."""
    out: list[str] = []
    for piece in (p for line in _SPLIT.split(without_record(text)) for p in _run_on(line)):
        piece = _BULLET.sub("", piece).strip()
        if (not piece or OFFLOAD_TAG_RE.search(piece) or piece in _HEADERS
                or _NOTE_COUNT.match(piece)):
            continue
        out.append(piece)
    return out


def _run_on(line: str) -> list[str]:
    """``line`` cut where a capitalised grammar word follows a word without a stop
    between them ("... is tagged and released The board meets ..."): mid-sentence only
    "I" and names are capitalised, so a capitalised "The", "We" or "Does" opens a new
    sentence the writer ran on without a full stop."""
    cuts = [m.start(1) for m in _CAPITAL_WORD.finditer(line)
            if _APOSTROPHE.sub("", m.group(1).lower()) in _STOP and m.group(1) != "I"]
    return [line[a:b] for a, b in zip([0, *cuts], [*cuts, len(line)], strict=True)]


def standing_content(text: str) -> list[str]:
    """The sentences of one user message that still stand once it is compressed:
    all but courtesies and exact repeats, verbatim but for an opening aside
    (:func:`without_aside`), in order."""
    seen: set[str] = set()
    out: list[str] = []
    for s in _with_antecedents(sentences(text), text):
        if _is_trivial(s):
            continue
        s = without_aside(s)  # "Also, keep it under 5 MB." carries "keep it under 5 MB."
        s = without_coda(s)
        if s in seen:
            continue
        seen.add(s)
        out.append(s)
    return out


_BACK = frozenset(("it", "its", "it's", "it’s", "itself", "them"))
"""Pronouns that point back at a thing: a sentence with one may bind what the one
before it named ("Let me flag the v10.6.1 release for you. Please don't modify it.")."""


def _with_antecedents(found: list[str], text: str) -> list[str]:
    """``found`` (the sentences of ``text``), with each that binds and points back
    (:data:`_BACK`) but has no value joined, verbatim, to the sentence before it on its
    line when that one has a value: "Let me flag the v10.6.1 release for you." alone
    keeps the value and loses the rule ("Please don't modify it."). The other way round
    ("Dug through my emails and found the account number. It's AC-5.") is left apart:
    the longer lines cost 0.006 of the planted items at a fifth of a chat session."""
    out: list[str] = []
    for s in found:
        if (out and _BACK.intersection(w.lower() for w in _words(s)) and _binds(s)
                and not value_kinds(s) and value_kinds(out[-1])
                and (joined := f"{out[-1]} {s}") in text):  # on one line, as said
            out[-1] = joined
        else:
            out.append(s)
    return out


def without_aside(sentence: str) -> str:
    """``sentence`` without its opening asides (:func:`_lead_in_end`) when what is left
    says something on its own: "keep it under 5 MB." of "Also, keep it under 5 MB."; the
    sentence as it is when the opening may be a request ("Cc me, please": a word that
    points, or nothing much left), names the topic or a change (:data:`_TOPIC`) or the
    rest hangs on it ("Finance signed off, so ...")."""
    end = _lead_in_end(sentence)
    if not end:
        return sentence
    rest = sentence[end:]
    opening = [w.lower() for w in _words(sentence[:end])]
    if (_is_trivial(rest) or _POINTING.intersection(opening) or opening[0] in _TOPIC
            or _CHANGE.search(sentence[:end])
            or next(iter(_words(rest)), "").lower() in _CONJUNCTIONS):
        return sentence
    return rest


_CODA = re.compile(r"[,;]\s+(?=[^,;]*$)")
CODA_WORDS = 6
"""A closing clause of at most this many words, after a comma, may be left out (see
:func:`without_coda`)."""


def without_coda(sentence: str) -> str:
    """``sentence`` without the closing clauses, after a comma, that add nothing it would
    be kept for (", that was decided upstairs", ", personally", ", whatever happens",
    ", right?"): short, with no value, nothing that binds, asks, conditions or corrects,
    after a part that has the value and at least two words of its own for what the value
    is about ("ORD-5, that's the order in question" stays whole), does not open with a
    condition, and ranks no lower alone. A note at a tenth of the session has room for
    few lines; the original sentence stays reloadable."""
    opening = next(iter(_words(sentence)), "").lower()
    if opening in _HEDGE:
        return sentence
    while m := _CODA.search(sentence):
        rest, coda = sentence[:m.start()], sentence[m.end():]
        words = [w.lower() for w in _words(coda)]
        if (not value_kinds(rest) or len(_content_words(rest)) < 2
                or len(words) > CODA_WORDS or value_kinds(coda) or _binds(coda)
                or _HEDGE.intersection(words) or _ADDRESSEE.intersection(words)
                or _CHANGE.search(coda) or (words[:1] == ["so"] and not _binds(rest))
                or priority(rest) < priority(sentence)):
            break
        sentence = rest
    return sentence


@dataclass(frozen=True, slots=True)
class Statement:
    """One sentence the user said, and when (for ordering and the latest value)."""

    text: str
    order: tuple[int, ...]
    """Sorts the statements of a conversation in the order they were said."""
    pasted: bool = False
    """It comes from text the user pasted (a log, an email, a policy: many lines), which
    they refer to rather than say: it goes after what they said themselves."""


def statements_of(message: Message) -> list[Statement]:
    """What ``message`` (a user turn) says that stands, in order: the lines of a note
    ctxmgr wrote (read back as the user's words), else its standing content."""
    text = message.text
    at, header = next(((text.find(h), h) for h in _HEADERS if h in text), (-1, ""))
    if at >= 0:
        lines = []
        for line in without_record(text[at + len(header):]).splitlines():
            line = line.strip()
            if _NOTE_COUNT.match(line) or OFFLOAD_TAG_RE.search(line):
                break
            if line:  # a line each (notes written before had a "- " bullet)
                lines.append(line[2:] if line.startswith("- ") else line)
        return [Statement(t, (k,)) for k, t in enumerate(lines)]
    if sum(bool(line.strip()) for line in text.splitlines()) <= PASTE_LINES:
        return [Statement(t, (k,)) for k, t in enumerate(standing_content(text))]
    out: list[Statement] = []  # a long message: the pasted part, and what the user wrote
    paragraphs = [p for p in _PARAGRAPH.split(text) if p.strip()]
    short = [sum(bool(line.strip()) for line in p.splitlines()) <= OWN_LINES
             and len(p) <= OWN_CHARS for p in paragraphs]
    # the user's words around the paste: the first paragraph, and after the paste's
    # last long one (a log, an email's body) all that follow, else the last
    after = max((n for n, s in enumerate(short) if not s), default=len(paragraphs) - 2)
    for n, paragraph in enumerate(paragraphs):
        own = short[n] and (n == 0 or n > after)
        out.extend(Statement(t, (len(out),), not own) for t in standing_content(paragraph))
    return out
