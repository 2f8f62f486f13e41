"""Retention of a replayed prompt: does it still hold what the user said and name what
the agent already did?

Facts (:mod:`ctxmgr.replay.fidelity`) measure what the agent needs from tool output;
these two measures cover what a compression must not lose even when no next step
copies it: the user's words ("never touch the prod database") and the record of the
tool calls already made (without it the agent makes them again).

**user_retention.** Per model call, the *earlier user messages* are the user turns
before it (:func:`~ctxmgr.autocontext.pins.is_user_turn`: a user message that carries
tool results is not one; the first user message counts). One is *retained* when the
prompt holds it

1. *verbatim*: its whole visible text occurs, as a substring, in the visible text of
   some prompt message (``user_verbatim`` counts these alone, the stricter share); or
2. *by its standing content*: every sentence of
   :func:`~ctxmgr.autocontext.standing.standing_content` occurs in the prompt's visible
   text, with runs of whitespace collapsed on both sides. A message with no standing
   content (a courtesy such as "ok thanks") is retained whatever the prompt holds.

**actions_retained.** Per model call, the *earlier tool calls* are the tool-call
blocks of the messages before it. One is *named* when the prompt's visible text, with
tool-call names and runs of whitespace collapsed
(:func:`~ctxmgr.replay.visible.named_text`), holds the call's tool name and the first
line of its key argument in at most 60 characters: its name as a stand-in's record
writes it (:func:`~ctxmgr.autocontext.actions.key_argument`: the line whole when it
fits, else its start and the path it ends on, an ellipsis for what is left out). A
message holds that name when it holds every stretch of it
(:func:`~ctxmgr.autocontext.actions.name_parts`), so the record's line and the
original call both count, and a summary that quotes the command does too. A call
without a key argument needs only its tool name. A prompt that keeps the call's
message verbatim names it.

Both look at the whole prompt: a user's sentence or a call's key argument counts
wherever it is, in a note, a summary, a later message or the original, but within
one message (a match never spans two; the stretches of a call's name are found in
one message). Each is a share of its calls' sums, like the
fact measures: retained / earlier, over every call (1.0 when nothing came earlier).

What depends only on the trajectory (each user message's text and standing
sentences, each call's name and key argument, and which history messages hold each)
is found once by :class:`TrajectoryRetention`; per prompt, a message kept from the
history (by identity or text, as :class:`~ctxmgr.replay.fidelity.FidelityChecker`
finds them) is answered from those sets, and only rewritten messages are searched.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from ctxmgr.autocontext.actions import collapse_whitespace, key_argument, name_parts
from ctxmgr.autocontext.pins import is_user_turn
from ctxmgr.autocontext.standing import standing_content
from ctxmgr.messages import Message
from ctxmgr.replay.visible import named_text

__all__ = ["CallRetention", "TrajectoryRetention"]

_SEP = "\x00"
"""Joins messages in a searchable text; no sentence, key argument or name holds it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CallRetention:
    """What one prompt kept of the earlier user messages and tool calls."""

    user_messages: int = 0
    """User turns before the call."""
    users_retained: int = 0
    """Of those, the ones whose text or standing content the prompt holds."""
    users_verbatim: int = 0
    """Of those, the ones whose whole text the prompt holds verbatim."""
    tool_calls: int = 0
    """Tool calls before the call."""
    calls_named: int = 0
    """Of those, the ones whose name and key argument the prompt holds."""


class _Where:
    """Which messages' texts hold a string: the texts joined once, each string found by
    jumping from one hit to the next message."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = texts
        self._whole = _SEP.join(texts)
        self._starts: list[int] = []
        pos = 0
        for t in texts:
            self._starts.append(pos)
            pos += len(t) + 1

    def __call__(self, needle: str) -> frozenset[int]:
        if _SEP in needle:  # cannot happen with real text; stay exact anyway
            return frozenset(i for i, t in enumerate(self._texts) if needle in t)
        hits: set[int] = set()
        whole, starts = self._whole, self._starts
        pos = whole.find(needle)
        while pos >= 0:
            k = bisect.bisect_right(starts, pos) - 1
            hits.add(k)
            if k + 1 >= len(starts):
                break
            pos = whole.find(needle, starts[k + 1])
        return frozenset(hits)


class _Joined:
    """Texts searched as one string (``needle in joined``), no match spanning two."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = texts
        self._whole = _SEP.join(texts)

    def __contains__(self, needle: str) -> bool:
        if _SEP in needle:  # cannot happen with real text; stay exact anyway
            return any(needle in t for t in self._texts)
        return needle in self._whole

    def holds_all(self, needles: Sequence[str]) -> bool:
        """One of the texts holds every one of ``needles``."""
        if not all(n in self for n in needles):
            return False
        return len(needles) == 1 or any(all(n in t for n in needles) for t in self._texts)


