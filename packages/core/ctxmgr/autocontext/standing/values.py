"""What counts as a value in a sentence, in any script: numbers with what they count,
amounts, shares, times and dates, quoted text, ids, paths and addresses, and names.

The rules read Unicode properties, not words of a language: a currency is a currency
symbol (``\\p{Sc}``) or a three-letter code in capitals beside a number; what a number
counts is the word after it, or in a script written without spaces the character after
it (``5000元``, ``3月5日``, ``50만 원``); digits are compared after NFKC, so ``５０００``
is ``5000``. A value's *kind* says what a later value for the same thing must be (an
amount for an amount, an order number's shape for an order number)."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import regex

from ctxmgr.autocontext.identifiers import distinctive_strings
from ctxmgr.autocontext.standing.lexicon import CLOSED_WORDS, languages_of

__all__ = ["id_shapes", "names", "value_kinds", "values"]

_NUMBER = r"\d+(?:[,.'’ ]\d{3})*(?:[.,]\d+)?[万萬千百亿億兆만천백억조]*"
"""A number as written: digits with group and decimal separators, and the multipliers
of the scripts that write ``3万``, ``50만``."""
_MONEY = regex.compile(rf"\p{{Sc}}\s?{_NUMBER}|(?<![\d:.,]){_NUMBER}\s?(?:\p{{Sc}}|[A-Z]{{3}}\b)")
_CODE = regex.compile(rf"(?<![\d:.,]){_NUMBER}\s?([A-Z]{{3}})\b")
"""A currency's code after an amount ("9.820 EUR"): its unit too, as "Euro" is."""
_PERCENT = regex.compile(rf"{_NUMBER}\s?%")
_TIME = regex.compile(r"(?<!\d)\d{1,2}:\d{2}(?!\d)(?:\s?(?:(?i:[ap]\.?m\.?)|[A-Z]{2,5})\b)?")
"""A time, with its "pm" or its zone ("20:15 UTC"): the zone is part of the value, not
what the sentence is about."""
_DATE = regex.compile(r"(?<![A-Za-z0-9_.])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}|"
                      r"\d{1,2}/\d{1,2})(?!\.?\d)")
_COUNT = regex.compile(
    rf"(?<![A-Za-z0-9_/.@-])(?!\d+(?:\.\d+){{2}})(?P<n>{_NUMBER})(?![0-9_/@-]|\.\d)"
    rf"(?:\s?(?P<c>\p{{Han}}|\p{{Hiragana}}|\p{{Katakana}})|\s?(?P<w>[\p{{L}}\p{{M}}]+))?")
"""A number on its own (not inside an id such as ``walrus-94``) and what follows it, with
or without a space ("626ms", "5000元"): a character of a script without spaces, or a
word."""
_UNIT_CHARS = 3
"""A unit is compared by its first letters: "minute", "minutes" and "Minuten" are one
unit, and so are "EUR" and "Euro"; in Hangul, where a particle joins the word, by its
first syllable (``원`` of ``원입니다``)."""
_HAN_NUMBER = regex.compile(r"(?P<share>百分之)?[零〇一二三四五六七八九十百千万萬亿億两兩]{2,}")
"""A number written in Han numerals ("百分之四十四", "三千"): two numerals or more, as one
alone is part of many words ("一律", "十分")."""
_QUOTED = regex.compile(r"\"[^\"]{2,}\"|(?<!\p{L})'[^']{2,}'(?!\p{L})|`[^`]+`|"
                        r"\p{Pi}[^\p{Pi}\p{Pf}]{2,}\p{Pf}|[「『《【][^」』》】]+[」』》】]|"
                        r"«[^»]+»|„[^“”]+[“”]")
_EMAIL = regex.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ID_CHARS = regex.compile(r"[\d/._@:]|^[^-]+-[^-]+-|[a-z][A-Z]")
"""What makes a distinctive string an id or a path rather than a hyphenated word."""
_CAPITALISED = regex.compile(r"(?<![\p{L}\p{M}])\p{Lu}[\p{Ll}\p{M}]+(?:[ -]\p{Lu}[\p{Ll}\p{M}]+)*")
_NAME_SHARE = 0.25
"""Capitalised words name something only where few words are capitalised: in German
every noun is, so there a capital says nothing."""
_ID_SHAPE = regex.compile(r"([A-Za-z]+[-_]?)(?=\d)")


def _norm(sentence: str) -> str:
    return unicodedata.normalize("NFKC", sentence)


