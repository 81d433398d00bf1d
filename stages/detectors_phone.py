"""Phone numbers written with separators or ``+``/``00``: candidates by regular
expression, validity by Google's libphonenumber metadata (split from
:mod:`memgate.stages.detectors`, which re-exports nothing from here).

Also holds two helpers the card finder shares: :func:`greedy_windows` (the
longest valid window of digit groups) and :func:`inside_iban_shape` (digits
that complete an IBAN-shaped string are neither a card nor a phone).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Final

import phonenumbers

from memgate.stages.detector_kinds import PHONE, Cand
from memgate.stages.detector_kinds import context_before as _context_before
from memgate.stages.detectors_numbers import after_identifier

__all__ = ["count_digits", "find_phones", "greedy_windows", "inside_iban_shape"]


_PHONE_SEP: Final = r"[ .\-\u00a0]"
_PHONE_RE: Final = re.compile(
    r"(?<![\w+#$€£¥./:@=\-])"
    r"(?>"
    r"(?:\+|00)\d+(?:"
    + _PHONE_SEP
    + r"?\(\d+\)(?:"
    + _PHONE_SEP
    + r"?\d+)?|"
    + _PHONE_SEP
    + r"\d+)*"
    r"|\(\d+\)" + _PHONE_SEP + r"?\d+(?:" + _PHONE_SEP + r"\d+)*"
    r"|\d+(?:" + _PHONE_SEP + r"\d+)+"
    r")"
    r"(?![\w@]|[.,:/\-]\d)"
)
_PHONE_TOKEN_RE: Final = re.compile(r"\+?\(?\d+\)?")
_DATE_LIKE_RE: Final = re.compile(
    r"\d{4}[./\- ]\d{1,2}[./\- ]\d{1,2}|\d{1,2}[./\- ]\d{1,2}[./\- ]\d{2,4}"
)
_IP_LIKE_RE: Final = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
# "2024.15.3801": dotted numeric groups led by a year-like group are a version,
# build or release number, not a phone, unless a phone word comes right before.
_YEAR_DOTTED_RE: Final = re.compile(r"(?:19|20)\d\d(?:\.\d+)+")
_PHONE_CONTEXT_RE: Final = re.compile(
    r"\b(?:phone|call|calls|ring|dial|tel|telephone|mobile|cell|cellphone|fax|text|sms|"
    r"whatsapp|signal|reach|contact|number|nummer|numéro|número|telefon|téléphone|"
    r"teléfono|telefone|handy|portable|móvil|celular|appelle|anruf|ruf)\b[^.!?\n]{0,24}$",
    re.IGNORECASE,
)


_NANP: Final = frozenset({"US", "CA"})
_IBAN_HEAD_RE: Final = re.compile(r"([A-Za-z]{2})\d{2} ?$")
# IBAN length per country (ISO 13616 registry), to recognise the digits of an
# IBAN-shaped string whose checksum failed, so they are not read as a card or
# a phone number.
_IBAN_LENGTH: Final[dict[str, int]] = json.loads(
    (resources.files("memgate") / "data" / "iban_lengths.json").read_text("utf-8")
)["lengths"]


def inside_iban_shape(text: str, run_start: int, run: str) -> bool:
    """True if ``run`` (digits at ``run_start``) completes an IBAN-shaped string:
    ``CC99 `` right before it and exactly the country's IBAN length."""
    head = _IBAN_HEAD_RE.search(text, max(0, run_start - 5), run_start)
    if head is None:
        return False
    length = _IBAN_LENGTH.get(head.group(1).upper())
    digits = sum(1 for ch in run if ch.isdigit())
    return length is not None and 4 + digits == length


def _make_number(country_code: int, nsn: str) -> phonenumbers.PhoneNumber:
    num = phonenumbers.PhoneNumber(country_code=country_code, national_number=int(nsn))
    zeros = len(nsn) - len(nsn.lstrip("0"))
    if zeros:
        num.italian_leading_zero = True
        num.number_of_leading_zeros = zeros if zeros > 1 else None
    return num


def _international_valid(digits: str) -> bool:
    """``digits`` = country code + national number (after ``+`` or ``00``).

    Builds the number directly instead of calling ``phonenumbers.parse`` (which
    costs ~10x more); country calling codes are prefix-free, so the first
    known prefix is the country code.
    """
    for cc_len in (1, 2, 3):
        cc = int(digits[:cc_len])
        if cc in phonenumbers.COUNTRY_CODE_TO_REGION_CODE:
            nsn = digits[cc_len:]
            if len(nsn) < 4:
                return False
            if phonenumbers.is_valid_number(_make_number(cc, nsn)):
                return True
            # "+44 020 7946 0958": a trunk "0" written after the country code
            return nsn[0] == "0" and bool(phonenumbers.is_valid_number(_make_number(cc, nsn[1:])))
    return False


