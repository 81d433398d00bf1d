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

import base64
import binascii
import ipaddress
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Final, NamedTuple

from stdnum.de import idnr as _de_idnr
from stdnum.es import dni as _es_dni
from stdnum.es import nie as _es_nie
from stdnum.fr import nir as _fr_nir
from stdnum.it import codicefiscale as _it_codicefiscale
from stdnum.nl import bsn as _nl_bsn

from memgate.stages import detectors_address as _address
from memgate.stages import detectors_entropy as _ds
from memgate.stages import detectors_labelled as _labelled
from memgate.stages import detectors_numbers as _numbers
from memgate.stages import detectors_obfuscated as _obf
from memgate.stages import detectors_phone as _phone
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
from memgate.stages.detector_kinds import card_grouping_ok as _card_grouping_ok
from memgate.stages.detector_kinds import card_prefix_ok as _card_prefix_ok
from memgate.stages.detector_kinds import char_classes as _char_classes
from memgate.stages.detector_kinds import context_before as _context_before
from memgate.stages.detector_kinds import entropy as _entropy
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
# Small helpers
# --------------------------------------------------------------------------


_DOTTED_IDENT_RE: Final = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def _looks_random(value: str, *, min_len: int = 12) -> bool:
    """Heuristic for a high-entropy secret value (not a word, path or URL)."""
    if len(value) < min_len or looks_like_placeholder(value):
        return False
    if "://" in value or value[0] in "/.~" or "(" in value:
        return False
    if _char_classes(value) < 2:
        return False
    return _entropy(value) >= 3.0


def _occurrences(haystack: str, needles: Iterable[str]) -> list[int]:
    """Sorted start indexes of all needles (fast C substring search)."""
    found: set[int] = set()
    for needle in needles:
        i = haystack.find(needle)
        while i != -1:
            found.add(i)
            i = haystack.find(needle, i + 1)
    return sorted(found)


_TOKEN_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _segment_starts(text: str, i: int) -> list[int]:
    """Start of the identifier-like token containing ``text[i]`` and every
    position just after a ``_``/``.``/``-`` inside it, up to ``i``."""
    j = i
    while j > 0 and text[j - 1] in _TOKEN_CHARS and i - j < 64:
        j -= 1
    starts = [j]
    starts.extend(k + 1 for k in range(j, i) if text[k] in "_.-")
    return starts


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


def _find_emails(text: str, lower: str) -> Iterator[_Cand]:
    last_end = -1
    for at in _occurrences(lower, ("@", "%40")):
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
        yield _Cand(m.start(), m.end(), EMAIL)


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


def _find_ips(text: str, lower: str) -> Iterator[_Cand]:
    for m in _IPV4_RE.finditer(text):
        if _VERSION_CONTEXT_RE.search(_context_before(text, m.start(), 16)):
            continue
        try:
            addr = ipaddress.IPv4Address(m.group())
        except ValueError:
            continue
        if addr.is_global:
            yield _Cand(m.start(), m.end(), IP_ADDRESS)
    if text.count(":") >= 3:
        for m in _IPV6_RE.finditer(text):
            try:
                addr6 = ipaddress.IPv6Address(m.group())
            except ValueError:
                continue
            if addr6.is_global:
                yield _Cand(m.start(), m.end(), IP_ADDRESS)


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
            _card_prefix_ok(digits)
            and _card_grouping_ok([e - s for s, e in groups[i : j + 1]])
            and luhn_valid(digits)
        )

    for i, j in _phone.greedy_windows([e - s for s, e in groups], 19, check):
        yield groups[i][0], groups[j][1]


def _find_cards(text: str, lower: str) -> Iterator[_Cand]:
    for m in _DIGIT_RUN_RE.finditer(text):
        run = m.group()
        if len(run) < 13 or _phone.inside_iban_shape(text, m.start(), run):
            continue  # too short, or the digits of an IBAN-shaped string
        for a, b in _card_spans(run):
            yield _Cand(m.start() + a, m.start() + b, CARD)


