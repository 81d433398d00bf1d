"""Spans that say a fact has held all along, not that it changed.

A word of such a span ("seit", "depuis", "desde", "since", "从") is a change cue of the
lexicon ("seit kurzem", "since I moved"), but "Ich spiele seit Jahren Schach", "je suis
végétarienne depuis dix ans" and "从小就对花生过敏" say that nothing changed; nor does
"depuis" or "desde" said of a place ("je travaille depuis chez moi", "trabajo desde casa").
The spans are data (``lasting`` in ``memgate/data/same.json``, per language); the folds
read a text without them (:func:`without_lasting`) before they ask for a change cue, and
the change rules still read the whole text.

A fold reads every stored value of the speaker again for each candidate, so the reading is
kept per text (an erasure empties it) and a text holding none of ``lasting_keys`` (a word
every span holds: its since-word, "for", "schon", "há", "从") is not read further.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any, Final

from memgate.core.memo import reading_cache

__all__ = ["LASTING", "alternation", "without_lasting"]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
#: the texts whose reading is kept (an active fact's value is read for every candidate)
_KEPT: Final = 16_384


def alternation(by_language: dict[str, list[str]]) -> re.Pattern[str] | None:
    """One pattern of every language's patterns (None: none)."""
    parts = [p for patterns in by_language.values() for p in patterns]
    return re.compile("|".join(f"(?:{p})" for p in parts), re.IGNORECASE) if parts else None


def _keys(by_language: dict[str, list[str]]) -> re.Pattern[str]:
    words = sorted({w for ws in by_language.values() for w in ws}, key=len, reverse=True)
    cjk = [re.escape(w) for w in words if _CJK_RE.search(w)]
    latin = [re.escape(w) for w in words if not _CJK_RE.search(w)]
    parts = ([rf"\b(?:{'|'.join(latin)})\b"] if latin else []) + cjk
    return re.compile("|".join(parts) or r"(?!)", re.IGNORECASE)


def _load() -> dict[str, Any]:
    text = resources.files("memgate.data").joinpath("same.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_DATA: Final = _load()
LASTING: Final = alternation(_DATA.get("lasting", {}))
_KEYS: Final = _keys(_DATA.get("lasting_keys", {})) if _DATA.get("lasting_keys") else None


def without_lasting(text: str, pattern: re.Pattern[str] | None = LASTING) -> str:
    """``text`` without its spans of a fact held all along (see the module).

    >>> without_lasting("Ich spiele seit Jahren Schach im Verein")
    'Ich spiele Schach im Verein'
    >>> without_lasting("Je suis végétarienne depuis dix ans.")
    'Je suis végétarienne.'
    >>> without_lasting("Le mercredi, je travaille toujours depuis chez moi")
    'Le mercredi, je travaille toujours chez moi'
    >>> without_lasting("Seit kurzem arbeite ich bei Bosch")
    'Seit kurzem arbeite ich bei Bosch'
    >>> without_lasting("Since I moved I walk to work")
    'Since I moved I walk to work'
    """
    if pattern is None:
        return text
    if LASTING is not None and pattern.pattern == LASTING.pattern:
        return _kept_reading(text)
    return _strip(text, pattern)


@reading_cache(_KEPT)
def _kept_reading(text: str) -> str:
    if _KEYS is not None and _KEYS.search(text) is None:
        return text  # every span holds one of the keys
    return _strip(text, LASTING)


def _strip(text: str, pattern: re.Pattern[str] | None) -> str:
    if pattern is None:
        return text
    out = pattern.sub(" ", text)
    return text if out == text else re.sub(r"\s+([.,;:!?。，])", r"\1", " ".join(out.split()))
