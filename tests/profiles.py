"""Test budgets: a bounded CI profile and a long profile to run by hand.

``CTXMGR_PROFILE=long bash scripts/test.sh -m "not slow"`` repeats every race
and fault scenario more times and lets Hypothesis draw many more examples (see
``tests/conftest.py``); the default keeps the whole suite within its budget.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TypeVar

_T = TypeVar("_T")

__all__ = ["LONG", "examples", "repeats", "sample"]

LONG = os.environ.get("CTXMGR_PROFILE", "").lower() == "long"


def repeats(ci: int, *, long: int) -> int:
    """How many times a race or fault scenario runs under the active profile."""
    return long if LONG else ci


def examples(ci: int) -> int:
    """``max_examples`` for a property test that sets its own: ten times more when long."""
    return ci * 10 if LONG else ci


def sample(items: Sequence[_T], *, every: int) -> Sequence[_T]:
    """The recorded runs a test over every run walks under the active profile: every
    ``every``-th one, in order (a fixed half or third, the same each time), or all of them
    when long."""
    return items if LONG else items[::every]