_IBAN_RE: Final = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]{4}){2,7}(?: ?[A-Za-z0-9]{1,3})?"
    r"(?![A-Za-z0-9])"
)


def _find_ibans(text: str, lower: str) -> Iterator[_Cand]:
    for m in _IBAN_RE.finditer(text):
        cand = m.group()
        # shrink from the right at group boundaries: "BE68 5390 0754 7034 with"
        while len(cand.replace(" ", "")) >= 15:
            if iban_valid(cand):
                yield _Cand(m.start(), m.start() + len(cand), IBAN)
                break
            cut = cand.rfind(" ")
            if cut <= 0:
                break
            cand = cand[:cut]


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
    return _ID_CONTEXT_RE.search(_context_before(text, start, 48)) is not None


def _ssn_ranges_ok(value: str) -> bool:
    digits = value.replace("-", "").replace(" ", "")
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return not (area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000")


def _find_national_ids(text: str, lower: str) -> Iterator[_Cand]:
    # Keyword-dependent formats run only if some ID keyword may be present;
    # the keyword itself is then checked just before each candidate.
    context_anywhere = any(h in lower for h in _ID_CONTEXT_HINTS)
    for m in _SSN_RE.finditer(text):
        if not _ssn_ranges_ok(m.group()):
            continue
        if m.group("sep") == "-" or (context_anywhere and _has_id_context(text, m.start())):
            yield _Cand(m.start(), m.end(), NATIONAL_ID)
    for m in _ES_ID_RE.finditer(text):
        value = m.group()
        validator = _es_dni.is_valid if value[0].isdigit() else _es_nie.is_valid
        if validator(value):
            yield _Cand(m.start(), m.end(), NATIONAL_ID)
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
            yield _Cand(m.start(), m.end(), NATIONAL_ID)
    if not context_anywhere:
        return
    for rx, validator in (
        (_FR_NIR_RE, _fr_nir.is_valid),
        (_DE_IDNR_RE, _de_idnr.is_valid),
        (_NL_BSN_RE, _nl_bsn.is_valid),
    ):
        for m in rx.finditer(text):
            if _has_id_context(text, m.start()) and validator(m.group()):
                yield _Cand(m.start(), m.end(), NATIONAL_ID)


# --------------------------------------------------------------------------
# Provider API keys (format is enough, anywhere in the text)
# --------------------------------------------------------------------------

_KEY_END: Final = r"(?![A-Za-z0-9_\-])"
_PROVIDER_KEY_RE: Final = re.compile(  # used with .match() at a hint position
    r"(?<![A-Za-z0-9])(?:"
    r"(?P<anthropic>sk-ant-[A-Za-z0-9_\-]{20,300})"
    r"|(?P<openai>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,300})"
    r"|(?P<aws>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})"
    r"|(?P<github>gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})"
    r"|(?P<gitlab>glpat-[A-Za-z0-9_\-]{20,300})"
    r"|(?P<slack>xox[baprs]-[A-Za-z0-9\-]{10,300}|xapp-\d-[A-Za-z0-9\-]{10,300})"
    r"|(?P<stripe>(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,300})"
    r"|(?P<google>AIza[0-9A-Za-z_\-]{35})"
    r"|(?P<twilio>SK[0-9a-fA-F]{32})"
    r"|(?P<sendgrid>SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64})"
    r"|(?P<npm>npm_[A-Za-z0-9]{36})"
    r"|(?P<huggingface>hf_[A-Za-z0-9]{30,300})"
    r")" + _KEY_END
)
# Formats whose prefix is short or common enough that the body must look random.
_NEEDS_MIXED_BODY: Final = frozenset({"openai", "huggingface", "twilio", "slack"})
_PROVIDER_PREFIX_RE: Final = re.compile(
    r"sk-ant-|sk-(?:proj-|svcacct-|admin-)?|gh[pousr]_|github_pat_|glpat-|xox[baprs]-"
    r"|xapp-|(?:sk|rk|pk)_(?:live|test)_|AIza|SK|SG\.|npm_|hf_|AKIA|ASIA|ABIA|ACCA"
)


def _find_provider_keys(text: str, lower: str) -> Iterator[_Cand]:
    del lower  # provider prefixes are case-sensitive
    last_end = -1
    for i in _occurrences(text, _PROVIDER_HINTS):
        if i < last_end:
            continue
        m = _PROVIDER_KEY_RE.match(text, i)
        if m is None:
            continue
        provider = m.lastgroup or ""
        value = m.group()
        prefix = _PROVIDER_PREFIX_RE.match(value)
        body = value[prefix.end() :] if prefix else value
        if looks_like_placeholder(body):
            continue
        if provider in _NEEDS_MIXED_BODY and _char_classes(body) < 2:
            continue
        last_end = m.end()
        yield _Cand(m.start(), m.end(), API_KEY)


# --------------------------------------------------------------------------
# Assignments: generic secrets, AWS secret keys, passwords
# --------------------------------------------------------------------------

_QUOTED_OR_BARE: Final = (
    r"(?:(?P<q>[\"'`])(?P<qval>[^\"'`\n]{1,512})(?P=q)"
    r"|[“«‘](?P<cval>[^”»’\n]{1,512})[”»’]"
    r"|(?P<val>[^\s\"'`,;<>]{1,512}))"
)
_ASSIGN_OP: Final = r"[\"']?[ \t]*(?:=>|:=|==?|:)[ \t]*"

_SECRET_NAME: Final = (
    r"(?:api[_\-]?key|apikey|api[_\-]?secret|api[_\-]?token|access[_\-]?key(?:[_\-]?id)?"
    r"|secret[_\-]?access[_\-]?key|secret[_\-]?key|client[_\-]?secret|private[_\-]?key"
    r"|signing[_\-]?key|encryption[_\-]?key|master[_\-]?key|access[_\-]?token"
    r"|auth[_\-]?token|refresh[_\-]?token|id[_\-]?token|session[_\-]?token"
    r"|bearer[_\-]?token|token|secret|credentials?|auth)"
)
# The assignment patterns are matched (re.match) at identifier-segment starts
# found by _anchored_matches, so they need no prefix or boundary of their own.
_NAME_PREFIX: Final = r"(?:--?)?"

_GENERIC_ASSIGN_RE: Final = re.compile(
    _NAME_PREFIX
    + _SECRET_NAME
    + r"(?:"
    + _ASSIGN_OP
    + r"|(?<=[a-z])[ \t]+(?=[A-Za-z0-9]))"
    + _QUOTED_OR_BARE,
    re.IGNORECASE,
)
_AWS_SECRET_RE: Final = re.compile(
    r"(?<![A-Za-z0-9])(?:aws[_\-]?)?secret[_\-]?(?:access[_\-]?)?key[\"']?[ \t]*(?:=>|:=|=|:)"
    r"[ \t]*[\"']?(?P<val>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
    re.IGNORECASE,
)

_PW_NAME: Final = (
    r"(?:password|passwort|kennwort|passphrase|passcode|passwd|pass[ \-]?word|pwd|pw"
    r"|mot[ \t]+de[ \t]+passe|mdp|contrase(?:ñ|n)a|senha|wachtwoord|salasana|has(?:ł|l)o"
    r"|(?<=[_.\-])pass)"
)
_PW_PROSE_VERB: Final = (
    r"(?:is[ \t]+now|is[ \t]+still|is[ \t]+set[ \t]+to|set[ \t]+to|changed[ \t]+to"
    r"|will[ \t]+be|should[ \t]+be|is|was|ist|lautet|war|est|était|es|era|é|è|equals)"
)
_PW_QUALIFIER: Final = (
    r"(?:[ \t]+(?:for|of|to|on|at|für|pour|de|del|para|van|voor|do|da|du|des|dos|das|"
    r"della|dello|delle|dei|degli|di|vom|von|der|dem|den|zum|zur|"
    r"no|na|nel|nella|al|au|aux)"
    r"(?:[ \t]+[^\s=:\"']{1,40}(?:'[^\s=:\"']{1,40})?){1,3}?)?"
)
_PASSWORD_RE: Final = re.compile(
    _NAME_PREFIX
    + _PW_NAME
    + r"(?:(?P<assign>"
    + _ASSIGN_OP
    + r")"
    + r"|"
    + _PW_QUALIFIER
    + r"[ \t]+"
    + _PW_PROSE_VERB
    + r"(?:[ \t]*:[ \t]*|[ \t]+))"
    + _QUOTED_OR_BARE,
    re.IGNORECASE,
)
_PIN_RE: Final = re.compile(
    r"(?<![\w\-])(?:pin|pin[ \-]?code|pin[ \-]?nummer|code[ \t]+pin)[ \t]*"
    r"(?:is|was|ist|lautet|est|es|é|=|:)[ \t]*:?[ \t]*(?P<val>\d{4,8})(?![\w\-]|[.,]\d)",
    re.IGNORECASE,
)

_CODE_TYPE_VALUES: Final = frozenset(
    {
        "str", "string", "bytes", "int", "none", "null", "nil", "true", "false",
        "undefined", "optional", "required", "secretstr", "secretbytes", "text",
        "varchar", "char", "any", "object", "password", "pass", "pwd", "passwd",
        "token", "secret", "string?", "str?", "self", "this",
    }
)  # fmt: skip
_PROSE_STOPWORDS: Final = frozenset(
    {
        # English
        "a", "an", "the", "not", "too", "very", "so", "incorrect", "wrong", "correct",
        "invalid", "valid", "required", "weak", "strong", "secure", "insecure", "long",
        "short", "empty", "blank", "missing", "same", "different", "in", "on", "at",
        "of", "for", "from", "with", "by", "to", "still", "also", "now", "just", "only",
        "my", "your", "his", "her", "their", "our", "its", "it", "this", "that", "what",
        "which", "unknown", "secret", "private", "public", "good", "bad", "fine", "ok",
        "okay", "new", "old", "mandatory", "optional", "necessary", "none", "null",
        "nil", "undefined", "true", "false", "and", "or", "but", "like", "something",
        "anything", "nothing", "whatever", "easy", "hard", "simple", "complex", "weird",
        "no", "yes", "case", "sensitive", "case-sensitive", "here", "there", "below",
        "above", "unchanged", "mine", "yours", "fake", "obvious",
        "please", "always", "never", "usually", "probably", "definitely", "actually",
        "really", "stored", "saved", "set", "reset", "needed", "hidden", "shown",
        "visible", "sent", "leaked", "compromised", "ignored", "expired", "changed",
        "encrypted", "hashed", "who", "where", "when", "how", "why", "one", "two",
        "three", "four", "five", "six", "seven", "eight", "nine", "ten", "all", "any",
        # German
        "falsch", "richtig", "zu", "nicht", "sehr", "abgelaufen", "ungültig", "leer",
        "geheim", "korrekt", "sicher", "unsicher", "gespeichert", "geändert", "das",
        "der", "die", "ein", "eine", "mein", "dein", "noch", "jetzt", "bereits", "schon",
        "auch", "immer", "erforderlich", "zurückgesetzt", "neu", "alt", "gleich",
        # French
        "faux", "invalide", "trop", "pas", "le", "la", "les", "un", "une", "mon", "ton",
        "expiré", "vide", "sécurisé", "changé", "requis", "obligatoire", "toujours",
        "encore", "déjà", "oublié", "bon", "mauvais", "faible", "fort", "nouveau",
        "différent", "incorrecte",
        # Spanish / Portuguese
        "incorrecta", "incorrecto", "inválida", "invalida", "demasiado", "muy", "el",
        "una", "mi", "tu", "segura", "débil", "vacía", "correcta", "obligatoria",
        "requerida", "igual", "nueva", "incorreta", "fraca", "forte", "obrigatória",
        "errada", "errónea", "distinta",
        # Dutch
        "onjuist", "fout", "ongeldig", "te", "niet", "het", "een", "mijn", "verlopen",
        "leeg", "nieuw",
    }
)  # fmt: skip
_ENGLISH_INFLECTED_RE: Final = re.compile(r"[a-z]{3,}(?:ed|ing|ly)")
_TRAILING_PUNCT: Final = ".,;:!?)]}>"


_CLOSERS: Final = {")": "(", "]": "[", "}": "{", ">": "<"}


def _strip_trailing(value: str) -> str:
    """Drop sentence punctuation and unbalanced closing brackets from the end."""
    while value:
        last = value[-1]
        opener = _CLOSERS.get(last)
        if opener is not None and value.count(opener) >= value.count(last):
            break
        if last not in _TRAILING_PUNCT:
            break
        value = value[:-1]
    return value


def _assignment_value(m: re.Match[str]) -> tuple[str, int, int, bool] | None:
    """(value, start, end, quoted) of a ``_QUOTED_OR_BARE`` match."""
    for group, quoted in (("qval", True), ("cval", True), ("val", False)):
        value = m.group(group)
        if value is not None:
            start, end = m.span(group)
            if not quoted:
                stripped = _strip_trailing(value)
                end -= len(value) - len(stripped)
                value = stripped
            if not value:
                return None
            return value, start, end, quoted
    return None


_ANNOTATED_VALUE_RE: Final = re.compile(r"[ \t]*(?:\|[ \t]*None[ \t]*)?=[ \t]*" + _QUOTED_OR_BARE)


def _after_type_annotation(
    text: str, m: re.Match[str], value: str
) -> tuple[str, int, int, bool] | None:
    """``password: str = "hunter2"``: read the value after the annotation."""
    if value.lower().rstrip("?") not in _CODE_TYPE_VALUES:
        return None
    follow = _ANNOTATED_VALUE_RE.match(text, m.end())
    if follow is None:
        return None
    return _assignment_value(follow)


_VARIABLE_NAME_RE: Final = re.compile(r"[a-z_$][A-Za-z_$]*")
_SECRETISH_NAME_RE: Final = re.compile(r"pass|pwd|secret|token|key", re.IGNORECASE)
_CODE_CALL_RE: Final = re.compile(r"[A-Za-z_][\w.]*[(\[]")


def _code_reference(value: str) -> bool:
    """Values that are code, not literals: ``password=password``,
    ``password=self.password``, ``token: str``."""
    low = value.lower()
    if low.rstrip("?") in _CODE_TYPE_VALUES:
        return True
    if _CODE_CALL_RE.match(value):
        return True
    if _VARIABLE_NAME_RE.fullmatch(value) and _SECRETISH_NAME_RE.search(value):
        return True  # password=db_password, password: userPassword
    return _DOTTED_IDENT_RE.fullmatch(value) is not None and not any(c.isdigit() for c in value)


def _anchored_matches(
    rx: re.Pattern[str],
    text: str,
    lower: str,
    needles: Iterable[str],
    glued: tuple[str, ...] = (),
) -> Iterator[re.Match[str]]:
    """Matches of ``rx`` tried at the start of each identifier segment that
    leads up to an occurrence of one of ``needles`` (in ``lower``); needles
    listed in ``glued`` are also tried where they start inside a word
    (``PGPASSWORD=``)."""
    tried: set[int] = set()
    last_end = -1
    for i in _occurrences(lower, needles):
        if i < last_end:
            continue
        starts = _segment_starts(text, i)
        if glued and lower.startswith(glued, i):
            starts.append(i)
        for start in starts:
            if start in tried or start < last_end:
                continue
            tried.add(start)
            m = rx.match(text, start)
            if m is not None:
                last_end = m.end()
                yield m
                break


def _cut_query(text: str, start: int, value: str) -> str:
    """In a URL query (``?token=abc&page=2``) a value ends at the next ``&``."""
    if start > 0 and text[start - 1] in "?&" and "&" in value:
        return value[: value.index("&")]
    return value


def _find_generic_secrets(text: str, lower: str) -> Iterator[_Cand]:
    for m in _anchored_matches(_AWS_SECRET_RE, text, lower, ("secret",)):
        if not looks_like_placeholder(m.group("val")):
            yield _Cand(m.start("val"), m.end("val"), API_KEY)
    for m in _anchored_matches(_GENERIC_ASSIGN_RE, text, lower, _SECRET_NAME_HINTS):
        got = _assignment_value(m)
        if got is None:
            continue
        value, start, end, _quoted = got
        if "&" in value:  # tokens have no "&": "?api_key=abc&page=2"
            value = value[: value.index("&")]
            end = start + len(value)
            if not value:
                continue
        later = _after_type_annotation(text, m, value)
        if later is not None:
            value, start, end, _quoted = later
        if _code_reference(value) or not _looks_random(value):
            continue
        yield _Cand(start, end, API_KEY)


_GLUED_PW_NAMES: Final = ("password", "passwd", "passwort", "kennwort")


def _find_passwords(text: str, lower: str) -> Iterator[_Cand]:
    for m in _anchored_matches(_PASSWORD_RE, text, lower, _PASSWORD_HINTS, _GLUED_PW_NAMES):
        got = _assignment_value(m)
        if got is None:
            continue
        value, start, end, quoted = got
        if not quoted:
            value = _cut_query(text, m.start(), value)
            end = start + len(value)
        if m.group("assign") is not None:
            later = _after_type_annotation(text, m, value)
            if later is not None:
                value, start, end, quoted = later
            if looks_like_placeholder(value) or _code_reference(value):
                continue
        else:
            if looks_like_placeholder(value):
                continue
            low = value.lower()
            prose = low in _PROSE_STOPWORDS or _labelled.not_a_value(low)
            if not quoted and (prose or _ENGLISH_INFLECTED_RE.fullmatch(low)):
                continue
        yield _Cand(start, end, PASSWORD)
    if "pin" in lower:
        for m in _anchored_matches(_PIN_RE, text, lower, ("pin",)):
            yield _Cand(m.start("val"), m.end("val"), PASSWORD)


# --------------------------------------------------------------------------
# Bearer tokens and JWTs
# --------------------------------------------------------------------------

# "Authorization: Bearer|Basic|Token <value>" (header), or "bearer <value>".
_BEARER_RE: Final = re.compile(
    r"(?P<auth>authorization[\"']?[ \t]*[:=][ \t]*[\"']?[ \t]*)?"
    r"(?<![A-Za-z0-9_\-])(?P<scheme>bearer|basic|token)[ \t]+"
    r"(?P<val>[A-Za-z0-9\-._~+/]+=*)(?![A-Za-z0-9\-._~+/=])",
    re.IGNORECASE,
)
_JWT_RE: Final = re.compile(
    r"(?<![A-Za-z0-9_\-.])(?P<header>ey[A-Za-z0-9_\-]{8,2048})\.[A-Za-z0-9_\-]{2,16384}"
    r"\.[A-Za-z0-9_\-]*(?![A-Za-z0-9_\-]|\.[A-Za-z0-9_\-])"
)


def _find_bearer_tokens(text: str, lower: str) -> Iterator[_Cand]:
    del lower
    for m in _BEARER_RE.finditer(text):
        value = m.group("val")
        if looks_like_placeholder(value):
            continue
        if m.group("auth"):
            ok = len(value) >= 8 and value.lower() not in _PROSE_STOPWORDS
        elif m.group("scheme").lower() == "bearer":
            ok = _looks_random(value, min_len=16)
        else:
            continue  # "basic"/"token" only in an Authorization header
        if ok:
            yield _Cand(m.start("val"), m.end("val"), BEARER_TOKEN)


def _jwt_header_ok(segment: str) -> bool:
    try:
        raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
        header = json.loads(raw)
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and "alg" in header


def _find_jwts(text: str, lower: str) -> Iterator[_Cand]:
    del lower
    for i in _occurrences(text, ("eyJ", "eyA")):
        m = _JWT_RE.match(text, i)
        if m is not None and _jwt_header_ok(m.group("header")):
            yield _Cand(m.start(), m.end(), JWT)


# --------------------------------------------------------------------------
# Connection strings and private keys
# --------------------------------------------------------------------------

_URI_CREDENTIALS_RE: Final = re.compile(
    r"(?<![\w+.\-])(?:jdbc:)?[a-z][a-z0-9+.\-]{1,30}://"
    r"(?P<user>[^\s:/@?#'\"<>`]*):(?P<pw>[^\s/@'\"<>`]+)@[^\s'\"<>`]+",
    re.IGNORECASE,
)
_JDBC_PASSWORD_RE: Final = re.compile(
    r"(?<![\w])jdbc:[a-z0-9]{1,32}:[^\s'\"<>`]{0,2048}?[?;&:]password=(?P<pw>[^\s&;'\"<>`]+)"
    r"[^\s'\"<>`]*",
    re.IGNORECASE,
)
_KV_CONN_RE: Final = re.compile(
    r"(?<![\w=])(?:(?:data[ \t]+source|initial[ \t]+catalog|user[ \t]+id|[a-z][a-z0-9_]{0,29})"
    r"[ \t]*=[^;\n\"'`]*;[ \t]*){1,30}"
    r"(?:(?:data[ \t]+source|initial[ \t]+catalog|user[ \t]+id|[a-z][a-z0-9_]{0,29})"
    r"[ \t]*=[^;\n\"'`]*)?",
    re.IGNORECASE,
)
_KV_PAIR_RE: Final = re.compile(r"([^=;]+)=([^;]*)")
_KV_HOST_KEYS: Final = frozenset(
    {"server", "data source", "host", "hostname", "address", "addr", "network address"}
)


_SCHEME_CHARS: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-"
)


