"""The replacement structures of ``memgate/data/change.json`` ("sold X and bought Y",
"Y instead of X", "left X and joined Y", "opened Y and closed X", "X -> Y") and the words
that say a statement adds a value ("also"): read by :mod:`~memgate.stages.resolve_change`
(the old value pins the fact a change replaces) and by the paraphrase fold
(:mod:`~memgate.stages.resolve_paraphrase`: a statement that says it replaces a fact is
never a restatement of it). A module of its own so that both can read it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from memgate.core.events import normalise
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_slots import anchors

__all__ = ["CHANGE", "ChangeRules", "names", "replaced_value", "replaces"]

_WORD_RE: Final = re.compile(r"[^\W_]+")
_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")


def _words(words: Iterable[str]) -> re.Pattern[str] | None:
    latin = sorted((w for w in words if not _CJK_RE.search(w)), key=len, reverse=True)
    cjk = sorted((w for w in words if _CJK_RE.search(w)), key=len, reverse=True)
    parts = []
    if latin:
        parts.append(r"(?<![^\W_])(?:" + "|".join(map(re.escape, latin)) + r")(?![^\W_])")
    if cjk:
        parts.append("|".join(map(re.escape, cjk)))
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


@dataclass(frozen=True)
class ChangeRules:
    """The words and bars of ``memgate/data/change.json``."""

    version: str
    frame_floor: float
    margin: float
    additive: re.Pattern[str] | None
    replacements: tuple[re.Pattern[str], ...]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> ChangeRules:
        add = [w for words in data["additive"].values() for w in words]
        reps = [p for pats in data["replacements"].values() for p in pats]
        return cls(
            str(data["version"]),
            float(data["frame_floor"]),
            float(data["margin"]),
            _words(add),
            tuple(re.compile(p, re.IGNORECASE) for p in reps),
        )

    def adds(self, text: str) -> bool:
        """The statement says it adds a value beside the stored ones ("I also ...")."""
        return self.additive is not None and self.additive.search(text) is not None


def _load() -> ChangeRules:
    text = resources.files("memgate.data").joinpath("change.json").read_text("utf-8")
    return ChangeRules.from_data(json.loads(text))


CHANGE: Final = _load()


def replaced_value(text: str, rules: ChangeRules = CHANGE) -> tuple[str, str] | None:
    """The old and the new value of a replacement structure in ``text``, or None.

    >>> replaced_value("Vendi o Gol e comprei um Onix.")
    ('Gol', 'Onix')
    >>> replaced_value("We moved everything from Bitbucket to GitHub last spring")
    ('Bitbucket', 'GitHub last spring')
    >>> replaced_value("I also started climbing") is None
    True
    """
    for pattern in rules.replacements:
        m = pattern.search(text)
        if m is not None and m.group("old").strip() and m.group("new").strip():
            return m.group("old").strip(), m.group("new").strip()
    return None


def _tokens(text: str) -> set[str]:
    return set(_WORD_RE.findall(normalise(text)))


def names(value: str, said: str, lex: Lexicon = LEXICON) -> bool:
    """``said`` names every word of ``value`` (Chinese: holds it); an elided article is a
    word of its own ("l'amlodipine" names "amlodipine").

    >>> names("amlodipine", "Je prends de l'amlodipine"), names("Itaú", "Meu banco é o Inter")
    (True, False)
    """
    if _CJK_RE.search(value):
        return normalise(value) in normalise(said)
    need = anchors(value, sentence=False) or _tokens(value)
    return bool(need) and need <= _tokens(said) | _tokens(lex.unelide(said))


def replaces(pair: tuple[str, str] | None, value: str) -> bool:
    """``pair`` (the old and the new value of a statement's replacement structure,
    :func:`replaced_value`) says the statement replaces ``value``: its old value is named
    by ``value``, its new value is not.

    >>> said = "Le médecin m'a mis sous ramipril au lieu de l'amlodipine"
    >>> replaces(replaced_value(said), "Je prends de l'amlodipine le matin")
    True
    >>> replaces(replaced_value("I take the train instead of driving"), "I drive a Skoda")
    False
    """
    return pair is not None and names(pair[0], value) and not names(pair[1], value)
