"""The closed word classes of each language, read from one data file per language
(``languages/<code>.toml``, described in ``languages/README.md``), and which of them a
sentence uses.

Every file is used at once: a user may write in any of the languages, or mix them, and
the classes are small enough that a word of one language is rarely a common word of
another (the files leave out those that are). A language without a file is still read:
its sentences bind nothing the reader can see, so they are kept as text it does not
understand (:mod:`.reading`)."""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from typing import Literal

import regex

from ctxmgr.autocontext.standing.text import fold, unspaced_runs, words

__all__ = ["CLASSES", "CLOSED_UNSPACED", "CLOSED_WORDS", "LANGUAGES", "Class", "languages_of",
           "marks", "opens_with_verb", "restricts_a_number"]

Class = Literal["negation", "modal", "politeness", "imperative", "addressee", "change",
                "restrictive", "limit", "universal", "numerals"]
CLASSES: tuple[Class, ...] = ("negation", "modal", "politeness", "imperative", "addressee",
                              "change", "restrictive", "limit", "universal", "numerals")


@dataclass(frozen=True, slots=True)
class _Entry:
    """One entry of a class: a word, several in a row, or a wildcard (see the README)."""

    parts: tuple[str, ...]
    cased: bool

    def at(self, said: Sequence[str], k: int, exclude: frozenset[str]) -> bool:
        if k + len(self.parts) > len(said):
            return False
        return all(_part_matches(p, said[k + i], exclude)
                   for i, p in enumerate(self.parts))


def _part_matches(pattern: str, word: str, exclude: frozenset[str]) -> bool:
    if "*" not in pattern:
        return word == pattern
    if word in exclude:
        return False
    core = pattern.strip("*")
    if pattern.startswith("*") and pattern.endswith("*"):
        return core in word and word != core
    if pattern.startswith("*"):
        return word.endswith(core) and len(word) > len(core)
    return word.startswith(core) and len(word) > len(core)


@dataclass(frozen=True, slots=True)
class _Language:
    code: str
    script: str
    unspaced: bool
    classes: dict[str, tuple[_Entry, ...]]
    substrings: dict[str, regex.Pattern[str] | None]
    exclude: frozenset[str]
    openers: frozenset[str]
    leads: frozenset[str]
    auxiliaries: frozenset[str]
    known: frozenset[str]
    """Every single word of the file: what tells a sentence is in this language."""


def _load(code: str, data: dict[str, object]) -> _Language:
    def listed(key: str) -> list[str]:
        value = data.get(key, [])
        assert isinstance(value, list), f"{code}.toml: {key} must be a list"
        return [str(v) for v in value]

    exclude = frozenset(fold(e[1:]) for c in CLASSES for e in listed(c) if e.startswith("!"))
    classes: dict[str, tuple[_Entry, ...]] = {}
    substrings: dict[str, regex.Pattern[str] | None] = {}
    for c in CLASSES:
        entries = [e for e in listed(c) if not e.startswith("!")]
        classes[c] = tuple(_Entry(tuple(e.split()) if e.lower() != e
                                  else tuple(fold(p) for p in e.split()), cased=e.lower() != e)
                           for e in entries)
        substrings[c] = (regex.compile("|".join(regex.escape(fold(e)) for e in entries))
                         if entries and data.get("unspaced") else None)
    known = {fold(part) for key in (*CLASSES, "common", "statement_openers", "auxiliaries",
                                    "imperative_leads")
             for w in listed(key) if "*" not in w and not w.startswith("!")
             for part in w.split()}
    return _Language(code, str(data.get("script", "Latin")), bool(data.get("unspaced")),
                     classes, substrings, exclude,
                     frozenset(fold(w) for w in listed("statement_openers")),
                     frozenset(fold(w) for w in listed("imperative_leads")),
                     frozenset(fold(w) for w in listed("auxiliaries")), frozenset(known))


def _languages() -> tuple[_Language, ...]:
    folder = files("ctxmgr.autocontext.standing") / "languages"
    out = []
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".toml"):
            out.append(_load(item.name[:-5], tomllib.loads(item.read_text("utf-8"))))
    return tuple(out)


_ALL = _languages()
_SHARED = Counter(w for lang in _ALL if lang.script == "Latin" for w in lang.known)
"""In how many languages written in Latin letters each known word is."""
LANGUAGES: tuple[str, ...] = tuple(lang.code for lang in _ALL)
"""The languages the reader has a file for."""


_SCRIPTS = {"Latin": regex.compile(r"\p{Latin}"), "Cyrillic": regex.compile(r"\p{Cyrillic}"),
            "Arabic": regex.compile(r"\p{Arabic}"), "Hangul": regex.compile(r"\p{Hangul}"),
            "Kana": regex.compile(r"[\p{Hiragana}\p{Katakana}]"), "Han": regex.compile(r"\p{Han}")}


