"""What a strategy is: a planner that proposes edits as data.

A strategy looks at the history and returns :class:`Plan` s: which range to
replace, what the summarizer must read (if anything) and how to build the
stand-in once the originals are offloaded. The pipeline runs the summarizer
(sync or async), offloads, and applies the plan, so sync and async share one
planning core and every adapter can turn an applied plan into same-id
replacements.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from ctxmgr.autocontext.authors import sole_author, with_author_of
from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.identifiers import VisibleIdentifiers, identifiers_note
from ctxmgr.autocontext.marker import CompressedMarker, offload_tag, quote_offload_tags
from ctxmgr.autocontext.record import range_record
from ctxmgr.autocontext.rounds import Layout
from ctxmgr.messages import ContentBlock, Message, TextBlock, ToolResultBlock
from ctxmgr.tokens import TokenCounter

__all__ = ["CHARS_PER_TOKEN", "Plan", "RunsWhen", "Strategy", "StrategyContext", "marker_of",
           "idle_at", "message_chars", "runs_first", "summary_message"]

CHARS_PER_TOKEN = 3
"""A first guess of characters per token when a stand-in is sized to a room in tokens
(tool output and identifiers run denser than prose); the count then decides."""

RunsWhen = Literal["over_target", "over_trigger", "over_budget"]
"""When a strategy may run: while the prompt is over the compression target (once a
compression started), over the trigger, or only over the budget (a last resort)."""

Build = Callable[[str | None, str], tuple[Message, ...]]
"""(summary or None, offload id) -> the messages that stand in for the range."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """Replace ``messages[start:end]`` with ``build(summary, offload_id)``."""

    strategy: int
    start: int
    end: int
    build: Build
    instruction: str | None = None
    """What to ask the summarizer; ``None`` for strategies that need no LLM."""
    offload_id: str | None = None
    """The offload the range already stands for (a preview cut again, smaller): the new
    stand-in points to it and nothing new is written. ``None``: offload the range."""
    summary_input: tuple[Message, ...] | None = None
    """What the summarizer reads instead of the range (``None``: the range itself)."""
    falls_back: bool = False
    """When the summarizer fails the stand-in is built without its answer
    (``build(None, ...)``) instead of the step being skipped."""
    report: Callable[[], Mapping[str, object]] | None = None
    """More for the compression event, asked once the stand-in is built
    (``rejected_quotes``, ``reason``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StrategyContext:
    messages: Sequence[Message]
    layout: Layout
    config: AutoContextConfig
    counter: TokenCounter
    tokens: int
    """Prompt tokens of ``messages`` as they stand."""
    visible: VisibleIdentifiers | None = None
    """The distinctive strings ``messages`` show, kept current by the pipeline as plans
    are applied (``None``: computed from ``messages`` when asked)."""
    load: Callable[[str], Sequence[Message]] | None = None
    """The originals an offload id gives back (``None``, or an exception: not at hand);
    a preview cut again is cut from its original, so its note says what is missing."""
    quotes: bool = False
    """The summarizer is a model that can quote (``can_quote``): the note of the user's
    words is its choice of quotes."""

    def elsewhere(self, start: int, end: int) -> frozenset[str]:
        """Distinctive strings of ``messages[start:end]`` that the rest shows too, so a
        stand-in for the range need not list them (empty when the line is off)."""
        if not self.config.identifiers_limit:
            return frozenset()
        return (self.visible or VisibleIdentifiers(self.messages)).outside(start, end)


class Strategy(Protocol):
    """A planner, and what it declares about itself: the pipeline, the markers it writes
    and the config read these, never strategy numbers."""

    number: int
    """Its place in the order, cheapest first; the number ``disabled_strategies`` takes."""
    name: str
    uses_llm: bool
    """It asks the summarizer (skipped when there is none)."""
    runs_when: RunsWhen
    reduces_count: bool
    """It merges many messages into one, so it also runs for the message-count trigger
    (``msg_threshold``) when the prompt is under the target already."""
    writes_summary: bool
    """Its stand-in is one message for a whole range (a summary or a note), never a
    message cut to a preview."""
    closes_round: bool
    """Its stand-in stands for finished rounds (each ending with the agent's answer), so
    the rounds around it stay rounds and a later round summary may absorb it."""
    last_resort: bool
    """It gives up something the others keep (the working set, the user's own words),
    so it runs only while the prompt is over the budget, after the others."""
    frees_history: bool
    """It folds the history before the working set into notes with no summarizer: with
    ``Tuning.history_notes_first`` it runs first, from the trigger on (see
    :func:`runs_first`), as the cheapest move at the provider's prices."""

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        """Plans in the order to apply them; every plan's indices refer to ``ctx.messages``
        and stay valid while earlier plans of the same list are applied (only
        one-for-one replacements may come in a list longer than one)."""
        ...


def runs_first(strategy: Strategy, config: AutoContextConfig) -> bool:
    """``strategy`` runs before the others and from the trigger on, whatever its
    ``runs_when`` and ``last_resort`` say: it folds the history into notes and the
    config puts that first (``Tuning.history_notes_first``)."""
    return strategy.frees_history and config.tuning.history_notes_first


def idle_at(strategy: Strategy, tokens: int, config: AutoContextConfig) -> bool:
    """``strategy`` has nothing to do with a prompt of ``tokens`` (its ``runs_when``, or
    from the trigger on when it :func:`runs_first`)."""
    runs_when = "over_trigger" if runs_first(strategy, config) else strategy.runs_when
    if runs_when == "over_budget":
        return tokens <= config.budget_tokens
    if runs_when == "over_trigger":
        return tokens < config.trigger_tokens
    return tokens <= config.target_tokens and not strategy.reduces_count


def marker_of(by: Strategy, offload_id: str, *, current_round: bool = False
              ) -> CompressedMarker:
    """The marker a stand-in written by ``by`` carries."""
    return CompressedMarker(strategy=by.number, offload_id=offload_id,
                            range=by.writes_summary, closes_round=by.closes_round,
                            current_round=current_round)


def message_chars(m: Message) -> int:
    """Characters of text and tool-result output (what offloading can save)."""
    total = 0
    for b in m.content:
        if isinstance(b, TextBlock | ToolResultBlock):
            total += len(b.text)
    return total


def summary_message(
    replaced: Sequence[Message], summary: str, offload_id: str, *, by: Strategy,
    current_round: bool = False, identifiers_chars: int = 0,
    elsewhere: frozenset[str] = frozenset(), record_chars: int = 0,
    role: Literal["assistant", "user"] = "assistant", agent_text: bool = True,
    record: str | None = None,
) -> Message:
    """One message standing in for ``replaced``: ``summary``, then the record of what
    happened in the range (its tool calls, or what the agent said when it made none and
    ``agent_text``, within ``record_chars``), the identifiers line and the offload tag.
    It keeps the first replaced message's id so a reducer that replaces by id leaves it
    in place, and, as an assistant message, the name of the agent whose messages it
    replaces when they are one agent's (:mod:`~ctxmgr.autocontext.authors`). ``record``:
    the range's record when the caller has it already (:func:`range_record` of the same
    arguments), so a stand-in built at several sizes reads its range once."""
    first = replaced[0]
    if record is None:
        record = range_record(replaced, record_chars, agent_text=agent_text)
    kept = f"{summary}\n{record}" if record else summary
    note = identifiers_note(replaced, kept, identifiers_chars, elsewhere=elsewhere)
    stand_in = Message(
        role=role,
        content=(TextBlock(text=_with_note(kept, note, offload_id)),),
        id=first.id,
        metadata=marker_of(by, offload_id, current_round=current_round).metadata({}),
    )
    return with_author_of(stand_in, sole_author(replaced))


def _with_note(text: str, note: str, offload_id: str) -> str:
    """The stand-in's text: any tag in ``text`` (a summarizer's, a user's) is quoted, so
    its own is the one tag it shows."""
    text = quote_offload_tags(text)
    return f"{text}\n{note}\n{offload_tag(offload_id)}" if note else (
        f"{text}\n{offload_tag(offload_id)}")


def with_text_replaced(m: Message, text: str, offload_id: str, *, by: Strategy) -> Message:
    """``m`` with its text and tool-result output replaced by ``text`` + tag.

    Tool calls, result ids and opaque blocks stay as they are, so pairing holds.
    """
    tagged = f"{quote_offload_tags(text)}\n{offload_tag(offload_id)}"
    blocks: list[ContentBlock] = []
    text_done = False
    for b in m.content:
        if isinstance(b, TextBlock):
            if not text_done:
                blocks.append(TextBlock(text=tagged))
                text_done = True
        elif isinstance(b, ToolResultBlock):
            blocks.append(replace(b, content=tagged))
        else:
            blocks.append(b)
    if not text_done and not any(isinstance(b, ToolResultBlock) for b in m.content):
        blocks.insert(0, TextBlock(text=tagged))
    return replace(m, content=tuple(blocks),
                   metadata=marker_of(by, offload_id).metadata(m.metadata))