def _find_connection_strings(text: str, lower: str) -> Iterator[_Cand]:
    last_end = -1
    for i in _occurrences(text, ("://",)):
        if i < last_end:
            continue
        start = i
        while start > 0 and text[start - 1] in _SCHEME_CHARS and i - start < 32:
            start -= 1
        if lower.startswith("jdbc:", start - 5):
            start -= 5
        m = _URI_CREDENTIALS_RE.match(text, start)
        if m is None or looks_like_placeholder(m.group("pw")):
            continue
        end = m.end()
        while end > m.start() and text[end - 1] in _TRAILING_PUNCT:
            end -= 1
        last_end = end
        yield _Cand(m.start(), end, CONNECTION_STRING)
    for i in _occurrences(lower, ("jdbc:",)):
        m = _JDBC_PASSWORD_RE.match(text, i)
        if m is not None and not looks_like_placeholder(m.group("pw")):
            yield _Cand(m.start(), m.end(), CONNECTION_STRING)
    if ";" in text and ("password" in lower or "pwd" in lower):
        for m in _KV_CONN_RE.finditer(text):
            pairs = {
                re.sub(r"\s+", " ", k.strip().lower()): v.strip()
                for k, v in _KV_PAIR_RE.findall(m.group())
            }
            pw = pairs.get("password", pairs.get("pwd"))
            if pw and not looks_like_placeholder(pw) and _KV_HOST_KEYS & pairs.keys():
                yield _Cand(m.start(), m.end(), CONNECTION_STRING)