@lru_cache(maxsize=32768)
def languages_of(sentence: str) -> frozenset[str]:
    """The languages ``sentence`` may be in: those written in a script it uses (Han
    without kana is Chinese, with kana Japanese); of the languages written in Latin
    letters, those whose words it uses most (all of them when it uses none). A
    language without a file is in none, and nothing of it is read as a closed word."""
    present = {name for name, pattern in _SCRIPTS.items() if pattern.search(sentence)}
    if "Kana" in present:
        present.discard("Han")
    found = {lang.code for lang in _ALL if lang.script in present and lang.script != "Latin"}
    if "Latin" in present:
        said = set(words(sentence))
        # a word several languages share ("an", "also", "no") tells less than one of its own
        hits = {lang.code: sum(1 / _SHARED[w] for w in said & lang.known)
                for lang in _ALL if lang.script == "Latin"}
        best = max(hits.values(), default=0)
        found.update(code for code, n in hits.items() if n == best)
    return frozenset(found)


@lru_cache(maxsize=32768)
def marks(sentence: str) -> frozenset[Class]:
    """The classes of words ``sentence`` uses, in the languages it may be in
    (:func:`languages_of`)."""
    said = words(sentence)
    cased = tuple(_CASED.findall(sentence))
    runs = "\x00".join(unspaced_runs(sentence))
    langs = languages_of(sentence)
    found: set[Class] = set()
    for lang in _ALL:
        if lang.code not in langs:
            continue
        for c in CLASSES:
            if c in found:
                continue
            if lang.unspaced:
                pattern = lang.substrings[c]
                if runs and pattern is not None and pattern.search(runs):
                    found.add(c)
            elif _uses(lang.classes[c], said, cased, lang.exclude):
                found.add(c)
    return frozenset(found)


_CASED = regex.compile(r"[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}]+)*")


def _uses(entries: Iterable[_Entry], said: Sequence[str], cased: Sequence[str],
          exclude: frozenset[str]) -> bool:
    for entry in entries:
        text = cased if entry.cased else said
        if any(entry.at(text, k, exclude) for k in range(len(text))):
            return True
    return False


_SHORT = 3
_OPENERS = frozenset().union(*(lang.openers for lang in _ALL))
_AUXILIARIES = frozenset().union(*(lang.auxiliaries for lang in _ALL))


@lru_cache(maxsize=32768)
def opens_with_verb(sentence: str) -> bool:
    """``sentence`` opens the way an imperative does in a language whose imperative opens
    with the verb (English, Dutch): its first word, after the words that may lead an
    imperative ("please", "always"), is none of the words a statement opens with, is
    written in letters of a script with case (not a number, not an "-ing" or "-ed" form,
    not capitals), no auxiliary comes in the two words after it ("Lunch was terrible",
    "Order 948579 was ..." are statements), and the word after it is neither
    capitalised (a name: "Margit Halvorsen is ...") nor a number. The
    sentence must be in that language: another of its statement words follows, or it has
    at most :data:`_SHORT` words ("Use formal address.")."""
    said = words(sentence)
    shown = _CASED.findall(sentence)
    langs = languages_of(sentence)
    for lang in _ALL:
        if lang.code not in langs:
            continue
        k = 0
        while k < len(said) and said[k] in lang.leads:
            k += 1
        if not lang.openers or k >= len(said) - 1 or len(shown) != len(said):
            continue
        first, rest = said[k], said[k + 1:]
        if (first not in _OPENERS and first.isalpha() and first != first.upper()
                and not first.endswith(("ing", "ed")) and not shown[k].isupper()
                and not _AUXILIARIES.intersection(rest[:2])
                and not shown[k + 1][:1].isupper() and not rest[0][:1].isdigit()
                # in this language: a word of its own follows, or the sentence is short
                and (len(said) <= _SHORT or any(w in lang.openers for w in rest))):
            return True
    return False


CLOSED_WORDS = frozenset().union(
    _OPENERS, _AUXILIARIES, *(lang.leads for lang in _ALL),
    *(p for lang in _ALL for c in CLASSES for e in lang.classes[c] if len(e.parts) == 1
      for p in e.parts if "*" not in p))
"""Every word of a closed class in any language: the word after a number that is one of
these says nothing of what the number counts ("948579 was ...")."""

CLOSED_UNSPACED = regex.compile("|".join(sorted(
    (regex.escape(fold(p)) for lang in _ALL if lang.unspaced for c in CLASSES
     for e in lang.classes[c] for p in e.parts if len(p) >= 2), key=len, reverse=True)) or "(?!)")
"""Every entry, two characters or more, of a language written without spaces: a pair of
characters inside one ("改成" of a word of change) says how, not what about."""


_DIGIT = regex.compile(r"\d")


@lru_cache(maxsize=32768)
def restricts_a_number(sentence: str) -> bool:
    """A word of the ``restrictive`` class ("only", "nur", "только", "只") stands right
    before a number ("only 13% of the tickets"): it puts a quantity in focus, it does
    not restrict what the assistant does ("plain text only")."""
    langs = languages_of(sentence)
    said = words(sentence)
    folded = fold(sentence)
    for lang in _ALL:
        if lang.code not in langs:
            continue
        for entry in lang.classes["restrictive"]:
            if lang.unspaced:
                for m in regex.finditer(regex.escape(entry.parts[0]), folded):
                    if _DIGIT.search(folded[m.end():m.end() + 3]):
                        return True
                continue
            for k in range(len(said)):
                after = said[k + len(entry.parts):k + len(entry.parts) + 2]
                if entry.at(said, k, lang.exclude) and any(_DIGIT.search(w) for w in after):
                    return True
    return False
