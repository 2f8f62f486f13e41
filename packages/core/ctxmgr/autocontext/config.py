"""AutoContextConfig: every setting of ctxmgr in one value object, validated once.

The settings most users touch are fields of :class:`AutoContextConfig` (the window, when
and how far to compress, the tools the model gets); the rest are grouped in
:class:`Tuning` (``AutoContextConfig(tuning=Tuning(last_keep=20))``). Every field not
given in code is read from the environment by one rule (:mod:`ctxmgr._env`:
``CTXMGR_<FIELD>``, then ``.env``, then the default), wherever a config is built.

Some sizes follow the window unless set: ``"auto"`` applies a documented rule whose
constants are named here, so what a config does at 4k, 16k or 128k tokens can be read
off it. ``repr`` and every :class:`CompressionEvent` show the effective values.

Every setting refuses a value of the wrong type or out of range with one
:class:`~ctxmgr.ConfigError` naming the field, the rule and the value
(``max_tokens must be an int > 0, got 8000.5``); bools are not taken for numbers.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, TypeVar

from ctxmgr import _env
from ctxmgr._unset import UNSET, Unset
from ctxmgr.autocontext.prompts import (
    CURRENT_LARGE_PROMPT,
    CURRENT_ROUND_PROMPT,
    PREVIOUS_ROUND_PROMPT,
    TOOL_RUN_PROMPT,
)
from ctxmgr.errors import ConfigError
from ctxmgr.memo.store import DEFAULT_MAX_MEMOS
from ctxmgr.store.retry import DEFAULT_STORE_RETRY, StoreRetry

__all__ = [
    "AUTO",
    "DEFAULT_MAX_TOKENS",
    "IDENTIFIERS_CHARS_PER_WINDOW_TOKEN",
    "IDENTIFIERS_MIN_CHARS",
    "IDENTIFIERS_MIN_CHARS_PER_WINDOW_TOKEN",
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
    "DEFAULT_MAX_MEMOS",
    "DEFAULT_MAX_SESSIONS",
    "HANDOFF_TOOLS",
    "Tuning",
    "refuse_moved",
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
"""``identifiers_chars="auto"``: the identifiers line of a stand-in holds this many
characters per window token (19,200 at 128k), at least :data:`IDENTIFIERS_MIN_CHARS`, and
no more than what :data:`EXTRAS_CHARS_PER_WINDOW_TOKEN` leaves beside the record."""
IDENTIFIERS_MIN_CHARS = 2400
"""... but at least this many where the window allows (0.3 characters per window token:
1,200 at 4k, 2,400 from 8k). With the history folded into notes first, with no summary,
the line carries the values a summary used to: on the recorded coding runs at 16k, 2,400
characters keep 0.941 of the facts for 0.451 of the cost of no management, against 0.928
for 0.444 with 1,600; 4,800 keep 0.960 but cost the 300-call sessions recency (0.950
against 0.971 at 1,600) and the user's earlier tasks (0.953 against 0.991)."""
IDENTIFIERS_MIN_CHARS_PER_WINDOW_TOKEN = 0.3
RECORD_CHARS_PER_WINDOW_TOKEN = 0.25
"""``record_chars="auto"``: the record of tool calls a stand-in carries holds up to this
many characters per window token..."""
RECORD_MAX_CHARS = 4000
"""... and never more than this (about seventy calls): on the recorded coding runs it
names nine in ten of the agent's earlier calls at 16k, and a longer record costs more on
every call than the older calls it names are worth."""
EXTRAS_CHARS_PER_WINDOW_TOKEN = 0.55
"""A stand-in's lines beside its own text (the record, then the identifiers line) hold
this many characters per window token in all (8,800 at 16k): the record comes first,
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

DEFAULT_MAX_SESSIONS = 1024
"""Sessions whose compressor an engine keeps (the least recently used is dropped)."""

HANDOFF_TOOLS = frozenset({"transfer_to_*", "transfer_back_to_*", "handoff"})
"""``handoff_tools`` by default: the handoff tools of langgraph-swarm and
langgraph-supervisor, and of LlamaIndex's ``AgentWorkflow``."""

