"""The extractive summarizer: what a range said that still matters, without an LLM.

It is the default summarizer and the fallback, so it runs on every compression of a
long history: one pass over the messages, then counting and sorting, in time linear in
the range (only the user's own statements are compared pairwise, by
:func:`~ctxmgr.autocontext.standing.latest`; pasted text is not).

**What it keeps, in this order** (the sections of
:data:`~ctxmgr.autocontext.prompts.SUMMARY_SECTIONS`, which the LLM prompts ask for
too):

1. *What the user said that still stands*, verbatim, each value at its latest
   (:func:`~ctxmgr.autocontext.standing.statements_of`,
   :func:`~ctxmgr.autocontext.standing.latest`), then the lines they pasted.
2. *Findings from the results*: the first lines of each result and its lines that
   report an error or a change, markup left out, except an error line a failed call
   already shows; newest first when room is short.
3. *The agent's own sentences that carry something*; newest first when room is short.

*The tool calls* are not listed: the record every stand-in carries after its summary
(:mod:`ctxmgr.autocontext.record`) is the one list of a range's calls, so the
summary's room goes to what the record does not say. Only what an earlier summary by
a model says was done (its prose) is carried on as *done so far*.

**What it drops.** An assistant sentence that announces the agent's next step (first
person with a future or "need to": "Let me check the file:", "I'll look at the
logs.") goes unless it names a value (a number, a path, an identifier) no call shows.
Any other sentence without a value goes when it is short (under
:data:`STATEMENT_WORDS` words) and names no error or change ("Acknowledged.", "Got
it, thanks."), when it is a question, or when it recurs (a refrain). A sentence or
result line that recurs in the range, the same words with other numbers or not
("Step 3 done", "Step 4 done"), is kept once, in its latest form. No phrase list:
the rules use the values a sentence carries, its grammatical person, its length and
its repeats, designed on generated sessions with many phrasings
(``benchmarks/planted``) and on the recorded runs.

**What is no finding.** A line that is mostly marks is a separator or a banner
(``=== FAILURES ===``, ``|---|---|``): it goes, unless between its runs of marks it
carries a number (``=== 2 failed, 1 passed in 0.31s ===`` gives ``2 failed, 1 passed
in 0.31s``). A line that names :data:`TOOLCHAIN_VERSIONS` versions or more describes
the tools that ran (a test runner's platform line, a plugin list, an installer's
log), not what they found. A result that opens with such a line opens with a header
(a test runner's session block, up to its first blank line): its first lines are
taken after it.

**Clipped text.** What the summarizer is sent of a long text is its head and tail
around a mark of what was left out
(:func:`~ctxmgr.autocontext.summarizers.clip_for_summary`). What the cut leaves of a
sentence on each side of the mark goes with it (of a result, what it leaves of a
line), so no item is cut mid-sentence and no URL is cut mid-way
(``ps://docs.pytest.org/…``).

**Room.** Items are whole: a sentence, a result line. Within ``max_chars``
room goes first to the user's statements that bind or carry a value, then the other
sections share it (one that needs less than its share leaves the rest to the others),
then the user's other remarks and last what they pasted take what is left; one line
says how many items were left out. An earlier summary in the range (ctxmgr's own
stand-in, a result it summarized, or a text that starts like one) is read back section
by section, without its record and identifiers line, and its items join the new ones:
a summary rolls forward instead of being summarized again, and its count of items
left out carries on.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ctxmgr.autocontext.actions import collapse_whitespace, key_argument
from ctxmgr.autocontext.identifiers import distinctive_strings
from ctxmgr.autocontext.marker import CompressedMarker, strip_offload_tags
from ctxmgr.autocontext.prompts import SUMMARY_SECTIONS
from ctxmgr.autocontext.record import outcome, without_record
from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock

if TYPE_CHECKING:  # the reader of the user's words loads with the first summary
    from ctxmgr.autocontext.standing import Statement

__all__ = ["SUMMARY_HEADER", "ExtractiveSummarizer", "call_entry", "summary_sections"]

SUMMARY_HEADER = "Summary of earlier messages:"
"""The first line of every extractive summary."""

STATEMENT_WORDS = 7
"""An assistant sentence without a value, an error or a change needs at least this many
words to count as a statement rather than a courtesy ("Understood, I'll keep that in
mind." has six)."""
LINE_CHARS = 240
"""Longest result line taken as a finding: a longer one is a blob (minified JSON, a
base64 dump), not a line an agent reads back."""
WEIGHTY = 30
"""A user statement of at least this :func:`~ctxmgr.autocontext.standing.priority` binds
or carries a value: it gets room before anything else."""
SIGNAL_LINES = 3
"""Lines reporting an error or a change taken from one result, besides its first lines."""
TOOLCHAIN_VERSIONS = 3
"""A result line naming this many versions (``3.11.5``, ``pytest-9.0.3``) or more says
which tools ran, not what they found; two are a finding still (``expected 1.0.2, got
1.0.3``). On the recorded coding runs every line with three is a platform line, a
plugin list or an installer's log."""

_TAGS = re.compile(r"<[^>]*>")  # markup around tool output (<output>, <returncode>0</...>)
_SIGNAL = re.compile(
    r"(error|exception|failed|failure|assert|warning|fixed|changed|created|"
    r"modified|passed)", re.IGNORECASE)
_CONTENT = re.compile(r"[A-Za-z0-9]{2}")
_DIGIT = re.compile(r"\d")
_CLIPPED = re.compile(r"^\[\.\.\. \d+ characters left out \.\.\.\]$")  # clip_for_summary's
_CLIP = re.compile(r"\n\[\.\.\. \d+ characters left out \.\.\.\]\n")  # ... and around it
_CLIP_WORDS = " characters left out ...]"
_STOP = re.compile(r"[.!?…。！？]+[\"'”’)\]]*(?=\s|$)|[。！？]")  # where a sentence ends
_MARKS = re.compile(r"([^\w\s]|_)\1{2,}")  # a run of one mark: ===, ---, ___
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?![\w.])"  # 3.11.5
                      r"|(?<![\w.-])[^\W\d_][\w.]*-\d+(?:\.\d+)+(?![\w.])")  # pytest-9.0.3
