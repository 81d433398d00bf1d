"""Detection and masking of PII and credentials.

Pure and dependency-light: no I/O and no mutable module state (module-level
compiled regular expressions and frozen tables only). Used on the write path to
redact candidate facts and journal text, and to mask secrets before any text is
sent to a third-party model.

A :class:`Finding` records *what kind* of thing was found and *where*, never
the value itself. :meth:`Detector.mask` replaces every finding with a typed
placeholder (``"[" + kind.upper() + "]"``, e.g. ``[EMAIL]``, ``[API_KEY]``).
Placeholders are never detected themselves and masking repeats until nothing
more is found, so ``mask(mask(x).text).text == mask(x).text``.

Kinds and categories: ``email``, ``phone``, ``ip_address`` (public addresses
only) are PII; ``national_id``, ``card`` and ``iban`` are REGULATED
(government ID, payment); ``api_key``, ``bearer_token``, ``jwt``, ``password``,
``connection_string`` and ``private_key`` are CREDENTIAL.

Precision strategy: cheap regular expressions propose candidates, and each
candidate must then pass a validator (Luhn, IBAN mod-97, national-ID check
digits via ``python-stdnum``, phone metadata via ``phonenumbers``, JWT header
decoding, entropy and placeholder checks for generic secrets). Weak formats
(bare digit runs that could be a national ID) additionally need a keyword in
the text just before them.

For assignments and prose (``password=...``, ``my password is ...``,
``token: ...``, ``Authorization: Bearer ...``) only the value is masked and the
surrounding text is kept; connection strings, private-key blocks, JWTs and
provider keys are masked whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Final, NamedTuple

from memgate.core.memo import TextMemo
from memgate.stages import detectors_address as _address
from memgate.stages import detectors_assign as _assign
from memgate.stages import detectors_entropy as _ds
from memgate.stages import detectors_ids as _ids
from memgate.stages import detectors_labelled as _labelled
from memgate.stages import detectors_numbers as _numbers
from memgate.stages import detectors_obfuscated as _obf
from memgate.stages import detectors_phone as _phone
from memgate.stages import detectors_pii as _pii
from memgate.stages import detectors_tokens as _tokens
from memgate.stages import detectors_url as _url
from memgate.stages.detector_kinds import (
    ADDRESS,
    ALL_KINDS,
    API_KEY,
    BEARER_TOKEN,
    CARD,
    CONNECTION_STRING,
    CREDENTIAL_KINDS,
    EMAIL,
    IBAN,
    IP_ADDRESS,
    JWT,
    KIND_CATEGORY,
    NATIONAL_ID,
    PASSWORD,
    PHONE,
    PII_KINDS,
    PRIVATE_KEY,
    REGULATED_KINDS,
    Category,
    Finding,
    MaskResult,
    iban_valid,
    looks_like_placeholder,
    luhn_valid,
    placeholder,
)
from memgate.stages.detector_kinds import PRIORITY as _PRIORITY
from memgate.stages.detector_kinds import Cand as _Cand
from memgate.stages.detector_text import aligned_lower as _aligned_lower
from memgate.stages.detector_text import ascii_view as _ascii_view
from memgate.stages.detector_text import spaced_view as _spaced_view

__all__ = [
    "ALL_KINDS",
    "CREDENTIAL_KINDS",
    "KIND_CATEGORY",
    "PII_KINDS",
    "REGULATED_KINDS",
    "Category",
    "Detector",
    "Finding",
    "MaskResult",
    "iban_valid",
    "looks_like_placeholder",
    "luhn_valid",
    "placeholder",
]


# --------------------------------------------------------------------------
# The detector
# --------------------------------------------------------------------------

_HAS_DIGIT_RE: Final = re.compile(r"\d")
#: How many texts' findings a detector keeps (:class:`memgate.core.memo.TextMemo`).
SCAN_MEMO_SIZE: Final = 512

_Finder = Callable[[str, str], Iterable[_Cand]]
_MAX_MASK_ROUNDS: Final = 4


class _Views(NamedTuple):
    """The views a finder reads (:mod:`memgate.stages.detector_text`), all of the text's length."""

    text: str  # digits and full-width forms as ASCII, Chinese as spaces
    lower: str
    kept: str  # digits and full-width forms as ASCII, Chinese kept
    kept_lower: str
    has_digit: bool

    @classmethod
    def of(cls, raw: str) -> _Views:
        kept = _ascii_view(raw)
        spaced = _spaced_view(kept)
        kept_lower = _aligned_lower(kept)
        lower = kept_lower if spaced is kept else _aligned_lower(spaced)
        return cls(spaced, lower, kept, kept_lower, _HAS_DIGIT_RE.search(kept) is not None)


