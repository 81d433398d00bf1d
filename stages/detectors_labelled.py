"""Values that a label makes sensitive: the label lowers the bar for the value next to it.

A password, a passport number or a phone number written in a sentence has no
format of its own that a pattern could trust (``Kastanie#2291``, ``K48213907``,
``698765432``); the word before it says what it is. This finder reads the
structure, not the phrasing:

1. **A label** of a family (password, PIN, identity document, phone, token,
   bearer token, address) in any supported language, found anywhere in the text;
   Chinese labels need no word boundary (``密码是abc123XYZ``, ``手机13812345678``).
2. **Then the value**: after the label come fillers (``number``, ``nº``,
   ``号码``), then either the value itself (``Passwort Sommer2024``, ``DNI
   48291736M``) or a few words and a connector (``the password for the studio
   wifi is ...``, ``Das Passwort für das WLAN lautet ...``, ``的密码是...``). The
   value must have its family's shape, a much lower bar than an unlabelled value:
   any token with a digit or a symbol for a password, five characters with two
   digits for a document, seven digits for a phone, the rest of the clause with a
   digit in it for an address.
3. **Or a value near it**: in the clause around a password, token or document
   label, a token that is strongly value-like (letters with digits or symbols)
   is masked too, wherever it stands (``I set Quokka!Sunset88 as the new admin
   password``, ``我把Lotus!8817设成了服务器的新密码``).

Dates, times, versions, URLs, e-mail addresses and placeholders are never values
(``my passport expires on 2031-05-14`` stays). Word lists are data
(``memgate/data/labels.json``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from phonenumbers import Leniency, PhoneNumberMatcher

from memgate.stages.detector_kinds import Cand, char_classes, looks_like_placeholder, slug_like
from memgate.stages.detector_text import is_cjk
from memgate.stages.word_trie import alternation

__all__ = ["LABEL_HINT_CHARS", "find_labelled_values", "may_hold", "not_a_value", "s10_valid"]


def _load() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "labels.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


_DATA: Final = _load()


@dataclass(frozen=True, slots=True)
class _Family:
    name: str
    kind: str
    value: str
    plain_words: bool
    not_before: frozenset[str]
    not_after: frozenset[str]
    identifiers_block: bool  # an identifier word next to the label makes it another number
    strict: bool  # the weakest label ("number"): the value must be a document by shape


_IDENTIFIER_WORDS: Final = frozenset(
    w.lower() for ws in _DATA["identifier_words"].values() for w in ws
)
_PARTICLES: Final = frozenset(_DATA["particles"])


def _families() -> tuple[dict[str, _Family], dict[str, str]]:
    families: dict[str, _Family] = {}
    label_family: dict[str, str] = {}
    for name, fam in _DATA["families"].items():
        families[name] = _Family(
            name=name,
            kind=fam["kind"],
            value=fam["value"],
            plain_words=bool(fam.get("plain_words")),
            not_before=frozenset(fam.get("not_before", ())),
            not_after=frozenset(fam.get("not_after", ())),
            identifiers_block=bool(fam.get("not_before_identifier_words")),
            strict=bool(fam.get("strict")),
        )
        for words in fam["labels"].values():
            for w in words:
                label_family.setdefault(w.lower(), name)
    return families, label_family


_FAMILIES, _LABEL_FAMILY = _families()


# A Latin letter or digit on either side of a label means it is part of a word.
_LATIN: Final = r"A-Za-z0-9\u00c0-\u024f"
# the labels as a prefix tree: the same label found as by the list sorted longest first,
# read 4.5 times faster (issue 14; tests/unit/stages/test_word_trie.py)
_LABEL_RE: Final = re.compile(
    rf"(?<![{_LATIN}_])(?P<label>{alternation(_LABEL_FAMILY)})(?![A-Za-z\u00c0-\u024f])"
)
_FILLERS: Final = frozenset(w.lower() for w in _DATA["fillers"])
_CONNECTORS: Final = sorted(
    {w.lower() for ws in _DATA["connectors"].values() for w in ws}, key=len, reverse=True
)
_ARTICLES: Final = frozenset(_DATA["articles"])
_NOT_VALUES: Final = frozenset(w for ws in _DATA["not_values"].values() for w in ws)
_CJK_LEADS: Final = sorted(
    {w for w in (*_FILLERS, *_CONNECTORS) if w and is_cjk(w[0])}, key=len, reverse=True
)
#: First characters of every label (a cheap test before the regular expression).
LABEL_HINT_CHARS: Final = frozenset(w[0] for w in _LABEL_FAMILY)
_HINTS: Final = tuple(sorted({w[:3] for w in _LABEL_FAMILY}))

_CLAUSE_END: Final = frozenset("\n。！？；")
_LATIN_END: Final = frozenset(".!?;")
_QUOTES: Final = {
    '"': '"',
    "'": "'",
    "`": "`",
    "“": "”",
    "„": "“",
    "«": "»",
    "「": "」",
    "『": "』",
}
_TRIM: Final = ".,;:!?)]}>'\"”»」』"
_LEAD: Final = ":=,(<[{#"
_MAX_GAP_WORDS: Final = 12
_NEAR: Final = 200

_DATE_RE: Final = re.compile(
    r"\d{4}[./\-]\d{1,2}[./\-]\d{1,2}|\d{1,2}[./\-]\d{1,2}[./\-]\d{2,4}|\d{1,2}:\d{2}(?::\d{2})?"
)
_VERSION_RE: Final = re.compile(r"[vV]?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?")
# Digits grouped in thousands with a check digit after a dash are how identity
# numbers are written (``12.345.678-9``, ``613.042.857-07``), not a version.
_THOUSANDS_ID_RE: Final = re.compile(r"\d{1,3}(?:\.\d{3}){2,}(?:-[\dXx]{1,2})?")
_CODE_RE: Final = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_IP_RE: Final = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_S10_RE: Final = re.compile(r"[A-Z]{2}(\d{9})[A-Z]{2}")
_ID_LIKE_RE: Final = re.compile(r"(?:[A-Z]{1,8}|\d{1,8})(?:[-/](?:[A-Z]{1,8}|\d{1,8}))+")
_NOT_STREET_RE: Final = re.compile(
    r"\d{1,3}(?:\.\d{1,3}){3}(?!\d)|[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}(?![\w:])"
    r"|[a-zA-Z][\w+.\-]*://|[\w.\-]+@|(?:[a-z0-9\-]+\.)+[a-z]{2,}(?![\w\-])"
)
_CJK_UNIT: Final = frozenset("年月日天号號楼樓层層室个個次元块塊分秒岁歲")
_GROUPS_RE: Final = re.compile(r"[A-Za-z0-9]{1,12}(?:[ .\-/][A-Za-z0-9]{1,12}){1,7}")
_PHONE_RUN_RE: Final = re.compile(r"\+?\(?\d[\d \-./()\u00a0]{5,22}\d")
_SYMBOLS: Final = frozenset("!@#$%^&*+=?~_|")
_PHONE_REGIONS: Final = ("US", "GB", "DE", "FR", "ES", "PT", "CN", "BR", "MX", "CH", "AT", "BE")


def may_hold(lower: str) -> bool:
    """Cheap test: could a label occur in the (lower-cased) text at all?"""
    return any(h in lower for h in _HINTS)


def not_a_value(word: str) -> bool:
    """A word that follows a label without being its value ("the password is *wrong*")."""
    return word in _NOT_VALUES


# ------------------------------------------------------------------ tokens


def _is_clause_end(view: str, i: int) -> bool:
    """A sentence ends at ``i``: a newline, ``。！？；``, ``!?;`` before a space, or a
    full stop before a space after a word of four letters or more (not ``St.``,
    ``Av.``, ``no.``)."""
    ch = view[i]
    if ch in _CLAUSE_END:
        return True
    if ch not in _LATIN_END or (i + 1 < len(view) and not view[i + 1].isspace()):
        return False
    if ch != ".":
        return True
    j = i
    while j > 0 and view[j - 1].isalnum():
        j -= 1
    word = view[j:i]
    return len(word) >= 4 or (word.isdigit() and len(word) >= 3)


def _token(view: str, pos: int) -> tuple[int, int]:
    """The token at ``pos`` (after spaces): a quoted span, one Chinese character,
    or a run up to a space or a Chinese character, its trailing punctuation trimmed."""
    n = len(view)
    start = pos
    while start < n and view[start] in " \t\u00a0":
        start += 1
    if start >= n:
        return start, start
    ch = view[start]
    close = _QUOTES.get(ch)
    if close is not None:
        end = view.find(close, start + 1, start + 120)
        if end > start + 1:
            return start, end + 1
    if is_cjk(ch):
        return start, start + 1
    end = start
    while end < n and not view[end].isspace() and not is_cjk(view[end]):
        end += 1
    while end > start + 1 and view[end - 1] in _TRIM:
        end -= 1
    return start, end


def _unquote(tok: str) -> str:
    if len(tok) >= 2 and tok[0] in _QUOTES and tok[-1] == _QUOTES[tok[0]]:
        return tok[1:-1]
    return tok


def _connector_at(lower: str, pos: int) -> int:
    """End of a connector starting at ``pos`` (-1 if none)."""
    for c in _CONNECTORS:
        if lower.startswith(c, pos):
            end = pos + len(c)
            if is_cjk(c[0]) or not c[-1].isalnum():
                return end
            if end >= len(lower) or not lower[end].isalnum():
                return end
    return -1


def _cjk_lead(lower: str, pos: int) -> int:
    """End of a Chinese filler or connector at ``pos`` (-1 if none)."""
    for w in _CJK_LEADS:
        if lower.startswith(w, pos):
            return pos + len(w)
    return -1


# ------------------------------------------------------------------ values


def s10_valid(tok: str) -> bool:
    """A UPU S10 postal item id (``LX123456789PT``) with a valid check digit."""
    m = _S10_RE.fullmatch(tok)
    if m is None:
        return False
    digits = [int(c) for c in m.group(1)]
    rest = 11 - sum(d * w for d, w in zip(digits[:8], (8, 6, 4, 2, 3, 5, 9, 7), strict=True)) % 11
    return digits[8] == {10: 0, 11: 5}.get(rest, rest)


def _never_value(view: str, start: int, end: int) -> bool:
    tok = _unquote(view[start:end])
    if s10_valid(tok):
        return True  # a parcel's tracking number
    if not tok or "://" in tok or "@" in tok or looks_like_placeholder(tok):
        return True
    if any(c in tok for c in "=[]():") or _CODE_RE.fullmatch(tok):
        return True  # another assignment, a mask, a call or a dotted name in code
    if _DATE_RE.fullmatch(tok) or (
        _VERSION_RE.fullmatch(tok) and not _THOUSANDS_ID_RE.fullmatch(tok)
    ):
        return True
    return end < len(view) and view[end] in _CJK_UNIT  # "2031年", "1204室", "90天"


def _plain_word(tok: str) -> bool:
    return tok.replace("-", "").replace("'", "").isalpha()


def _secret_ok(tok: str, quoted: bool) -> bool:
    if len(tok) < 4 or tok.lower() in _NOT_VALUES:
        return False
    return quoted or not _plain_word(tok)


def _phrase_end(view: str, start: int) -> int:
    """End of a pass phrase at ``start``: the rest of the clause, one to five plain
    words none of which says the label has no value here (-1 otherwise)."""
    pos, words, end = start, 0, -1
    while words <= 5:
        s, e = _token(view, pos)
        if e <= s or _is_clause_end(view, s) or view[s] in ",，":
            break
        word = view[s:e]
        if not _plain_word(word) or word.lower() in _NOT_VALUES:
            return -1
        words, end, pos = words + 1, e, e
        if _closes_clause(view, e):
            return end if words > 1 or len(word) >= 5 else -1
    return -1


def _token_ok(tok: str) -> bool:
    if tok.lower() in _NOT_VALUES or _plain_word(tok):
        return False
    if len(tok) >= 16:
        return True
    return len(tok) >= 8 and (char_classes(tok) >= 2 or any(c in _SYMBOLS for c in tok))


def _document_ok(tok: str) -> bool:
    alnum = [c for c in tok if c.isalnum()]
    digits = sum(c.isdigit() for c in alnum)
    return len(alnum) >= 5 and digits >= 2 and len(alnum) <= 24


def _strict_document(tok: str) -> bool:
    letters = sum(c.isalpha() for c in tok)
    digits = sum(c.isdigit() for c in tok)
    return tok.isalnum() and ((letters >= 1 and digits >= 5) or digits >= 8) and len(tok) <= 20


def _grouped_end(view: str, start: int) -> int:
    """End of a document number written in groups (``GBR 553019284``, ``57 318 402
    916``, ``LZ6 311 T47``): groups with a digit or of up to three capitals, five
    digits or more in all (-1 if none)."""
    m = _GROUPS_RE.match(view, start)
    if m is None or _DATE_RE.fullmatch(m.group()):
        return -1
    end, digits, pos = start, 0, start
    for group in re.split(r"([ .\-/])", m.group()):
        if len(group) == 1 and not group.isalnum():
            pos += 1
            continue
        if not (any(c.isdigit() for c in group) or (group.isupper() and len(group) <= 3)):
            break
        digits += sum(c.isdigit() for c in group)
        pos += len(group)
        end = pos
    return end if 5 <= digits <= 24 else -1


def _phone_end(view: str, start: int) -> int:
    """End of a phone number starting at ``start`` (-1 if none): seven to fifteen
    digits that ``phonenumbers`` finds possible in a region of the supported languages."""
    m = _PHONE_RUN_RE.match(view, start)
    if m is None or _DATE_RE.fullmatch(m.group()) or _IP_RE.fullmatch(m.group()):
        return -1
    run = m.group()
    if m.end() < len(view) and view[m.end()].isalpha() and not is_cjk(view[m.end()]):
        return -1
    for region in _PHONE_REGIONS:
        for match in PhoneNumberMatcher(run, region, leniency=Leniency.POSSIBLE):
            if match.start == 0 or run[: match.start].strip("+( ") == "":
                return start + match.end
    digits = sum(c.isdigit() for c in run)
    return m.end() if 7 <= digits <= 15 else -1


def _address_end(view: str, start: int) -> int:
    """End of an address: the clause from ``start`` through its last token with a
    digit and the place name right after it (-1 if the clause holds no digit)."""
    if _NOT_STREET_RE.match(view, start):
        return -1  # a network address, a URL or a host name is not where anyone lives
    limit = min(len(view), start + 160)
    end = start
    last_digit = -1
    i = start
    while i < limit and not _is_clause_end(view, i):
        if view[i].isdigit():
            last_digit = i
        i += 1
    if last_digit < 0 or last_digit - start > 100:
        return -1
    end = last_digit + 1
    while end < i and (view[end].isalnum() or view[end] in "-/"):
        end += 1  # the rest of that token ("23b", "号" is handled below)
    tail = re.match(r"(?:[ ,]+[A-ZÀ-Ý][\w\-']+){1,2}|[\u4e00-\u9fff]{1,6}", view[end:i])
    if tail is not None:
        end += tail.end()
    if _IP_RE.search(view, start, end):
        return -1  # a network address, even a few words on
    return end


def _value_end(view: str, start: int, end: int, fam: _Family, connected: bool) -> int:
    """End of the value at ``start`` (its token ends at ``end``) for ``fam``; -1 if none."""
    if fam.value == "phone":
        return _phone_end(view, start)
    if fam.value == "address":
        return _address_end(view, start) if connected or view[start].isdigit() else -1
    if _never_value(view, start, end):
        return -1
    if fam.value == "document":
        grouped = _grouped_end(view, start)
        if grouped > end and not fam.strict:
            return grouped
        tok = view[start:end]
        if fam.strict:
            return end if _strict_document(tok) else -1
        return end if _document_ok(tok) else -1
    tok = view[start:end]
    quoted = tok != _unquote(tok)
    tok = _unquote(tok)
    if fam.value == "pin":
        if tok.isdigit():
            return end if 4 <= len(tok) <= 12 else -1
        if not quoted and _ID_LIKE_RE.fullmatch(tok):
            return -1  # a plan or product code ("BR-2024-0915"), not a secret one
        return end if _secret_ok(tok, quoted) else -1
    if fam.value == "token":
        return end if quoted or _token_ok(tok) else -1
    if connected and fam.plain_words and not quoted and _plain_word(tok):
        return _phrase_end(view, start)  # "the guest wifi password is purple monkey dishwasher"
    return end if _secret_ok(tok, quoted) else -1


def _closes_clause(view: str, end: int) -> bool:
    j = end
    while j < len(view) and view[j] in " \t":
        j += 1
    return j >= len(view) or view[j] in ",，、" or _is_clause_end(view, j) or view[j] == "."


# ------------------------------------------------------------------ finders


def _blocked(lower: str, start: int, end: int, fam: _Family) -> bool:
    """Words next to the label make it something else: "IP address", "dirección IP",
    "tracking code", "número de pedido", "IP地址"."""
    raw_before = lower[max(0, start - 24) : start]
    before = [w.strip(",.:;") for w in raw_before.split()]
    if before and (before[-1] in fam.not_before or " ".join(before[-2:]) in fam.not_before):
        return True
    if raw_before and is_cjk(lower[start]) and raw_before.endswith(tuple(fam.not_before)):
        return True
    after = [w.strip(",.:;") for w in lower[end : end + 40].split()]
    if after and (after[0] in fam.not_after or " ".join(after[:2]) in fam.not_after):
        return True
    if fam.identifiers_block:
        if before and before[-1] in _IDENTIFIER_WORDS:
            return True
        content = [w for w in after[:3] if w not in _PARTICLES]
        if after and after[0] in _PARTICLES and content and content[0] in _IDENTIFIER_WORDS:
            return True
    return False


def _after_label(view: str, lower: str, pos: int, fam: _Family) -> tuple[int, int] | None:
    """The value after a label ending at ``pos``: fillers, then the value, or up to
    a few words and a connector, then the value."""
    gap = 0
    connected = False
    n = len(view)
    for _ in range(16):
        while pos < n and view[pos] in " \t\u00a0:=-–—#":
            if view[pos] in ":=":
                connected = True
            pos += 1
        if pos >= n or _is_clause_end(view, pos):
            return None
        lead = _cjk_lead(lower, pos)
        if lead > 0:
            connected = connected or lower[pos:lead] not in _FILLERS
            pos = lead
            continue
        conn = _connector_at(lower, pos)
        if conn > 0:
            connected = True
            pos = conn
            continue
        start, end = _token(view, pos)
        if end <= start:
            return None
        word = lower[start:end]
        if word in _FILLERS or word.rstrip(".") in _FILLERS:
            pos = end
            continue
        if connected and word in _ARTICLES:
            pos = end
            continue
        if connected or gap == 0 or fam.value in ("phone", "document"):
            value_end = _value_end(view, start, end, fam, connected)
            if value_end > start:
                return start, value_end
            if connected:
                return None
        if view[start] in ",，":
            # "my ID, it is ...": a comma leaves room for a few words and a connector
            gap = max(gap, _MAX_GAP_WORDS - 3)
            pos = start + 1
            continue
        if gap >= _MAX_GAP_WORDS * (3 if is_cjk(view[start]) else 1):
            return None
        if gap and _LABEL_RE.match(lower, start) is not None:
            return None  # another label: the value is its
        gap += 1
        pos = end
    return None


def _clause_bounds(view: str, start: int, end: int) -> tuple[int, int]:
    lo = start
    while lo > 0 and start - lo < _NEAR and not _is_clause_end(view, lo - 1):
        lo -= 1
    hi = end
    while hi < len(view) and hi - end < _NEAR and not _is_clause_end(view, hi):
        hi += 1
    return lo, hi


def _strongly_valued(view: str, start: int, end: int, fam: _Family) -> bool:
    tok = view[start:end]
    if len(tok) < 6 or _never_value(view, start, end) or slug_like(tok):
        return False
    letters = sum(c.isalpha() for c in tok)
    digits = sum(c.isdigit() for c in tok)
    if fam.value == "document":
        return (letters >= 1 and digits >= 2) or digits >= 7
    if fam.value == "pin":  # "code", "clave": a password-like word only ("Tortuga9Roja")
        return char_classes(tok) == 3 and not _ID_LIKE_RE.fullmatch(tok)
    return letters >= 1 and (digits >= 1 or any(c in _SYMBOLS for c in tok))


def _near_label(view: str, label_start: int, label_end: int, fam: _Family) -> Iterator[Cand]:
    lo, hi = _clause_bounds(view, label_start, label_end)
    pos = lo
    while pos < hi:
        start, end = _token(view, pos)
        if end <= start:
            break
        while start < end - 1 and view[start] in _LEAD:
            start += 1
        outside = end <= label_start or start >= label_end
        if outside and not is_cjk(view[start]) and _strongly_valued(view, start, end, fam):
            yield Cand(start, end, fam.kind)
        pos = max(end, start + 1)


def find_labelled_values(view: str, lower: str) -> Iterator[Cand]:
    """Every value a label makes sensitive (``view`` keeps Chinese; see the module doc)."""
    for m in _LABEL_RE.finditer(lower):
        fam = _FAMILIES[_LABEL_FAMILY[m.group("label")]]
        if _blocked(lower, m.start(), m.end(), fam):
            continue
        got = _after_label(view, lower, m.end(), fam)
        if got is not None:
            yield Cand(got[0], got[1], fam.kind)
        if fam.value in ("secret", "token", "document", "pin") and not fam.strict:
            yield from _near_label(view, m.start(), m.end(), fam)
