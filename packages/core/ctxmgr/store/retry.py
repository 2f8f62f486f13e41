"""Bounded retries for store calls, and one error type for whatever a backend raises.

A shared store fails now and then for a moment: a dropped connection, a timeout, a busy
database. :class:`StoreRetry` tries such a call again a few times with a growing pause;
what still fails, and anything a backend raises that is not an ``OSError`` (a redis or
psycopg error, ``ConnectionError``, ``TimeoutError``), reaches the caller as one
:class:`~ctxmgr.StoreError` that names the store and the exception.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ctxmgr.errors import ConfigError, StoreError

__all__ = ["DEFAULT_STORE_RETRY", "StoreRetry", "store_error"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreRetry:
    """How often a failing store call is tried, and how long to wait in between.

    Example::

        ContextMiddleware(config, store_retry=StoreRetry(attempts=5, backoff_s=0.2))

    Args:
        attempts: tries in all (1: no retry).
        backoff_s: pause before the second try; it doubles before each later one.
        max_backoff_s: the longest pause.
    """

    attempts: int = 3
    backoff_s: float = 0.05
    max_backoff_s: float = 1.0

    def __post_init__(self) -> None:
        if isinstance(self.attempts, bool) or not isinstance(self.attempts, int) \
                or not 1 <= self.attempts <= 100:
            raise ConfigError(f"attempts must be an int from 1 to 100, got {self.attempts!r}")
        for name in ("backoff_s", "max_backoff_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not 0 <= value <= 60:
                raise ConfigError(f"{name} must be a number of seconds from 0 to 60, "
                                  f"got {value!r}")

    def pauses(self) -> list[float]:
        """The pause before each try after the first, in seconds."""
        return [min(self.backoff_s * 2 ** k, self.max_backoff_s)
                for k in range(self.attempts - 1)]

    def call(self, fn: Callable[[], _T], *, store: object, action: str) -> _T:
        """``fn()``, tried up to :attr:`attempts` times.

        Raises:
            ConfigError: ``fn`` refused a key (no retry can fix that).
            StoreError: every try failed; it names ``store`` and the last exception.
        """
        pauses = self.pauses()
        for attempt in range(self.attempts):
            try:
                return fn()
            except ConfigError:
                raise
            except Exception as exc:
                if attempt == len(pauses):
                    raise store_error(exc, store=store, action=action,
                                      attempts=self.attempts) from exc
            time.sleep(pauses[attempt])
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


DEFAULT_STORE_RETRY = StoreRetry()
"""Three tries, 0.05 s then 0.1 s apart: a blip costs a fraction of a second."""


def store_error(exc: BaseException, *, store: object, action: str,
                attempts: int = 1) -> StoreError:
    """``exc`` as a :class:`~ctxmgr.StoreError` naming ``store``, what it was doing and the
    exception (its first line: a driver may add the SQL on further ones)."""
    text = (str(exc).strip().splitlines() or [""])[0][:300]
    tries = f" ({attempts} attempts)" if attempts > 1 else ""
    message = f"{store!r} could not {action}{tries}: {type(exc).__name__}: {text}"
    errno = getattr(exc, "errno", None)
    return StoreError(errno, message) if isinstance(errno, int) else StoreError(message)