Auto = int | Literal["auto"]
_Config = TypeVar("_Config")


def _reads_environment(cls: type[_Config]) -> type[_Config]:
    """Make ``cls`` read each field not given to its constructor from the environment
    (:mod:`ctxmgr._env`): one rule for every config, wherever it is built. A field whose
    type the environment cannot carry (a prompt, a nested object) keeps its default."""
    init = cls.__init__
    readable = {f.name: str(f.type) for f in fields(cls)  # type: ignore[arg-type]
                if f.init and f.metadata.get("env", True)}

    @functools.wraps(init)
    def __init__(self: Any, **given: Any) -> None:
        found: dict[str, Any] = {}
        where: dict[str, str] = {}
        for name, kind in readable.items():
            if name in given:
                continue
            hit = _env.find(_env.variable(name))
            if hit is None:
                continue
            value = _env.parse(hit[0], kind, hit[1])
            if value is not UNSET:
                found[name] = value
                where[name] = hit[1]
        try:
            init(self, **found, **given)
        except ConfigError as exc:
            named = [w for name, w in where.items() if str(exc).startswith(name) or
                     f"{name}=" in str(exc) or f" {name} " in str(exc)]
            if not named:
                raise
            raise ConfigError(f"{exc} (read from {', '.join(named)})") from None

    __init__.__signature__ = inspect.signature(init)  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[method-assign]
    return cls


