"""AutoContextConfig: every knob of the compressor, validated once (defaults: SPEC §5.1)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ctxmgr.autocontext.prompts import (
    CURRENT_LARGE_PROMPT,
    CURRENT_ROUND_PROMPT,
    PREVIOUS_ROUND_PROMPT,
    TOOL_RUN_PROMPT,
)
from ctxmgr.errors import ConfigError

__all__ = ["STRATEGY_NAMES", "AutoContextConfig"]

STRATEGY_NAMES: dict[int, str] = {
    1: "tool_runs",
    2: "offload_protected",
    3: "offload_all",
    4: "previous_rounds",
    5: "current_large",
    6: "current_round",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoContextConfig:
    """When to compress, how far, and what never to touch.

    Example::

        AutoContextConfig(max_tokens=32_000, disabled_strategies={6},
                          never_compress_tools={"read_skill"})
    """

    max_tokens: int = 128_000
    """The model's context window, in tokens."""
    token_ratio: float = 0.6
    """Compress when the prompt reaches ``max_tokens * token_ratio`` tokens. (SPEC §5.1
    said 0.75 and 0.5 for the target; on the 124 recorded runs 0.6 and 0.15 cost a
    fifth less at a 32k window: see benchmarks/RESULTS.md.)"""
    msg_threshold: int = 100
    """... or when the history holds this many messages."""
    target_ratio: float = 0.15
    """Once triggered, compress down to ``max_tokens * target_ratio`` tokens: fewer,
    deeper compressions keep the provider's prompt cache warm between them."""
    last_keep: int = 50
    """Messages at the end protected from strategies 1 and 2, as long as they fit in
    three quarters of the room the target leaves beside the pinned messages: on a
    long single-task run 50 tool results can outweigh the whole target, and then only
    the costly current-round strategies (5, 6) would be left to fire."""
    large_payload_threshold: int = 5 * 1024
    """Characters from which a message counts as large (strategies 2, 3 and 5), or an
    eighth of ``max_tokens`` in characters on windows under 40,960 tokens: on a 4k
    window a 500-character tool result (about 150 tokens) is large."""
    offload_preview_chars: int = 200
    """Characters of an offloaded message kept in place as a preview, or a tenth of
    what counts as large if that is less, so an offload always frees nine tenths."""
    min_consecutive_tool_messages: int = 6
    """Strategy 1 needs a run of more tool messages than this."""
    min_compression_tokens: int = 5000
    """Strategies 1 and 4 skip ranges smaller than this many tokens (or than a fifth
    of ``max_tokens``, on windows under 25,000 tokens)."""
    current_round_compression_ratio: float = 0.3
    """Strategy 6's target share of the current round's characters."""
    summary_input_chars: int = 1000
    """Longest text, tool result or tool-call argument the summarizer is sent in full;
    longer ones reach it as head and tail. The originals are offloaded and
    reloadable, so the summary needs their gist, not every byte; on the recorded
    coding runs this cuts summarizer input by a third."""
    cached_token_price: float | None = 0.1
    """What a cached prompt token costs relative to an uncached one (0.1 with
    Anthropic's prompt cache; 1.0 without a cache). An LLM summary that neither the
    window (``max_tokens``) nor the message count (``msg_threshold``) requires is only
    made when it pays for itself: its summarizer input and output, and the cached
    tokens it turns uncached, must cost less than the tokens it removes would over as
    many further model calls as the history holds so far. ``None`` makes every summary
    a strategy plans."""
    summary_timeout_s: float = 60.0
    """Per summarizer call; a slower call is abandoned and its strategy skipped."""
    disabled_strategies: frozenset[int] = field(default_factory=frozenset)
    """Strategy numbers (1-6) never to run."""
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
        for name in ("disabled_strategies", "never_compress_tools", "pinned_ids"):
            value = getattr(self, name)
            if isinstance(value, str) or not _iterable(value):
                raise ConfigError(f"{name} must be a collection, got {value!r}")
            object.__setattr__(self, name, frozenset(value))
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.type == "float | None":
                continue
            if f.type in ("int", "float", "float | None") and (
                    isinstance(value, bool) or not isinstance(value, int | float)):
                raise ConfigError(f"{f.name} must be a number, got {value!r}")
        _positive(self, "max_tokens", "msg_threshold", "large_payload_threshold",
                  "min_consecutive_tool_messages", "summary_timeout_s", "summary_input_chars")
        _non_negative(self, "last_keep", "offload_preview_chars", "min_compression_tokens")
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
        unknown = self.disabled_strategies - STRATEGY_NAMES.keys()
        if unknown:
            raise ConfigError(f"disabled_strategies must hold numbers 1-6, got {sorted(unknown)}")

    @property
    def trigger_tokens(self) -> int:
        """Prompt size that starts a compression."""
        return int(self.max_tokens * self.token_ratio)

    @property
    def large_chars(self) -> int:
        """Characters from which a message counts as large on this window."""
        return min(self.large_payload_threshold, self.max_tokens // 8)

    @property
    def preview_chars(self) -> int:
        """Characters of an offloaded message kept as its preview on this window."""
        return min(self.offload_preview_chars, self.large_chars // 10)

    @property
    def min_range_tokens(self) -> int:
        """Smallest range strategies 1 and 4 summarize: worth an LLM call on this window."""
        return min(self.min_compression_tokens, self.max_tokens // 5)

    @property
    def target_tokens(self) -> int:
        """Prompt size a compression aims for."""
        return int(self.max_tokens * self.target_ratio)

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
        if getattr(cfg, name) <= 0:
            raise ConfigError(f"{name} must be > 0, got {getattr(cfg, name)!r}")


def _non_negative(cfg: AutoContextConfig, *names: str) -> None:
    for name in names:
        if getattr(cfg, name) < 0:
            raise ConfigError(f"{name} must be >= 0, got {getattr(cfg, name)!r}")
