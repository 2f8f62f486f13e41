"""Reading a user message: its sentences, verbatim; what of them still stands once it
is compressed (courtesies left out); a note ctxmgr wrote, read back line by line; and
the part the user pasted rather than said."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ctxmgr.autocontext.marker import OFFLOAD_TAG_RE
from ctxmgr.autocontext.record import without_record
from ctxmgr.autocontext.standing.reading import is_trivial
from ctxmgr.autocontext.standing.text import sentence_spans
from ctxmgr.messages import Message

__all__ = ["USER_NOTE_HEADER", "Statement", "note_line", "sentences", "standing_content",
           "statements_of"]

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
:data:`OWN_CHARS` characters, and each such one after the paste's last longer one, and
a list the user typed (:func:`_typed_list`) wherever it is."""
PASTE_CHARS = 400
"""A message with a paragraph after its first longer than this holds pasted text too (an
email's body on one line)."""
OWN_LINES = 4
"""The most lines of the user's own paragraph before or after a paste."""
OWN_CHARS = 300
"""The most characters of the user's own paragraph: a longer one is pasted."""

_BULLET = re.compile(r"^\s*(?:[-*•·◦▪‣]|\d+[.)、]|[a-z][.)])\s+|^\s*\[[ xX]\]\s+")
_PARAGRAPH = re.compile(r"\n\s*\n")


def sentences(text: str) -> list[str]:
    """The sentences of one message, verbatim (list markers left out, and ctxmgr's
    markup: offload tags, the record of a stand-in, the note's header)."""
    return [piece for piece, _ in _pieces(text)]


def _pieces(text: str) -> list[tuple[str, bool]]:
    """:func:`sentences`, each with whether it is an item of a list (its line opens
    with a list marker: "- ", "1) ", "[x] ")."""
    plain = without_record(text)
    out: list[tuple[str, bool]] = []
    for a, b in sentence_spans(plain):
        line_start = plain.rfind("\n", 0, a) + 1
        listed = bool(_BULLET.match(plain[line_start:b])) and not plain[line_start:a].strip(
            ) or bool(_BULLET.match(plain[a:b]))
        piece = _BULLET.sub("", plain[a:b]).strip()
        if (not piece or OFFLOAD_TAG_RE.search(piece) or piece in _HEADERS
                or _NOTE_COUNT.match(piece)):
            continue
        out.append((piece, listed))
    return out


def standing_content(text: str) -> list[str]:
    """The sentences of one user message that still stand once it is compressed: all but
    courtesies (a short item of a list the user typed is none: "- plain text") and exact
    repeats, verbatim, in order."""
    return [piece for piece, _ in _standing(text)]


def _standing(text: str) -> list[tuple[str, bool]]:
    """:func:`standing_content`, each with whether it is a list item (:func:`_pieces`)."""
    seen: set[str] = set()
    out: list[tuple[str, bool]] = []
    for piece, listed in _pieces(text):
        if piece in seen or (is_trivial(piece) and not listed):  # a list item says something
            continue
        seen.add(piece)
        out.append((piece, listed))
    return out


@dataclass(frozen=True, slots=True)
class Statement:
    """One sentence the user said, and when (for ordering and the latest value)."""

    text: str
    order: tuple[int, ...]
    """Sorts the statements of a conversation in the order they were said."""
    pasted: bool = False
    """It comes from text the user pasted (a log, an email, a policy: many lines), which
    they refer to rather than say: it goes after what they said themselves."""
    listed: bool = False
    """It is an item of a list the user typed ("1) no emojis", "- reply in Czech"): a
    point they set out, so it ranks at least as a request does."""


_MARKS = ("> ", "- ")


def note_line(statement: Statement) -> str:
    """How ``statement`` is written in the note: as it was said, marked "> " when the user
    pasted it and "- " when it was an item of a list they typed, so that a note read
    back ranks each line as its first reading did (a pasted log line never turns into
    the user's own words on the next roll)."""
    if statement.pasted:
        return f"> {statement.text}"
    return f"- {statement.text}" if statement.listed else statement.text


def _typed_list(paragraph: str) -> bool:
    """Most lines after the first are list items ("1) ...", "- ..."), each short: a list
    the user typed (their rules for the thread), not a text they pasted."""
    lines = [line for line in paragraph.splitlines() if line.strip()][1:]
    items = [line for line in lines if _BULLET.match(line) and len(line) <= OWN_CHARS // 2]
    return len(lines) >= 2 and len(items) * 2 > len(lines)


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
            if line:  # a line each; a mark says where it came from (:func:`note_line`)
                lines.append(line)
        return [Statement(t[2:] if t[:2] in _MARKS else t, (k,), pasted=t.startswith("> "),
                          listed=t.startswith("- ")) for k, t in enumerate(lines)]
    if (sum(bool(line.strip()) for line in text.splitlines()) <= PASTE_LINES
            and not any(len(p) > PASTE_CHARS for p in _PARAGRAPH.split(text)[1:])):
        return [Statement(t, (k,), listed=listed)
                for k, (t, listed) in enumerate(_standing(text))]
    out: list[Statement] = []  # a long message: the pasted part, and what the user wrote
    paragraphs = [p for p in _PARAGRAPH.split(text) if p.strip()]
    short = [_typed_list(p) or (sum(bool(line.strip()) for line in p.splitlines()) <= OWN_LINES
                                 and len(p) <= OWN_CHARS) for p in paragraphs]
    # the user's words around the paste: the first paragraph, and after the paste's
    # last long one all that follow, else the last
    after = max((n for n, s in enumerate(short) if not s), default=len(paragraphs) - 2)
    for n, paragraph in enumerate(paragraphs):
        own = short[n] and (n == 0 or n > after)
        for t, listed in _standing(paragraph):
            out.append(Statement(t, (len(out),), not own, own and listed))
    return out
