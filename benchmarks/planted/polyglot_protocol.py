"""Polyglot sessions through a compressor at several window shares, summed up per
language and item type, and read against the targets.

Each session is compressed into a window of ``int(share * tokens of the session)``
(the default counter); each further round compresses the previous round's prompt
afresh with the same window, handed on as objects or through the OpenAI wire format,
as in :mod:`planted.protocol`. Items are scored by :mod:`planted.kept`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxmgr.convert import from_openai, to_openai
from ctxmgr.messages import Message
from ctxmgr.tokens import TokenCounter, default_counter
from planted.compressors import Compressor, ctxmgr_compressor
from planted.kept import Scored, score_items
from planted.languages import ITEM_TYPES
from planted.polyglot import PolyglotSession
from planted.protocol import MODES, Mode

__all__ = [
    "NATIVE_SHARES",
    "OUTSIDE_SHARES",
    "Check",
    "PolyglotRound",
    "PolyglotRun",
    "Survival",
    "Tally",
    "target_checks",
    "run_polyglot",
    "summarize_polyglot",
]

NATIVE_SHARES: tuple[float, ...] = (0.5, 0.3, 0.2, 0.1)
OUTSIDE_SHARES: tuple[float, ...] = (0.3, 0.2, 0.1)
ALL_LANGUAGES = "all"
"""The ``language`` of a summary pooled over every language of its family."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PolyglotRound:
    """One compression: its prompt, size, whether it overflowed, and each item's score."""

    number: int
    prompt: tuple[Message, ...]
    tokens: int
    overflow: bool
    scores: tuple[Scored, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PolyglotRun:
    """One session through every round at one share."""

    session: PolyglotSession
    compressor: str
    mode: Mode
    share: float
    window: int
    session_tokens: int
    rounds: tuple[PolyglotRound, ...]


def run_polyglot(session: PolyglotSession, *, shares: Sequence[float],
                 compressor: Compressor = ctxmgr_compressor, name: str = "ctxmgr",
                 rounds: int = 1, mode: Mode = "objects",
                 counter: TokenCounter | None = None) -> list[PolyglotRun]:
    """``session`` compressed at each of ``shares``, ``rounds`` times in a row.

    Raises:
        ValueError: a share outside (0, 1], fewer than one round, an unknown mode.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    bad = [s for s in shares if not 0 < s <= 1]
    if bad:
        raise ValueError(f"share must be in (0, 1], got {bad[0]!r}")
    counter = counter or default_counter()
    total = counter.count_messages(session.messages)
    runs = []
    for share in shares:
        window = int(share * total)
        done: list[PolyglotRound] = []
        messages: Sequence[Message] = session.messages
        for number in range(1, rounds + 1):
            result = compressor(messages, window)
            prompt = result.prompt
            if mode == "wire":
                prompt = from_openai(to_openai(prompt))
            done.append(PolyglotRound(number=number, prompt=tuple(prompt),
                                      tokens=counter.count_messages(prompt),
                                      overflow=result.overflow,
                                      scores=score_items(session.items, prompt)))
            messages = prompt
        runs.append(PolyglotRun(session=session, compressor=name, mode=mode, share=share,
                                window=window, session_tokens=total, rounds=tuple(done)))
    return runs


# ---------------------------------------------------------------- summaries


@dataclass(slots=True)
class Tally:
    """How many of how many."""

    kept: int = 0
    total: int = 0

    def add(self, kept: bool) -> None:
        self.kept += kept
        self.total += 1

    @property
    def share(self) -> float | None:
        """``kept / total``; ``None`` when nothing was counted."""
        return self.kept / self.total if self.total else None


@dataclass(slots=True, kw_only=True)
class Survival:
    """Every session of one (compressor, family, language, kind, share) at one round."""

    compressor: str
    family: str
    language: str
    kind: str
    share: float
    round: int
    sessions: int = 0
    items: Tally = field(default_factory=Tally)
    by_type: dict[str, Tally] = field(default_factory=dict)
    valueless: Tally = field(default_factory=Tally)
    """Items without a value (instructions, and safety rules that name no target)."""
    latest: Tally = field(default_factory=Tally)
    """Updated items whose latest value stands."""
    stale: int = 0
    """Updated items with a replaced value still anywhere in the prompt."""
    verbatim: Tally = field(default_factory=Tally)
    """Items with a sentence that said them there word for word."""
    by_form: dict[str, Tally] = field(default_factory=dict)
    """Survival by the form (native) or layout (outside) the item was first said in."""
    overflow_rounds: int = 0
    prompt_to_window: list[float] = field(default_factory=list)

    @property
    def survival(self) -> float:
        return self.items.share or 0.0

    def to_json(self) -> dict[str, Any]:
        def r(t: Tally) -> float | None:
            return None if t.share is None else round(t.share, 4)
        return {"compressor": self.compressor, "family": self.family,
                "language": self.language, "kind": self.kind, "share": self.share,
                "round": self.round, "sessions": self.sessions, "items": self.items.total,
                "survival": r(self.items),
                "by_type": {t: r(v) for t, v in self.by_type.items()},
                "valueless": r(self.valueless), "valueless_items": self.valueless.total,
                "latest_stands": r(self.latest), "updated_items": self.latest.total,
                "stale": self.stale, "verbatim": r(self.verbatim),
                "by_form": {f: r(v) for f, v in sorted(self.by_form.items())},
                "overflow_rounds": self.overflow_rounds,
                "prompt_to_window_max": round(max(self.prompt_to_window, default=0.0), 4)}


def summarize_polyglot(runs: Iterable[PolyglotRun], *, pool_languages: bool = False
                       ) -> list[Survival]:
    """One :class:`Survival` per (compressor, family, language, kind, share, round), in
    the order first met; with ``pool_languages`` every language of a family together
    (``language == "all"``)."""
    out: dict[tuple[Any, ...], Survival] = {}
    for run in runs:
        spec = run.session.spec
        lang = ALL_LANGUAGES if pool_languages else spec.language
        items = run.session.items
        for rnd in run.rounds:
            key = (run.compressor, spec.family, lang, spec.kind, run.share, rnd.number)
            s = out.get(key)
            if s is None:
                s = out[key] = Survival(compressor=run.compressor, family=spec.family,
                                        language=lang, kind=spec.kind, share=run.share,
                                        round=rnd.number,
                                        by_type={t: Tally() for t in ITEM_TYPES})
            s.sessions += 1
            s.overflow_rounds += rnd.overflow
            s.prompt_to_window.append(rnd.tokens / max(run.window, 1))
            for item, score in zip(items, rnd.scores, strict=True):
                s.items.add(score.kept)
                s.by_type[item.type].add(score.kept)
                s.verbatim.add(score.verbatim)
                s.by_form.setdefault(f"{item.type}: {item.form}", Tally()).add(score.kept)
                if item.valueless:
                    s.valueless.add(score.kept)
                if item.updated:
                    s.latest.add(score.kept)
                    s.stale += score.stale
    return list(out.values())


# ---------------------------------------------------------------- the targets


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    """One target read against one figure."""

    what: str
    """``"outside overall"``, ``"de / English"``, ``"ja without a value"`` ..."""
    share: float
    figure: float | None
    target: float
    kind: str = "chat"

    @property
    def passed(self) -> bool:
        return self.figure is not None and self.figure >= self.target - 1e-9

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else "MISS"


OUTSIDE_TARGETS: Mapping[float, float] = {0.3: 0.95, 0.2: 0.80, 0.1: 0.30}
OUTSIDE_SAFETY_TARGETS: Mapping[float, float] = {0.3: 0.95, 0.2: 0.95}
RELATIVE_TARGETS: Mapping[float, float] = {0.5: 0.95, 0.3: 0.95, 0.2: 0.95}
"""Each language's survival against English's, as a ratio."""
VALUELESS_TARGETS: Mapping[float, float] = {0.5: 0.95, 0.3: 0.90}
LATEST_TARGETS: Mapping[float, float] = {0.3: 0.95}


def _worst(summaries: Iterable[Survival]) -> dict[tuple[Any, ...], list[Survival]]:
    out: dict[tuple[Any, ...], list[Survival]] = {}
    for s in summaries:
        out.setdefault((s.compressor, s.family, s.language, s.kind, s.share), []).append(s)
    return out


def _min(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return min(known) if known else None


def target_checks(by_language: Sequence[Survival], pooled: Sequence[Survival], *,
                   compressor: str = "ctxmgr") -> list[Check]:
    """Issue 41's targets for ``compressor``, each against the worst round: the outside
    family (pooled over its languages) overall and on safety rules; each native language
    against English, on instructions without a value and on the latest value of
    updated items. Targets whose figures were not measured are left out."""
    groups = _worst(s for s in [*by_language, *pooled] if s.compressor == compressor)
    checks: list[Check] = []

    def figure(family: str, lang: str, kind: str, share: float, read: Any) -> float | None:
        group = groups.get((compressor, family, lang, kind, share))
        return None if group is None else _min(read(s) for s in group)

    kinds = sorted({s.kind for s in by_language if s.compressor == compressor})
    for kind in kinds:
        for share, target in OUTSIDE_TARGETS.items():
            f = figure("outside", ALL_LANGUAGES, kind, share, lambda s: s.items.share)
            if f is not None:
                checks.append(Check(what="outside overall", share=share, figure=f,
                                    target=target, kind=kind))
        for share, target in OUTSIDE_SAFETY_TARGETS.items():
            f = figure("outside", ALL_LANGUAGES, kind, share,
                       lambda s: s.by_type["safety"].share)
            if f is not None:
                checks.append(Check(what="outside safety", share=share, figure=f,
                                    target=target, kind=kind))
        langs = list(dict.fromkeys(s.language for s in by_language
                                   if s.family == "native" and s.kind == kind))
        for lang in langs:
            for share, target in RELATIVE_TARGETS.items():
                mine = figure("native", lang, kind, share, lambda s: s.items.share)
                english = figure("native", "en", kind, share, lambda s: s.items.share)
                if lang != "en" and mine is not None and english:
                    checks.append(Check(what=f"{lang} / English", share=share,
                                        figure=mine / english, target=target, kind=kind))
            for share, target in VALUELESS_TARGETS.items():
                f = figure("native", lang, kind, share, lambda s: s.valueless.share)
                if f is not None:
                    checks.append(Check(what=f"{lang} without a value", share=share,
                                        figure=f, target=target, kind=kind))
            for share, target in LATEST_TARGETS.items():
                f = figure("native", lang, kind, share, lambda s: s.latest.share)
                if f is not None:
                    checks.append(Check(what=f"{lang} latest value", share=share, figure=f,
                                        target=target, kind=kind))
    return checks