_PEM_BEGIN_RE: Final = re.compile(
    r"-----BEGIN (?P<label>(?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?)-----"
)
# A truncated block (no END line): swallow what still looks like key material.
_PEM_TAIL_RE: Final = re.compile(
    r"(?>(?:\s|\\[nr])*(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]{1,15}={1,2}"
    r"|Proc-Type:[^\n\\]*|DEK-Info:[^\n\\]*|Version:[^\n\\]*))*"
)


def _find_private_keys(text: str, lower: str) -> Iterator[_Cand]:
    del lower
    pos = 0
    while True:
        m = _PEM_BEGIN_RE.search(text, pos)
        if m is None:
            return
        end_marker = "-----END " + m.group("label") + "-----"
        end = text.find(end_marker, m.end())
        if end != -1:
            end += len(end_marker)
        else:
            tail = _PEM_TAIL_RE.match(text, m.end())
            end = tail.end() if tail is not None else m.end()
        yield _Cand(m.start(), end, PRIVATE_KEY)
        pos = end


# --------------------------------------------------------------------------
# The detector
# --------------------------------------------------------------------------

_HAS_DIGIT_RE: Final = re.compile(r"\d")
_PROVIDER_HINTS: Final = (
    "sk-", "sk_", "rk_", "pk_", "AKIA", "ASIA", "ABIA", "ACCA", "ghp_", "gho_", "ghu_",
    "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "xapp-", "AIza", "SK", "SG.", "npm_",
    "hf_",
)  # fmt: skip
_SECRET_NAME_HINTS: Final = ("key", "token", "secret", "auth", "credential")
_PASSWORD_HINTS: Final = (
    "pass", "pw", "pwd", "pin", "mot de", "mdp", "contrase", "senha", "wachtwoord",
    "kennwort", "salasana", "hasło", "haslo",
)  # fmt: skip

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
    _Route(frozenset({PRIVATE_KEY}), _has("PRIVATE KEY"), _find_private_keys),
    _Route(
        frozenset({CONNECTION_STRING}),
        lambda v: "://" in v.text or "jdbc:" in v.lower or (";" in v.text and "=" in v.text),
        _find_connection_strings,
    ),
    _Route(frozenset({JWT}), _has("eyJ", "eyA"), _find_jwts),
    _Route(frozenset({API_KEY}), _has(*_PROVIDER_HINTS), _find_provider_keys),
    _Route(frozenset({API_KEY}), _has_lower(*_SECRET_NAME_HINTS), _find_generic_secrets),
    _Route(frozenset({BEARER_TOKEN}), _has_lower("bearer", "authorization"), _find_bearer_tokens),
    _Route(frozenset({PASSWORD}), _has_lower(*_PASSWORD_HINTS), _find_passwords),
    _Route(frozenset({EMAIL}), lambda v: "@" in v.text or "%40" in v.lower, _find_emails),
    _Route(
        frozenset({EMAIL}),
        lambda v: _obf.may_hold(EMAIL, v.text, v.lower),
        _obf.find_spelled_emails,
    ),
    _Route(frozenset({EMAIL}), _has("@"), _obf.find_unicode_emails, "kept", fail_closed=True),
    _Route(frozenset({EMAIL}), _long, _obf.find_chinese_spelled_emails, "kept", fail_closed=True),
    _Route(frozenset({NATIONAL_ID}), _digits, _find_national_ids),
    _Route(frozenset({CARD}), _digits, _find_cards),
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
    _Route(frozenset({IBAN}), _digits, _find_ibans),
    _Route(
        frozenset({IP_ADDRESS}),
        lambda v: v.has_digit and ("." in v.text or ":" in v.text),
        _find_ips,
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
    region). Instances hold only configuration and are safe to share.
    """

    __slots__ = ("_kinds", "_phone_regions")

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
            out.extend((c, 2) for c in _phone.find_phones(views.text, self._phone_regions))
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
        cands = self._candidates(text)
        if not cands:
            return []
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
        return findings

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