@_reads_environment
@dataclass(frozen=True, slots=True, kw_only=True)
class Tuning:
    """Settings few users touch: how the strategies size their work, prompts, retries.

    Example::

        AutoContextConfig(max_tokens=32_000, tuning=Tuning(last_keep=20, keep_tool_results=5))

    Each field not given is read from ``CTXMGR_<FIELD>`` (environment, then ``.env``),
    as :class:`AutoContextConfig`'s are.
    """

    safety_margin: float = 0.05
    """Share of the prompt budget held back for tokenizer differences: the provider may
    count a prompt differently from ctxmgr's tiktoken count (another serialisation of
    the same messages was measured up to 12 % larger on the recorded support runs).
    Counting against the model's reported usage (the adapters calibrate) narrows it."""
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
    history_notes_first: bool = True
    """Once the trigger is reached, fold the history before the working set into notes
    (strategy 7: each run between the user's turns becomes one message carrying the
    record of its tool calls and its identifiers, the originals reloadable) before any
    other strategy, down to the trigger. Priced as the provider bills it, this is the
    cheapest move: it needs no summarizer call, and it frees the most per cached token
    it cuts off, so the next calls extend a stable prefix for longer. On the recorded
    runs (cl100k, cached reads at 0.1) cost against no management goes from 0.644 to
    0.591 at 32k, 0.543 to 0.444 at 16k and 1.336 to 1.132 on the tau-bench
    conversations at 4k, with as many facts available (0.990, 0.928, 0.958 -> 0.963):
    the fake summarizer of the replay writes no facts, so what a summary kept came from
    its record and identifiers line, which the note carries too. ``False``: strategy 7
    is a last resort again (only over the budget, after strategies 1-6), and summaries
    (strategies 1, 4, 5, 6) come first."""
    summary_cooldown_s: float = 300.0
    """After a summarizer call timed out, no call for this long (every session of one
    engine, sync and async): a hung model delays the agent once per period, not once per
    model call. 0 turns it off."""
    store_retry: StoreRetry = field(default=DEFAULT_STORE_RETRY, metadata={"env": False})
    """How a failing store call is tried again while compressing (default three tries,
    0.05 s and 0.1 s apart); a step whose originals still cannot be written is skipped."""
    max_sessions: int = DEFAULT_MAX_SESSIONS
    """Sessions whose compressor an integration keeps in this process (the least recently
    used is dropped past it; it is rebuilt from the store when needed)."""
    reload_hint: bool = True
    """Put a system message that explains the offload tags in the prompt once anything is
    compressed (left out anyway on a window so small that it would crowd the prompt)."""
    handoff_tools: frozenset[str] = HANDOFF_TOOLS
    """Tool names (``fnmatch`` patterns) whose calls hand the conversation to another
    agent (the handoff tools of langgraph-swarm and langgraph-supervisor,
    ``transfer_to_<agent>`` and ``transfer_back_to_<supervisor>``, and LlamaIndex
    ``AgentWorkflow``'s ``handoff``): the latest :attr:`kept_handoffs` of them stay
    verbatim, each call with its result, so who handed to whom reads the same after any
    compression. An empty set treats them as any other tool."""
    kept_handoffs: int = 8
    """Handoffs (:attr:`handoff_tools`) kept verbatim, the latest first: never split
    from their result, never folded into a summary. Each costs its tokens (about 30)
    in every later prompt, so older ones are compressed, call and result together, and
    the record of their range names the agent that made each. 0 keeps none."""
    tool_run_prompt: str = field(default=TOOL_RUN_PROMPT, metadata={"env": False})
    previous_round_prompt: str = field(default=PREVIOUS_ROUND_PROMPT, metadata={"env": False})
    current_large_prompt: str = field(default=CURRENT_LARGE_PROMPT, metadata={"env": False})
    current_round_prompt: str = field(default=CURRENT_ROUND_PROMPT, metadata={"env": False})


    def __post_init__(self) -> None:
        _positive_int(self, "min_consecutive_tool_messages", "summary_input_chars",
                      "max_sessions")
        _positive_int(self, "large_payload_threshold", auto=True)
        _non_negative_int(self, "last_keep", "keep_tool_results", "kept_handoffs")
        _non_negative_int(self, "offload_preview_chars", "min_compression_tokens",
                          "identifiers_chars", "record_chars", "user_note_chars", auto=True)
        _number(self, "safety_margin", low=0, high=0.5, rule="a number in [0, 0.5)")
        _number(self, "summary_cooldown_s", low=0, rule="a number >= 0")
        _ratio(self, "current_round_compression_ratio")
        _ratio(self, "cached_token_price", none=True)
        _flag(self, "reload_hint", "history_notes_first")
        _names(self, "handoff_tools", str)
        if not isinstance(self.store_retry, StoreRetry):
            raise ConfigError(f"store_retry must be a StoreRetry, got {self.store_retry!r:.80}")
        for name in ("tool_run_prompt", "previous_round_prompt", "current_large_prompt",
                     "current_round_prompt"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ConfigError(f"{name} must be a non-empty str, "
                                  f"got {getattr(self, name)!r:.80}")

    def __repr__(self) -> str:
        return f"Tuning({_changed(self)})"


@_reads_environment
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class AutoContextConfig:
    """Every setting of ctxmgr: when to compress, how far, what never to touch, and the
    tools the model gets. The rarely touched ones are grouped in :attr:`tuning`.

    Example::

        AutoContextConfig(max_tokens=32_000, memo=True, disabled_strategies={6},
                          never_compress_tools={"read_skill"})

    Each field not given is read from ``CTXMGR_<FIELD>`` in the environment, then in a
    ``.env`` file in the working directory, else it keeps its default
    (``CTXMGR_MAX_TOKENS=32000``, ``CTXMGR_MEMO=true``, ``CTXMGR_DISABLED_STRATEGIES=6,7``).

    Raises:
        ConfigError: a value of the wrong type or out of range (the message names the
            field, the rule and the value; and the variable, when it came from one).
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
    target_ratio: float = 0.1
    """Once triggered, compress down to ``budget_tokens * target_ratio`` tokens: fewer,
    deeper compressions keep the provider's prompt cache warm between them. (The working
    set and the pinned messages are never cut for it, so on a small window the target
    is often out of reach and a compression takes what it can.)"""
    msg_threshold: int = 100
    """... or when the history holds this many messages."""
    context_reload: bool = True
    """Offer the model ``context_reload`` and ``context_search``, to get back what was
    compressed out of its context."""
    message_archiving: bool = False
    """Offer the model the message-archiving tool (hide tool results it no longer
    needs)."""
    memo: bool = False
    """Offer the model the memo tool (notes it writes to the store and reads back)."""
    max_memos: int = DEFAULT_MAX_MEMOS
    """Memos a session may hold; a write past it is refused with a clear message."""
    agent_sessions: bool = True
    """Give each agent that runs inside another one (a deep agent's subagent, a
    supervisor's specialist or the supervisor itself, a swarm member, an
    ``AgentWorkflow``'s agent) its own session under the thread's (``thread/agent``):
    its own offloads, memos and ``context_search``, out of its peers' reach. ``False``:
    every agent of a thread shares the thread's session (see the multi-agent guide)."""
    team_memos: bool = False
    """The agents of a thread share one set of memos, the thread's (a team memo), while
    each keeps its own offloads and search (with :attr:`agent_sessions`)."""
    guidance: bool = True
    """Tell the model, in a system message, when to archive and to write memos (when
    those tools are offered)."""
    calibrate: bool = True
    """Scale token counts by the input tokens the model reports, so budgets hold in its
    own tokens when its tokenizer is not tiktoken's (:mod:`ctxmgr.session.calibration`)."""
    summary_timeout_s: float = 60.0
    """Per summarizer call; a slower call is abandoned and its strategy skipped."""
    disabled_strategies: frozenset[int] = field(default_factory=frozenset)
    """Strategy numbers never to run (1-9: see the README's table of strategies; an
    unknown number is refused when a compressor is built with this config)."""
    never_compress_tools: frozenset[str] = field(default_factory=frozenset)
    """Tool names whose calls and results are never offloaded or summarized."""
    pinned_ids: frozenset[str] = field(default_factory=frozenset)
    """Message ids never offloaded or summarized (system messages, the first and the
    latest user message are always pinned)."""
    project: str | Unset = UNSET
    """The namespace above the sessions in the store; left out, derived from the working
    directory (:func:`~ctxmgr.store.project_dir_name`)."""
    home: Path = field(default_factory=lambda: Path.home() / ".ctxmgr",
                       metadata={"local": True})
    """The folder of the default file store (``CTXMGR_HOME``; default ``~/.ctxmgr``). A
    path of this machine: :meth:`to_json` leaves it out."""
    tuning: Tuning = field(default_factory=Tuning, metadata={"env": False})
    """The settings few users touch (:class:`Tuning`)."""

    def __post_init__(self) -> None:
        _positive_int(self, "max_tokens", unset=True)
        _positive_int(self, "msg_threshold", "max_memos")
        _non_negative_int(self, "reserve_output_tokens", auto=True)
        _ratio(self, "token_ratio")
        _ratio(self, "target_ratio")
        _number(self, "summary_timeout_s", low=0, low_open=True, rule="a number > 0")
        _flag(self, "context_reload", "message_archiving", "memo", "guidance", "calibrate",
              "agent_sessions", "team_memos")
        _names(self, "disabled_strategies", int)
        _names(self, "never_compress_tools", str)
        _names(self, "pinned_ids", str)
        if self.project is not UNSET and (not isinstance(self.project, str)
                                          or not self.project):
            raise ConfigError(f"project must be a non-empty str, got {self.project!r:.80}")
        if not isinstance(self.home, str | os.PathLike) or not os.fspath(self.home):
            raise ConfigError(f"home must be a non-empty path, got {self.home!r:.80}")
        object.__setattr__(self, "home", Path(self.home).expanduser())
        if not isinstance(self.tuning, Tuning):
            raise ConfigError(f"tuning must be a Tuning, got {self.tuning!r:.80}")
        if self.reserve_tokens >= self.window:
            raise ConfigError(
                f"reserve_output_tokens must leave room for a prompt, got "
                f"{self.reserve_tokens!r} of a {self.window}-token window")
        if self.large_chars < 1:
            raise ConfigError(f"max_tokens={self.window} leaves no room: large_payload_"
                              "threshold='auto' needs max_tokens >= 8")
        if self.target_ratio > self.token_ratio:
            raise ConfigError(
                f"target_ratio must not exceed token_ratio, got target_ratio="
                f"{self.target_ratio!r} > token_ratio={self.token_ratio!r}")

    @classmethod
    def from_env(cls, *, environ: Mapping[str, str] | None = None,
                 dotenv_path: str | os.PathLike[str] | None = None, use_dotenv: bool = True,
                 **given: Any) -> AutoContextConfig:
        """A config whose fields not ``given`` are read from these sources instead of the
        process's environment and ``./.env`` (the fields of its :class:`Tuning` too).

        Args:
            environ: the variables to read (default ``os.environ``).
            dotenv_path: the ``.env`` file (default ``.env`` in the working directory).
            use_dotenv: read a ``.env`` file at all.
        """
        with _env.reading(_env.Sources(environ, dotenv_path, use_dotenv)):
            return cls(**given)

    def evolve(self, **changes: Any) -> AutoContextConfig:
        """A copy with ``changes``, each a setting of this config or of its
        :class:`Tuning` by name (``config.evolve(max_tokens=16_000, last_keep=20)``).

        Raises:
            ConfigError: a name that is no setting, or a value the config refuses.
        """
        _known(changes, _FIELDS | _TUNING, "")
        tuning = {k: v for k, v in changes.items() if k in _TUNING and k not in _FIELDS}
        mine = {k: v for k, v in changes.items() if k not in tuning}
        if tuning:
            mine["tuning"] = dataclasses.replace(self.tuning, **tuning)
        return dataclasses.replace(self, **mine)

    def to_json(self, *, complete: bool = False) -> dict[str, Any]:
        """The settings that differ from their defaults, as plain JSON (what
        :meth:`from_json` reads back into an equal config on this machine): sets as sorted
        lists, the tuning as a dict of its own changes; the home folder, a path of this
        machine, is left out (it is read where the config is read).

        Args:
            complete: also every setting the environment could set, at its default too:
                read back anywhere, the config is this one whatever ``CTXMGR_*`` says
                there (a setting given in code is never overridden by the environment).
        """
        return _to_json(self, complete)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AutoContextConfig:
        """Read :meth:`to_json` output (settings it leaves out are read as any are: from
        the environment, else their defaults).

        Raises:
            ConfigError: a key that is no setting, or a value the config refuses; the
                message names it.
        """
        if not isinstance(data, Mapping):
            raise ConfigError(f"a config must be a dict of settings, got {data!r:.80}")
        values = dict(data)
        tuning = values.pop("tuning", None)
        if tuning is not None:
            if not isinstance(tuning, Mapping):
                raise ConfigError(f"tuning must be a dict of settings, got {tuning!r:.80}")
            tuning = dict(tuning)
            if isinstance(tuning.get("store_retry"), Mapping):
                tuning["store_retry"] = StoreRetry(**tuning["store_retry"])
            _known(tuning, _TUNING, "tuning")
            values["tuning"] = Tuning(**tuning)
        _known(values, _FIELDS, "")
        return cls(**values)

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
        return int((self.window - self.reserve_tokens) * (1 - self.tuning.safety_margin))

    @property
    def trigger_tokens(self) -> int:
        """Prompt size that starts a compression: ``budget_tokens * token_ratio``."""
        return int(self.budget_tokens * self.token_ratio)

    @property
    def large_chars(self) -> int:
        """Characters from which a message counts as large (``large_payload_threshold``
        with ``"auto"`` resolved)."""
        if self.tuning.large_payload_threshold != AUTO:
            return int(self.tuning.large_payload_threshold)
        return min(LARGE_CHARS, int(self.window * LARGE_CHARS_PER_WINDOW_TOKEN))

    @property
    def preview_chars(self) -> int:
        """Characters of an offloaded message kept as its preview (resolved)."""
        if self.tuning.offload_preview_chars != AUTO:
            return int(self.tuning.offload_preview_chars)
        return min(PREVIEW_CHARS, int(self.large_chars * PREVIEW_SHARE_OF_LARGE))

    @property
    def min_range_tokens(self) -> int:
        """Smallest range strategies 1 and 4 summarize (``min_compression_tokens``
        resolved)."""
        if self.tuning.min_compression_tokens != AUTO:
            return int(self.tuning.min_compression_tokens)
        return min(MIN_RANGE_TOKENS, int(self.window * MIN_RANGE_WINDOW_SHARE))

    @property
    def identifiers_limit(self) -> int:
        """Characters of a stand-in's identifiers line (``identifiers_chars`` resolved;
        0: no line)."""
        if self.tuning.identifiers_chars != AUTO:
            return int(self.tuning.identifiers_chars)
        wanted = max(int(self.window * IDENTIFIERS_CHARS_PER_WINDOW_TOKEN),
                     min(IDENTIFIERS_MIN_CHARS,
                         int(self.window * IDENTIFIERS_MIN_CHARS_PER_WINDOW_TOKEN)))
        return max(0, min(wanted, int(self.window * EXTRAS_CHARS_PER_WINDOW_TOKEN)
                          - self.record_limit))

    @property
    def record_limit(self) -> int:
        """Characters of a stand-in's record of tool calls (``record_chars`` resolved)."""
        if self.tuning.record_chars != AUTO:
            return int(self.tuning.record_chars)
        return min(int(self.window * RECORD_CHARS_PER_WINDOW_TOKEN), RECORD_MAX_CHARS)

    @property
    def user_note_limit(self) -> int:
        """Characters of the note of the user's words (``user_note_chars`` resolved)."""
        if self.tuning.user_note_chars != AUTO:
            return int(self.tuning.user_note_chars)
        return int(self.window * USER_NOTE_CHARS_PER_WINDOW_TOKEN)

    def effective(self) -> dict[str, int]:
        """The sizes this config works with on its window, every ``"auto"`` resolved."""
        return {"max_tokens": self.window, "reserve_tokens": self.reserve_tokens,
                "budget_tokens": self.budget_tokens, "trigger_tokens": self.trigger_tokens,
                "target_tokens": self.target_tokens, "msg_threshold": self.msg_threshold,
                "large_chars": self.large_chars, "preview_chars": self.preview_chars,
                "min_range_tokens": self.min_range_tokens,
                "identifiers_chars": self.identifiers_limit, "record_chars": self.record_limit,
                "user_note_chars": self.user_note_limit, "last_keep": self.tuning.last_keep}

    def __repr__(self) -> str:
        effective = ", ".join(f"{k}={v}" for k, v in self.effective().items()
                              if k != "max_tokens")
        return f"AutoContextConfig({_changed(self)}; effective: {effective})"

    @property
    def target_tokens(self) -> int:
        """Prompt size a compression aims for: ``budget_tokens * target_ratio``."""
        return int(self.budget_tokens * self.target_ratio)

    def enabled(self, strategy: int) -> bool:
        return strategy not in self.disabled_strategies


def refuse_moved(owner: str, given: Mapping[str, object]) -> None:
    """Refuse settings given to ``owner`` as keywords, saying where each lives now.

    Raises:
        TypeError: names the first keyword and, for a setting, how to give it.
    """
    for name in given:
        if name in _FIELDS:
            where = f"AutoContextConfig({name}=...)"
        elif name in _TUNING:
            where = f"AutoContextConfig(tuning=Tuning({name}=...))"
        else:
            raise TypeError(f"{owner}() got an unexpected keyword argument {name!r}")
        raise TypeError(f"{owner}() takes {name} in its config: pass {owner}({where})")


def _changed(config: Any) -> str:
    """The fields of ``config`` that differ from their defaults (the window always), as
    ``name=value`` (a custom prompt as ``<custom>``)."""
    parts: list[str] = []
    for f in fields(config):
        value: Any = getattr(config, f.name)
        default = f.default_factory() if callable(f.default_factory) else f.default
        if (value == default and f.name != "max_tokens") or f.metadata.get("local"):
            continue
        if f.name.endswith("_prompt"):
            value = "<custom>"
        elif isinstance(value, frozenset):
            value = sorted(value, key=str)
        parts.append(f"{f.name}={value!s}" if f.name.endswith("_prompt")
                     else f"{f.name}={value!r}")
    return ", ".join(parts)


def _to_json(config: Any, complete: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(config):
        value: Any = getattr(config, f.name)
        default = f.default_factory() if callable(f.default_factory) else f.default
        kept = complete and f.metadata.get("env", True) or isinstance(value, Tuning)
        if (value == default and not kept) or value is UNSET or f.metadata.get("local"):
            continue
        if isinstance(value, Tuning):
            value = _to_json(value, complete)
            if not value:
                continue
        elif isinstance(value, StoreRetry):
            value = {"attempts": value.attempts, "backoff_s": value.backoff_s,
                     "max_backoff_s": value.max_backoff_s}
        elif isinstance(value, frozenset):
            value = sorted(value, key=str)
        elif isinstance(value, Path):
            value = str(value)
        out[f.name] = value
    return out


def _known(values: Mapping[str, Any], names: frozenset[str], where: str) -> None:
    for key in values:
        if key not in names:
            raise ConfigError(f"{where + '.' if where else ''}{str(key)[:40]!r} is not a "
                              "setting of this ctxmgr version")


def _fail(name: str, rule: str, value: object) -> ConfigError:
    return ConfigError(f"{name} must be {rule}, got {value!r:.80}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _positive_int(cfg: object, *names: str, auto: bool = False, unset: bool = False) -> None:
    for name in names:
        value = getattr(cfg, name)
        if (auto and value == AUTO) or (unset and value is UNSET):
            continue
        if not _is_int(value) or value <= 0:
            raise _fail(name, "an int > 0" + (" or 'auto'" if auto else ""), value)


def _non_negative_int(cfg: object, *names: str, auto: bool = False) -> None:
    for name in names:
        value = getattr(cfg, name)
        if auto and value == AUTO:
            continue
        if not _is_int(value) or value < 0:
            raise _fail(name, "an int >= 0" + (" or 'auto'" if auto else ""), value)


def _number(cfg: object, name: str, *, low: float, high: float | None = None,
            low_open: bool = False, rule: str) -> None:
    value = getattr(cfg, name)
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not math.isfinite(value) or value < low or (low_open and value == low)
            or (high is not None and value >= high)):
        raise _fail(name, rule, value)


def _ratio(cfg: object, name: str, *, none: bool = False) -> None:
    value = getattr(cfg, name)
    if none and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise _fail(name, "in (0, 1]" + (" or None" if none else ""), value)


def _flag(cfg: object, *names: str) -> None:
    for name in names:
        value = getattr(cfg, name)
        if not isinstance(value, bool):
            raise _fail(name, "True or False", value)


def _names(cfg: object, name: str, kind: type) -> None:
    """A collection of ``kind`` (strategy numbers >= 1, or non-empty names), as a frozenset."""
    value = getattr(cfg, name)
    if isinstance(value, str | bytes | Mapping) or not _iterable(value):
        raise _fail(name, f"a collection of {kind.__name__}", value)
    items = frozenset(value)
    for item in items:
        if kind is int and (not _is_int(item) or item < 1):
            raise ConfigError(f"{name} must hold strategy numbers, got {item!r:.80}")
        if kind is str and (not isinstance(item, str) or not item):
            raise ConfigError(f"{name} must hold non-empty strings, got {item!r:.80}")
    object.__setattr__(cfg, name, items)


def _iterable(value: object) -> bool:
    try:
        iter(value)  # type: ignore[call-overload]  # probing any object is the point
    except TypeError:
        return False
    return True


_FIELDS = frozenset(f.name for f in fields(AutoContextConfig))
_TUNING = frozenset(f.name for f in fields(Tuning))
