"""How numbers are written: digit grouping, full-width and Arabic-Indic digits, CJK
numerals. The language files build their amounts, dates and counts from these."""

from __future__ import annotations

import random

__all__ = [
    "amount",
    "arabic_indic",
    "count",
    "fullwidth",
    "grouped",
    "han_number",
    "hangul_number",
    "plural_genitive_count",
]

_FULLWIDTH = str.maketrans("0123456789%.,:", "０１２３４５６７８９％．，：")
_ARABIC_INDIC = str.maketrans("0123456789%.,", "٠١٢٣٤٥٦٧٨٩٪٫٬")
_HAN_DIGITS = "〇一二三四五六七八九"
_HANGUL_DIGITS = ("", "일", "이", "삼", "사", "오", "육", "칠", "팔", "구")


def grouped(n: int, sep: str) -> str:
    """``n`` with ``sep`` between groups of three digits (``1.250``, ``1 250``)."""
    return f"{n:,}".replace(",", sep)


def fullwidth(text: str) -> str:
    """``text`` with full-width digits (``５０００``), as CJK keyboards often type them."""
    return text.translate(_FULLWIDTH)


def arabic_indic(text: str) -> str:
    """``text`` with Arabic-Indic digits (``٣٥٠٠``) and the Arabic percent sign."""
    return text.translate(_ARABIC_INDIC)


def han_number(n: int) -> str:
    """``n`` (1-99) in Chinese numerals: 15 -> 十五, 40 -> 四十."""
    if not 1 <= n <= 99:
        raise ValueError(f"han_number takes 1 to 99, got {n}")
    tens, ones = divmod(n, 10)
    head = "" if tens == 0 else ("十" if tens == 1 else _HAN_DIGITS[tens] + "十")
    return head + (_HAN_DIGITS[ones] if ones else "")


def hangul_number(n: int) -> str:
    """``n`` (1-99) in Sino-Korean words: 15 -> 십오, 40 -> 사십."""
    if not 1 <= n <= 99:
        raise ValueError(f"hangul_number takes 1 to 99, got {n}")
    tens, ones = divmod(n, 10)
    head = "" if tens == 0 else ("십" if tens == 1 else _HANGUL_DIGITS[tens] + "십")
    return head + _HANGUL_DIGITS[ones]


def amount(rng: random.Random) -> int:
    """A money amount from 120 to 9,895, in steps of 5: large enough a space that two
    sessions' caps rarely meet, round enough to read as typed by a person."""
    return rng.randrange(24, 1980) * 5


def count(rng: random.Random, lo: int, hi: int) -> int:
    """A count in ``[lo, hi)``."""
    return rng.randrange(lo, hi)


def plural_genitive_count(rng: random.Random, lo: int, hi: int) -> int:
    """A count in ``[lo, hi)`` whose noun takes the genitive plural in Slavic languages
    (ends in 0 or 5-9, or in 11-19), so one noun form fits every number drawn."""
    while True:
        n = rng.randrange(lo, hi)
        if n % 10 in (0, 5, 6, 7, 8, 9) or 11 <= n % 100 <= 19:
            return n
