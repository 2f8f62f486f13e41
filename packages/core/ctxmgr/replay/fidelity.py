"""Fidelity of a replayed prompt: does it still hold what the agent used next?

Cost rewards throwing context away; these measures show what that costs. Each
recorded assistant message shows what the agent actually used at that step, so
the strings it copied from earlier tool output are the "needed facts" of the
call before it.

**The fact rule** (:func:`distinctive_strings`). A fact is a token of the
recorded next step:

1. its text comes from the assistant message's text blocks and from its tool
   calls' argument values (strings, and numbers written out; nested lists and
   objects are walked; argument names are not used);
2. tokens are the maximal runs of the characters ``[A-Za-z0-9_./:-]``, with
   leading and trailing ``.``, ``:``, ``-`` and ``/`` removed (sentence
   punctuation, ``--flags``, ``./`` and trailing slashes);
3. a token counts when it has at least six characters and is not a *plain
   word*: a token made of ASCII letters only that is all lowercase
   (``function``), all uppercase (``FAILED``) or one capital followed by
   lowercase letters (``Traceback``). So ``lint_path``, ``models.py``,
   ``src/app``, ``QuerySet``, ``getValue``, ``123456`` and ``3f2a9c1e``
   count; ``return``, ``ERRORS`` and ``Django`` do not;
4. it is *needed* at that call when it occurs, as a substring, in the output
   of a tool result earlier in the history and in no earlier system or user
   message's text (what the user or the system prompt said is not something the
   agent had to keep from tool output).

A needed fact is *available* when it occurs as a substring anywhere the model
reads in the prompt (text, tool-result output, tool-call argument values): no
fact holds a newline, so texts are joined by newlines without making false
matches. It is *reloadable* when it is missing but occurs in messages that an
offload id in the prompt (``<!-- CONTEXT_OFFLOAD: uuid=ID -->``) gives back,
following ids inside reloaded messages too; only a policy with a ``reload(id)``
method (:class:`Reloader`, ctxmgr's) can tell, so for the peers nothing is
reloadable. The *reload tokens* of a call are the tokens of the messages that
the shortest chain of ids to each reloadable fact gives back, each id counted
once; replay charges them as one answer, though a ``context_reload`` that pages
a long range takes more round trips for the same tokens. A fact's *source age*
is how many tool results back the most recent tool result holding it is (1 = the
last one before the call).

*Recency* asks whether the prompt holds the last three tool results' output
verbatim (fewer when fewer exist; calls with no tool result before them are
not counted).

What the user said and what the agent already did (``user_retention``,
``actions_retained``) are measured on the same prompts, by the rules of
:mod:`ctxmgr.replay.retention`.

Facts and their ages depend only on the trajectory, so :class:`TrajectoryFacts`
finds them once and every policy's prompts are checked against them; a prompt
message identical to a history message is recognised by identity or by its
text, so only rewritten messages are searched.
"""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ctxmgr.autocontext.identifiers import MIN_FACT_CHARS, distinctive_strings, is_plain_word
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from ctxmgr.replay.retention import CallRetention, TrajectoryRetention
from ctxmgr.replay.visible import argument_strings, named_text, visible_text
from ctxmgr.tokens import TokenCounter

__all__ = [
    "AGE_BUCKETS",
    "MIN_FACT_CHARS",
    "RECENT_RESULTS",
    "CallFidelity",
    "FidelityChecker",
    "Reloader",
    "Searcher",
    "TrajectoryFacts",
    "age_bucket",
    "distinctive_strings",
    "is_plain_word",
    "reloader_of",
    "searcher_of",
    "visible_text",
]

RECENT_RESULTS = 3
"""How many of the last tool results ``recency`` asks for."""
AGE_BUCKETS: tuple[str, ...] = ("1", "2", "3", "4-10", "11+")
"""Source-age buckets: how many tool results back a needed fact came from."""

def age_bucket(age: int) -> int:
    """Index into :data:`AGE_BUCKETS` of a source age (1 = the last tool result)."""
    if age <= 3:
        return age - 1
    return 3 if age <= 10 else 4


