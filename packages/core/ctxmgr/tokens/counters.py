"""The token counters: one interface, exact (tiktoken), approximate and callable.

What a message costs follows OpenAI's chat accounting (the cookbook's
``num_tokens_from_messages``): ``per_message`` tokens of framing, the role, an
OpenAI ``name`` field if any, and the text; each tool call adds
``per_tool_call`` plus its id, name and JSON arguments; each tool result adds
its ``tool_use_id`` and content (and, since OpenAI sends every result as its
own message, the framing of each extra one); an opaque block (image,
thinking, ...) costs its JSON text. Tool calls, tool ids and opaque blocks
never count zero. A request adds ``per_request`` tokens (the reply primer).

Messages are immutable, so a count never goes stale: :meth:`TokenCounter.count`
stores it on the message under the counter's ``cache_key``.
"""

from __future__ import annotations

import json
import math
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, assert_never

from ctxmgr._warnings import warn_caller
from ctxmgr.errors import ConfigError
from ctxmgr.messages import (
    Message,
    OpaqueBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    thaw,
)
from ctxmgr.tokens.bpe import encoding_name_for_model, load_encoding, splits_at_line_starts

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "LINE_START",
    "PER_MESSAGE",
    "PER_REQUEST",
    "PER_TOOL_CALL",
    "ApproximateCounter",
    "CallableCounter",
    "LineSum",
    "TiktokenCounter",
    "TokenCounter",
    "default_counter",
]

PER_MESSAGE = 3
"""Framing of one chat message (``<|start|>{role}<|message|>...<|end|>``)."""
PER_TOOL_CALL = 3
"""Framing of one tool call on top of its id, name and arguments."""
PER_REQUEST = 3
"""Every reply is primed with ``<|start|>assistant<|message|>``."""

LINE_START = re.compile(r"\n(?=[ \t]*[!-.0-~])")
"""Where a text may be cut so that token counts add up: after a line break whose next
line starts, past its spaces and tabs, with a printable ASCII character other than
``/``. The pre-tokenizers of ``cl100k_base`` and ``o200k_base`` always split there (no
piece runs over a line break into such a line), and BPE merges stay inside a piece."""

LineSum = tuple["TokenCounter", Callable[[int], int]]
"""(a counter whose counts of the pieces of a text cut at :data:`LINE_START` add up to
its count of the text, what that sum is as the counter asked): see
:meth:`TokenCounter.line_sum`."""


# --------------------------------------------------------------------------- interface


class TokenCounter(ABC):
    """Counts tokens of text and of messages; subclasses implement :meth:`count_text`.

    A subclass sets ``cache_key`` to a string that is the same for two counters
    exactly when they give the same counts (encoding and settings), since counts
    are cached on the messages under that key.
    """

    cache_key: str
    """Names this counter's counts in ``Message._token_cache``; distinct per encoding/config."""
    per_message: int = PER_MESSAGE
    per_tool_call: int = PER_TOOL_CALL
    per_request: int = PER_REQUEST

    @abstractmethod
    def count_text(self, text: str) -> int:
        """Tokens of a plain string."""

    def line_sum(self) -> LineSum | None:
        """How this counter's count of a text follows from counting its lines apart, when
        it does (:data:`LineSum`); ``None``, the default, when that is not known.

        Paging uses it: a long text is counted once, line by line, and the count of every
        prefix a page may end at is a sum; without it, each page costs a few counts of
        about a page of text.
        """
        return None

    def count_uncached(self, message: Message) -> int:
        """Tokens of one message, computed now (no cache read or write).

        Args:
            message: the message to price.

        Returns:
            framing + role + text, plus every tool call, tool result and opaque
            block the message holds.
        """
        total = self.per_message + self.count_text(message.role)
        name = _sender_name(message)
        if name is not None:
            total += 1 + self.count_text(name)  # the cookbook's tokens_per_name
        texts: list[str] = []
        results = 0
        for block in message.content:
            match block:
                case TextBlock():
                    texts.append(block.text)
                case ToolUseBlock():
                    total += (
                        self.per_tool_call
                        + self._count_id(block.id)
                        + self.count_text(block.name)
                        + self.count_text(_arguments_text(block))
                    )
                case ToolResultBlock():
                    results += 1
                    total += self._count_id(block.tool_use_id) + self._count_result(block)
                case OpaqueBlock():
                    total += self._count_opaque(block)
                case _:
                    assert_never(block)
        if texts:
            # Converters send several text blocks as one newline-joined string.
            total += self.count_text("\n".join(texts))
        if results > 1:
            total += (results - 1) * (self.per_message + self.count_text("tool"))
        return total

    def count(self, message: Message) -> int:
        """Tokens of one message, from its cache when this counter kind has seen it.

        Args:
            message: the message to price; its count is stored on it.

        Returns:
            the same number as :meth:`count_uncached`, computed at most once.
        """
        cache = message._token_cache
        n = cache.get(self.cache_key)
        if n is None:
            n = cache[self.cache_key] = self.count_uncached(message)
        return n

    def count_messages(self, messages: Iterable[Message]) -> int:
        """Tokens of a whole prompt: ``per_request`` plus every message's cached count.

        Args:
            messages: the prompt, in order.

        Returns:
            the prompt's token count.
        """
        return self.per_request + sum(map(self.count, messages))

    def _count_id(self, tool_id: str) -> int:
        return max(1, self.count_text(tool_id))

    def _count_opaque(self, block: OpaqueBlock) -> int:
        text = json.dumps(thaw(block.data), ensure_ascii=False, default=str)
        return max(1, self.count_text(text))

    def _count_result(self, block: ToolResultBlock) -> int:
        if isinstance(block.content, str):
            return self.count_text(block.content)
        n = 0
        texts: list[str] = []
        for part in block.content:
            if isinstance(part, TextBlock):
                texts.append(part.text)
            else:
                n += self._count_opaque(part)
        return n + (self.count_text("".join(texts)) if texts else 0)