class _Route(NamedTuple):
    """One finder: the kinds it yields, a cheap test of whether it could match at
    all, and the view it reads (Chinese as spaces, or kept for the labels)."""

    kinds: frozenset[str]
    gate: Callable[[_Views], bool]
    finder: _Finder
    view: str = "spaced"  # "kept": Chinese kept; "mixed": spaced text, lower with Chinese kept
    fail_closed: bool = False  # on a tie, a format finder names the kind, then a label

    def read(self, v: _Views) -> Iterable[_Cand]:
        if self.view == "spaced":
            return self.finder(v.text, v.lower)
        return self.finder(v.text if self.view == "mixed" else v.kept, v.kept_lower)


def _has(*needles: str) -> Callable[[_Views], bool]:
    return lambda v: any(n in v.text for n in needles)


def _has_lower(*needles: str) -> Callable[[_Views], bool]:
    return lambda v: any(n in v.lower for n in needles)


def _digits(v: _Views) -> bool:
    return v.has_digit


_CREDENTIALS: Final = frozenset({API_KEY, PASSWORD, BEARER_TOKEN, CONNECTION_STRING})
_KEYS: Final = frozenset({API_KEY})
_ADDR: Final = frozenset({ADDRESS})


def _long(v: _Views) -> bool:
    return len(v.text) >= 12


_ROUTES: Final[tuple[_Route, ...]] = (
    _Route(frozenset({PRIVATE_KEY}), _has("PRIVATE KEY"), _tokens.find_private_keys),
    _Route(
        frozenset({CONNECTION_STRING}),
        lambda v: "://" in v.text or "jdbc:" in v.lower or (";" in v.text and "=" in v.text),
        _tokens.find_connection_strings,
    ),
    _Route(frozenset({JWT}), _has("eyJ", "eyA"), _tokens.find_jwts),
    _Route(frozenset({API_KEY}), _has(*_assign.PROVIDER_HINTS), _assign.find_provider_keys),
    _Route(
        frozenset({API_KEY}), _has_lower(*_assign.SECRET_NAME_HINTS), _assign.find_generic_secrets
    ),
    _Route(
        frozenset({BEARER_TOKEN}), _has_lower("bearer", "authorization"), _tokens.find_bearer_tokens
    ),
    _Route(frozenset({PASSWORD}), _has_lower(*_assign.PASSWORD_HINTS), _assign.find_passwords),
    _Route(frozenset({EMAIL}), lambda v: "@" in v.text or "%40" in v.lower, _pii.find_emails),
    _Route(
        frozenset({EMAIL}),
        lambda v: _obf.may_hold(EMAIL, v.text, v.lower),
        _obf.find_spelled_emails,
    ),
    _Route(frozenset({EMAIL}), _has("@"), _obf.find_unicode_emails, "kept", fail_closed=True),
    _Route(frozenset({EMAIL}), _long, _obf.find_chinese_spelled_emails, "kept", fail_closed=True),
    _Route(frozenset({EMAIL}), _has("#", "*"), _obf.find_labelled_emails, "kept", fail_closed=True),
    _Route(frozenset({NATIONAL_ID}), _digits, _ids.find_national_ids),
    _Route(frozenset({CARD}), _digits, _pii.find_cards),
    _Route(
        frozenset({CARD}),
        lambda v: v.has_digit and _obf.may_hold(CARD, v.text, v.lower),
        _obf.find_dotted_cards,
    ),
    _Route(
        frozenset({PHONE}),
        lambda v: v.has_digit and _obf.may_hold(PHONE, v.text, v.lower),
        _obf.find_labelled_phones,
    ),
    _Route(frozenset({PHONE}), _digits, _numbers.find_bare_phones, "mixed", True),
    _Route(frozenset({IBAN}), _digits, _pii.find_ibans),
    _Route(
        frozenset({IP_ADDRESS}),
        lambda v: v.has_digit and ("." in v.text or ":" in v.text),
        _pii.find_ips,
    ),
    # fail closed: a label lowers the bar, randomness near credential words, URL parts
    _Route(
        frozenset({PASSWORD, NATIONAL_ID, PHONE, API_KEY, BEARER_TOKEN, ADDRESS}),
        lambda v: _labelled.may_hold(v.kept_lower),
        _labelled.find_labelled_values,
        "kept",
        fail_closed=True,
    ),
    _Route(_ADDR, _digits, _address.find_addresses, "kept", fail_closed=True),
    _Route(_KEYS, _long, _ds.find_random_tokens, "mixed", fail_closed=True),
    _Route(_KEYS, _long, _ds.find_vendor_keys, fail_closed=True),
    _Route(_CREDENTIALS, _has(":", "="), _ds.find_keyword_values, fail_closed=True),
    _Route(_CREDENTIALS, _has("://"), _url.find_url_secrets, fail_closed=True),
)