def _national_valid(digits: str, region: str) -> bool:
    """A number written in ``region``'s national format (trunk prefix optional)."""
    meta = phonenumbers.PhoneMetadata.metadata_for_region(region)
    if meta is None or meta.country_code is None:
        return False
    prefix = meta.national_prefix or ""
    nsn = digits[len(prefix) :] if prefix and digits.startswith(prefix) else digits
    if len(nsn) < 4:
        return False
    return bool(
        phonenumbers.is_valid_number_for_region(_make_number(meta.country_code, nsn), region)
    )


def _phone_number_valid(candidate: str, regions: tuple[str, ...]) -> bool:
    if candidate.startswith(("+", "00")):
        candidate = candidate.replace("(0)", "")  # "+44 (0)20 7946 0958"
    digits = "".join(ch for ch in candidate if ch.isdigit())
    if not 7 <= len(digits) <= 15:
        return False
    if _DATE_LIKE_RE.fullmatch(candidate) or _IP_LIKE_RE.fullmatch(candidate):
        return False
    if candidate.startswith("+"):
        return _international_valid(digits)
    if candidate.startswith("00"):
        return _international_valid(digits[2:])
    if digits[0] == "0":
        # national format with a trunk prefix ("020 7946 0958", "030 901820")
        return any(_national_valid(digits, r) for r in regions if r not in _NANP)
    if len(digits) == 10 or (len(digits) == 11 and digits[0] == "1"):
        return any(_national_valid(digits, r) for r in regions if r in _NANP)
    return False


def greedy_windows(
    digit_counts: list[int], max_digits: int, check: Callable[[int, int, int], bool]
) -> Iterator[tuple[int, int]]:
    """Left to right over groups of digits: at each start ``i`` the longest
    window ``i..j`` with at most ``max_digits`` digits that passes
    ``check(i, j, digits)``; scanning resumes after an accepted window.
    Linear in the number of groups (windows are bounded by ``max_digits``)."""
    n = len(digit_counts)
    i = 0
    while i < n:
        totals: list[int] = []
        total = 0
        for j in range(i, n):
            total += digit_counts[j]
            if total > max_digits:
                break
            totals.append(total)
        found = -1
        for j in range(i + len(totals) - 1, i - 1, -1):
            if check(i, j, totals[j - i]):
                found = j
                break
        if found >= 0:
            yield i, found
            i = found + 1
        else:
            i += 1


def _phone_spans(run: str, regions: tuple[str, ...]) -> Iterator[tuple[int, int]]:
    """Spans (relative to ``run``) of the valid phone numbers in one candidate
    run of digit groups."""
    tokens = [(t.start(), t.end()) for t in _PHONE_TOKEN_RE.finditer(run)]
    counts = [count_digits(run[a:b]) for a, b in tokens]
    international = run.startswith(("+", "00"))

    def check(i: int, j: int, digits: int) -> bool:
        if digits < 7 or (international and i > 0):
            return False
        # "1.2.3.4.5.6.7" is not a phone number: one 1-digit group at most
        # (a country code "+1", or the "1" of "+33 1 23 45 67 89").
        if counts[i : j + 1].count(1) > 1:
            return False
        window = run[tokens[i][0] : tokens[j][1]]
        # A window that does not start the run must be unambiguous on its
        # own: "(415) ...", or at least ten digits.
        if i > 0 and window[0] != "(" and digits < 10:
            return False
        return _phone_number_valid(window, regions)

    for i, j in greedy_windows(counts, 15, check):
        yield tokens[i][0], tokens[j][1]


def find_phones(text: str, regions: tuple[str, ...], lower: str | None = None) -> Iterator[Cand]:
    """Phone numbers with separators or a ``+``/``00`` prefix in ``text`` (Chinese as
    spaces); ``lower`` (Chinese kept) is read for the identifier words before them."""
    lower = text.lower() if lower is None else lower
    for m in _PHONE_RE.finditer(text):
        run = m.group()
        if _DATE_LIKE_RE.fullmatch(run) or _IP_LIKE_RE.fullmatch(run):
            continue
        if after_identifier(lower, m.start()):
            continue  # "order #415 555 2671", "Bestellnummer 302-5561842", "订单号 138 ..."
        if _YEAR_DOTTED_RE.fullmatch(run) and not _PHONE_CONTEXT_RE.search(
            _context_before(text, m.start(), 40)
        ):
            continue  # "build 2024.15.3801"
        if inside_iban_shape(text, m.start(), run):
            continue  # the digits of an IBAN-shaped string (bad checksum)
        for a, b in _phone_spans(run, regions):
            yield Cand(m.start() + a, m.start() + b, PHONE)


def count_digits(s: str) -> int:
    return sum(map(str.isdigit, s))
