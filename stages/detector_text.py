"""Same-length views of a text that the detectors scan, so every span maps back.

* :func:`ascii_view`: every Unicode decimal digit ("٤", "４") as its ASCII digit
  and every full-width ASCII form ("＠", "：", "Ａ") as its ASCII character, so
  checksums, phone metadata and ``@`` see them. Chinese text is kept.
* :func:`spaced_view`: the same, with every CJK character (ideographs, kana,
  hangul) and CJK punctuation as a space. Chinese has no spaces between words,
  so ``手机13812345678`` or ``邮箱zhang@163.com`` glue a value to the word before
  it; the format finders (e-mail, phone, card, IBAN, keys) look for word
  boundaries and see one here. The label finders read :func:`ascii_view`, where
  the Chinese labels are.

Both are pure and keep the length: index ``i`` of a view is index ``i`` of the text.

>>> spaced_view(ascii_view("手机１３８１２３４５６７８，邮箱zhang＠163.com"))
'  13812345678   zhang@163.com'
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Final

__all__ = [
    "aligned_lower",
    "ascii_view",
    "is_cjk",
    "occurrences",
    "segment_starts",
    "spaced_view",
]

_FULLWIDTH_FIRST, _FULLWIDTH_LAST = 0xFF01, 0xFF5E
_FULLWIDTH_SHIFT = 0xFEE0

# Ranges of scripts written without spaces, and their punctuation.
_CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3000, 0x303F),  # CJK symbols and punctuation (、。「」…), ideographic space
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF0C, 0xFF0C),  # full-width comma
    (0xFF1B, 0xFF1B),  # full-width semicolon
    (0xFF01, 0xFF01),  # full-width exclamation mark
    (0xFF1F, 0xFF1F),  # full-width question mark
    (0xFF08, 0xFF09),  # full-width parentheses
    (0x20000, 0x2FA1F),  # CJK extensions B-F, compatibility supplement
)
_CJK_FIRST: Final = min(lo for lo, _ in _CJK_RANGES)


def is_cjk(ch: str) -> bool:
    """True for a character of a script written without spaces (or its punctuation)."""
    cp = ord(ch)
    if cp < _CJK_FIRST:  # every Latin letter, digit and sign: the ranges start above
        return False
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def ascii_view(text: str) -> str:
    """Same-length copy: Unicode digits as ASCII digits, full-width forms as ASCII."""
    if text.isascii():
        return text
    out: list[str] = []
    for ch in text:
        if ch.isascii():
            out.append(ch)
            continue
        cp = ord(ch)
        if ch.isdecimal():
            out.append(str(unicodedata.decimal(ch)))
        elif _FULLWIDTH_FIRST <= cp <= _FULLWIDTH_LAST and cp not in _KEPT_FULLWIDTH:
            out.append(chr(cp - _FULLWIDTH_SHIFT))
        else:
            out.append(ch)
    return "".join(out)


# Full-width punctuation that ends a clause in Chinese: kept, so the spaced view
# turns it into a space rather than an ASCII "," glued to a value.
_KEPT_FULLWIDTH = frozenset({0xFF0C, 0xFF1B, 0xFF01, 0xFF1F, 0xFF08, 0xFF09})


def spaced_view(view: str) -> str:
    """Same-length copy of a view with CJK characters and punctuation as spaces."""
    if view.isascii():
        return view
    return "".join(" " if not ch.isascii() and is_cjk(ch) else ch for ch in view)


def aligned_lower(text: str) -> str:
    """``text.lower()`` with the same length, so indexes can be shared."""
    lower = text.lower()
    if len(lower) == len(text):
        return lower
    return "".join(low if len(low := ch.lower()) == 1 else ch for ch in text)


def occurrences(haystack: str, needles: Iterable[str]) -> list[int]:
    """Sorted start indexes of all needles (fast C substring search)."""
    found: set[int] = set()
    for needle in needles:
        i = haystack.find(needle)
        while i != -1:
            found.add(i)
            i = haystack.find(needle, i + 1)
    return sorted(found)


_TOKEN_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def segment_starts(text: str, i: int) -> list[int]:
    """Start of the identifier-like token containing ``text[i]`` and every
    position just after a ``_``/``.``/``-`` inside it, up to ``i``."""
    j = i
    while j > 0 and text[j - 1] in _TOKEN_CHARS and i - j < 64:
        j -= 1
    starts = [j]
    starts.extend(k + 1 for k in range(j, i) if text[k] in "_.-")
    return starts