def _rank(c: tuple[_Cand, int]) -> tuple[int, int, int]:
    cand, tier = c
    return cand.end - cand.start, tier, _PRIORITY[cand.kind]


class Detector:
    """Finds PII and credentials in text and masks them with typed placeholders.

    ``kinds`` restricts detection to a subset of :data:`ALL_KINDS` (``None``:
    all). ``phone_regions`` are the regions whose *national* number formats
    are accepted (numbers written with ``+``/``00`` are accepted for every
    region). Instances hold their configuration and a bounded memo of the findings
    of the texts scanned last (the same text is scanned by triage, the final check
    and the redactor: issue 14); they are safe to share between threads.
    """

    __slots__ = ("_kinds", "_memo", "_phone_regions")

    def __init__(
        self,
        *,
        kinds: frozenset[str] | None = None,
        phone_regions: tuple[str, ...] = ("US", "GB", "DE", "FR"),
    ) -> None:
        selected = ALL_KINDS if kinds is None else frozenset(kinds)
        unknown = selected - ALL_KINDS
        if unknown:
            raise ValueError(f"unknown kinds: {sorted(unknown)}")
        self._kinds = selected
        self._phone_regions = tuple(r.upper() for r in phone_regions)
        self._memo: TextMemo[tuple[Finding, ...]] = TextMemo(SCAN_MEMO_SIZE)

    @property
    def kinds(self) -> frozenset[str]:
        return self._kinds

    def _candidates(self, text: str) -> list[tuple[_Cand, int]]:
        """Every finder's candidates, each with its tier (2: a format finder, 1: a
        finder that reads labels, 0: another fail-closed finder)."""
        views = _Views.of(text)
        out: list[tuple[_Cand, int]] = []
        for route in _ROUTES:
            if route.kinds & self._kinds and route.gate(views):
                tier = 2 if not route.fail_closed else int(route.view == "kept")
                found = route.read(views)
                out.extend((c, tier) for c in found if c.kind in self._kinds and c.end > c.start)
        if views.has_digit and PHONE in self._kinds:
            phones = _phone.find_phones(views.text, self._phone_regions, views.kept_lower)
            out.extend((c, 2) for c in phones)
        return out

    def scan(self, text: str) -> list[Finding]:
        """Non-overlapping findings sorted by position.

        Overlapping candidates are merged into one finding covering their
        union (so no part of any detected value escapes masking); its kind is
        that of the longest candidate, ties broken by the finder (a format
        finder before a fail-closed one) and then by specificity.
        """
        if not text:
            return []
        return list(self._memo.get(text, self._scan))

    def _scan(self, text: str) -> tuple[Finding, ...]:
        cands = self._candidates(text)
        if not cands:
            return ()
        cands.sort(key=lambda c: (c[0].start, -c[0].end))
        findings: list[Finding] = []
        best, rank = cands[0][0], _rank(cands[0])
        start, end = best.start, best.end
        for c in cands[1:]:
            if c[0].start < end:
                end = max(end, c[0].end)
                if _rank(c) > rank:
                    best, rank = c[0], _rank(c)
                continue
            findings.append(Finding(best.kind, KIND_CATEGORY[best.kind], start, end))
            best, rank = c[0], _rank(c)
            start, end = best.start, best.end
        findings.append(Finding(best.kind, KIND_CATEGORY[best.kind], start, end))
        return tuple(findings)

    def mask(self, text: str) -> MaskResult:
        """Replace every finding with ``[KIND]``.

        Idempotent: replacing a value changes what its neighbours see (an
        ``=`` or a digit becomes ``]``), which can very rarely expose a new
        match, so masking repeats until nothing more is found (at most a few
        rounds; counts add up over the rounds).
        """
        counts: dict[str, int] = {}
        for _ in range(_MAX_MASK_ROUNDS):
            findings = self.scan(text)
            if not findings:
                break
            parts: list[str] = []
            pos = 0
            for f in findings:
                parts.append(text[pos : f.start])
                parts.append(placeholder(f.kind))
                counts[f.kind] = counts.get(f.kind, 0) + 1
                pos = f.end
            parts.append(text[pos:])
            text = "".join(parts)
        return MaskResult(text, counts)

    def contains_secret(self, text: str) -> bool:
        """True if the text holds a credential (category CREDENTIAL)."""
        return any(f.category is Category.CREDENTIAL for f in self.scan(text))

    def contains_sensitive(self, text: str) -> bool:
        """True if the text holds any finding of the configured kinds."""
        return bool(self.scan(text))
