"""Street addresses: a house number next to a street-type word, in each language.

The structure, not a list of streets: a number and a street type on either
side of a capitalised name, in the order each language writes it (data:
``memgate/data/addresses.json``):

* number, name, type (en): ``4417 Larkspur Lane``, ``48 Cromwell Road``;
* number, type, name (fr, it): ``14 rue des Tanneurs``, ``8 avenue Jean Jaurès``;
* type, name, number (es, pt, it): ``Calle del Pez 27``, ``Rua das Flores 58``,
  ``Avenida de América 112``;
* a type glued to the name, then the number (de, nl): ``Kastanienstraße 23b``,
  ``Lindenallee 17``; or after a capitalised name: ``Berliner Straße 45``;
* Chinese: divisions, a street word, a number and ``号``:
  ``上海市徐汇区漕溪北路88号``.

A match is extended over what follows it in an address: a floor or door
(``3º B``), a postcode with its city (``80331 München``, ``4100-130 Porto``,
``London SW7 4EF``), a city after a comma. A number without a street type (``Room
1204``, ``sala 4B``, ``Raum 2.14``) is not an address.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from importlib import resources
from typing import Any, Final

from memgate.stages.detector_kinds import ADDRESS, Cand

__all__ = ["ADDRESS", "find_addresses", "may_hold"]


def _load() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "addresses.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


_DATA: Final = _load()


def _alt(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_UPPER: Final = "A-ZÀ-ÝÄÖÜ"
_NAME_WORD: Final = rf"[{_UPPER}][\w'’.\-]*"
_PARTICLE: Final = rf"(?:{_alt(_DATA['particles'])})"
# A street name: capitalised words, with particles between or before them.
_NAME: Final = rf"(?:{_PARTICLE}\s*)*{_NAME_WORD}(?:\s+(?:{_PARTICLE}\s*)*{_NAME_WORD}){{0,4}}"
_HOUSE: Final = r"\d{1,5}(?:\s?(?:bis|ter)\b|[A-Za-z](?![\w]))?(?:\s?[-/]\s?\d{1,4}[a-z]?)?"
_END: Final = r"(?![\w])"

_PATTERNS: Final = (
    # 4417 Larkspur Lane
    re.compile(
        rf"(?<![\w./\-]){_HOUSE},?\s+(?:{_NAME_WORD}\s+){{1,4}}"
        rf"(?i:{_alt(_DATA['number_then_type'])})\.?{_END}"
    ),
    # 14 rue des Tanneurs
    re.compile(rf"(?<![\w./\-]){_HOUSE},?\s+(?i:{_alt(_DATA['number_type_name'])})\s+{_NAME}"),
    # Calle del Pez 27, Avenida de América 112
    re.compile(
        rf"(?<![\w\-])(?i:{_alt(_DATA['type_name_number'])})\s*{_NAME},?\s+"
        rf"(?:[nN]\.?\s?[º°o]\.?\s*)?\d{{1,5}}[A-Za-z]?{_END}"
    ),
    # Kastanienstraße 23b, Hauptstr. 5
    re.compile(
        rf"(?<![\w\-])[{_UPPER}][a-zäöüßéè]+(?:-[{_UPPER}]?[a-zäöüßéè]+)*"
        rf"(?:{_alt(_DATA['compound_suffixes'])})\s*{_HOUSE}{_END}"
    ),
    # Berliner Straße 45
    re.compile(
        rf"(?<![\w\-])[{_UPPER}][a-zäöüß]+\s+(?:{_alt(_DATA['separate_types'])})\s+{_HOUSE}{_END}"
    ),
)

_ZH: Final[dict[str, list[str]]] = _DATA["zh"]
_HAN: Final = r"[\u4e00-\u9fff]"
_ZH_RE: Final = re.compile(
    rf"(?:{_HAN}{{1,8}}?(?:{_alt(_ZH['admin'])}))*"
    rf"{_HAN}{{1,10}}?(?:{_alt(_ZH['street'])})\s*\d{{1,5}}\s*(?:{_alt(_ZH['number'])})"
    rf"(?:[\u4e00-\u9fff\dA-Za-z]{{0,10}}?(?:{_alt(_ZH['building'])}))*"
)
_ZH_HINTS: Final = tuple(_ZH["street"])

_CITY: Final = rf"[{_UPPER}][\w'’\-]+(?:\s[{_UPPER}][a-zà-ÿ][\w'’\-]*)?"
_EXTENSIONS: Final = (
    re.compile(r",?\s*\d{1,3}\s?[º°ª]\s?[A-Za-z]?(?![\w])"),  # 3º B
    re.compile(
        rf",?\s*(?:\d{{5}}|\d{{4}}-\d{{3}}|\d{{4}})\s+{_CITY}"  # 80331 München
    ),
    re.compile(r",?\s*[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}(?![\w])"),  # SW7 4EF
    re.compile(r",?\s*[A-Z]{2}\s+\d{5}(?:-\d{4})?(?![\w])"),  # ID 83702
    re.compile(rf",\s*{_CITY}(?=[\s,.;!?]|$)"),  # , Boise
)
_HINT_RE: Final = re.compile(r"\d")


def may_hold(text: str) -> bool:
    """Cheap test: an address needs a digit."""
    return _HINT_RE.search(text) is not None


def _extend(text: str, end: int) -> int:
    for _ in range(4):
        for rx in _EXTENSIONS:
            m = rx.match(text, end)
            if m is not None and m.end() > end:
                end = m.end()
                break
        else:
            return end
    return end


def find_addresses(view: str, lower: str) -> Iterator[Cand]:
    """Street addresses in ``view`` (the text with Chinese kept)."""
    del lower
    for rx in _PATTERNS:
        for m in rx.finditer(view):
            yield Cand(m.start(), _extend(view, m.end()), ADDRESS)
    if any(h in view for h in _ZH_HINTS):
        for m in _ZH_RE.finditer(view):
            yield Cand(m.start(), m.end(), ADDRESS)
