"""What follows a typed value in its sentence and belongs to it.

A rule reads a value where its pattern ends: "a dog" from "I have a dog, a beagle named
Rocky", "un chien" from "J'ai un chien, un border collie qui s'appelle Filou", "a design
studio" from "I work at a design studio in Lisbon". The name and the city are part of the
value (issue 9: facts keep whole values), and a later "my beagle Rocky" or "the Lisbon
studio" must find them. :func:`extend` reads, right after the value and in the same
sentence, the tails its predicate takes (``memgate/data/value_tails.json``):

* ``naming``: a word of naming and a capitalised name ("named Rocky", "que se llama
  Trufa", "qui s'appelle Filou", "叫 Lucky"), or a German relative ("der Bruno heißt");
  an apposition before it (", a beagle", ", un galgo") comes with it;
* ``place``: a preposition and one or two capitalised words that are no date ("in
  Lisbon", ", à Paris"; not "in March").

Nothing else is added: a tail read only in part adds nothing.

>>> extend("has_pet", "a dog", ", a beagle named Rocky.")
'a dog, a beagle named Rocky'
>>> extend("has_pet", "un perro", ", un galgo que se llama Trufa.")
'un perro, un galgo que se llama Trufa'
>>> extend("works_at", "a design studio", " in Lisbon, mostly remote.")
'a design studio in Lisbon'
>>> extend("works_at", "Google", " in March."), extend("has_pet", "a dog", ", and a cat.")
('Google', 'a dog')
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any, Final

from memgate.stages.extract_dates import parse_event_date

__all__ = ["TAILED", "Tails", "data", "extend"]

_NAME: Final = r"[A-ZÀ-ÖØ-Þ][\w'’-]*"
_CJK_NAME: Final = r"\s*[A-Za-z\u4e00-\u9fff][\w'’-]*"
#: any day: the date reader only says whether the words are a time
_SOME_DAY: Final = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Tails:
    """The data of :mod:`memgate.stages.value_tails`, compiled."""

    version: str
    predicates: dict[str, frozenset[str]]
    naming: re.Pattern[str]
    place: re.Pattern[str]
    naming_words: frozenset[str] = frozenset()
    """The one-word entries of ``naming`` ("named", "chamado"): they say a name follows,
    no content of the value (:func:`memgate.stages.resolve_probe.covered`)."""


def _words(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))


@cache
def data() -> Tails:
    """The tails, read once."""
    raw: dict[str, Any] = json.loads(
        resources.files("memgate.data").joinpath("value_tails.json").read_text("utf-8")
    )
    articles = _words(raw["articles"])
    latin = [w for w in raw["naming"] if not re.search(r"[\u4e00-\u9fff]", w)]
    cjk = [w for w in raw["naming"] if re.search(r"[\u4e00-\u9fff]", w)]
    relatives = "|".join(
        rf"(?i:{re.escape(a)})\s+{_NAME}\s+(?i:{re.escape(b)})"
        for pairs in raw["relative_naming"].values()
        for a, b in pairs
    )
    end = rf"(?=\s*(?:[,.;:!?，。；：！？)]|$|\s+(?:{_words(raw['clause_ends'])})\b))"
    stops = _words([*raw["clause_ends"], *raw["articles"]])
    n = int(raw["max_apposition_words"])
    # ", a beagle" before the name, or a word or two of lower case after the value
    # ("um gato persa chamado Biscoito": the breed)
    apposition = (
        rf"(?:\s*,\s*(?i:{articles})\s+(?:[\w'’-]+\s+){{0,{n - 1}}}?[\w'’-]+"
        rf"|(?:\s+(?!(?i:{stops})\b)[^\W\d_A-Z][\w'’-]*){{1,{n}}}?)?"
    )
    naming_word = rf"(?:\s*,)?\s+(?:(?i:{_words(latin)})\s+{_NAME}"
    if relatives:
        naming_word += rf"|{relatives}"
    naming_word += ")"
    if cjk:
        naming_word = rf"(?:{naming_word}|\s*[,，]?\s*(?:{_words(cjk)}){_CJK_NAME})"
    return Tails(
        version=str(raw["version"]),
        predicates={p: frozenset(t) for p, t in raw["predicates"].items()},
        naming=re.compile(rf"^{apposition}{naming_word}{end}"),
        naming_words=frozenset(w.casefold() for w in latin if " " not in w),
        place=re.compile(
            rf"^(?:\s*,)?\s+(?i:{_words(raw['place_prepositions'])})\s+{_NAME}(?:\s+{_NAME})?{end}"
        ),
    )


#: The predicates that take a tail (a set to test before anything is read).
TAILED: Final = frozenset(data().predicates)


def extend(predicate: str, value: str, rest: str) -> str:
    """``value`` with the tail of ``rest`` (the sentence right after it) that belongs to it
    (see the module); ``value`` itself when there is none."""
    kinds = data().predicates.get(predicate)
    if not kinds or not rest:
        return value
    for kind in ("naming", "place"):
        if kind not in kinds:
            continue
        m = (data().naming if kind == "naming" else data().place).match(rest)
        if m is None:
            continue
        tail = m.group(0).rstrip()
        if kind == "place" and _is_time(tail):
            continue
        return value + tail
    return value


def _is_time(tail: str) -> bool:
    """The place of a tail is a month or a day ("in March", "im Mai")."""
    return parse_event_date(tail.lower(), _SOME_DAY) is not None
