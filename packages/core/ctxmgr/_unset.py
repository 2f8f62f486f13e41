"""``UNSET``: an argument or setting left out, where ``None`` means something else.

As in httpx: ``summarizer=None`` runs only the strategies that need no summary, while a
summarizer left out (``UNSET``) is chosen by the default rule; ``max_tokens`` left out is
read from the model. Compare with ``is UNSET``; ``UNSET`` is falsy.
"""

from __future__ import annotations

from enum import Enum
from typing import Final, Literal, TypeAlias

__all__ = ["UNSET", "Unset"]


class _UnsetType(Enum):
    """The type of :data:`UNSET` (an enum member, so it pickles and type-checks)."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = _UnsetType.UNSET
"""Not given: the documented default rule applies."""

Unset: TypeAlias = Literal[_UnsetType.UNSET]
"""The type of :data:`UNSET`, for annotations (``int | Unset``)."""
