"""Words of exclusive alternatives: "at home" or "at the office" is one value swapped.

The paraphrase fold reads two statements with no name by their shared words
(:func:`memgate.stages.resolve_paraphrase.fold_target`), and a word of one concept counts
as the same word ("Arbeit" / "Büro"). Some words name alternatives of one slot instead:
where one works (at home, at the office), so "Je travaille de chez moi le lundi" and "Je
travaille au bureau le lundi" share every other word and still say two values. The groups
are data (``contrasts`` in ``memgate/data/paraphrase.json``: each a list of alternatives,
each alternative its words in the six languages); two statements each saying an
alternative the other does not say are two values (:func:`alternatives_swapped`).
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Final

from memgate.core.events import normalise

__all__ = ["CONTRASTS", "alternatives_swapped"]

_WORD_RE: Final = re.compile(r"\w+", re.UNICODE)
_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")

Alternatives = tuple[frozenset[str], ...]


def _load() -> tuple[Alternatives, ...]:
    text = resources.files("memgate.data").joinpath("paraphrase.json").read_text("utf-8")
    groups = json.loads(text).get("contrasts", [])
    return tuple(tuple(frozenset(normalise(w) for w in alt) for alt in g) for g in groups)


CONTRASTS: Final = _load()


def _said(text: str, words: frozenset[str]) -> bool:
    """A word (or words, "chez moi") of ``words`` in the normalised ``text``; Chinese
    inside a run of characters."""
    padded = f" {' '.join(_WORD_RE.findall(text))} "
    return any(f" {w} " in padded or (_CJK_RE.search(w) and w in text) for w in words)


def alternatives_swapped(a: str, b: str, contrasts: tuple[Alternatives, ...] = CONTRASTS) -> bool:
    """Each side says an alternative of one group that the other side does not say.

    >>> alternatives_swapped("Je travaille de chez moi le lundi", "Le lundi je suis au bureau")
    True
    >>> alternatives_swapped("Trabajo desde casa los viernes", "Los viernes trabajo en casa")
    False
    >>> alternatives_swapped("I work from home on Mondays", "Mondays I work remotely")
    False
    """
    na, nb = normalise(a), normalise(b)
    for group in contrasts:
        in_a = {i for i, alt in enumerate(group) if _said(na, alt)}
        in_b = {i for i, alt in enumerate(group) if _said(nb, alt)}
        if in_a - in_b and in_b - in_a:
            return True
    return False