@dataclass(frozen=True, slots=True)
class _User:
    index: int
    text: str
    verbatim_in: frozenset[int]
    sentences: tuple[tuple[str, frozenset[int]], ...]
    """Each collapsed standing sentence and the messages whose named text holds it."""


@dataclass(frozen=True, slots=True)
class _Call:
    index: int
    name: str
    name_in: frozenset[int]
    key: tuple[str, ...]
    """The stretches of the key argument's name (none: the call has no key argument)."""
    key_in: frozenset[int]
    """History messages that hold every stretch."""


class TrajectoryRetention:
    """The user messages and tool calls of one trajectory, and where each occurs, found
    once for every policy."""

    def __init__(self, messages: Sequence[Message], visible: Sequence[str]) -> None:
        """``visible``: :func:`~ctxmgr.replay.visible.visible_text` of each message."""
        named = [named_text(m) for m in messages]
        in_visible, in_named = _Where(visible), _Where(named)
        found: dict[str, frozenset[int]] = {}

        def where(s: str) -> frozenset[int]:
            if s not in found:
                found[s] = in_named(s)
            return found[s]

        self.users: list[_User] = []
        self.calls: list[_Call] = []
        for i, m in enumerate(messages):
            if is_user_turn(m):
                text = visible[i]
                sentences = tuple(dict.fromkeys(
                    collapse_whitespace(s) for s in standing_content(text)))
                self.users.append(_User(i, text, in_visible(text) if text else frozenset(),
                                        tuple((s, where(s)) for s in sentences)))
            for use in m.tool_uses:
                key = name_parts(key_argument(use))
                self.calls.append(_Call(i, use.name, where(use.name), key, _all_in(
                    [where(part) for part in key])))
        self._user_at = [u.index for u in self.users]
        self._call_at = [c.index for c in self.calls]

    def check(self, call: int, kept: set[int], other_visible: Sequence[str],
              other_named: Sequence[str]) -> CallRetention:
        """Retention of a prompt for the model call at message index ``call``.

        Args:
            kept: indices of the history messages the prompt holds unchanged.
            other_visible: :func:`~ctxmgr.replay.visible.visible_text` of each other
                prompt message (rewritten or new); ``other_named`` their
                :func:`~ctxmgr.replay.visible.named_text`.
        """
        users = self.users[:bisect.bisect_left(self._user_at, call)]
        calls = self.calls[:bisect.bisect_left(self._call_at, call)]
        in_visible, in_named = _Joined(other_visible), _Joined(other_named)
        retained = verbatim = named = 0
        for u in users:
            if (u.index in kept or not u.text or not kept.isdisjoint(u.verbatim_in)
                    or u.text in in_visible):
                retained += 1
                verbatim += 1
            elif all(not kept.isdisjoint(w) or s in in_named for s, w in u.sentences):
                retained += 1
        has_name: dict[str, bool] = {}
        for c in calls:
            if c.index in kept:
                named += 1
                continue
            if c.name not in has_name:
                has_name[c.name] = not kept.isdisjoint(c.name_in) or c.name in in_named
            if has_name[c.name] and (not c.key or not kept.isdisjoint(c.key_in)
                                     or in_named.holds_all(c.key)):
                named += 1
        return CallRetention(user_messages=len(users), users_retained=retained,
                             users_verbatim=verbatim, tool_calls=len(calls),
                             calls_named=named)


def _all_in(sets: Sequence[frozenset[int]]) -> frozenset[int]:
    """The messages in every one of ``sets`` (none for no sets)."""
    return frozenset.intersection(*sets) if sets else frozenset()