@runtime_checkable
class Reloader(Protocol):
    """A policy whose stand-ins can be reloaded: ``reload(id)`` gives the originals back
    and raises ``KeyError`` (``OffloadNotFoundError`` is one) for an id it does not know."""

    def reload(self, offload_id: str) -> Sequence[Message]: ...


@runtime_checkable
class Searcher(Protocol):
    """A policy that can search what it compressed away: ``search(query)`` is the text a
    ``context_search`` call for ``query`` answers, beside the policy's latest prompt."""

    def search(self, query: str) -> str: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class _Need:
    fact: str
    bucket: int
    where: tuple[int, ...]
    """Indices of every history message whose visible text holds the fact."""
    result: int
    """Ordinal of the latest tool result before the call that holds the fact: the tool
    a policy that cannot recover it would run again."""


class TrajectoryFacts:
    """The needed facts of every model call of one trajectory, found once for all policies."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self.messages = tuple(messages)
        self.index_by_id = {id(m): i for i, m in enumerate(self.messages)}
        visible = [visible_text(m) for m in self.messages]
        self.index_by_text = {(m.role, t): i for i, (m, t) in
                              enumerate(zip(self.messages, visible, strict=True))}
        self.retention = TrajectoryRetention(self.messages, visible)
        """The user messages and tool calls that ``user_retention`` and
        ``actions_retained`` look for."""
        # one searchable string of segments: (message index, tool-result ordinal or -1,
        # counts as context (system/user text))
        segments: list[tuple[int, int, bool]] = []
        texts: list[str] = []
        self.results: list[tuple[int, str]] = []
        """Every tool result in order: (message index, output)."""
        for i, m in enumerate(self.messages):
            for b in m.content:
                if isinstance(b, ToolResultBlock):
                    segments.append((i, len(self.results), False))
                    texts.append(b.text)
                    self.results.append((i, b.text))
                elif isinstance(b, TextBlock):
                    segments.append((i, -1, m.role in ("system", "user")))
                    texts.append(b.text)
                elif isinstance(b, ToolUseBlock):
                    for s in argument_strings(b.input):
                        segments.append((i, -1, False))
                        texts.append(s)
        starts: list[int] = []
        pos = 0
        for t in texts:
            starts.append(pos)
            pos += len(t) + 1
        whole = "\n".join(texts)
        self._results_before: list[int] = []
        count = 0
        for m in self.messages:
            self._results_before.append(count)
            count += len(m.tool_results)
        self.needs: dict[int, tuple[_Need, ...]] = {}
        """Call (assistant message index) -> its needed facts."""
        found: dict[str, list[tuple[int, int, bool]]] = {}
        for i, m in enumerate(self.messages):
            if m.role != "assistant":
                continue
            needs = []
            for fact in dict.fromkeys(distinctive_strings(visible_text(m, results=False))):
                hits = found.get(fact)
                if hits is None:
                    hits = found[fact] = _occurrences(fact, whole, starts, segments)
                need = self._need(fact, hits, i)
                if need is not None:
                    needs.append(need)
            self.needs[i] = tuple(needs)

    def _need(self, fact: str, hits: list[tuple[int, int, bool]], call: int) -> _Need | None:
        last_result = -1
        for msg, result, context in hits:
            if msg >= call:
                break
            if context:
                return None
            if result >= 0:
                last_result = result
        if last_result < 0:
            return None
        age = self._results_before[call] - last_result
        where = tuple(dict.fromkeys(msg for msg, _, _ in hits if msg < call))
        return _Need(fact=fact, bucket=age_bucket(age), where=where, result=last_result)

    def recent_results(self, call: int) -> list[tuple[int, str]]:
        """The last :data:`RECENT_RESULTS` tool results before ``call``."""
        n = self._results_before[call]
        return self.results[max(0, n - RECENT_RESULTS):n]


def _occurrences(fact: str, whole: str, starts: list[int],
                 segments: list[tuple[int, int, bool]]) -> list[tuple[int, int, bool]]:
    out: list[tuple[int, int, bool]] = []
    find = whole.find
    pos = find(fact)
    while pos >= 0:
        k = bisect.bisect_right(starts, pos) - 1
        out.append(segments[k])
        # next segment: a fact never spans segments, and one hit per segment is enough
        nxt = starts[k + 1] if k + 1 < len(starts) else len(whole)
        pos = find(fact, nxt)
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class CallFidelity:
    """What one prompt kept of the facts its call needed."""

    needed: int = 0
    available: int = 0
    reloadable: int = 0
    needed_by_age: tuple[int, ...] = (0,) * len(AGE_BUCKETS)
    available_by_age: tuple[int, ...] = (0,) * len(AGE_BUCKETS)
    has_results: bool = False
    """At least one tool result came before the call (``recency`` counts it)."""
    recent_kept: bool = True
    """The prompt holds the last three tool results' output verbatim."""
    reload_tokens: int = 0
    """Tokens a reload round trip would bring back (0 when no fact needs one)."""
    searchable: int = 0
    """Missing facts one ``context_search`` for the fact itself finds (its answer holds
    the fact; answers are capped at 1,000 tokens)."""
    recovery_tokens: int = 0
    """Tokens the cheapest recovery of every missing fact brings in, uncached (0 when
    nothing is missing): see :mod:`ctxmgr.replay.fidelity`."""
    recovered_by: tuple[int, int, int] = (0, 0, 0)
    """Missing facts recovered by a search, a reload, and by running the tool again."""
    missing: tuple[str, ...] = ()
    """Needed facts not in the prompt, in the order the agent used them."""
    retention: CallRetention = field(default_factory=CallRetention)
    """What the prompt kept of the earlier user messages and tool calls."""


