"""Exceptions raised by ctxmgr.

Who has to act decides how an error is reported: a developer's misuse raises
at construction; a model's misuse of a tool comes back as a tool-result
string, never as an exception. Each error also extends the builtin it refines,
so generic handlers (``except ValueError``) keep working::

    CtxmgrError(Exception)
    ├── ConfigError(ValueError)            bad constructor argument or setting
    ├── InvalidMessageError(ValueError)    a message a converter cannot read
    │   └── InvalidStateError              a saved state (a checkpoint, a memory's fields)
    │                                      that is damaged; names the field
    ├── PairingError(ValueError)           tool calls and results do not pair
    ├── InvalidMemoKeyError(ValueError)    a memo key that is unsafe as a file name
    ├── MemoWriteError(ValueError)         a memo write refused (summary, content, cap)
    ├── OffloadNotFoundError(KeyError)     no offloaded messages under that id
    ├── StoreError(OSError)                the store could not read or write
    │   └── HalfWrittenMemoError           a memo changed on disk, its index entry did not
    └── ContextOverflowError               still over the window after compressing
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "ConfigError",
    "ContextOverflowError",
    "CtxmgrError",
    "HalfWrittenMemoError",
    "InvalidMemoKeyError",
    "InvalidMessageError",
    "InvalidStateError",
    "MemoWriteError",
    "OffloadNotFoundError",
    "PairingError",
    "StoreError",
]


class CtxmgrError(Exception):
    """Base class of every error ctxmgr raises."""


class ConfigError(CtxmgrError, ValueError):
    """A constructor argument or setting is out of range or of the wrong type."""


class InvalidMessageError(CtxmgrError, ValueError):
    """A message cannot be read; ``index`` is its position in the input list."""

    def __init__(self, message: str, *, index: int | None = None) -> None:
        self.index = index
        prefix = f"message {index}: " if index is not None else ""
        super().__init__(prefix + message)


class InvalidStateError(InvalidMessageError):
    """A saved state (a checkpoint's ``ctxmgr`` part, a memory's fields) is damaged or
    from another version; ``field`` names the part, e.g. ``"compression.stand_ins[0].count"``.

    An :class:`InvalidMessageError` (so a ``ValueError``) because a damaged state used to
    be reported as one.
    """

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        super().__init__(f"saved ctxmgr state is damaged: {field} {problem}")


class PairingError(CtxmgrError, ValueError):
    """Tool calls and tool results break the provider's pairing rule."""

    def __init__(self, violations: Sequence[object], *, rules: str) -> None:
        """``violations``: the :class:`~ctxmgr.PairingViolation` s found (each says what it
        is when printed); typed loosely so this module imports none of its callers."""
        self.violations = tuple(violations)
        self.rules = rules
        shown = "; ".join(str(v) for v in self.violations[:3])
        more = len(self.violations) - 3
        tail = f" (and {more} more)" if more > 0 else ""
        rule = (
            "every tool call must be answered by exactly one tool result before the next "
            "non-tool message, and every tool result must answer a call of the nearest "
            "preceding assistant turn"
        )
        if rules == "anthropic":
            rule += "; in a user turn, tool results come before any other content"
        super().__init__(
            f"{len(self.violations)} tool-pairing violation(s) under {rules} rules: "
            f"{shown}{tail}. Rule: {rule}."
        )


class InvalidMemoKeyError(CtxmgrError, ValueError):
    """A memo key would not be a safe file name inside its session folder."""


class MemoWriteError(CtxmgrError, ValueError):
    """A memo write was refused (summary, content, placeholder or the per-session cap).

    The memo tool handler turns it into a tool result for the model; only the
    developer API ``MemoStore.write`` raises it.
    """


class OffloadNotFoundError(CtxmgrError, KeyError):
    """No offloaded messages are stored under the given id."""

    def __init__(self, offload_id: str) -> None:
        self.offload_id = offload_id
        super().__init__(offload_id)

    def __str__(self) -> str:
        return f"no offloaded messages found for id {self.offload_id!r}"


class StoreError(CtxmgrError, OSError):
    """The store could not read or write."""


class HalfWrittenMemoError(StoreError):
    """A memo write failed after the memo file changed, and restoring it failed too.

    The message says what is on disk; the memo tool passes it to the model
    instead of claiming that nothing changed.
    """


class ContextOverflowError(CtxmgrError):
    """Even after every applicable strategy the prompt exceeds the window."""

    def __init__(self, *, tokens: int, limit: int, partial: object | None = None,
                 store_error: StoreError | None = None) -> None:
        self.tokens = tokens
        self.limit = limit
        self.excess = tokens - limit
        self.partial = partial
        """The compression that was applied before giving up (a ``CompressionResult``, or
        a ``ProcessResult`` from a ``ContextProcessor``): its offloads are written, so
        callers keep it rather than redo it."""
        self.store_error = store_error
        """Why steps were skipped when the offload store failed (it names the store and
        its exception); ``None`` when only pinned messages are left."""
        head = (f"prompt is {tokens} tokens after compression, {self.excess} over the "
                f"{limit}-token budget (the window less the answer reserve and the safety "
                "margin)")
        if store_error is not None:
            super().__init__(f"{head}: the offload store failed, so ranges that would have "
                             f"been compressed stay whole ({store_error}); nothing is lost, "
                             "and the next call compresses them once the store answers")
        else:
            super().__init__(f"{head}; what is left is pinned: raise max_tokens or pin fewer "
                             "messages")
