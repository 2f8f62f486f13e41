"""AutoContextConfig: every knob of the compressor, validated once.

Three sizes follow the window unless set: ``"auto"`` applies a documented rule
whose constants are named here, so what a config does at 4k, 16k or 128k tokens
can be read off it. ``repr`` and every :class:`CompressionEvent` show the
effective values.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal

from ctxmgr._unset import UNSET, Unset
from ctxmgr.autocontext.prompts import (
    CURRENT_LARGE_PROMPT,
    CURRENT_ROUND_PROMPT,
    PREVIOUS_ROUND_PROMPT,
    TOOL_RUN_PROMPT,
)
from ctxmgr.errors import ConfigError

__all__ = [
    "AUTO",
    "DEFAULT_MAX_TOKENS",
    "IDENTIFIERS_CHARS_PER_WINDOW_TOKEN",
    "LARGE_CHARS",
    "LARGE_CHARS_PER_WINDOW_TOKEN",
    "MIN_RANGE_TOKENS",
    "MIN_RANGE_WINDOW_SHARE",
    "PREVIEW_CHARS",
    "PREVIEW_SHARE_OF_LARGE",
    "RESERVE_MAX_TOKENS",
    "RESERVE_WINDOW_SHARE",
    "EXTRAS_CHARS_PER_WINDOW_TOKEN",
    "RECORD_CHARS_PER_WINDOW_TOKEN",
    "RECORD_MAX_CHARS",
    "USER_NOTE_CHARS_PER_WINDOW_TOKEN",
    "TAIL_ROOM_SHARE",
    "AutoContextConfig",
]

DEFAULT_MAX_TOKENS = 128_000
"""The window assumed when neither the user nor the model gives one."""

AUTO: Literal["auto"] = "auto"
"""A size that follows the window, by the rule its field documents."""

LARGE_CHARS = 5 * 1024
"""``large_payload_threshold="auto"``: characters from which a message is large..."""
LARGE_CHARS_PER_WINDOW_TOKEN = 1 / 8
"""... or this many per window token, if less: on a 4k window a 500-character tool
result (about 150 tokens) is large. Both rules meet at a 40,960-token window."""
PREVIEW_CHARS = 200
"""``offload_preview_chars="auto"``: characters of an offloaded message kept in place..."""
PREVIEW_SHARE_OF_LARGE = 1 / 10
"""... or this share of what counts as large, if less, so an offload frees nine tenths."""
MIN_RANGE_TOKENS = 5000
"""``min_compression_tokens="auto"``: strategies 1 and 4 skip smaller ranges..."""
MIN_RANGE_WINDOW_SHARE = 1 / 5
"""... or ranges under this share of the window, if less (a 5,000-token floor would stop
range summaries altogether on windows under 25,000 tokens)."""
TAIL_ROOM_SHARE = 3 / 4
"""The protected tail (``last_keep`` messages) is cut short where it would fill more
than this share of the room the target leaves beside the pinned messages; the rest is
for summaries. On a long single-task run 50 tool results can outweigh the whole target,
and then only the costly current-round strategies (5, 6) would be left to fire."""

IDENTIFIERS_CHARS_PER_WINDOW_TOKEN = 0.15
"""``identifiers_chars="auto"``: the identifiers line of a stand-in holds up to this many
characters per window token (4,800 at a 32k window, 600 at 4k), and no more than what
:data:`EXTRAS_CHARS_PER_WINDOW_TOKEN` leaves beside the record. On the recorded coding
runs it is the cheapest way to keep what the agent copies next: see benchmarks/RESULTS.md."""
RECORD_CHARS_PER_WINDOW_TOKEN = 0.25
"""``record_chars="auto"``: the record of tool calls a stand-in carries holds up to this
many characters per window token..."""
RECORD_MAX_CHARS = 4000
"""... and never more than this (about seventy calls): on the recorded coding runs it
names nine in ten of the agent's earlier calls at 16k, and a longer record costs more on
every call than the older calls it names are worth."""
EXTRAS_CHARS_PER_WINDOW_TOKEN = 0.35
"""A stand-in's lines beside its own text (the record, then the identifiers line) hold
this many characters per window token in all (5,600 at 16k): the record comes first,
since it keeps the agent from redoing work, and the identifiers line takes the rest.
Chosen with the other sizes on cost and fidelity together (benchmarks/RESULTS.md)."""
USER_NOTE_CHARS_PER_WINDOW_TOKEN = 3.0
"""``user_note_chars="auto"``: the note of the user's words holds up to this many
characters per window token. It is written only when every other message is compressed
already, so on a small window it may take most of the room (1,200 characters at 400
tokens; the room the budget leaves bounds it anyway); what does not fit stays
reloadable. At 2 the note left room unused beside the pinned messages on chat sessions
compressed to a fifth of their size, and kept fewer of the user's instructions
(benchmarks/RESULTS.md, instruction survival)."""

RESERVE_WINDOW_SHARE = 1 / 8
"""``reserve_output_tokens="auto"``: room kept for the answer, this share of the window..."""
RESERVE_MAX_TOKENS = 4096
"""... but no more than this (a long answer at 128k rarely needs more)."""

Auto = int | Literal["auto"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoContextConfig:
    """When to compress, how far, and what never to touch.

    Example::

        AutoContextConfig(max_tokens=32_000, disabled_strategies={6},
                          never_compress_tools={"read_skill"})
    """

    max_tokens: int | Unset = UNSET
    """The model's context window, in tokens. Left out: read from the model where an
    integration is handed one (LangChain's profile, LlamaIndex's metadata), else
    :data:`DEFAULT_MAX_TOKENS` with a warning (:mod:`ctxmgr.session.defaults`); the
    sizes below then work with :attr:`window`."""
    reserve_output_tokens: Auto = AUTO
    """Room kept for the model's answer; prompts are held to ``max_tokens`` less this.
    ``"auto"``: ``max_tokens *`` :data:`RESERVE_WINDOW_SHARE`, at most
    :data:`RESERVE_MAX_TOKENS` (500 at a 4k window, 4,096 from 32,768 up)."""
    safety_margin: float = 0.05
    """Share of the prompt budget held back for tokenizer differences: the provider may
    count a prompt differently from ctxmgr's tiktoken count (another serialisation of
    the same messages was measured up to 12 % larger on the recorded support runs).
    Counting against the model's reported usage (the adapters calibrate) narrows it."""
    token_ratio: float = 0.8
    """Compress when the prompt reaches ``budget_tokens * token_ratio`` tokens. Chosen
    with ``summary_input_chars``, ``target_ratio`` and ``identifiers_chars`` on cost
    with recovery (a missing fact priced as one ``context_search`` round trip, or the
    tool run again) and fact availability together, on the recorded runs at 32k and 16k
    (benchmarks/RESULTS.md). With summaries fed 600 characters per text (cost with
    recovery / none, fact availability), at 16k 0.75 gives 0.573, 0.924; 0.8: 0.572,
    0.927; 0.85: 0.573, 0.934; at 32k 0.75: 0.644, 0.988; 0.8: 0.653, 0.989; 0.85:
    0.662, 0.988. Of the three, 0.8 alone is beaten on both axes at neither window (0.75
    is dearer for fewer facts at 16k, 0.85 at 32k)."""
    msg_threshold: int = 100
    """... or when the history holds this many messages."""
    target_ratio: float = 0.1
    """Once triggered, compress down to ``budget_tokens * target_ratio`` tokens: fewer,
    deeper compressions keep the provider's prompt cache warm between them. (The working
    set and the pinned messages are never cut for it, so on a small window the target
    is often out of reach and a compression takes what it can.)"""
    last_keep: int = 50
    """Messages at the end protected from strategies 1 and 2, as long as they fit in
    :data:`TAIL_ROOM_SHARE` of the room the target leaves beside the pinned messages."""
    large_payload_threshold: Auto = AUTO
    """Characters from which a message counts as large (strategies 2, 3 and 5).
    ``"auto"``: :data:`LARGE_CHARS`, or ``max_tokens *`` :data:`LARGE_CHARS_PER_WINDOW_TOKEN`
    if less (2,000 at a 16k window). A number is used as given."""
    offload_preview_chars: Auto = AUTO
    """Characters of an offloaded message kept in place as a preview. ``"auto"``:
    :data:`PREVIEW_CHARS`, or :data:`PREVIEW_SHARE_OF_LARGE` of what counts as large if
    less. A number is used as given."""
    min_consecutive_tool_messages: int = 6
    """Strategy 1 needs a run of more tool messages than this."""
    keep_tool_results: int = 3
    """The working set: the last this many tool calls with their results, and the
    agent's latest assistant message, stay verbatim. Only when they alone exceed the
    budget is the oldest offloaded, to a head-and-tail preview sized to the room.
    0 turns the working set off."""
    min_compression_tokens: Auto = AUTO
    """Strategies 1 and 4 skip ranges smaller than this many tokens. ``"auto"``:
    :data:`MIN_RANGE_TOKENS`, or ``max_tokens *`` :data:`MIN_RANGE_WINDOW_SHARE` if less.
    A number is used as given."""
    identifiers_chars: Auto = AUTO
    """Characters of the line a stand-in (summary or preview) carries naming the
    distinctive strings (paths, identifiers, hashes) of what it replaced that neither
    its own text, its record nor the rest of the prompt shows, the most repeated and
    most recent first: the agent can still copy them without a reload. ``"auto"``:
    ``max_tokens *`` :data:`IDENTIFIERS_CHARS_PER_WINDOW_TOKEN`, within what
    :data:`EXTRAS_CHARS_PER_WINDOW_TOKEN` leaves beside the record. 0 leaves the line
    out."""
    record_chars: Auto = AUTO
    """Characters of the record every summary and note carries of the range it replaced:
    its tool calls (name, key argument, and the exit status and first error line of those
    that failed), oldest first, and the files they named, so the agent does not redo
    them whatever the summary says. ``"auto"``: ``max_tokens *``
    :data:`RECORD_CHARS_PER_WINDOW_TOKEN`, at most :data:`RECORD_MAX_CHARS`. The newest
    calls are kept when it is full; 0 leaves the record out."""
    user_note_chars: Auto = AUTO
    """Characters of the note that carries, verbatim, what the user said that still
    stands (instructions, rules, constraints, preferences, facts with values, goals)
    once their messages must be compressed (the last thing ctxmgr compresses).
    ``"auto"``: ``max_tokens *`` :data:`USER_NOTE_CHARS_PER_WINDOW_TOKEN`; never more
    than the room the budget leaves. What does not fit stays in the reloadable
    original."""
    current_round_compression_ratio: float = 0.3
    """Strategy 6's target share of the current round's characters."""
    summary_input_chars: int = 600
    """Longest text, tool result or tool-call argument the summarizer is sent in full;
    longer ones reach it as head and tail (450 and 150 characters: the command's first
    lines and how it ended). The originals are offloaded, searchable and reloadable, so
    the summary needs their gist, not every byte. On the recorded coding runs, 600
    instead of 1,000 cuts summarizer input by 30 % (0.015 of the cost of no management
    at 16k and 32k), and a summarizer that writes from what it is sent (the extractive
    one standing in for the model in replay) keeps as many facts: 0.929 at 16k and
    0.989 at 32k both ways."""
    cached_token_price: float | None = 0.1
    """What a cached prompt token costs relative to an uncached one (0.1 with
    Anthropic's prompt cache; 1.0 without a cache). An edit that neither the budget nor
    the message count (``msg_threshold``) requires is only made when it pays for itself:
    its summarizer input and output (for a summary), the stand-in and the cached tokens
    it turns uncached must cost less than the tokens it removes would over as many
    further model calls as the history holds so far. ``None`` makes every edit a
    strategy plans."""
    summary_timeout_s: float = 60.0
    """Per summarizer call; a slower call is abandoned and its strategy skipped."""
    summary_cooldown_s: float = 300.0
    """After a summarizer call timed out, no call for this long (every session of one
    engine, sync and async): a hung model delays the agent once per period, not once per
    model call. 0 turns it off."""
    disabled_strategies: frozenset[int] = field(default_factory=frozenset)
    """Strategy numbers never to run (1-9: see the README's table of strategies; an
    unknown number is refused when a compressor is built with this config)."""
    never_compress_tools: frozenset[str] = field(default_factory=frozenset)
    """Tool names whose calls and results are never offloaded or summarized."""
    pinned_ids: frozenset[str] = field(default_factory=frozenset)
    """Message ids never offloaded or summarized (system messages, the first and the
    latest user message are always pinned)."""
    tool_run_prompt: str = TOOL_RUN_PROMPT
    previous_round_prompt: str = PREVIOUS_ROUND_PROMPT
    current_large_prompt: str = CURRENT_LARGE_PROMPT
    current_round_prompt: str = CURRENT_ROUND_PROMPT

    def __post_init__(self) -> None:
        for name in ("large_payload_threshold", "offload_preview_chars",
                     "min_compression_tokens", "reserve_output_tokens", "identifiers_chars",
                     "record_chars", "user_note_chars"):
            value = getattr(self, name)
            if isinstance(value, str) and value != AUTO:
                raise ConfigError(f"{name} must be a number or 'auto', got {value!r}")
        for name in ("disabled_strategies", "never_compress_tools", "pinned_ids"):
            value = getattr(self, name)
            if isinstance(value, str) or not _iterable(value):
                raise ConfigError(f"{name} must be a collection, got {value!r}")
            object.__setattr__(self, name, frozenset(value))
        for f in fields(self):
            value = getattr(self, f.name)
            if (value is None and f.type == "float | None") or value == AUTO or value is UNSET:
                continue
            if f.type in ("int", "float", "float | None", "Auto", "int | Unset") and (
                    isinstance(value, bool) or not isinstance(value, int | float)):
                raise ConfigError(f"{f.name} must be a number, got {value!r}")
        _positive(self, "max_tokens", "msg_threshold", "large_payload_threshold",
                  "min_consecutive_tool_messages", "summary_timeout_s", "summary_input_chars")
        _non_negative(self, "last_keep", "offload_preview_chars", "min_compression_tokens",
                      "identifiers_chars", "record_chars", "user_note_chars",
                      "reserve_output_tokens", "keep_tool_results", "summary_cooldown_s")
        if not 0 <= self.safety_margin < 0.5:
            raise ConfigError(f"safety_margin must be in [0, 0.5), got {self.safety_margin!r}")
        if self.reserve_tokens >= self.window:
            raise ConfigError(
                f"reserve_output_tokens must leave room for a prompt, got "
                f"{self.reserve_tokens!r} of a {self.window}-token window")
        if self.large_chars < 1:
            raise ConfigError(f"max_tokens={self.window} leaves no room: large_payload_"
                              "threshold='auto' needs max_tokens >= 8")
        for name in ("token_ratio", "target_ratio", "current_round_compression_ratio",
                     "cached_token_price"):
            value = getattr(self, name)
            if value is None and name == "cached_token_price":
                continue
            if not 0 < value <= 1:
                raise ConfigError(f"{name} must be in (0, 1], got {value!r}")
        if self.target_ratio > self.token_ratio:
            raise ConfigError(
                f"target_ratio must not exceed token_ratio, got target_ratio="
                f"{self.target_ratio!r} > token_ratio={self.token_ratio!r}")
        for n in self.disabled_strategies:
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ConfigError(f"disabled_strategies must hold strategy numbers, got {n!r}")

    @property
    def window(self) -> int:
        """The window the sizes work with: ``max_tokens``, or :data:`DEFAULT_MAX_TOKENS`
        when it was left out (an integration reads the model's first)."""
        return DEFAULT_MAX_TOKENS if self.max_tokens is UNSET else self.max_tokens

    @property
    def reserve_tokens(self) -> int:
        """Room kept for the answer (``reserve_output_tokens`` resolved)."""
        if self.reserve_output_tokens != AUTO:
            return int(self.reserve_output_tokens)
        return min(RESERVE_MAX_TOKENS, int(self.window * RESERVE_WINDOW_SHARE))

    @property
    def budget_tokens(self) -> int:
        """The most a prompt may hold: the window less the reserve for the answer, less
        the safety margin. Prompts over it are what ``ContextOverflowError`` reports."""
        return int((self.window - self.reserve_tokens) * (1 - self.safety_margin))

    @property
    def trigger_tokens(self) -> int:
        """Prompt size that starts a compression: ``budget_tokens * token_ratio``."""
        return int(self.budget_tokens * self.token_ratio)

    @property
    def large_chars(self) -> int:
        """Characters from which a message counts as large (``large_payload_threshold``
        with ``"auto"`` resolved)."""
        if self.large_payload_threshold != AUTO:
            return int(self.large_payload_threshold)
        return min(LARGE_CHARS, int(self.window * LARGE_CHARS_PER_WINDOW_TOKEN))

    @property
    def preview_chars(self) -> int:
        """Characters of an offloaded message kept as its preview (resolved)."""
        if self.offload_preview_chars != AUTO:
            return int(self.offload_preview_chars)
        return min(PREVIEW_CHARS, int(self.large_chars * PREVIEW_SHARE_OF_LARGE))

    @property
    def min_range_tokens(self) -> int:
        """Smallest range strategies 1 and 4 summarize (``min_compression_tokens``
        resolved)."""
        if self.min_compression_tokens != AUTO:
            return int(self.min_compression_tokens)
        return min(MIN_RANGE_TOKENS, int(self.window * MIN_RANGE_WINDOW_SHARE))

    @property
    def identifiers_limit(self) -> int:
        """Characters of a stand-in's identifiers line (``identifiers_chars`` resolved;
        0: no line)."""
        if self.identifiers_chars != AUTO:
            return int(self.identifiers_chars)
        return max(0, min(int(self.window * IDENTIFIERS_CHARS_PER_WINDOW_TOKEN),
                          int(self.window * EXTRAS_CHARS_PER_WINDOW_TOKEN)
                          - self.record_limit))

    @property
    def record_limit(self) -> int:
        """Characters of a stand-in's record of tool calls (``record_chars`` resolved)."""
        if self.record_chars != AUTO:
            return int(self.record_chars)
        return min(int(self.window * RECORD_CHARS_PER_WINDOW_TOKEN), RECORD_MAX_CHARS)

    @property
    def user_note_limit(self) -> int:
        """Characters of the note of the user's words (``user_note_chars`` resolved)."""
        if self.user_note_chars != AUTO:
            return int(self.user_note_chars)
        return int(self.window * USER_NOTE_CHARS_PER_WINDOW_TOKEN)

    def effective(self) -> dict[str, int]:
        """The sizes this config works with on its window, every ``"auto"`` resolved."""
        return {"max_tokens": self.window, "reserve_tokens": self.reserve_tokens,
                "budget_tokens": self.budget_tokens, "trigger_tokens": self.trigger_tokens,
                "target_tokens": self.target_tokens, "msg_threshold": self.msg_threshold,
                "large_chars": self.large_chars, "preview_chars": self.preview_chars,
                "min_range_tokens": self.min_range_tokens,
                "identifiers_chars": self.identifiers_limit, "record_chars": self.record_limit,
                "user_note_chars": self.user_note_limit, "last_keep": self.last_keep}

    def __repr__(self) -> str:
        parts: list[str] = []
        for f in fields(self):
            value: Any = getattr(self, f.name)
            if f.name.endswith("_prompt"):
                if value != f.default:
                    parts.append(f"{f.name}=<custom>")
                continue
            if isinstance(value, frozenset):
                value = sorted(value)
            parts.append(f"{f.name}={value!r}")
        effective = ", ".join(f"{k}={v}" for k, v in self.effective().items()
                              if k != "max_tokens")
        return f"AutoContextConfig({', '.join(parts)}; effective: {effective})"

    @property
    def target_tokens(self) -> int:
        """Prompt size a compression aims for: ``budget_tokens * target_ratio``."""
        return int(self.budget_tokens * self.target_ratio)

    def enabled(self, strategy: int) -> bool:
        return strategy not in self.disabled_strategies


def _iterable(value: object) -> bool:
    try:
        iter(value)  # type: ignore[call-overload]  # probing any object is the point
    except TypeError:
        return False
    return True


def _positive(cfg: AutoContextConfig, *names: str) -> None:
    for name in names:
        if getattr(cfg, name) not in (AUTO, UNSET) and getattr(cfg, name) <= 0:
            raise ConfigError(f"{name} must be > 0, got {getattr(cfg, name)!r}")


def _non_negative(cfg: AutoContextConfig, *names: str) -> None:
    for name in names:
        if getattr(cfg, name) != AUTO and getattr(cfg, name) < 0:
            raise ConfigError(f"{name} must be >= 0, got {getattr(cfg, name)!r}")
