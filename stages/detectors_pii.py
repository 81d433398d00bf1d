"""Format finders for personal and payment data: e-mail addresses, public IP
addresses, card numbers (Luhn) and IBANs (mod-97).

Split from :mod:`memgate.stages.detectors`, which routes text to these finders.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from typing import Final

from memgate.stages import detectors_phone as _phone
from memgate.stages.detector_kinds import (
    CARD,
    EMAIL,
    IBAN,
    IP_ADDRESS,
    Cand,
    card_grouping_ok,
    card_prefix_ok,
    context_before,
    iban_valid,
    luhn_valid,
)
from memgate.stages.detector_text import occurrences

__all__ = ["find_cards", "find_emails", "find_ibans", "find_ips"]


# --------------------------------------------------------------------------
# Email
# --------------------------------------------------------------------------

_EMAIL_RE: Final = re.compile(
    r"(?P<local>[a-z0-9](?:[a-z0-9._%+\-]{0,62}[a-z0-9_+\-])?)"
    r"(?:@|%40)"
    r"(?P<domain>(?:[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?\.)+[a-z]{2,24})"
    r"(?![a-z0-9]|[.\-][a-z0-9])",
    re.IGNORECASE,
)
_RETINA_RE: Final = re.compile(r"\d+(?:\.\d+)?x\.", re.IGNORECASE)  # icon@2x.png
_EMAIL_LOCAL_CHARS: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-"
)
_ALNUM_ASCII: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def find_emails(text: str, lower: str) -> Iterator[Cand]:
    last_end = -1
    for at in occurrences(lower, ("@", "%40")):
        if at < last_end:
            continue
        start = at
        while start > 0 and text[start - 1] in _EMAIL_LOCAL_CHARS and at - start < 64:
            start -= 1
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            continue  # local part longer than allowed, or glued to a word
        while start < at and text[start] not in _ALNUM_ASCII:
            start += 1
        m = _EMAIL_RE.match(text, start)
        if m is None:
            continue
        if m.group("local").lower() == "git" or _RETINA_RE.match(m.group("domain")):
            continue
        last_end = m.end()
        yield Cand(m.start(), m.end(), EMAIL)


# --------------------------------------------------------------------------
# IP addresses (public ones only; private, loopback and documentation ranges
# are not personal data)
# --------------------------------------------------------------------------

_IPV4_RE: Final = re.compile(
    r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}"
    r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\w]|\.\d)"
)
_IPV6_RE: Final = re.compile(
    r"(?<![\w:.])(?:[0-9a-f]{0,4}:){3,7}[0-9a-f]{0,4}(?![\w:.])", re.IGNORECASE
)
_VERSION_CONTEXT_RE: Final = re.compile(
    r"(?:\bv|version|ver\.?|release|build|==|>=|<=|~=|\^|@)\s*$", re.IGNORECASE
)


def find_ips(text: str, lower: str) -> Iterator[Cand]:
    for m in _IPV4_RE.finditer(text):
        if _VERSION_CONTEXT_RE.search(context_before(text, m.start(), 16)):
            continue
        try:
            addr = ipaddress.IPv4Address(m.group())
        except ValueError:
            continue
        if addr.is_global:
            yield Cand(m.start(), m.end(), IP_ADDRESS)
    if text.count(":") >= 3:
        for m in _IPV6_RE.finditer(text):
            try:
                addr6 = ipaddress.IPv6Address(m.group())
            except ValueError:
                continue
            if addr6.is_global:
                yield Cand(m.start(), m.end(), IP_ADDRESS)


# --------------------------------------------------------------------------
# Payment: cards (Luhn) and IBANs (mod-97)
# --------------------------------------------------------------------------

_DIGIT_RUN_RE: Final = re.compile(r"(?<![\w.,+\-])\d+(?:[ \-]\d+)*(?![\w]|[.,]\d)")
_DIGIT_GROUP_RE: Final = re.compile(r"\d+")


def _card_spans(run: str) -> Iterator[tuple[int, int]]:
    """Spans (relative to ``run``) of Luhn-valid card numbers in a digit run."""
    groups = [(g.start(), g.end()) for g in _DIGIT_GROUP_RE.finditer(run)]

    def check(i: int, j: int, ndigits: int) -> bool:
        if ndigits < 13:
            return False
        window = run[groups[i][0] : groups[j][1]]
        if "-" in window and " " in window:
            return False
        digits = window.replace(" ", "").replace("-", "")
        return (
            card_prefix_ok(digits)
            and card_grouping_ok([e - s for s, e in groups[i : j + 1]])
            and luhn_valid(digits)
        )

    for i, j in _phone.greedy_windows([e - s for s, e in groups], 19, check):
        yield groups[i][0], groups[j][1]


def find_cards(text: str, lower: str) -> Iterator[Cand]:
    for m in _DIGIT_RUN_RE.finditer(text):
        run = m.group()
        if len(run) < 13 or _phone.inside_iban_shape(text, m.start(), run):
            continue  # too short, or the digits of an IBAN-shaped string
        for a, b in _card_spans(run):
            yield Cand(m.start() + a, m.start() + b, CARD)


_IBAN_RE: Final = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]{4}){2,7}(?: ?[A-Za-z0-9]{1,3})?"
    r"(?![A-Za-z0-9])"
)


def find_ibans(text: str, lower: str) -> Iterator[Cand]:
    for m in _IBAN_RE.finditer(text):
        cand = m.group()
        # shrink from the right at group boundaries: "BE68 5390 0754 7034 with"
        while len(cand.replace(" ", "")) >= 15:
            if iban_valid(cand):
                yield Cand(m.start(), m.start() + len(cand), IBAN)
                break
            cut = cand.rfind(" ")
            if cut <= 0:
                break
            cand = cand[:cut]
