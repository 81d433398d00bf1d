"""Phone numbers written as one run of digits, with no label and no separator.

``ring my desk line 2025550147``, ``llámame, 698765432``, ``13912345678`` (in
Chinese text, glued to the word before it: the finder reads the spaced view).
A run of 9 to 13 digits (or ``+``/``00`` and 9 to 15) is a phone when
``phonenumbers`` finds it a valid number of a region of the supported
languages, written as that region writes it at home: with its trunk prefix
(``0``) where the region has one, except for mobile numbers that are dialled
without it (Chinese ``1xx`` numbers).

A number is not a phone when a word right before it says it is an identifier
(``order 4155550123``, ``Bestellnummer 015112349876``, ``pedido número
612349870``, ``订单号13812349876``; ``identifier_words`` of
``memgate/data/labels.json``), or when it passes the check digit of an EAN-13 or
EAN-8 barcode (``stdnum``), which a phone number does only by chance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib import resources
from typing import Final, NamedTuple

import phonenumbers
from phonenumbers import PhoneNumberType
from stdnum import ean

from memgate.stages.detector_kinds import Cand

__all__ = ["after_identifier", "find_bare_phones"]

PHONE: Final = "phone"
_REGIONS: Final = (
    "US",
    "GB",
    "DE",
    "FR",
    "ES",
    "PT",
    "CN",
    "IT",
    "NL",
    "BE",
    "AT",
    "CH",
    "BR",
    "MX",
)
_MOBILE: Final = frozenset({PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE_OR_MOBILE})
_RUN_RE: Final = re.compile(
    r"(?<![\w+#$€£¥./:@=\-])(?:(?:\+|00)\d{9,15}|\d{9,13})(?![\w@]|[.,:/\-]\d)"
)


class _Words(NamedTuple):
    identifiers: frozenset[str]
    glued: tuple[str, ...]  # Chinese identifier words, glued to the number
    skipped: frozenset[str]  # fillers and one-word connectors ("number", "nº", "is", "est")
    phone_words: frozenset[str]  # the words of the phone labels ("telefone", "mobile")
    particles: frozenset[str]  # "de", "do", "my" between an identifier word and a filler
    fillers: frozenset[str]  # "number", "numéro", "nº"


def _words() -> _Words:
    raw = (resources.files("memgate") / "data" / "labels.json").read_text("utf-8")
    data = json.loads(raw)
    words = {w.lower() for ws in data["identifier_words"].values() for w in ws}
    words.update(w.lower() for w in data.get("identifier_words_numbers_only", ()))
    glued = tuple(sorted((w for w in words if not w.isascii()), key=len, reverse=True))
    fillers = frozenset(w.lower() for w in data["fillers"])
    skipped = set(fillers)
    skipped.update(w.lower() for ws in data["connectors"].values() for w in ws if " " not in w)
    particles = {w.lower() for w in data["particles"]}
    phone = {
        part
        for ws in data["families"]["phone"]["labels"].values()
        for w in ws
        for part in w.lower().rstrip(".").split()
        if part not in skipped and part not in particles and len(part) > 2
    }
    return _Words(
        frozenset(words), glued, frozenset(skipped), frozenset(phone), frozenset(particles), fillers
    )


_W: Final = _words()
_CLAUSE_END: Final = frozenset(".!?;。！？；")
_STRIP: Final = ":#.,()\"'«»“”"


def after_identifier(lower: str, start: int) -> bool:
    """A word before the number at ``start`` says it is an identifier, not a phone or an
    id: right before it (``order 4155550123``, ``Bestellnummer 302-5561842``, ``pedido
    número 612349870``, ``订单号13812349876``), or earlier in the clause next to a
    filler with no phone word after it (``mon numéro client chez EDF est 6012 345
    678``, ``the customer number for the gym is ...``). Word lists:
    ``memgate/data/labels.json``."""
    before = lower[max(0, start - 80) : start]
    if before[-40:].rstrip(" :#：是为").endswith(_W.glued):
        return True
    words = [w.strip(_STRIP) for w in _clause(before.split())]
    words = [w for w in words if w]
    content = [w for w in words if w not in _W.skipped]
    if content and content[-1] in _W.identifiers:
        return True
    for i in range(len(words) - 1, -1, -1):
        word = words[i]
        if word in _W.phone_words:
            return False  # "mon numéro client est 1234, mon téléphone est ..."
        if word in _W.identifiers and _next_to_filler(words, i):
            return True
    return False


def _clause(tokens: list[str]) -> list[str]:
    """The tokens after the last sentence end: ``!?;``, or a full stop that ends no
    abbreviation (``Nr.``, ``no.``, ``St.``: fewer than four letters, or a filler)."""
    for i in range(len(tokens) - 1, -1, -1):
        tok = tokens[i]
        word = tok.rstrip(".")
        abbreviation = tok[-1] == "." and word.isalpha() and (len(word) < 4 or word in _W.fillers)
        if tok[-1] in _CLAUSE_END and not abbreviation:
            return tokens[i + 1 :]
    return tokens


def _next_to_filler(words: list[str], i: int) -> bool:
    """``numéro client``, ``customer number``, ``número de cliente``."""
    j = i - 1
    while j >= 0 and words[j] in _W.particles:
        j -= 1
    k = i + 1
    while k < len(words) and words[k] in _W.particles:
        k += 1
    fillers = _W.fillers
    return (j >= 0 and words[j] in fillers) or (k < len(words) and words[k] in fillers)


def _valid_somewhere(digits: str) -> bool:
    for region in _REGIONS:
        meta = phonenumbers.PhoneMetadata.metadata_for_region(region)
        if meta is None:
            continue
        try:
            num = phonenumbers.parse(digits, region)
        except phonenumbers.NumberParseException:
            continue
        if not phonenumbers.is_valid_number_for_region(num, region):
            continue
        trunk = meta.national_prefix or ""
        if not trunk or digits.startswith(trunk):
            return True
        if phonenumbers.number_type(num) in _MOBILE:
            return True
    return False


def _is_phone(run: str) -> bool:
    if run.startswith(("+", "00")):
        intl = run[2:] if run.startswith("00") else run[1:]
        try:
            return bool(phonenumbers.is_valid_number(phonenumbers.parse("+" + intl)))
        except phonenumbers.NumberParseException:
            return False
    if len(run) in (8, 13) and ean.is_valid(run):
        return False
    return _valid_somewhere(run)


def find_bare_phones(spaced: str, lower: str) -> Iterator[Cand]:
    """``spaced``: the text with Chinese as spaces; ``lower``: with Chinese kept."""
    for m in _RUN_RE.finditer(spaced):
        if after_identifier(lower, m.start()):
            continue
        if _is_phone(m.group()):
            yield Cand(m.start(), m.end(), PHONE)
