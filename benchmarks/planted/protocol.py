"""The instruction-retention protocol: compress each session to a share of its size, five times.

Each session is compressed into a window of ``int(share * tokens of the session)``
(the default counter), for shares of 30, 20 and 10 %, and each *round*
compresses the previous round's prompt afresh, with the same window: a
conversation that is compressed again and again must not lose what the user said
a little more each time. Two modes hand a prompt on:

* ``"objects"``: the prompt's ``Message`` objects as they are (ctxmgr's metadata
  markers included);
* ``"wire"``: through ``to_openai`` and back with ``from_openai``, as a user who pipes
  ``ctxmgr compress`` output into itself would; the markers are lost.

A round that overflows (ctxmgr raises ``ContextOverflowError``: the pinned messages
alone do not fit) still yields its prompt; :class:`RoundSummary` counts such
rounds and how large their prompts are against the window.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ctxmgr.convert import from_openai, to_openai
from ctxmgr.messages import Message
from ctxmgr.tokens import TokenCounter, default_counter
from planted.compressors import Compressor, ctxmgr_compressor
from planted.generator import POSITIONS, Session
from planted.phrasings import ITEM_TYPES
from planted.scoring import ItemScore, score_prompt

__all__ = [
    "MODES",
    "ROUNDS",
    "SHARES",
    "TARGETS",
    "Mode",
    "ProtocolRun",
    "Round",
    "RoundSummary",
    "missed_targets",
    "run_protocol",
    "run_protocols",
    "summarize",
    "window_for",
]

Mode = Literal["objects", "wire"]
MODES: tuple[Mode, ...] = ("objects", "wire")
SHARES: tuple[float, ...] = (0.3, 0.2, 0.1)
ROUNDS = 5
TARGETS: Mapping[float, float] = {0.3: 0.95, 0.2: 0.90, 0.1: 0.40}
"""The retention targets: the share of planted items surviving, every round, per window
share; at 20 and 30 % the latest value of every updated item must also stand."""
LATEST_TARGET_SHARES: tuple[float, ...] = (0.3, 0.2)


@dataclass(frozen=True, slots=True, kw_only=True)
class Round:
    """One compression of the protocol."""

    number: int
    """1 compresses the session, 2 the prompt of round 1, and so on."""
    prompt: tuple[Message, ...]
    tokens: int
    """Tokens of ``prompt`` (default counter)."""
    overflow: bool
    """The compressor gave up over its budget (ctxmgr: ``ContextOverflowError``)."""
    scores: tuple[ItemScore, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ProtocolRun:
    """One session through every round at one share, in one mode."""

    session: Session
    compressor: str
    mode: Mode
    share: float
    window: int
    session_tokens: int
    rounds: tuple[Round, ...]


def window_for(session: Session, share: float, counter: TokenCounter | None = None) -> int:
    """``int(share * tokens of the whole session)``."""
    counter = counter or default_counter()
    return int(share * counter.count_messages(session.messages))


def run_protocol(session: Session, *, share: float, mode: Mode = "objects",
                 rounds: int = ROUNDS, compressor: Compressor = ctxmgr_compressor,
                 name: str = "ctxmgr", counter: TokenCounter | None = None) -> ProtocolRun:
    """Compress ``session`` into ``share`` of its size, ``rounds`` times in a row.

    Args:
        compressor: ``(messages, window) -> Compressed``; default ctxmgr out of the box.
        name: what the compressor is called in summaries.
    """
    return run_protocols(session, share=share, modes=(mode,), rounds=rounds,
                         compressor=compressor, name=name, counter=counter)[0]


def run_protocols(session: Session, *, share: float, modes: Sequence[Mode] = MODES,
                  rounds: int = ROUNDS, compressor: Compressor = ctxmgr_compressor,
                  name: str = "ctxmgr", counter: TokenCounter | None = None
                  ) -> tuple[ProtocolRun, ...]:
    """:func:`run_protocol` in each of ``modes``, compressing round 1 once: its input is
    the session in every mode, and it is most of the work (for a compressor that gives
    the same prompt for the same input, as every one here does)."""
    bad = [m for m in modes if m not in MODES]
    if bad:
        raise ValueError(f"mode must be one of {MODES}, got {bad[0]!r}")
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share!r}")
    counter = counter or default_counter()
    total = counter.count_messages(session.messages)
    window = int(share * total)
    first = compressor(session.messages, window)
    runs = []
    for mode in modes:
        done: list[Round] = []
        result = first
        for number in range(1, rounds + 1):
            if number > 1:
                result = compressor(done[-1].prompt, window)
            prompt = result.prompt
            if mode == "wire":
                prompt = from_openai(to_openai(prompt))
            done.append(Round(number=number, prompt=tuple(prompt),
                              tokens=counter.count_messages(prompt), overflow=result.overflow,
                              scores=score_prompt(session.items, prompt)))
        runs.append(ProtocolRun(session=session, compressor=name, mode=mode, share=share,
                                window=window, session_tokens=total, rounds=tuple(done)))
    return tuple(runs)


# ---------------------------------------------------------------- summaries


@dataclass(slots=True)
class _Tally:
    kept: int = 0
    total: int = 0

    def add(self, kept: bool) -> None:
        self.kept += kept
        self.total += 1

    @property
    def share(self) -> float:
        return self.kept / self.total if self.total else 1.0


@dataclass(slots=True, kw_only=True)
class RoundSummary:
    """Every session of one (compressor, kind, family, mode, share) at one round."""

    compressor: str
    kind: str
    family: str
    mode: str
    share: float
    round: int
    sessions: int = 0
    items: _Tally = field(default_factory=_Tally)
    with_words: _Tally = field(default_factory=_Tally)
    """Items kept with their words (the stricter measure)."""
    by_type: dict[str, _Tally] = field(default_factory=dict)
    by_position: dict[str, _Tally] = field(default_factory=dict)
    by_form: dict[str, _Tally] = field(default_factory=dict)
    """Survival by the phrasing form an item was first said in."""
    latest: _Tally = field(default_factory=_Tally)
    """Updated items whose latest value stands."""
    latest_by_update_form: dict[str, _Tally] = field(default_factory=dict)
    stale: int = 0
    """Updated items with a replaced value still in the prompt."""
    overflow_rounds: int = 0
    prompt_to_window: list[float] = field(default_factory=list)
    overflow_prompt_to_window: list[float] = field(default_factory=list)

    @property
    def survival(self) -> float:
        return self.items.share

    def to_json(self) -> dict[str, Any]:
        ratios = self.prompt_to_window or [0.0]
        over = self.overflow_prompt_to_window
        return {
            "compressor": self.compressor, "kind": self.kind, "family": self.family,
            "mode": self.mode, "share": self.share, "round": self.round,
            "sessions": self.sessions, "items": self.items.total,
            "survival": round(self.survival, 4),
            "with_words": round(self.with_words.share, 4),
            "by_type": {t: round(v.share, 4) for t, v in self.by_type.items()},
            "by_position": {p: round(v.share, 4) for p, v in self.by_position.items()},
            "by_form": {f: round(v.share, 4) for f, v in sorted(self.by_form.items())},
            "updated_items": self.latest.total, "latest_stands": round(self.latest.share, 4),
            "latest_stands_by_update_form": {
                f: round(v.share, 4) for f, v in sorted(self.latest_by_update_form.items())},
            "stale": self.stale, "overflow_rounds": self.overflow_rounds,
            "prompt_to_window_mean": round(sum(ratios) / len(ratios), 4),
            "prompt_to_window_max": round(max(ratios), 4),
            "overflow_prompt_to_window_max": round(max(over), 4) if over else None,
        }


def summarize(runs: Iterable[ProtocolRun]) -> list[RoundSummary]:
    """One :class:`RoundSummary` per (compressor, kind, family, mode, share, round), in
    the order first met."""
    out: dict[tuple[Any, ...], RoundSummary] = {}
    for run in runs:
        spec = run.session.spec
        for r in run.rounds:
            key = (run.compressor, spec.kind, spec.family, run.mode, run.share, r.number)
            s = out.get(key)
            if s is None:
                s = out[key] = RoundSummary(
                    compressor=run.compressor, kind=spec.kind, family=spec.family,
                    mode=run.mode, share=run.share, round=r.number,
                    by_type={t: _Tally() for t in ITEM_TYPES},
                    by_position={p: _Tally() for p in POSITIONS})
            s.sessions += 1
            s.overflow_rounds += r.overflow
            s.prompt_to_window.append(r.tokens / run.window)
            if r.overflow:
                s.overflow_prompt_to_window.append(r.tokens / run.window)
            for score in r.scores:
                s.items.add(score.kept)
                s.with_words.add(score.with_words)
                s.by_type[score.type].add(score.kept)
                s.by_position[score.position].add(score.kept)
                s.by_form.setdefault(f"{score.type}: {score.form}", _Tally()).add(score.kept)
                if score.update_form is not None:
                    s.latest.add(score.kept)
                    s.latest_by_update_form.setdefault(score.update_form, _Tally()).add(
                        score.kept)
                    s.stale += score.stale
    return list(out.values())


def missed_targets(summaries: Iterable[RoundSummary]) -> list[str]:
    """Every way ``summaries`` fall short of :data:`TARGETS` (empty: all met)."""
    missed = []
    for s in summaries:
        where = (f"{s.compressor} {s.kind} {s.family} {s.mode} at {s.share:.0%}, "
                 f"round {s.round}")
        target = TARGETS.get(s.share)
        if target is not None and s.survival < target:
            missed.append(f"{where}: survival {s.survival:.3f} < {target}")
        if s.share in LATEST_TARGET_SHARES and s.latest.kept < s.latest.total:
            missed.append(f"{where}: latest value stands for {s.latest.kept} of "
                          f"{s.latest.total} updated items")
    return missed
