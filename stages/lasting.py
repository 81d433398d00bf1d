"""Spans that say a fact has held all along, not that it changed.

A word of such a span ("seit", "depuis", "desde", "since", "从") is a change cue of the
lexicon ("seit kurzem", "since I moved"), but "Ich spiele seit Jahren Schach", "je suis
végétarienne depuis dix ans" and "从小就对花生过敏" say that nothing changed; nor does
"depuis" or "desde" said of a place ("je travaille depuis chez moi", "trabajo desde casa").
The spans are data (``lasting`` in ``memgate/data/same.json``, per language); the folds
read a text without them (:func:`without_lasting`) before they ask for a change cue, and
the change rules still read the whole text.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Final

__all__ = ["LASTING", "alternation", "without_lasting"]


def alternation(by_language: dict[str, list[str]]) -> re.Pattern[str] | None:
    """One pattern of every language's patterns (None: none)."""
    parts = [p for patterns in by_language.values() for p in patterns]
    return re.compile("|".join(f"(?:{p})" for p in parts), re.IGNORECASE) if parts else None


def _load() -> re.Pattern[str] | None:
    text = resources.files("memgate.data").joinpath("same.json").read_text("utf-8")
    return alternation(json.loads(text).get("lasting", {}))


LASTING: Final = _load()


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
    out = pattern.sub(" ", text)
    return text if out == text else re.sub(r"\s+([.,;:!?。，])", r"\1", " ".join(out.split()))