@lru_cache(maxsize=32768)
def value_kinds(sentence: str) -> frozenset[str]:
    """The kinds of value ``sentence`` carries: ``money``, ``percent``, ``time``,
    ``date``, ``unit:<first letters>``, ``number``, ``quoted``, ``id``, ``path``,
    ``name`` (empty: none)."""
    text = _norm(sentence)
    kinds = {kind for kind, _ in _amounts(text)}
    kinds.update(f"unit:{m[1].casefold()}" for m in _CODE.finditer(text))
    kinds.update("percent" if m["share"] else "number" for m in _HAN_NUMBER.finditer(text))
    for m in _counts(text):
        kinds.add(f"unit:{_unit(m)}" if _unit(m) else "number")
    if _QUOTED.search(text):
        kinds.add("quoted")
    kinds.update("path" if "/" in v or "\\" in v else "id" for v in _ids(text))
    if _names(text):
        kinds.add("name")
    return frozenset(kinds)


@lru_cache(maxsize=32768)
def _amounts(text: str) -> tuple[tuple[str, regex.Match[str]], ...]:
    """Amounts, shares, times and dates in ``text``, each with its kind."""
    return tuple((kind, m) for kind, pattern in (("money", _MONEY), ("percent", _PERCENT),
                                                 ("time", _TIME), ("date", _DATE))
                 for m in pattern.finditer(text))


def _inside(span: tuple[int, int], text: str) -> bool:
    """``span`` of ``text`` is part of an amount, a share, a time or a date."""
    return any(span[0] < m.end() and m.start() < span[1] for _, m in _amounts(text))


def _counts(text: str) -> list[regex.Match[str]]:
    """Numbers with what they count, those inside an amount or a date left out."""
    return [m for m in _COUNT.finditer(text) if not _inside(m.span(), text)]


def _unit(m: regex.Match[str]) -> str:
    """What the number of ``m`` counts ("" when the word after it is a closed-class word:
    "948579 was")."""
    unit = (m["c"] or m["w"] or "").casefold()
    if unit in CLOSED_WORDS:
        return ""
    return unit[:1] if regex.match(r"\p{Hangul}", unit) else unit[:_UNIT_CHARS]


def _ids(text: str) -> list[str]:
    """Ids, paths and email addresses (an address whole, not its domain alone), but not
    the digits of an amount or a date."""
    emails = _EMAIL.findall(text)
    out = list(emails)
    for d in distinctive_strings(text):
        at = text.find(d)
        if (_ID_CHARS.search(d) and not any(d in e for e in emails)
                and not _inside((at, at + len(d)), text)):
            out.append(d)
    return out


@lru_cache(maxsize=32768)
def names(sentence: str) -> tuple[str, ...]:
    """The names ``sentence`` carries (:func:`_names`)."""
    return tuple(_names(_norm(sentence)))


def _names(text: str) -> list[str]:
    """Capitalised words inside the sentence (not its first word), where capitals are
    rare enough to mark names (:data:`_NAME_SHARE`); in German, where every noun has a
    capital, only two or more in a row ("Torsten Lindemann") inside the sentence."""
    nouns = "de" in languages_of(text)  # German gives every noun a capital
    found = [m for m in _CAPITALISED.finditer(text)
             if (" " in m.group(0) and not (nouns and m.start() == 0)) or (
                 not nouns and m.start() > 0
                 and text[:m.start()].rstrip()[-1:] not in ".!?:;\"'“„«")]
    total = len(regex.findall(r"[\p{L}\p{M}]+", text))
    capitals = sum(len(m.group(0).replace("-", " ").split()) for m in found)
    if not found or capitals > max(2, total * _NAME_SHARE):
        return []
    return [m.group(0) for m in found]


@lru_cache(maxsize=32768)
def values(sentence: str) -> frozenset[str]:
    """The values of ``sentence`` as written (NFKC): ids, paths and addresses, amounts,
    shares, times, dates, numbers with what they count, quoted text and names. Two
    sentences that share every value say the same thing."""
    text = _norm(sentence)
    out = set(_ids(text))
    out.update(m.group(0).strip() for _, m in _amounts(text))
    out.update(m.group(0).strip() for m in _QUOTED.finditer(text))
    out.update(m.group(0) for m in _HAN_NUMBER.finditer(text))
    out.update(f"{m['n']} {m['c'] or m['w']}" if _unit(m) else m["n"] for m in _counts(text))
    out.update(_names(text))
    return frozenset(out)


@lru_cache(maxsize=32768)
def id_shapes(sentence: str) -> frozenset[str]:
    """What kind of id each id of ``sentence`` is: its leading letters (``ord-`` of
    ``ORD-37067``), ``@`` for an email address, ``/`` for a path. A later order number
    does not replace a VAT number, whatever the words around them share."""
    out = set()
    for value in _ids(_norm(sentence)):
        if "@" in value:
            out.add("@")
        elif "/" in value:
            out.add("/")
        elif m := _ID_SHAPE.match(value):
            out.add(m.group(1).casefold())
        else:
            out.add(regex.sub(r"\d+", "9", regex.sub(r"\p{L}+", "a", value)))
    return frozenset(out)
