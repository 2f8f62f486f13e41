"""What the user said that still stands: sentences to carry, verbatim, once their
messages are compressed.

A user's messages hold instructions, rules, constraints, preferences, facts with
values and goals, between courtesies ("ok, thanks") that carry nothing. When the
user's messages must finally go (every other message is compressed already), the
sentences worth carrying move, word for word, into one note near the top of the
prompt (:mod:`ctxmgr.autocontext.strategies.user_turns`); replay's
``user_retention`` asks whether they are still in the prompt.

**The rules.** Nothing here depends on labels ("RULE:") or on a list of
instruction phrasings; the signals are general ones, designed on generated
sessions with many phrasings (``ctxmgr.replay.instructions``):

* *Sentences.* A message is cut at line breaks and after ``.``, ``!`` or ``?``
  followed by a space and a capital, digit or quote. ctxmgr's own markup (offload
  tags, the headers of its notes) is not the user's and is left out.
* *Standing content* (:func:`standing_content`) is every sentence but a courtesy:
  a sentence of at most :data:`TRIVIAL_WORDS` words with no value in it.
* *Values* are numbers, amounts, dates and times, quoted text and distinctive
  strings (paths, ids: :func:`~ctxmgr.autocontext.identifiers.distinctive_strings`).
* *Priority* (:func:`priority`), used only when a note cannot hold everything:
  values first, then sentences that bind (negation or a modal verb: the closed
  class of English grammar words, not phrasings), then the rest; questions last.
* *Latest value* (:func:`supersedes`): a later sentence replaces an earlier one
  when both carry a value of the same kind (an amount, a date, a number with the
  same unit) about the same thing (a content word next to the value in both).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ctxmgr.autocontext.identifiers import distinctive_strings
from ctxmgr.autocontext.marker import OFFLOAD_TAG_RE

__all__ = [
    "TRIVIAL_WORDS",
    "Statement",
    "priority",
    "sentences",
    "standing_content",
    "supersedes",
    "value_kinds",
]

TRIVIAL_WORDS = 2
"""A sentence of at most this many words and no value is a courtesy ("ok, thanks",
"go on"), not content."""

_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[*-])|\n+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d.,:/%-]*")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")

# Grammar words (closed classes), not phrasings: what makes a sentence bind.
_BINDING = frozenset("""
never not no nor don't dont doesn't won't can't cannot shouldn't mustn't isn't aren't
must should shall always only need needs required require requires have has
""".split())
_STOP = frozenset("""
a an the and or but if then so to of in on at by for with from into onto about as is are
was were be been being it its this that these those there here i me my we us our you your
he she they them their his her please just also now also too very really some any all
do does did done can could would will may might shall should must not no never
""".split())

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
           "dec")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
             "sunday")
_MONEY = re.compile(r"[$€£¥]\s?\d|\d\s?(?:usd|eur|gbp|dollars?|euros?|pounds?)\b", re.I)
_PERCENT = re.compile(r"\d\s?(?:%|percent\b)", re.I)
_TIME = re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.I)
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b")
_NUMBER_UNIT = re.compile(r"\b\d[\d,.]*\s?([A-Za-z]+)?")
_QUOTED = re.compile(r"\"[^\"]{2,}\"|'[^']{2,}'|`[^`]+`|“[^”]{2,}”")


def sentences(text: str) -> list[str]:
    """The sentences of one message, verbatim (bullets and ctxmgr's markup left out)."""
    out: list[str] = []
    for piece in _SPLIT.split(text):
        piece = _BULLET.sub("", piece).strip()
        if not piece or OFFLOAD_TAG_RE.search(piece) or _is_markup(piece):
            continue
        out.append(piece)
    return out


def _is_markup(line: str) -> bool:
    from ctxmgr.autocontext.record import is_record_line

    return is_record_line(line)


def _words(sentence: str) -> list[str]:
    return _WORD.findall(sentence)


def value_kinds(sentence: str) -> frozenset[str]:
    """The kinds of value ``sentence`` carries: ``money``, ``percent``, ``time``,
    ``date``, ``unit:<word>``, ``number``, ``quoted``, ``id`` (empty: none)."""
    kinds: set[str] = set()
    low = sentence.lower()
    if _MONEY.search(sentence):
        kinds.add("money")
    if _PERCENT.search(sentence):
        kinds.add("percent")
    if _TIME.search(sentence):
        kinds.add("time")
    if _ISO_DATE.search(sentence) or any(
            re.search(rf"\b{m}[a-z]*\.?\s+\d", low) for m in _MONTHS) or any(
            re.search(rf"\b{d}\b", low) for d in _WEEKDAYS):
        kinds.add("date")
    if not kinds & {"money", "percent", "time", "date"}:
        for match in _NUMBER_UNIT.finditer(sentence):
            unit = match.group(1)
            kinds.add(f"unit:{unit.lower().rstrip('s')}" if unit and len(unit) > 1
                      else "number")
    if _QUOTED.search(sentence):
        kinds.add("quoted")
    if any(not t.isdigit() for t in distinctive_strings(sentence)):
        kinds.add("id")
    return frozenset(kinds)


def _is_trivial(sentence: str) -> bool:
    return len(_words(sentence)) <= TRIVIAL_WORDS and not value_kinds(sentence)


def standing_content(text: str) -> list[str]:
    """The sentences of one user message that still stand once it is compressed:
    all but courtesies and exact repeats, verbatim, in order."""
    seen: set[str] = set()
    out: list[str] = []
    for s in sentences(text):
        if _is_trivial(s) or s in seen:
            continue
        seen.add(s)
        out.append(s)
    return out


def priority(sentence: str) -> int:
    """Higher first when a note cannot hold every sentence: values, then binding
    words (negation, modal verbs), then the rest; a question loses a step."""
    words = [w.lower() for w in _words(sentence)]
    score = 0
    if value_kinds(sentence):
        score += 3
    if any(w in _BINDING or w.endswith("n't") for w in words):
        score += 2
    if sentence.rstrip().endswith("?"):
        score -= 2
    return score


def _value_positions(tokens: Sequence[str], sentence: str) -> list[int]:
    hits = [i for i, t in enumerate(tokens) if any(ch.isdigit() for ch in t)]
    hits += [i for i, t in enumerate(tokens)
             if (len(t) >= 3 and t.lower()[:3] in _MONTHS) or t.lower() in _WEEKDAYS]
    hits += [len(_words(sentence[:q.start()])) for q in _QUOTED.finditer(sentence)]
    return hits


def _subjects(sentence: str) -> dict[str, str]:
    """Content words within three words of a value (what the value is about), each
    with the content word right before it, if any (its modifier: "account" number)."""
    tokens = _words(sentence)
    units = {m.group(1).lower() for m in _NUMBER_UNIT.finditer(sentence) if m.group(1)}
    out: dict[str, str] = {}
    for i in _value_positions(tokens, sentence):
        for k in range(max(0, i - 3), min(len(tokens), i + 4)):
            w = tokens[k].lower()
            if (len(w) < 4 or not w.isalpha() or w in _STOP or w in units
                    or w[:3] in _MONTHS):
                continue
            before = tokens[k - 1].lower() if k > 0 else ""
            out[w.rstrip("s")] = before if before.isalpha() and before not in _STOP else ""
    return out


def supersedes(later: str, earlier: str) -> bool:
    """``later`` gives a new value for what ``earlier`` set: a value of a shared kind,
    a content word next to the value in both (with no differing modifier before it:
    an "account" number is not an "order" number), and ``earlier``'s values not all
    repeated."""
    shared = (value_kinds(later) & value_kinds(earlier)) - {"id", "quoted"}
    if not shared:
        return False
    new, old = _subjects(later), _subjects(earlier)
    common = [w for w in new.keys() & old.keys()
              if not (new[w] and old[w] and new[w] != old[w])]
    if not common:
        return False
    old_values = [t for t in _words(earlier) if any(ch.isdigit() for ch in t)]
    return not all(v in later for v in old_values)


@dataclass(frozen=True, slots=True)
class Statement:
    """One sentence the user said, and where (for ordering and deduplication)."""

    text: str
    order: int


def latest(statements: Iterable[Statement]) -> list[Statement]:
    """``statements`` deduplicated (the first of equal ones), with every one that a
    later one :func:`supersedes` left out, in order."""
    ordered = sorted(statements, key=lambda s: s.order)
    out: list[Statement] = []
    seen: set[str] = set()
    for s in ordered:
        if s.text in seen:
            continue
        seen.add(s.text)
        out = [old for old in out if not supersedes(s.text, old.text)]
        out.append(s)
    return out


def select(statements: Sequence[Statement], max_chars: int) -> tuple[list[Statement], int]:
    """The statements that fit ``max_chars`` (highest :func:`priority` first, ties by
    recency), in their original order, and how many were left out."""
    ranked = sorted(statements, key=lambda s: (-priority(s.text), -s.order))
    kept: list[Statement] = []
    size = 0
    for s in ranked:
        cost = len(s.text) + 3
        if size + cost > max_chars:
            continue
        kept.append(s)
        size += cost
    kept.sort(key=lambda s: s.order)
    return kept, len(statements) - len(kept)
