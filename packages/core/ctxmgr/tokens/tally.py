"""A running token total over a growing history.

"Append one message, read the total" costs the same at 100,000 messages as at
10: each message is counted once (its count is cached on it) and added to a sum.
"""

from __future__ import annotations

from collections.abc import Iterable

from ctxmgr.messages import Message
from ctxmgr.tokens.counters import TokenCounter

__all__ = ["TokenTally"]


class TokenTally:
    """A running token total over a growing history: append and read in O(1).

    ``total`` always equals ``counter.count_messages(messages)`` for the messages
    given so far; :meth:`reset` recounts through the per-message cache, so it is
    cheap for messages already counted.

    Example::

        tally = TokenTally(counter, history)
        tally.append(reply)
        if tally.total > budget: ...
    """

    __slots__ = ("_count", "_sum", "counter")

    def __init__(self, counter: TokenCounter, messages: Iterable[Message] = ()) -> None:
        self.counter = counter
        self._sum = 0
        self._count = 0
        self.reset(messages)

    @property
    def total(self) -> int:
        """Tokens of the whole history as one prompt (``per_request`` included)."""
        return self.counter.per_request + self._sum

    def append(self, message: Message) -> None:
        """Add one message to the end of the history."""
        self._sum += self.counter.count(message)
        self._count += 1

    def extend(self, messages: Iterable[Message]) -> None:
        """Add messages to the end of the history, in order."""
        count = self.counter.count
        for m in messages:
            self._sum += count(m)
            self._count += 1

    def reset(self, messages: Iterable[Message] = ()) -> None:
        """Start over from ``messages`` (for example after a compression rewrote history)."""
        self._sum = 0
        self._count = 0
        self.extend(messages)

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"TokenTally(messages={self._count}, total={self.total}, counter={self.counter!r})"
