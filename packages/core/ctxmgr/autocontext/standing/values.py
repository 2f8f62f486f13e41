"""What counts as a value in a sentence: numbers with their unit, amounts, dates and
times, quoted text, proper names, ids and paths, and the written form of each, which
a value and its replacement often share."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ctxmgr.autocontext.identifiers import distinctive_strings
from ctxmgr.autocontext.standing.words import (
    _BINDING,
    _CALENDAR,
    _LETTERS,
    _MONTHS,
    _STOP,
    _WEEKDAYS,
)

_MONTH = rf"\b(?:{'|'.join(_MONTHS)})[a-z]*\.?\s+"
_MONTH_DATE = re.compile(_MONTH + r"\d", re.I)
_DAY_OF_MONTH = re.compile(_MONTH + r"\d{1,2}(?:st|nd|rd|th)?\b", re.I)
"""A date as written with its month, whole: "february 1st", "jul. 26"."""
_WEEKDAY = re.compile(rf"\b(?:{'|'.join(_WEEKDAYS)})\b")
_MONEY = re.compile(r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|"
                    r"dollars?|euros?|pounds?)\b", re.I)
"""An amount, whole: "$6,805" (not "$6"), "4,250.98 EUR"."""
_PERCENT = re.compile(r"\d\s?(?:%|percent\b)", re.I)
_TIME = re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.I)
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b")
_DOTTED = re.compile(r"\d+(?:\.\d+){2,}")
"""Numbers with two dots or more and no letters: an address (``10.244.14.248``) or a
version (``15.3.8``), an id, not a number; its count of parts is its shape
(:func:`_id_shapes`)."""
_NUMBER_UNIT = re.compile(rf"(?<![\w/.@-])(?!{_DOTTED.pattern})\d[\d,.]*(?![\w/@-])\s?([A-Za-z]+)?")
"""A number on its own (not inside an id like ``walrus-94``, nor a dotted id,
:data:`_DOTTED`), and the word after it."""
_ID_CHARS = re.compile(r"[\d/._@:]|^[^-]+-[^-]+-|[a-z][A-Z]")
"""What makes a distinctive string an id or a path, not a hyphenated word ("on-call"):
a digit or ``/._@:``, three hyphenated parts ("triage-bramble-moraine") or camel case."""
_NAME = re.compile(r"\b(?!I\b|I['’])[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b")
_QUOTED = re.compile(r"\"[^\"]{2,}\"|(?<![A-Za-z])'[^']{2,}'(?![A-Za-z])|`[^`]+`|“[^”]{2,}”|"
                     r"(?<![A-Za-z])‘[^’]{2,}’(?![A-Za-z])")
"""Quoted text; a single quote only when no letter touches it outside, as an apostrophe
does ("I've got it, it's AC-8" quotes nothing)."""


@lru_cache(maxsize=8192)
def value_kinds(sentence: str) -> frozenset[str]:
    """The kinds of value ``sentence`` carries: ``money``, ``percent``, ``time``,
    ``date``, ``unit:<word>``, ``number``, ``quoted``, ``name`` (see :func:`_names`),
    ``path``, ``id`` (empty: none)."""
    kinds: set[str] = set()
    low = sentence.lower()
    if _MONEY.search(sentence):
        kinds.add("money")
    if _PERCENT.search(sentence):
        kinds.add("percent")
    if _TIME.search(sentence):
        kinds.add("time")
    if _ISO_DATE.search(sentence) or _MONTH_DATE.search(low) or _WEEKDAY.search(low):
        kinds.add("date")
    # a number that is part of an amount, a share, a time or a date is that value; any
    # other number is a value of its own ("$450 ... within 30 days": money and unit:day)
    taken = _spans(sentence, (_MONEY, _PERCENT, _TIME, _ISO_DATE, _MONTH_DATE))
    for match in _NUMBER_UNIT.finditer(sentence):
        if _overlaps(match.span(), taken):
            continue
        unit = _unit(match)
        kinds.add(f"unit:{unit.lower().rstrip('s')}" if unit else "number")
    if _QUOTED.search(sentence):
        kinds.add("quoted")
    if _names(sentence):
        kinds.add("name")
    kinds.update(_id_kind(t) for t in _ids(sentence))
    return frozenset(kinds)


def _spans(sentence: str, patterns: Iterable[re.Pattern[str]]) -> list[tuple[int, int]]:
    """Where ``patterns`` match in ``sentence`` itself (not a lowercased copy, whose
    offsets shift when a letter lowercases to two: "İ")."""
    return [m.span() for pattern in patterns for m in pattern.finditer(sentence)]


def _overlaps(span: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    """``span`` overlaps one of ``spans``: a number that is part of a larger value."""
    return any(span[0] < b and a < span[1] for a, b in spans)


def _ids(sentence: str) -> list[str]:
    """The ids and paths of ``sentence``: distinctive strings with an id's characters,
    but not the digits of an amount ("7,275.51" of "7,275.51 EUR" is money, not an id)
    nor a date ("2025-07-24"); an email address whole ("bob@example.com", not its
    domain alone: two people at one company are two values)."""
    amounts = [m.group(0) for m in _MONEY.finditer(sentence)]
    emails = _EMAIL.findall(sentence)
    return [*emails, *(d for d in distinctive_strings(sentence)
                       if _ID_CHARS.search(d) and not any(d in a for a in amounts)
                       and not any(d in e for e in emails) and not _ISO_DATE.fullmatch(d))]


def _unit(match: re.Match[str]) -> str | None:
    """The unit of a :data:`_NUMBER_UNIT` match: the word after the number, unless it is a
    grammar word ("4,930 under", "948579 was": the number stands alone) or one letter."""
    unit = match.group(1)
    if not unit or len(unit) < 2 or unit.lower() in _STOP or unit.lower() in _BINDING:
        return None
    return unit


def _id_kind(value: str) -> str:
    """``path`` (a file path or an address with slashes) or ``id``: a new value for a
    thing has the shape of the old one, so an order number in a sentence is not taken
    for the path a later one changes."""
    return "path" if "/" in value or "\\" in value else "id"


def _names(sentence: str) -> list[str]:
    """Proper names: runs of two or more capitalised words ("Margit Halvorsen"), or one
    capitalised word inside the sentence ("answer in Czech"); months, weekdays and the
    word "I" left out ("Use June 2nd" names nobody)."""
    out = []
    for m in _NAME.finditer(sentence):
        words = [w for w in m.group(0).replace("-", " ").split()
                 if w.lower() not in _CALENDAR]
        inside = m.start() > 0 and sentence[:m.start()].strip()[-1:] not in ".!?:,"
        if len(words) >= 2 or (words and inside):
            out.append(" ".join(words))
    return out


_ID_SHAPE = re.compile(r"([A-Za-z]+[-_]?)(?=\d)|([a-z]+-)(?=[a-z]+-[a-z]+$)")
"""An id's leading letters: ``ORD-`` of ``ORD-37067``, ``triage-`` of
``triage-piston-basalt``."""


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


@lru_cache(maxsize=8192)
def _id_shapes(sentence: str) -> frozenset[str]:
    """What kind of id each id of ``sentence`` is, by its leading letters (``ord-``,
    ``gb``), its count of parts for dotted numbers (:data:`_DOTTED`), its domain for a
    host name (``.internal`` of ``osprey-34.internal``, whose leading letters are a
    name, not a kind) or ``@`` for an email address: a new value for
    a thing has the shape of the old one, so a later order number does not replace a VAT
    number, whatever the words around them share."""
    emails = _EMAIL.findall(sentence)
    out = {"@"} if emails else set()
    for d in distinctive_strings(sentence):
        if any(d in e for e in emails) or "/" in d:
            continue
        if host := _HOST.search(d):
            out.add(host[0].lower())
        elif m := _ID_SHAPE.match(d):
            out.add((m.group(1) or m.group(2)).lower())
        elif _DOTTED.fullmatch(d):
            out.add(_DIGIT_RUN.sub("9", d))
    return frozenset(out)


_HOST = re.compile(r"\.[A-Za-z]{2,}$")
"""The domain a host name ends in (``.internal``, ``.com``)."""


@lru_cache(maxsize=8192)
def _values(sentence: str) -> frozenset[str]:
    """The values of ``sentence`` as written: ids and paths, numbers with the word after
    them ("370 MB"), amounts, dates, names."""
    out = set(_ids(sentence))
    whole = _spans(sentence, (_MONEY, _TIME, _ISO_DATE, _DAY_OF_MONTH))
    out.update(sentence[a:b].strip() for a, b in whole)
    for m in _NUMBER_UNIT.finditer(sentence):
        if _overlaps(m.span(), whole):
            continue
        number = m.group(0)[:m.start(1) - m.start()] if m.group(1) else m.group(0)
        out.add(" ".join(filter(None, (number.strip().rstrip(".,"), _unit(m)))))
    out.update(_names(sentence))
    return frozenset(out)


def _value_letters(values: Iterable[str]) -> set[str]:
    """The words of ``values`` ("walrus" and "labs" of ``github.com/walrus-labs``),
    lowercased: they belong to the value, not to what the sentence is about."""
    return {w.lower() for value in values for w in _LETTERS.findall(value)}


_LETTER_RUN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+")
_DIGIT_RUN = re.compile(r"\d+")


@lru_cache(maxsize=8192)
def _forms(sentence: str) -> frozenset[str]:
    """The written form of each value without an id's leading letters (:func:`_id_shapes`):
    letters as ``a`` (``Aa`` capitalised), digits as ``9``, the rest as it is. A path
    and its replacement, a time zone, a CamelCase name or an IP address keep their form
    (``tests/a_a``, ``Aa/Aa``, ``AaAa``, ``9.9.9.9``): weak evidence of one thing, not
    a condition, as a value may change its form (``s3://...`` to ``/srv/...``)."""
    out = set()
    emails = _EMAIL.findall(sentence)  # an address's parts are not values of their own
    for value in [*_ids(sentence), *(n for n in _names(sentence) if " " not in n)]:
        if _ID_SHAPE.match(value) or any(value in e for e in emails):
            continue
        form = _DIGIT_RUN.sub("9", _LETTER_RUN.sub(
            lambda m: "Aa" if m[0][0].isupper() and m[0][1:].islower() and len(m[0]) > 1
            else "a", value))
        if form not in ("a", "Aa", "9"):  # a bare word or number has no form to share
            out.add(form)
    return frozenset(out)
