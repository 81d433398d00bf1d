"""Government identity numbers.

* **Strong formats, anywhere**: their check is evidence enough (a stdnum
  validator passes): a Brazilian CPF or CNPJ written with its punctuation
  (``613.042.857-07``, ``09.341.762/0001-26``), an 18-digit Chinese resident id
  (birth date and check character, ``44030119850612001X``, also glued to Chinese
  text or in 6-8-4 groups), a French NIR (sex, year, month, place, key mod 97),
  a Spanish DNI/NIE (check letter, also ``47.382.916-H``), an Italian codice
  fiscale, a dashed US SSN, an upper-case UK NI number.
* **Weak formats, after a word**: a bare digit run that could be a German IdNr,
  a Dutch BSN, a spaced or bare SSN, a bare CPF or CNPJ, or a lower-case NI
  number is an id when a word of ``memgate/data/national_ids.json`` (any
  supported language: ``Finanzamt``, ``contribuinte``, ``sécurité sociale``)
  stands in the 48 characters before it, and its check passes.

Split from :mod:`memgate.stages.detectors`, which routes text to these finders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from importlib import resources
from typing import Any, Final

from stdnum.br import cnpj as _br_cnpj
from stdnum.br import cpf as _br_cpf
from stdnum.cn import ric as _cn_ric
from stdnum.de import idnr as _de_idnr
from stdnum.es import dni as _es_dni
from stdnum.es import nie as _es_nie
from stdnum.fr import nir as _fr_nir
from stdnum.it import codicefiscale as _it_codicefiscale
from stdnum.nl import bsn as _nl_bsn

from memgate.stages.detector_kinds import NATIONAL_ID, Cand, context_before

__all__ = ["find_national_ids"]


def _load() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "national_ids.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


_DATA: Final = _load()


def _words(group: str) -> list[str]:
    return sorted({w.lower() for ws in _DATA[group].values() for w in ws}, key=len, reverse=True)


def _pattern(word: str) -> str:
    return r"\s+".join(re.escape(part) for part in word.split())


_SUBSTRINGS: Final = _words("substrings")
_WHOLE_WORDS: Final = _words("words")
_ID_CONTEXT_RE: Final = re.compile(
    "|".join(_pattern(w) for w in _SUBSTRINGS)
    + "|(?<![^\\W_])(?:"
    + "|".join(_pattern(w) for w in _WHOLE_WORDS)
    + ")(?![^\\W_])",
    re.IGNORECASE,
)
# Cheap substring gate: the keyword-only formats are scanned for only if one
# of these occurs somewhere (the keyword is then checked next to each match).
_ID_CONTEXT_HINTS: Final = tuple({w.split()[0][:4] for w in (*_SUBSTRINGS, *_WHOLE_WORDS)})
# US SSN ###-##-#### (dashed: anywhere; spaced or bare: next to a keyword).
_SSN_RE: Final = re.compile(r"\d(?<![\w\-]\d)\d{2}(?P<sep>[ \-]?)\d{2}(?P=sep)\d{4}(?![\w\-]|\.\d)")
# Spain: DNI 12345678Z (also 12.345.678-Z) and NIE X1234567L (check letter).
_ES_ID_RE: Final = re.compile(
    r"(?:[XYZxyz\d](?<![\w\-][XYZxyz\d])-?\d{7}|\d(?<![\w\-.]\d)\d?\.\d{3}\.\d{3})"
    r"-?[A-Za-z](?![\w\-])"
)
# UK NINO (prefix rules) and Italian codice fiscale (check letter), upper case.
_NINO_OR_CF_RE: Final = re.compile(
    r"[A-Z](?<![A-Za-z0-9][A-Z])"
    r"(?:(?P<cf>[A-Z]{5}[0-9LMNP-V]{2}[ABCDEHLMPRST][0-9LMNP-V]{2}[A-Z][0-9LMNP-V]{3}[A-Z])"
    r"|[A-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D])(?![A-Za-z0-9])"
)
_NINO_FIRST: Final = frozenset("ABCEGHJKLMNOPRSTWXYZ")
_NINO_SECOND: Final = frozenset("ABCEGHJKLMNPRSTWXYZ")
_NINO_BAD_PREFIX: Final = frozenset({"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"})
# Checks strong enough to trust anywhere: France NIR (sex, month, key mod 97),
# Brazil CPF and CNPJ with their punctuation, China's 18-digit resident id.
_FR_NIR_RE: Final = re.compile(
    r"[12](?<![\w\-][12]) ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[ABab]) ?\d{3} ?\d{3}"
    r" ?\d{2}(?![\w\-]|\.\d)"
)
_BR_CPF_RE: Final = re.compile(r"\d(?<![\w\-./]\d)\d{2}\.\d{3}\.\d{3}-\d{2}(?![\w\-]|[./]\d)")
_BR_CNPJ_RE: Final = re.compile(r"\d(?<![\w\-./]\d)\d\.\d{3}\.\d{3}/\d{4}-\d{2}(?![\w\-]|[./]\d)")
_CN_RIC_RE: Final = re.compile(r"(?<!\d )\d(?<![\w\-]\d)(?: ?\d){16} ?[\dXx](?![\w\-]|\.\d| \d)")
# Bare digit IDs with weaker checks, only next to an ID keyword: Germany IdNr
# (ISO 7064), Netherlands BSN (11-proof), Brazil CPF and CNPJ without punctuation.
_DE_IDNR_RE: Final = re.compile(r"\d(?<![\w\-]\d)\d ?\d{3} ?\d{3} ?\d{3}(?![\w\-]|\.\d)")
_NL_BSN_RE: Final = re.compile(r"\d(?<![\w\-.]\d)(?:\d{8}|\d{3}\.\d{2}\.\d{3})(?![\w\-]|\.\d)")
_BARE_DIGITS_RE: Final = re.compile(r"\d(?<![\w\-.]\d)(?:\d{10}|\d{13})(?![\w\-]|\.\d)")


def _has_id_context(text: str, start: int) -> bool:
    return _ID_CONTEXT_RE.search(context_before(text, start, 48)) is not None


def _ssn_ranges_ok(value: str) -> bool:
    digits = value.replace("-", "").replace(" ", "")
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return not (area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000")


def _nino_ok(value: str) -> bool:
    return (
        value[0] in _NINO_FIRST and value[1] in _NINO_SECOND and value[:2] not in _NINO_BAD_PREFIX
    )


def _upper_aligned(text: str) -> str:
    return "".join(up if len(up := ch.upper()) == 1 else ch for ch in text)


def _nino_or_cf(text: str, context_anywhere: bool) -> Iterator[Cand]:
    """Upper case anywhere; written in lower case only after an ID keyword."""
    upper = _upper_aligned(text) if context_anywhere else text
    for m in _NINO_OR_CF_RE.finditer(upper):
        value = m.group()
        if m.group("cf") is not None:
            ok = bool(_it_codicefiscale.is_valid(value))
        else:
            ok = _nino_ok(value)
        if ok and (text[m.start() : m.end()] == value or _has_id_context(text, m.start())):
            yield Cand(m.start(), m.end(), NATIONAL_ID)


def _matches(text: str, rx: re.Pattern[str], valid: Any) -> Iterable[re.Match[str]]:
    return (m for m in rx.finditer(text) if valid(m.group()))


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
        value = m.group().replace(".", "")
        validator = _es_dni.is_valid if value[0].isdigit() else _es_nie.is_valid
        if validator(value):
            yield Cand(m.start(), m.end(), NATIONAL_ID)
    yield from _nino_or_cf(text, context_anywhere)
    for rx, validator in (
        (_FR_NIR_RE, _fr_nir.is_valid),
        (_BR_CPF_RE, _br_cpf.is_valid),
        (_BR_CNPJ_RE, _br_cnpj.is_valid),
        (_CN_RIC_RE, lambda v: _cn_ric.is_valid(v.replace(" ", ""))),
    ):
        for m in _matches(text, rx, validator):
            yield Cand(m.start(), m.end(), NATIONAL_ID)
    if not context_anywhere:
        return
    for rx, validator in (
        (_DE_IDNR_RE, _de_idnr.is_valid),
        (_NL_BSN_RE, _nl_bsn.is_valid),
        (_BARE_DIGITS_RE, lambda v: _br_cpf.is_valid(v) or _br_cnpj.is_valid(v)),
    ):
        for m in _matches(text, rx, validator):
            if _has_id_context(text, m.start()):
                yield Cand(m.start(), m.end(), NATIONAL_ID)
