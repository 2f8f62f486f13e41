"""Test budgets: a bounded CI profile and a long profile to run by hand.

``CTXMGR_PROFILE=long bash scripts/test.sh -m "not slow"`` repeats every race
and fault scenario more times and lets Hypothesis draw many more examples (see
``tests/conftest.py``); the default keeps the whole suite within its budget.
"""

from __future__ import annotations

import os

__all__ = ["LONG", "examples", "repeats"]

LONG = os.environ.get("CTXMGR_PROFILE", "").lower() == "long"


def repeats(ci: int, *, long: int) -> int:
    """How many times a race or fault scenario runs under the active profile."""
    return long if LONG else ci


def examples(ci: int) -> int:
    """``max_examples`` for a property test that sets its own: ten times more when long."""
    return ci * 10 if LONG else ci
