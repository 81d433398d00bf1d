"""Government identity numbers: formats with a check (Spanish DNI/NIE, Italian
codice fiscale, UK NINO prefixes, dashed US SSN) anywhere; weaker ones (French
NIR, German IdNr, Dutch BSN, spaced or bare SSN) only after an ID keyword.

Split from :mod:`memgate.stages.detectors`, which routes text to these finders.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from stdnum.de import idnr as _de_idnr
from stdnum.es import dni as _es_dni
from stdnum.es import nie as _es_nie
from stdnum.fr import nir as _fr_nir
from stdnum.it import codicefiscale as _it_codicefiscale
from stdnum.nl import bsn as _nl_bsn

from memgate.stages.detector_kinds import NATIONAL_ID, Cand, context_before

__all__ = ["find_national_ids"]


# --------------------------------------------------------------------------
# Government IDs
# --------------------------------------------------------------------------

_ID_CONTEXT_RE: Final = re.compile(
    r"ssn|social\s+security|national\s+(?:id|insurance|identity)|\bnino\b"
    r"|\bid\s*(?:no|nr|number|#)|identity|identit[ée]|ausweis|\bdni\b|\bnie\b|\bnif\b"
    r"|\bnir\b|s[ée]curit[ée]\s+sociale|num[ée]ro\s+de\s+s[ée]cu|\binsee\b"
    r"|steuer[\s\-]?id|\bidnr\b|identifikationsnummer|tax\s+id|\btin\b|\bbsn\b"
    r"|burgerservicenummer|sofi|codice\s+fiscale|personal\s+number|personnummer"
    r"|\bcpf\b|passport",
    re.IGNORECASE,
)
# Cheap substring gate: the keyword-only formats are scanned for only if one
# of these occurs somewhere (the keyword is then checked next to each match).
_ID_CONTEXT_HINTS: Final = (
    "ssn", "social", "national", "nino", "insurance", "id no", "id nr", "id number",
    "id#", "id #", "identi", "dni", "nie", "nif", "nir", "sécu", "secu", "insee",
    "steuer", "idnr", "tax", "tin", "bsn", "burger", "sofi", "fiscal", "person",
    "cpf", "passport", "ausweis",
)  # fmt: skip
# US SSN ###-##-#### (dashed: anywhere; spaced or bare: next to a keyword).
_SSN_RE: Final = re.compile(r"\d(?<![\w\-]\d)\d{2}(?P<sep>[ \-]?)\d{2}(?P=sep)\d{4}(?![\w\-]|\.\d)")
# Spain: DNI 12345678Z and NIE X1234567L (check letter).
_ES_ID_RE: Final = re.compile(r"[XYZxyz\d](?<![\w\-][XYZxyz\d])-?\d{7}-?[A-Za-z](?![\w\-])")
# UK NINO (prefix rules) and Italian codice fiscale (check letter), upper case.
_NINO_OR_CF_RE: Final = re.compile(
    r"[A-Z](?<![A-Za-z0-9][A-Z])"
    r"(?:(?P<cf>[A-Z]{5}[0-9LMNP-V]{2}[ABCDEHLMPRST][0-9LMNP-V]{2}[A-Z][0-9LMNP-V]{3}[A-Z])"
    r"|[A-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D])(?![A-Za-z0-9])"
)
_NINO_FIRST: Final = frozenset("ABCEGHJKLMNOPRSTWXYZ")
_NINO_SECOND: Final = frozenset("ABCEGHJKLMNPRSTWXYZ")
_NINO_BAD_PREFIX: Final = frozenset({"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"})
# Bare digit IDs with weaker checks: France NIR (mod 97), Germany IdNr
# (ISO 7064), Netherlands BSN (11-proof); only next to an ID keyword.
_FR_NIR_RE: Final = re.compile(
    r"[12](?<![\w\-][12]) ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[ABab]) ?\d{3} ?\d{3}"
    r" ?\d{2}(?![\w\-]|\.\d)"
)
_DE_IDNR_RE: Final = re.compile(r"\d(?<![\w\-]\d)\d ?\d{3} ?\d{3} ?\d{3}(?![\w\-]|\.\d)")
_NL_BSN_RE: Final = re.compile(r"\d(?<![\w\-.]\d)(?:\d{8}|\d{3}\.\d{2}\.\d{3})(?![\w\-]|\.\d)")


def _has_id_context(text: str, start: int) -> bool:
    return _ID_CONTEXT_RE.search(context_before(text, start, 48)) is not None


def _ssn_ranges_ok(value: str) -> bool:
    digits = value.replace("-", "").replace(" ", "")
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return not (area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000")


def find_national_ids(text: str, lower: str) -> Iterator[Cand]:
    # Keyword-dependent formats run only if some ID keyword may be present;
    # the keyword itself is then checked just before each candidate.
    context_anywhere = any(h in lower for h in _ID_CONTEXT_HINTS)
    for m in _SSN_RE.finditer(text):
        if not _ssn_ranges_ok(m.group()):
            continue
        if m.group("sep") == "-" or (context_anywhere and _has_id_context(text, m.start())):
            yield Cand(m.start(), m.end(), NATIONAL_ID)
    for m in _ES_ID_RE.finditer(text):
        value = m.group()
        validator = _es_dni.is_valid if value[0].isdigit() else _es_nie.is_valid
        if validator(value):
            yield Cand(m.start(), m.end(), NATIONAL_ID)
    for m in _NINO_OR_CF_RE.finditer(text):
        value = m.group()
        if m.group("cf") is not None:
            ok = bool(_it_codicefiscale.is_valid(value))
        else:
            ok = (
                value[0] in _NINO_FIRST
                and value[1] in _NINO_SECOND
                and value[:2] not in _NINO_BAD_PREFIX
            )
        if ok:
            yield Cand(m.start(), m.end(), NATIONAL_ID)
    if not context_anywhere:
        return
    for rx, validator in (
        (_FR_NIR_RE, _fr_nir.is_valid),
        (_DE_IDNR_RE, _de_idnr.is_valid),
        (_NL_BSN_RE, _nl_bsn.is_valid),
    ):
        for m in rx.finditer(text):
            if _has_id_context(text, m.start()) and validator(m.group()):
                yield Cand(m.start(), m.end(), NATIONAL_ID)