_WORDS = re.compile(r"[0-9]*[A-Za-z][\w'’-]*")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
# The agent announcing its own next step: "let me", "let's", or "I" (or "we") with a
# future or "need/want to", after at most one opening word ("Now let me", "Okay, I'll").
# Closed-class words only; "we should", "we must" state a conclusion and stay.
_INTENT = re.compile(
    r"^(?:\w+[,!.]?\s+)?(?:let(?:['’]s| me| us)\b|i(?:['’]ll|['’]m going to| will| shall| "
    r"am going to| need to| want to)\b|we(?:['’]ll|['’]re going to| will| are going to)\b)",
    re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")
_FAILED = re.compile(r"^(?:exit -?\d+|error): (.+)$")  # an outcome with its error line
_HEAD = 40  # characters that tell an error line the record cut from the others
_COUNT = re.compile(r"^\(\+(\d+) more items? in the original\)$")
_USER, _DONE, _FINDINGS, _OPEN = range(4)
_SECTION_NAMES = {name.lower(): k for k, name in enumerate(SUMMARY_SECTIONS)} | {
    name.split(" (")[0].lower(): k for k, name in enumerate(SUMMARY_SECTIONS)} | {
    "conclusions": _OPEN, "open items": _OPEN}
"""Section headers read back from an earlier summary: the full names, the names without
their parenthesis, and the two halves of the last one (what an LLM writes)."""


@dataclass(frozen=True, slots=True)
class _Item:
    text: str
    order: tuple[int, ...]
    """Where it was said: sorts the items of a range in the order they came."""


@dataclass(slots=True)
class _Pool:
    """Everything a range offers, before room is counted."""

    said: list[Statement] = field(default_factory=list)
    done: list[_Item] = field(default_factory=list)
    findings: list[_Item] = field(default_factory=list)
    agent: list[_Item] = field(default_factory=list)
    left_out: int = 0
    """Items earlier summaries in the range had already left out."""


class ExtractiveSummarizer:
    """A deterministic summarizer that needs no LLM (offline use, tests, fallback).

    It keeps what the user said that still stands, the tool calls, findings from their
    results and the agent's sentences that carry something, whole, within
    ``max_chars``; ``head_lines`` is how many first lines of each result count as
    findings. See :mod:`ctxmgr.autocontext.extractive` for the rules.
    """

    def __init__(self, *, max_chars: int = 2000, head_lines: int = 2) -> None:
        self.max_chars = max_chars
        self.head_lines = head_lines

    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        body = _render(self._pool(messages), self.max_chars)
        return f"{SUMMARY_HEADER}\n{body or '(nothing to keep)'}"

    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        return self.summarize(messages, instruction)

    def _pool(self, messages: Sequence[Message]) -> _Pool:
        from ctxmgr.autocontext.standing import Statement, sentences, statements_of

        pool = _Pool()
        said: list[_Item] = []
        for i, m in enumerate(messages):
            if _is_summary(m):
                _read_back(pool, i, m.text)
            elif m.role == "user":
                pool.said += [Statement(s.text, (i, *s.order), s.pasted, s.listed)
                              for s in statements_of(_without_clips(m))]
            elif m.role == "assistant":
                said += [_Item(s, (i, k)) for k, s in enumerate(sentences(_unclipped(m.text)))]
            for j, result in enumerate(m.tool_results):
                if result.text.lstrip().startswith(SUMMARY_HEADER):  # a result summarized
                    _read_back(pool, i, result.text)
                    continue
                pool.findings += [_Item(line, (i, j, k)) for k, line in enumerate(
                    _result_lines(_unclipped(result.text, lines=True), self.head_lines))]
        # the calls are the record's to list; what they show still counts here
        pool.done = _once(pool.done, key=_exact)
        shown = _Shown([*pool.done, *_calls(messages)])
        pool.findings = [f for f in _once(pool.findings, key=_shape) if not shown.error(f.text)]
        pool.agent = _once([*pool.agent, *_worth_saying(said, shown)], key=_shape)
        return pool


class _Shown:
    """What the calls' lines show, looked up in constant time (a range can hold
    thousands of calls): their error lines, and the values their arguments name."""

    def __init__(self, done: Sequence[_Item]) -> None:
        self.errors: set[str] = set()
        self.cut: dict[str, str] = {}  # an error line the record cut: its head -> its text
        self.cut_heads: set[int] = set()  # the lengths of those heads
        self.values: set[str] = set()
        for item in done:
            head, _, end = item.text.partition(" → ")
            if (failed := _FAILED.match(end)) is not None:
                error = failed.group(1)
                if error.endswith("…"):
                    kept = error[:-1].rstrip()
                    self.cut[kept[:_HEAD]] = kept
                    self.cut_heads.add(len(kept[:_HEAD]))
                else:
                    self.errors.add(error)
            for value in (*distinctive_strings(head), *_NUMBER.findall(head)):
                self.values.add(value)
                # a path also shows its file name and its shorter tails
                self.values.update(value[k + 1:] for k, ch in enumerate(value) if ch == "/")

    def error(self, line: str) -> bool:
        """``line`` is the error line of a call that failed (whole, or as the record
        cut it)."""
        if line in self.errors:
            return True
        for n in self.cut_heads:
            cut = self.cut.get(line[:n])
            if cut is not None and line.startswith(cut):
                return True
        return False


def _is_summary(m: Message) -> bool:
    """True for an earlier summary or note ctxmgr wrote for a range (its marker says so,
    or, once a provider's format has lost the marker, its text starts like one)."""
    if m.role == "user" or m.has_tool_blocks:
        return False
    marker = CompressedMarker.of(m)
    return (marker is not None and marker.range) or m.text.lstrip().startswith(SUMMARY_HEADER)


def summary_sections(text: str) -> tuple[list[list[str]], int]:
    """The items of a summary's text in each of :data:`SUMMARY_SECTIONS` (prose outside
    any section counts as done so far), and how many items it says it left out. The
    record, identifiers line and offload tag a stand-in carries are not read."""
    sections: list[list[str]] = [[] for _ in SUMMARY_SECTIONS]
    left_out = 0
    section = _DONE
    body = strip_offload_tags(without_record(text)).strip().removeprefix(SUMMARY_HEADER)
    for raw in body.splitlines():
        line = raw.strip()
        name = line.strip("#*_ ").rstrip(":").strip("*_ ").lower()
        if name in _SECTION_NAMES:
            section = _SECTION_NAMES[name]
        elif (count := _COUNT.match(line)) is not None:
            left_out += int(count.group(1))
        elif line and line != "(nothing to keep)":
            sections[section].append(_BULLET.sub("", line))
    return sections, left_out


def _read_back(pool: _Pool, i: int, text: str) -> None:
    from ctxmgr.autocontext.standing import Statement

    (said, done, findings, agent), left_out = summary_sections(text)
    pool.said += [Statement(s, (i, k)) for k, s in enumerate(said)]
    pool.done += [_Item(t, (i, k)) for k, t in enumerate(done)]
    pool.findings += [_Item(t, (i, k)) for k, t in enumerate(findings)]
    pool.agent += [_Item(t, (i, k)) for k, t in enumerate(agent)]
    pool.left_out += left_out


def _calls(messages: Sequence[Message]) -> list[_Item]:
    """Each tool call of ``messages`` as the stand-in's record names it."""
    results: dict[str, ToolResultBlock] = {}
    for m in messages:
        for b in m.tool_results:
            results.setdefault(b.tool_use_id, b)
    return [_Item(f"{use.name}: {call_entry(use, results.get(use.id))}", (i, k))
            for i, m in enumerate(messages) for k, use in enumerate(m.tool_uses)]


def call_entry(use: ToolUseBlock, result: ToolResultBlock | None) -> str:
    """``use``'s key argument and, unless it succeeded, its outcome: the line the record
    of :mod:`ctxmgr.autocontext.record` writes for a call (its ``_call``, which is
    private; what :func:`~ctxmgr.autocontext.record.record_lines` adds besides, the
    files named, is not needed here and costs half the time)."""
    head = key_argument(use) or "(no arguments)"
    end = outcome(result) if result is not None else "no result yet"
    return f"{head} → {end}" if end else head


def _result_lines(text: str, head_lines: int) -> list[str]:
    """A result's findings: its first ``head_lines`` lines that are findings, after its
    header if it opens with one, then up to :data:`SIGNAL_LINES` lines reporting an
    error or a change (markup left out). Only lines it may take are cleaned (results
    are long, findings few), and the signal words are found in one pass over the
    text."""
    head: list[str] = []
    at = 0
    header = -1  # where the header being skipped started
    while len(head) < head_lines and at < len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if header >= 0:
            if not _TAGS.sub("", text[at:end]).strip():
                header = -1  # a blank line ends it
        elif (line := _finding(text[at:end])) and (kept := _informative(line)):
            head.append(kept)
        elif line and not head:
            header = at  # a banner or a toolchain line first: the block is a header
        at = end + 1
    if header >= 0:  # a header without an end: its signal lines are read still
        at = header
    signal: list[str] = []
    for match in _SIGNAL.finditer(text, at):
        if match.start() < at or len(signal) == SIGNAL_LINES:
            if len(signal) == SIGNAL_LINES:
                break
            continue  # another signal word on a line already read
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        at = len(text) if end < 0 else end
        line = _informative(_finding(text[start:at]))
        if line:
            signal.append(line)
    return head + signal


def _finding(raw: str) -> str:
    """``raw`` without markup and extra whitespace, or "" when it is no finding: no
    content, too long, or the mark of a clipped text."""
    line = collapse_whitespace(_TAGS.sub("", raw))
    if not _CONTENT.search(line) or len(line) > LINE_CHARS or _CLIPPED.match(line):
        return ""
    return line


def _informative(line: str) -> str:
    """``line`` as a finding: "" for a separator, a banner without a number or a line
    about the toolchain, the text between a banner's marks when it has a number (the
    rules in the module docstring)."""
    if not line:
        return ""
    marks = sum(len(run.group()) for run in _MARKS.finditer(line))
    if marks * 2 >= len(line):
        inner = collapse_whitespace(_MARKS.sub(" ", line))
        return inner if _DIGIT.search(inner) and _CONTENT.search(inner) else ""
    if sum(ch.isalnum() for ch in line) * 4 < len(line) - line.count(" "):
        return ""  # mostly marks, though not in runs ("-=-=-=-", "| : | : |")
    if len(_VERSION.findall(line)) >= TOOLCHAIN_VERSIONS:
        return ""
    return line


def _unclipped(text: str, *, lines: bool = False) -> str:
    """``text`` without the marks :func:`~ctxmgr.autocontext.summarizers.clip_for_summary`
    leaves, nor the sentence cut on each side of one (the line, if ``lines``: a result's
    line cut at its start or end is no finding)."""
    if _CLIP_WORDS not in text:
        return text
    pieces = _CLIP.split(text)
    last = len(pieces) - 1
    for k in range(len(pieces)):
        if k > 0:  # starts mid-line: up to its first sentence end, or the line, goes
            line_end = pieces[k].find("\n")
            line_end = len(pieces[k]) if line_end < 0 else line_end
            stop = None if lines else _STOP.search(pieces[k], 0, line_end)
            pieces[k] = pieces[k][stop.end() if stop else line_end:].lstrip(" ")
        if k < last and not pieces[k].endswith("\n"):  # ends mid-line: back to a stop
            line_start = pieces[k].rfind("\n") + 1
            stops = [] if lines else list(_STOP.finditer(pieces[k], line_start))
            pieces[k] = pieces[k][:stops[-1].end() if stops else line_start]
    return "\n".join(pieces)


def _without_clips(m: Message) -> Message:
    """``m`` with :func:`_unclipped` text blocks."""
    if not any(isinstance(b, TextBlock) and _CLIP_WORDS in b.text for b in m.content):
        return m
    return replace(m, content=tuple(replace(b, text=_unclipped(b.text))
                                    if isinstance(b, TextBlock) else b for b in m.content))


def _exact(text: str) -> str:
    return text


def _shape(text: str) -> str:
    """``text`` without its numbers and case: what a repeated line keeps."""
    return _NUMBER.sub("#", text.lower())


def _once(items: Iterable[_Item], *, key: Callable[[str], str]) -> list[_Item]:
    """``items`` with each ``key`` (a function of the text) kept once, at its latest,
    in order."""
    last: dict[str, _Item] = {}
    for item in items:
        k = key(item.text)
        last.pop(k, None)  # re-inserted: the dict keeps the order of latest occurrences
        last[k] = item
    return sorted(last.values(), key=lambda item: item.order)


def _has_value(sentence: str) -> bool:
    from ctxmgr.autocontext.standing import value_kinds

    return next(distinctive_strings(sentence), None) is not None or bool(value_kinds(sentence))


def _worth_saying(said: Sequence[_Item], shown: _Shown) -> list[_Item]:
    """The agent's sentences that carry something (the rules in the module docstring);
    ``shown``: what the calls' lines show (a step announced and taken needs no words)."""
    recurs = Counter(_shape(s.text) for s in said)
    out = []
    for s in said:
        words = _WORDS.findall(s.text)
        if not words:
            continue  # a list's number ("2."): nothing to read back
        if _INTENT.match(s.text):
            values = [*distinctive_strings(s.text), *_NUMBER.findall(s.text)]
            if any(v not in shown.values for v in values):
                out.append(s)  # a step announced with a value no call shows
        elif recurs[_shape(s.text)] == 1 and not s.text.endswith("?") and (
                len(words) >= STATEMENT_WORDS or _SIGNAL.search(s.text)):
            out.append(s)  # a statement said once
        elif _has_value(s.text):
            out.append(s)  # short, a question or said again, but with a value
    return out


def _fit(items: Sequence[_Item], room: int, *, newest_first: bool) -> list[_Item]:
    """The whole items that fit ``room`` (each costs its line), taken oldest or newest
    first, shown in order."""
    kept: list[_Item] = []
    used = 0
    for item in reversed(items) if newest_first else items:
        cost = len(item.text) + 3
        if used + cost <= room:
            kept.append(item)
            used += cost
    return sorted(kept, key=lambda item: item.order)


def _select(statements: Sequence[Statement], score: Mapping[tuple[int, ...], int],
            room: int) -> list[_Item]:
    """:func:`~ctxmgr.autocontext.standing.select`'s rule on scores counted once for the
    whole range (it would count them again on each part, in time that grows with the
    square of the statements): the highest first, the most recent of equals, and none
    of a lower score once one did not fit."""
    ranked = sorted(sorted(statements, key=lambda s: s.order, reverse=True),
                    key=lambda s: -score[s.order])
    kept: list[_Item] = []
    floor, used = None, 0
    for s in ranked:
        if floor is not None and score[s.order] < floor:
            break
        if used + len(s.text) + 3 > room:
            floor = score[s.order] if floor is None else floor
        else:
            kept.append(_Item(s.text, s.order))
            used += len(s.text) + 3
    return kept


def _lines(section: int, items: Sequence[_Item]) -> list[str]:
    return [f"{SUMMARY_SECTIONS[section]}:", *(f"- {i.text}" for i in items)] if items else []


def _cost(items: Sequence[_Item]) -> int:
    """Characters of ``items`` as lines ("- " and a line break each)."""
    return sum(len(item.text) + 3 for item in items)


def _header(section: int) -> int:
    return len(SUMMARY_SECTIONS[section]) + 2


def _render(pool: _Pool, max_chars: int) -> str:
    """The body of the summary: sections of whole items within ``max_chars``, then the
    count of items left out.

    Room goes first to the user's statements that bind or carry a value, then the
    other sections share it (the one that needs least first, so what it does not use
    goes to the others), then the user's other remarks take what is left, and text the
    user pasted (a log, an email) comes last: it does not crowd out what the agent did.
    A paste is only deduplicated (its lines are many, and they are material the user
    refers to, not values they set). Neither remarks nor pasted text take room while a
    statement that binds or carries a value is left out.
    """
    from ctxmgr.autocontext.standing import latest, scores

    own = [s for s in pool.said if not s.pasted]
    standing = latest(own)
    also = {s.text for s in own}  # a pasted line the user also said: theirs, not the paste's
    pasted = _once((_Item(s.text, s.order) for s in pool.said
                    if s.pasted and s.text not in also), key=_exact)
    score = scores(standing, among=own)  # among: what the latest values replaced
    weighty = [s for s in standing if score[s.order] >= WEIGHTY]
    remarks = [s for s in standing if score[s.order] < WEIGHTY]
    rest = {_DONE: pool.done, _FINDINGS: pool.findings, _OPEN: pool.agent}
    total = pool.left_out + len(standing) + len(pasted) + sum(map(len, rest.values()))
    room = max_chars - len(f"(+{total} more items in the original)") - 1
    room -= _header(_USER) if standing or pasted else 0
    said = _select(weighty, score, room)
    room -= _cost(said)
    need = {k: _cost(items) + _header(k) for k, items in rest.items() if items}
    kept: dict[int, list[_Item]] = {}
    for n, k in enumerate(sorted(need, key=lambda k: (need[k], k))):
        share = min(need[k], room // (len(need) - n))
        kept[k] = _fit(rest[k], share - _header(k), newest_first=k != _DONE)
        room -= _cost(kept[k]) + (_header(k) if kept[k] else 0)
    # once a statement that binds or has a value did not fit, no remark or paste takes
    # its room
    whole = len(said) == len(weighty)
    others = _select(remarks, score, room) if whole else []
    said += others + (_fit(pasted, room - _cost(others), newest_first=False) if whole else [])
    out = _lines(_USER, sorted(said, key=lambda s: s.order))
    for k in sorted(kept):
        out += _lines(k, kept[k])
    left_out = total - len(said) - sum(map(len, kept.values()))
    if left_out:
        out.append(f"(+{left_out} more item{'s' if left_out > 1 else ''} in the original)")
    return "\n".join(out)
