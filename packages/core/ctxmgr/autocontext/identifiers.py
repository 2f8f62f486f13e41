"""Distinctive strings: the paths, identifiers and numbers an agent copies from output.

A summary keeps the gist of what it replaced, but an agent's next step often
names a file path, a function, a line-anchored symbol or a hash it read earlier.
The rule below finds such strings; a stand-in can carry the ones its summary
lost, so the agent still sees them without a reload. Replay's fidelity measure
(``ctxmgr.replay.fidelity``) scores prompts by the same rule.

**The rule.** Tokens are the maximal runs of ``[A-Za-z0-9_./:-]`` with leading and
trailing ``.``, ``:``, ``-`` and ``/`` removed. A token is distinctive when it has
at least six characters and is not a *plain word*: ASCII letters only, and all
lowercase, all uppercase or one capital followed by lowercase.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Container, Iterator, Sequence

from ctxmgr.autocontext.marker import strip_offload_tags
from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, text_message
from ctxmgr.tool_input import argument_strings

__all__ = [
    "MAX_NOTE_SHARE",
    "MAX_NOTE_STRING_CHARS",
    "MIN_FACT_CHARS",
    "VisibleIdentifiers",
    "distinctive_after",
    "distinctive_strings",
    "identifier_names",
    "identifiers_note",
    "is_plain_word",
    "preview_note",
    "split_rest",
]

MIN_FACT_CHARS = 6
"""Shortest distinctive string."""
MAX_NOTE_SHARE = 0.5
"""An identifiers line holds at most this share of the characters it stands for, so a
stand-in for identifier-dense output (a ``grep -rn`` over a tree) still frees half of it."""
MAX_NOTE_STRING_CHARS = 160
"""Longest string an identifiers line names: a longer one is a blob (base64, a hash
dump, a minified line), not something an agent copies, and it would crowd out the rest."""

_RANK_CAP = 2
_TOKEN_RE = re.compile(r"[A-Za-z0-9_./:-]+")
_STRIP = ".:-/"
_PLAIN_RE = re.compile(r"[a-z]+|[A-Z]+|[A-Z][a-z]+")
_NOTE_HEAD = "Identifiers in the original: "
_JSON_KEY_RE = re.compile(r'"([A-Za-z0-9_./:-]+)"\s*:')


def is_plain_word(token: str) -> bool:
    """ASCII letters only, and all lowercase, all uppercase or capitalised."""
    return _PLAIN_RE.fullmatch(token) is not None


def distinctive_strings(text: str) -> Iterator[str]:
    """The distinctive strings of ``text``, in order (with repeats)."""
    for raw in _TOKEN_RE.findall(text):
        token = raw.strip(_STRIP)
        if len(token) >= MIN_FACT_CHARS and not is_plain_word(token):
            yield token


def split_rest(text: str, at: int) -> int:
    """How many characters from ``at`` on finish a string (a run the rule reads tokens
    from) that a cut at ``at`` splits; 0 when the cut falls between strings."""
    if at <= 0 or not _TOKEN_RE.match(text, at - 1):
        return 0
    rest = _TOKEN_RE.match(text, at)
    return len(rest[0]) if rest else 0


def _texts(m: Message) -> Iterator[str]:
    """What a message shows: text, tool-result output and tool-call argument values,
    offload tags left out (an offload id is not something to copy: the stand-in's own
    tag reloads every range it absorbed)."""
    for b in m.content:
        if isinstance(b, ToolResultBlock):
            yield strip_offload_tags(b.text)
        elif isinstance(b, ToolUseBlock):
            yield from argument_strings(b.input)
        elif isinstance(b, TextBlock):
            yield strip_offload_tags(b.text)


def distinctive_after(text: str, found: Sequence[str], at: int) -> list[str]:
    """:func:`distinctive_strings` of ``text[at:]``, given ``found``, those of ``text``:
    only the part before ``at`` is read again (a preview's head is short, its rest long).
    The strings of ``text[at:]`` are those of ``text`` that start at ``at`` or later,
    after the end of the one a cut at ``at`` splits, if any, when that end is one."""
    head = _TOKEN_RE.findall(text, 0, at)  # the strings of text[:at], the split one cut
    before = sum(map(_is_distinctive, head))
    rest = split_rest(text, at)
    if not rest:
        return list(found[before:])
    split = text[at - len(head[-1]):at + rest]  # the whole of the string the cut splits
    before += _is_distinctive(split) - _is_distinctive(head[-1])
    end = text[at:at + rest]
    return [end.strip(_STRIP)] * _is_distinctive(end) + list(found[before:])


def _is_distinctive(raw: str) -> bool:
    """A run of the rule's characters that :func:`distinctive_strings` names."""
    token = raw.strip(_STRIP)
    return len(token) >= MIN_FACT_CHARS and not is_plain_word(token)


def _found_in(m: Message) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each text ``m`` shows (:func:`_texts`) with its :func:`distinctive_strings`, read
    once per message (a message never changes, and every step reads the whole list)."""
    found = m._derived.get("distinctive")
    if found is None:
        found = m._derived["distinctive"] = tuple(
            (text, tuple(distinctive_strings(text))) for text in _texts(m))
    return found


def _values_in(m: Message) -> tuple[str, ...]:
    """The distinctive strings ``m`` shows less the JSON object keys (:func:`_values_of`),
    in order, read once per message."""
    values = m._derived.get("values")
    if values is None:
        values = m._derived["values"] = tuple(
            t for text, found in _found_in(m) for t in _values_of(text, found))
    return values


def _values_of(text: str, found: Sequence[str]) -> Sequence[str]:
    """``found``, the :func:`distinctive_strings` of ``text``, less the JSON object keys:
    a token every occurrence of which is a key (``"flight_number":``) is the output's
    schema, repeated in every record, not a value an agent copies."""
    if '":' not in text and '" :' not in text:
        return found
    keys = Counter(_JSON_KEY_RE.findall(text))
    if not keys:
        return found
    total = Counter(found)
    return [t for t in found if keys[t] < total[t]]


def identifiers_note(replaced: Sequence[Message], kept_text: str, max_chars: int, *,
                     elsewhere: Container[str] = frozenset()) -> str:
    """One line naming the distinctive strings of ``replaced`` that neither ``kept_text``
    nor the rest of the prompt (``elsewhere``) shows, the most recently seen first,
    within ``max_chars`` and :data:`MAX_NOTE_SHARE` of their text ("" when none or 0)."""
    max_chars = min(max_chars, int(MAX_NOTE_SHARE * sum(
        len(text) for m in replaced for text in _texts(m))))
    names = identifier_names(replaced, kept_text, max_chars - len(_NOTE_HEAD),
                             elsewhere=elsewhere)
    return _NOTE_HEAD + ", ".join(names) if names else ""


def preview_note(m: Message, text: str, at: int, max_chars: int, *,
                 elsewhere: Container[str] = frozenset()) -> str:
    """:func:`identifiers_note` for what a preview of ``text``, a text ``m`` shows, cut at
    ``at`` leaves out (``text[at:]``, kept ``text[:at]``), read from the strings already
    found in ``m``."""
    rest = text_message("tool", text[at:])
    known = next((found for shown, found in _found_in(m) if shown == text), None) \
        if max_chars > 0 else None
    if known is not None:  # else (offload tags in it): read as any message
        rest._derived["distinctive"] = ((rest.text, tuple(distinctive_after(text, known, at))),)
    return identifiers_note([rest], text[:at], max_chars, elsewhere=elsewhere)


def identifier_names(replaced: Sequence[Message], kept_text: str, max_chars: int, *,
                     elsewhere: Container[str] = frozenset()) -> list[str]:
    """The distinctive strings an identifiers line names (:func:`identifiers_note`), in
    the order it names them, within ``max_chars`` as ``", "``-joined with a trailing
    separator: those seen in two places first, then the most recent."""
    if max_chars <= 0:
        return []
    seen: dict[str, int] = {}
    for m in reversed(replaced):
        for token in dict.fromkeys(reversed(_values_in(m))):
            if (len(token) <= MAX_NOTE_STRING_CHARS
                    and token not in kept_text and token not in elsewhere):
                seen[token] = seen.get(token, 0) + 1
    ranked = sorted(seen, key=lambda t: -min(seen[t], _RANK_CAP))  # stable: recency ties
    chosen: set[str] = set()
    size = 0
    for token in ranked:
        if size + len(token) + 2 > max_chars:
            continue
        chosen.add(token)
        size += len(token) + 2
    return [t for t in seen if t in chosen]


def _strings_of(m: Message) -> frozenset[str]:
    strings = m._derived.get("strings")
    if strings is None:
        strings = m._derived["strings"] = frozenset(
            t for _, found in _found_in(m) for t in found)
    return strings


class VisibleIdentifiers:
    """Which distinctive strings each message of a working list shows, kept up to date
    as ranges are replaced, so that a stand-in need not repeat a string the prompt
    still shows elsewhere: on coding runs the same paths recur in many results, and
    each repeat would spend the identifiers line's characters twice."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self._messages = messages
        self._per: list[frozenset[str]] | None = None  # built on first use
        self._count: Counter[str] = Counter()

    def _index(self) -> list[frozenset[str]]:
        if self._per is None:
            self._per = [_strings_of(m) for m in self._messages]
            for strings in self._per:
                self._count.update(strings)
        return self._per

    def outside(self, start: int, end: int) -> frozenset[str]:
        """The strings of ``messages[start:end]`` that another message also shows."""
        per = self._index()
        inside: Counter[str] = Counter()
        for strings in per[start:end]:
            inside.update(strings)
        return frozenset(t for t, n in inside.items() if self._count[t] > n)

    def replace(self, start: int, end: int, stand_in: Sequence[Message]) -> None:
        """``messages[start:end]`` became ``stand_in``."""
        if self._per is None:
            return  # not built yet: it will be built from the list as it is then
        new = [_strings_of(m) for m in stand_in]
        for strings in self._per[start:end]:
            self._count.subtract(strings)
        for strings in new:
            self._count.update(strings)
        self._per[start:end] = new
