"""What the detectors find: kinds, categories, findings, and the checks they share.

Split from :mod:`memgate.stages.detectors` (which re-exports the public names) so that the
finders of :mod:`memgate.stages.detectors_obfuscated` share them without an import cycle.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, NamedTuple

from stdnum import iban as _stdnum_iban

__all__ = [
    "ALL_KINDS",
    "CREDENTIAL_KINDS",
    "KIND_CATEGORY",
    "PII_KINDS",
    "REGULATED_KINDS",
    "Cand",
    "Category",
    "Finding",
    "MaskResult",
    "card_grouping_ok",
    "card_prefix_ok",
    "char_classes",
    "context_before",
    "entropy",
    "iban_valid",
    "looks_like_placeholder",
    "looks_random",
    "luhn_valid",
    "placeholder",
    "slug_like",
]


class Category(StrEnum):
    """Why a finding matters: personal data, a credential, or a regulated category."""

    PII = "pii"
    CREDENTIAL = "credential"
    REGULATED = "regulated"  # payment data and government IDs


@dataclass(frozen=True, slots=True)
class Finding:
    """One detected span. Deliberately holds no copy of the matched value."""

    kind: str
    category: Category
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class MaskResult:
    """Masked text plus how many findings of each kind were replaced."""

    text: str
    counts: dict[str, int]


EMAIL: Final = "email"
PHONE: Final = "phone"
IP_ADDRESS: Final = "ip_address"
NATIONAL_ID: Final = "national_id"
CARD: Final = "card"
IBAN: Final = "iban"
API_KEY: Final = "api_key"
BEARER_TOKEN: Final = "bearer_token"
JWT: Final = "jwt"
PASSWORD: Final = "password"
CONNECTION_STRING: Final = "connection_string"
PRIVATE_KEY: Final = "private_key"
ADDRESS: Final = "address"

KIND_CATEGORY: dict[str, Category] = {
    EMAIL: Category.PII,
    PHONE: Category.PII,
    IP_ADDRESS: Category.PII,
    ADDRESS: Category.PII,
    NATIONAL_ID: Category.REGULATED,
    CARD: Category.REGULATED,
    IBAN: Category.REGULATED,
    API_KEY: Category.CREDENTIAL,
    BEARER_TOKEN: Category.CREDENTIAL,
    JWT: Category.CREDENTIAL,
    PASSWORD: Category.CREDENTIAL,
    CONNECTION_STRING: Category.CREDENTIAL,
    PRIVATE_KEY: Category.CREDENTIAL,
}

ALL_KINDS: Final[frozenset[str]] = frozenset(KIND_CATEGORY)
PII_KINDS: Final[frozenset[str]] = frozenset(
    k for k, c in KIND_CATEGORY.items() if c is Category.PII
)
CREDENTIAL_KINDS: Final[frozenset[str]] = frozenset(
    k for k, c in KIND_CATEGORY.items() if c is Category.CREDENTIAL
)
REGULATED_KINDS: Final[frozenset[str]] = frozenset(
    k for k, c in KIND_CATEGORY.items() if c is Category.REGULATED
)

# On overlap the longest candidate wins; on equal length the higher priority.
PRIORITY: Final[dict[str, int]] = {
    PRIVATE_KEY: 100,
    CONNECTION_STRING: 90,
    JWT: 85,
    API_KEY: 80,
    BEARER_TOKEN: 70,
    PASSWORD: 60,
    CARD: 55,
    IBAN: 55,
    NATIONAL_ID: 50,
    EMAIL: 40,
    ADDRESS: 35,
    PHONE: 30,
    IP_ADDRESS: 20,
}


def placeholder(kind: str) -> str:
    """The mask text for ``kind``: ``"[" + kind.upper() + "]"``."""
    return "[" + kind.upper() + "]"


_SEPARATORS_RE: Final = re.compile(r"[\s\-]")


def luhn_valid(digits: str) -> bool:
    """Luhn (mod 10) check. Spaces and dashes are ignored; needs >= 2 digits."""
    compact = _SEPARATORS_RE.sub("", digits)
    if len(compact) < 2 or not (compact.isascii() and compact.isdigit()):
        return False
    total = 0
    for i, ch in enumerate(reversed(compact)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def iban_valid(s: str) -> bool:
    """IBAN check: known country, country-specific length/format, mod-97 == 1.

    Spaces are ignored and letters may be lower case.
    """
    compact = s.replace(" ", "").replace("\u00a0", "")
    if not 15 <= len(compact) <= 34 or not compact.isascii():
        return False
    # mod-97 plus the registry's length/structure for the country; the
    # optional national check digits are not required.
    return bool(_stdnum_iban.is_valid(compact, check_country=False))


_PLACEHOLDER_WORD_RE: Final = re.compile(
    r"your|example|placeholder|redacted|changeme|dummy|sample|replace|insert"
    r"|_here|-here|xxxx|\.\.\.|…",
    re.IGNORECASE,
)
_MASK_TOKEN_RE: Final = re.compile(r"\[[A-Z_]+\]")
_ENV_NAME_RE: Final = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_FILLER_CHARS: Final = frozenset("xX*._-#?0•")


def looks_like_placeholder(value: str) -> bool:
    """True for obvious non-secrets: ``<your-api-key>``, ``YOUR_API_KEY``,
    ``xxx``, ``****``, ``${TOKEN}``, ``[API_KEY]`` (our own mask) and similar."""
    v = value.strip().strip("\"'`")
    if not v:
        return True
    if v[0] in "<[{$%(" or v.startswith("#{"):
        return True
    if set(v) <= _FILLER_CHARS:
        return True
    if _MASK_TOKEN_RE.search(v):
        return True
    if _PLACEHOLDER_WORD_RE.search(v):
        return True
    return _ENV_NAME_RE.fullmatch(v) is not None


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    if n == 0:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def char_classes(value: str) -> int:
    lower = upper = digit = False
    for ch in value:
        if ch.isdigit():
            digit = True
        elif ch.islower():
            lower = True
        elif ch.isupper():
            upper = True
    return int(lower) + int(upper) + int(digit)


_SLUG_SEP_RE: Final = re.compile(r"[\-_.]")


def slug_like(value: str) -> bool:
    """Words joined by ``-``, ``_`` or ``.``, with at most short tags among them
    (``secret-menu-v2``, ``checkout_v2_beta``): a name, not a random value."""
    parts = _SLUG_SEP_RE.split(value)
    return len(parts) >= 2 and all(p.isalpha() or len(p) <= 3 for p in parts)


class Cand(NamedTuple):
    start: int
    end: int
    kind: str


def context_before(text: str, start: int, width: int = 48) -> str:
    return text[max(0, start - width) : start]


def card_prefix_ok(digits: str) -> bool:
    first = digits[0]
    if first in "3456":
        return True
    return first == "2" and 2221 <= int(digits[:4]) <= 2720


def card_grouping_ok(lengths: list[int]) -> bool:
    """Digit groups as cards are written: one block, 4-4-4-4(-1..3), 4-6-4/5."""
    if len(lengths) == 1:
        return True
    if lengths[0] == 4 and len(lengths) == 3 and lengths[1] == 6 and lengths[2] in (4, 5):
        return True
    return len(lengths) >= 3 and all(n == 4 for n in lengths[:-1]) and 1 <= lengths[-1] <= 4


def looks_random(value: str, *, min_len: int = 12) -> bool:
    """Heuristic for a high-entropy secret value (not a word, path or URL)."""
    if len(value) < min_len or looks_like_placeholder(value):
        return False
    if "://" in value or value[0] in "/.~" or "(" in value:
        return False
    if char_classes(value) < 2:
        return False
    return entropy(value) >= 3.0
