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
from typing import Final

import phonenumbers
from phonenumbers import PhoneNumberType
from stdnum import ean

from memgate.stages.detector_kinds import Cand

__all__ = ["find_bare_phones"]

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


def _identifier_words() -> tuple[frozenset[str], tuple[str, ...], frozenset[str]]:
    raw = (resources.files("memgate") / "data" / "labels.json").read_text("utf-8")
    data = json.loads(raw)
    words = {w.lower() for ws in data["identifier_words"].values() for w in ws}
    glued = tuple(sorted((w for w in words if not w.isascii()), key=len, reverse=True))
    skipped = {w.lower() for w in data["fillers"]}
    skipped.update(w.lower() for ws in data["connectors"].values() for w in ws if " " not in w)
    return frozenset(words), glued, frozenset(skipped)


_IDENTIFIER_WORDS, _GLUED_IDENTIFIERS, _FILLERS = _identifier_words()


def _after_identifier(lower: str, start: int) -> bool:
    before = lower[max(0, start - 40) : start]
    if before.rstrip(" :#：是为").endswith(_GLUED_IDENTIFIERS):
        return True
    words = [w.strip(":#.,()") for w in before.split()]
    words = [w for w in words if w and w not in _FILLERS]
    return bool(words) and words[-1] in _IDENTIFIER_WORDS


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
        if _after_identifier(lower, m.start()):
            continue
        if _is_phone(m.group()):
            yield Cand(m.start(), m.end(), PHONE)