def _unchanged(tokens: int) -> int:
    return tokens


def _sender_name(message: Message) -> str | None:
    """The OpenAI ``name`` field (tau-bench tool results carry one), which is sent too."""
    openai = message.extra.get("openai")
    fields = openai.get("fields") if isinstance(openai, Mapping) else None
    name = fields.get("name") if isinstance(fields, Mapping) else None
    return name if isinstance(name, str) else None


def _arguments_text(block: ToolUseBlock) -> str:
    """The argument JSON a provider receives: the recorded text while it still matches."""
    if block.raw_input is not None:
        try:
            parsed = json.loads(block.raw_input) if block.raw_input.strip() else {}
        except json.JSONDecodeError:
            parsed = None
        if parsed == thaw(block.input):
            return block.raw_input
    return json.dumps(thaw(block.input), ensure_ascii=False)


def _check_overhead(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{name} must be an int >= 0, got {value!r}")
    return value


# --------------------------------------------------------------------------- counters


class TiktokenCounter(TokenCounter):
    """Exact counts with tiktoken; the BPE file comes from disk, else tiktoken fetches it.

    ``o200k_base`` for the gpt-4o, gpt-4.1, gpt-4.5, gpt-5, gpt-oss, o1, o3 and o4
    families, ``cl100k_base`` for every other (or no) model name; ``encoding``
    picks one explicitly, or passes a ready ``tiktoken.Encoding``.

    Example::

        counter = TiktokenCounter("gpt-4o")
        counter.count_messages(history)

    Raises:
        FileNotFoundError: the encoding's BPE file is in neither tiktoken's cache
            (``TIKTOKEN_CACHE_DIR``) nor llama-index-core's bundled copy, and
            tiktoken could not fetch it (see :mod:`ctxmgr.tokens.bpe` to run offline).
        ConfigError: both ``model`` and ``encoding`` given, or an encoding other
            than ``cl100k_base`` / ``o200k_base`` named.
    """

    def __init__(
        self, model: str | None = None, *, encoding: str | tiktoken.Encoding | None = None
    ) -> None:
        if model is not None and encoding is not None:
            raise ConfigError(
                f"give model or encoding, not both (got model={model!r}, encoding={encoding!r})"
            )
        if encoding is None or isinstance(encoding, str):
            enc = load_encoding(encoding or encoding_name_for_model(model))
        else:
            import tiktoken  # a caller who has an Encoding loaded it already

            enc = encoding if isinstance(encoding, tiktoken.Encoding) else load_encoding(encoding)
        self.model = model
        self.encoding = enc
        self.cache_key = f"tiktoken:{enc.name}"
        self._encode = enc.encode_ordinary

    def line_sum(self) -> LineSum | None:
        return (self, _unchanged) if splits_at_line_starts(self.encoding) else None

    def count_text(self, text: str) -> int:
        # encode_ordinary: special-token text ("<|endoftext|>") in a message is
        # plain text to the API, not a control token, and must not raise.
        return len(self._encode(text))

    def __repr__(self) -> str:
        model = f"{self.model!r}, " if self.model is not None else ""
        return f"TiktokenCounter({model}encoding={self.encoding.name!r})"


class ApproximateCounter(TokenCounter):
    """Fast estimate: ``ceil(characters / chars_per_token)`` per text, same structure.

    Needs no BPE file. On the 124 shared trajectories (coding and support
    agents) it gives 0.75x to 1.24x the exact cl100k_base count, median 0.96x;
    lower ``chars_per_token`` for a safety margin.

    Raises:
        ConfigError: ``chars_per_token`` not a positive finite number, or a
            negative ``per_message``.
    """

    def __init__(self, chars_per_token: float = 4.0, *, per_message: int = PER_MESSAGE) -> None:
        if (
            isinstance(chars_per_token, bool)
            or not isinstance(chars_per_token, int | float)
            or not math.isfinite(chars_per_token)
            or chars_per_token <= 0
        ):
            raise ConfigError(
                f"chars_per_token must be a positive finite number, got {chars_per_token!r}"
            )
        self.chars_per_token = float(chars_per_token)
        self.per_message = _check_overhead("per_message", per_message)
        self.cache_key = f"approx:{self.chars_per_token!r}:{self.per_message}"

    def count_text(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token)

    def __repr__(self) -> str:
        return (
            f"ApproximateCounter(chars_per_token={self.chars_per_token!r}, "
            f"per_message={self.per_message})"
        )


class CallableCounter(TokenCounter):
    """Counts text with any callable ``fn(text) -> int``; structure as for every counter.

    Counts are cached under a key unique to this instance; give the same
    ``name`` to counters that wrap the same tokenizer to share cached counts.

    Example::

        CallableCounter(lambda s: len(hf_tokenizer.encode(s)), name="llama-3")

    Raises:
        ConfigError: ``fn`` not callable, or a negative ``per_message``.
    """

    _serial = 0
    _serial_lock = threading.Lock()

    def __init__(
        self,
        fn: Callable[[str], int],
        *,
        name: str | None = None,
        per_message: int = PER_MESSAGE,
    ) -> None:
        if not callable(fn):
            raise ConfigError(f"fn must be a callable from str to int, got {fn!r}")
        self.fn = fn
        self.per_message = _check_overhead("per_message", per_message)
        if name is None:
            # A unique key, never reused in this process: two different callables
            # must not read each other's counts (id() can be reused after GC).
            with CallableCounter._serial_lock:
                CallableCounter._serial += 1
                serial = CallableCounter._serial
            label = getattr(fn, "__qualname__", type(fn).__qualname__)
            name = f"{label}#{serial}"
        self.name = name
        self.cache_key = f"callable:{name}:{self.per_message}"

    def count_text(self, text: str) -> int:
        n = self.fn(text)
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(
                f"token-counting callable {self.name!r} must return an int, got "
                f"{type(n).__name__}; to wrap an encoder pass lambda s: len(encode(s))"
            )
        return n

    def __repr__(self) -> str:
        return f"CallableCounter(name={self.name!r}, per_message={self.per_message})"


# --------------------------------------------------------------------------- default


_fallback_warned = False
_fallback_lock = threading.Lock()


def default_counter(model: str | None = None) -> TokenCounter:
    """Exact tiktoken counting when its BPE file can be had, else an approximate counter.

    The BPE file is read from disk, or fetched and cached by tiktoken on a
    connected machine (see :mod:`ctxmgr.tokens.bpe`, which also says how to run
    offline). When neither works, this returns :class:`ApproximateCounter` and
    warns once per process (``RuntimeWarning``), pointing at the first line of
    your code on the call stack.

    Args:
        model: the model name, to choose ``o200k_base`` or ``cl100k_base``.

    Returns:
        a :class:`TiktokenCounter`, or an :class:`ApproximateCounter` without a BPE file.
    """
    global _fallback_warned
    try:
        return TiktokenCounter(model)
    except FileNotFoundError as exc:
        with _fallback_lock:
            first, _fallback_warned = not _fallback_warned, True
        if first:
            warn_caller(f"{exc} Counting tokens approximately (4 characters per token) "
                        "instead.", RuntimeWarning)
        return ApproximateCounter()
