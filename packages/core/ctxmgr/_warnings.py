"""Warnings that point at the user's line, not at ctxmgr's internals."""

from __future__ import annotations

import sys
import warnings

__all__ = ["warn_caller"]

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