class FidelityChecker:
    """Checks one policy's prompts for one trajectory against its :class:`TrajectoryFacts`."""

    def __init__(self, facts: TrajectoryFacts, counter: TokenCounter,
                 reload: Callable[[str], Sequence[Message]] | None = None,
                 search: Callable[[str], str] | None = None) -> None:
        self.facts = facts
        self.counter = counter
        self.reload = reload
        self.search = search
        self._result_tokens: dict[int, int] = {}
        self._reloaded: dict[str, tuple[str, int, tuple[str, ...]] | None] = {}
        self._named: dict[int, tuple[Message, str]] = {}
        """id -> (message, named text) of rewritten prompt messages (a stand-in usually
        stays in the prompt for many calls); the message is held so its id stays its own."""

    def check(self, call: int, prompt: Sequence[Message]) -> CallFidelity:
        """Fidelity of ``prompt`` for the model call at message index ``call``."""
        facts = self.facts
        kept: set[int] = set()
        other: list[str] = []
        rewritten: list[Message] = []
        for m in prompt:
            i = facts.index_by_id.get(id(m))
            if i is not None and facts.messages[i] is m:
                kept.add(i)
                continue
            text = visible_text(m)
            i = facts.index_by_text.get((m.role, text))
            if i is not None:
                kept.add(i)
            else:
                other.append(text)
                rewritten.append(m)
        retention = facts.retention.check(call, kept, other,
                                          [self._named_text(m) for m in rewritten])
        recent = facts.recent_results(call)
        recent_kept = all(i in kept or not out or any(out in t for t in other)
                          for i, out in recent)
        needs = facts.needs.get(call, ())
        if not needs:
            return CallFidelity(has_results=bool(recent), recent_kept=recent_kept,
                                retention=retention)
        needed = [0] * len(AGE_BUCKETS)
        available = [0] * len(AGE_BUCKETS)
        lost: list[_Need] = []
        for need in needs:
            needed[need.bucket] += 1
            if any(i in kept for i in need.where) or any(need.fact in t for t in other):
                available[need.bucket] += 1
            else:
                lost.append(need)
        missing = [n.fact for n in lost]
        chains = self._reload_chains(missing, other)
        reload_tokens = sum(self._loaded_tokens(oid)
                            for oid in {oid for chain in chains.values() for oid in chain})
        searchable, recovery_tokens, recovered_by = self._recovery(lost, chains)
        return CallFidelity(
            needed=len(needs), available=len(needs) - len(missing), reloadable=len(chains),
            needed_by_age=tuple(needed), available_by_age=tuple(available),
            has_results=bool(recent), recent_kept=recent_kept, reload_tokens=reload_tokens,
            searchable=searchable, recovery_tokens=recovery_tokens,
            recovered_by=recovered_by, missing=tuple(missing), retention=retention)

    def _recovery(self, lost: list[_Need], chains: dict[str, list[str]]
                  ) -> tuple[int, int, tuple[int, int, int]]:
        """How many ``lost`` facts one search finds, and the tokens of the cheapest way to
        get every one back: per fact, the cheapest of its search answer, the reloads that
        hold it (each range charged once) and its tool's output again (each charged once).
        """
        searchable = tokens = 0
        by = [0, 0, 0]
        ranges: set[str] = set()
        results: set[int] = set()
        for need in lost:
            options: list[tuple[int, int, Any]] = []
            if self.search is not None:
                answer = self.search(need.fact)
                if need.fact in answer:
                    searchable += 1
                    options.append((self.counter.count_text(answer), 0, None))
            chain = chains.get(need.fact)
            if chain is not None:
                options.append((sum(self._loaded_tokens(oid) for oid in chain
                                    if oid not in ranges), 1, chain))
            options.append((0 if need.result in results else self._output_tokens(need.result),
                            2, need.result))
            cost, how, what = min(options, key=lambda o: o[:2])
            tokens += cost
            by[how] += 1
            if how == 1:
                ranges.update(what)
            elif how == 2:
                results.add(what)
        return searchable, tokens, (by[0], by[1], by[2])

    def _output_tokens(self, ordinal: int) -> int:
        """Tokens of a tool result's output (what running the tool again brings back)."""
        if ordinal not in self._result_tokens:
            self._result_tokens[ordinal] = self.counter.count_text(
                self.facts.results[ordinal][1])
        return self._result_tokens[ordinal]

    def _named_text(self, m: Message) -> str:
        got = self._named.get(id(m))
        if got is None:
            got = self._named[id(m)] = (m, named_text(m))
        return got[1]

    def _reload_chains(self, missing: list[str], other: list[str]) -> dict[str, list[str]]:
        """For each ``missing`` fact the offload ids in the prompt give back, the ids to
        reload to reach it.

        Ids inside reloaded messages are followed breadth-first (a summary of a summary);
        each fact gets the shortest path of ids, prompt order first, to the reload whose
        own messages hold it.
        """
        if not missing or self.reload is None:
            return {}
        parent: dict[str, str | None] = {}
        queue: deque[str] = deque()
        for t in other:
            for oid in find_offload_ids(t):
                if oid not in parent:
                    parent[oid] = None
                    queue.append(oid)
        order: list[tuple[str, str]] = []
        while queue:
            oid = queue.popleft()
            got = self._load(oid)
            if got is None:
                continue
            order.append((oid, got[0]))
            for inner in got[2]:
                if inner not in parent:
                    parent[inner] = oid
                    queue.append(inner)
        chains: dict[str, list[str]] = {}
        for fact in missing:
            hit = next((oid for oid, text in order if fact in text), None)
            chain: list[str] = []
            while hit is not None:
                chain.append(hit)
                hit = parent[hit]
            if chain:
                chains[fact] = chain
        return chains

    def _loaded_tokens(self, oid: str) -> int:
        got = self._reloaded[oid]
        return got[1] if got is not None else 0

    def _load(self, oid: str) -> tuple[str, int, tuple[str, ...]] | None:
        if oid not in self._reloaded:
            assert self.reload is not None
            try:
                messages = list(self.reload(oid))
            except KeyError:  # an id the policy does not know is simply not reloadable
                self._reloaded[oid] = None
            else:
                text = "\n".join(visible_text(m) for m in messages)
                self._reloaded[oid] = (text, sum(self.counter.count(m) for m in messages),
                                       tuple(find_offload_ids(text)))
        return self._reloaded[oid]


def reloader_of(policy: object) -> Callable[[str], Sequence[Message]] | None:
    """The policy's ``reload`` method, if it has one."""
    return policy.reload if isinstance(policy, Reloader) else None


def searcher_of(policy: object) -> Callable[[str], str] | None:
    """The policy's ``search`` method, if it has one."""
    return policy.search if isinstance(policy, Searcher) else None

