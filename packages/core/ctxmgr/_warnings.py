"""Warnings that point at the user's line, not at ctxmgr's internals."""

from __future__ import annotations

import sys
import warnings

__all__ = ["warn_caller", "warn_once"]

_warned: set[str] = set()
"""The keys :func:`warn_once` has warned about in this process."""

_OWN_PACKAGES = frozenset({"ctxmgr", "ctxmgr_langgraph", "ctxmgr_llamaindex"})


def _outside_stacklevel() -> int:
    """The ``stacklevel`` of the first frame, seen from this function's caller, whose
    module is not part of ctxmgr or its adapters."""
    frame = sys._getframe(2)  # the caller of warn_caller
    level = 1
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.partition(".")[0] not in _OWN_PACKAGES:
            return level
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def warn_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the nearest caller outside ctxmgr, so the
    warning shows the user's line however deep inside ctxmgr it was raised."""
    warnings.warn(message, category, stacklevel=_outside_stacklevel() + 1)


def warn_once(key: str, message: str, category: type[Warning] = UserWarning) -> None:
    """:func:`warn_caller` the first time ``key`` is given in this process, then never:
    a setting assumed by every agent built says so once, not once per agent."""
    if key in _warned:
        return
    _warned.add(key)
    warn_caller(message, category)
