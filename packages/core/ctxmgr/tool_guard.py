"""Tool handlers that answer, never raise: what goes wrong becomes the tool result.

A tool call comes from the model, and an exception out of its handler ends the agent's
run. Each of ctxmgr's handlers already turns every input the model can send and every
store failure into a tool result; :func:`never_raises` is the last line behind them, so
a failure nobody foresaw (a backend breaking its contract, a bug) is logged with its
traceback and answered too. Any handler can wear it (``context_reload`` and the session
engine's tools do).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["failure_text", "never_raises"]

logger = logging.getLogger(__name__)

_P = ParamSpec("_P")
_R = TypeVar("_R")


def failure_text(tool: str, exc: BaseException) -> str:
    """The tool result for a call that failed with ``exc``: what failed, and what to do."""
    text = (str(exc).strip().splitlines() or [""])[0][:300]
    return (f"Error: {tool} failed ({type(exc).__name__}: {text}). This is not a problem "
            "with your input; carry on from the conversation as it is, or try again later.")


def never_raises(tool: str, answer: Callable[[str], _R]
                 ) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Wrap a tool handler so that an ``Exception`` from it is logged and answered with
    ``answer(failure_text(tool, exc))`` (``str`` for handlers returning text)."""
    def wrap(handler: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(handler)
        def guarded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return handler(*args, **kwargs)
            except Exception as exc:
                logger.exception("%s failed; the model is told so in the tool result", tool)
                return answer(failure_text(tool, exc))
        return guarded
    return wrap
