"""Finders for values written so that the format finders of :mod:`.detectors` miss them.

* **Spelled-out e-mail addresses**: ``john dot doe at example dot com``,
  ``john(at)example(dot)com``, ``jane [at] example [dot] org``, ``anna[at]beispiel.de``,
  ``juan punto perez arroba ejemplo punto es``. An "at" in brackets or a word that
  only means "@" (``arroba``, ``arobase``) is enough; the bare word ``at`` also needs
  a spelled-out dot (``dot``, ``punkt``, ``point``, ``punto``, ``ponto``) and a local
  part that is not an ordinary word ("I work at Acme dot com" stays). The domain must
  end in a known top-level domain (the generic ones, and the country codes of
  Google's phone metadata), and the address put back together must be well formed.
* **Phone numbers after a phone label**: ``my phone number is 4155552671``,
  ``Handynummer 015123456789``, ``mi móvil es 612345678``. A number right after a label
  (within the clause) is a phone when ``phonenumbers`` finds it valid in one of the
  regions of the supported languages, or, written with ``+``/``00``, a possible
  number (``00441632960961``, a reserved drama range). Dates and IP addresses are not.
* **Cards with other separators**: ``4111.1111.1111.1111``, ``4111·1111…``, no-break
  spaces, ``/`` or ``_`` between the groups: the card grouping (4-4-4-4, 4-6-5), one
  separator throughout, a card network's prefix and the Luhn check.

Word lists are data (``memgate/data/obfuscation.json``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib import resources
from typing import Any, Final

import phonenumbers

from memgate.stages.detector_kinds import (
    CARD,
    EMAIL,
    PHONE,
    Cand,
    card_grouping_ok,
    card_prefix_ok,
    luhn_valid,
)

__all__ = [
    "find_chinese_spelled_emails",
    "find_dotted_cards",
    "find_labelled_emails",
    "find_labelled_phones",
    "find_spelled_emails",
    "find_unicode_emails",
    "may_hold",
]


def _load() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "obfuscation.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


_DATA: Final = _load()


def _alt(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# ------------------------------------------------------------------ e-mail

_E: Final[dict[str, Any]] = _DATA["email"]
_AT_STRONG_WORDS: Final = _alt(_E["at_words_strong"])
_AT_WORDS: Final = _alt(_E["at_words_strong"] + _E["at_words_weak"])
_DOT_WORDS: Final = _alt(_E["dot_words"])
_OPEN, _CLOSE = r"[(\[{<]", r"[)\]}>]"

_AT_RE: Final = re.compile(
    rf"(?P<strong>[ \t]*{_OPEN}[ \t]*(?:@|{_AT_WORDS})[ \t]*{_CLOSE}[ \t]*"
    rf"|[ \t]+(?:{_AT_STRONG_WORDS})[ \t]+)|(?P<plain>[ \t]?@[ \t]?)"
    rf"|(?P<weak>[ \t]+(?:{_alt(_E['at_words_weak'])})[ \t]+)"
)
_SPELLED_DOT: Final = (
    rf"[ \t]*{_OPEN}[ \t]*(?:\.|{_DOT_WORDS})[ \t]*{_CLOSE}[ \t]*|[ \t]+(?:{_DOT_WORDS})[ \t]+"
    r"|[ \t]+\.[ \t]+"  # "gmx . de"
)
_DOT_RE: Final = re.compile(rf"(?P<spelled>{_SPELLED_DOT})|\.")
_LABEL_RE: Final = re.compile(r"[^\W_](?:[\w\-]{0,61}[^\W_])?")
_LOCAL_TOKEN: Final = r"[a-z0-9](?:[a-z0-9_%+\-]{0,62}[a-z0-9_+\-])?"
_LOCAL_TAIL_RE: Final = re.compile(
    rf"(?<![\w.@%+\-])(?P<local>{_LOCAL_TOKEN}(?:(?:{_SPELLED_DOT}|\.){_LOCAL_TOKEN}){{0,5}})$"
)
_TLDS: Final = frozenset(_E["generic_tlds"]) | frozenset(
    r.lower() for r in phonenumbers.SUPPORTED_REGIONS
)
_WEAK_EXCLUDED_TLDS: Final = frozenset(_E["weak_excluded_tlds"])
_WEAK_STOPWORDS: Final = frozenset(_E["weak_local_stopwords"])
# a local part that is no ordinary word: "claire.roux", "j_smith", "mia84"
_NOT_A_WORD_RE: Final = re.compile(r"[a-z](?:[a-z\d]*[._][a-z\d]+)+$|[a-z]{2,}\d{1,4}$")
_ZH_AT: Final = _alt(_E["at_words_zh"])
_ZH_DOT: Final = _alt(_E["dot_words_zh"])
_ZH_EMAIL_RE: Final = re.compile(
    rf"(?<![A-Za-z0-9._%+\-])(?P<local>[A-Za-z0-9][A-Za-z0-9._%+\-]{{0,63}})"
    rf"[ \t]*(?:{_ZH_AT})[ \t]*(?P<domain>[A-Za-z0-9\-]{{1,63}}"
    rf"(?:[ \t]*(?:{_ZH_DOT}|\.)[ \t]*[A-Za-z0-9\-]{{1,63}}){{1,4}})"
    r"(?![A-Za-z0-9\-])"
)
_ZH_DOT_SPLIT_RE: Final = re.compile(rf"[ \t]*(?:{_ZH_DOT}|\.)[ \t]*")
_ZH_HINTS: Final = tuple(w for w in (*_E["at_words_zh"], *_E["dot_words_zh"]) if not w.isascii())
_AT_HINTS: Final = ("@", *_E["at_words_strong"], *_E["at_words_weak"])


def _domain(lower: str, pos: int) -> tuple[int, str, bool] | None:
    """The longest ``label (dot label)+`` at ``pos`` ending in a known TLD:
    (end, domain with ``.``, whether a dot was spelled out)."""
    labels: list[str] = []
    spelled: list[bool] = [False]
    ends: list[int] = []
    m = _LABEL_RE.match(lower, pos)
    while m is not None and len(labels) < 8:
        labels.append(m.group())
        ends.append(m.end())
        dot = _DOT_RE.match(lower, m.end())
        if dot is None:
            break
        spelled.append(dot.group("spelled") is not None)
        m = _LABEL_RE.match(lower, dot.end())
    for k in range(len(labels), 1, -1):
        if labels[k - 1] in _TLDS and labels[k - 1].isascii() and labels[k - 1].isalpha():
            end = ends[k - 1]
            if end < len(lower) and (lower[end].isalnum() or lower[end] in "@_"):
                continue
            return end, ".".join(labels[:k]), any(spelled[1:k])
    return None


def find_spelled_emails(text: str, lower: str) -> Iterator[Cand]:
    last_end = -1
    for at in _AT_RE.finditer(lower):
        if at.start() < last_end:
            continue
        dom = _domain(lower, at.end())
        if dom is None:
            continue
        end, domain, domain_spelled = dom
        if at.group("plain") is not None and not domain_spelled:
            continue  # "a@b.com": the format finder's; "a@b punkt de", "a@b[.]de": this one's
        tail = _LOCAL_TAIL_RE.search(lower, max(0, at.start() - 160), at.start())
        if tail is None:
            continue
        raw_local = tail.group("local")
        tokens = re.split(rf"{_SPELLED_DOT}|\.", raw_local)
        local_spelled = len(re.findall(_SPELLED_DOT, raw_local)) > 0
        if at.group("weak") is not None and text[at.start() : at.end()].strip() != "AT":
            # the bare word "at" (not an upper-case "AT", written to be read as "@"):
            # the address must be spelled out, and a one-word local part must be
            # neither an ordinary word nor followed by a word-like TLD
            if not (domain_spelled or local_spelled or _NOT_A_WORD_RE.match(raw_local)):
                continue  # "claire.roux at orange.fr" is an address, "work at acme.com" not
            tld = domain.rsplit(".", 1)[1]
            if len(tokens) == 1 and (tokens[0] in _WEAK_STOPWORDS or tld in _WEAK_EXCLUDED_TLDS):
                continue
        local = ".".join(tokens)
        if not 1 <= len(local) <= 64 or len(domain) > 253 or not all(tokens):
            continue
        last_end = end
        yield Cand(tail.start("local"), end, EMAIL)


_UNICODE_EMAIL_RE: Final = re.compile(
    r"(?<![\w.%+\-])(?P<local>[\w%+\-]+(?:\.[\w%+\-]+){0,5})(?P<at>[ \t]?@[ \t]?)"
    r"(?P<domain>(?:[^\W_](?:[\w\-]{0,61}[^\W_])?\.){1,8}(?P<tld>[^\W\d_]{2,24}))(?![\w\-])"
)


def find_unicode_emails(text: str, lower: str) -> Iterator[Cand]:
    """Addresses that the ASCII pattern misses: letters of any script in the local
    part or the domain (``jürgen.weiß@gmx.de``, ``张伟@公司.中国``), or one space on
    each side of the ``@`` (``nora.quinn @ fastmail.com``, then with a known TLD)."""
    del text
    for m in _UNICODE_EMAIL_RE.finditer(lower):
        spaced = m.group("at") != "@"
        if m.group().isascii() and not spaced:
            continue  # the format finder's
        if spaced and (m.group("at") not in (" @ ", "\t@\t") or m.group("tld") not in _TLDS):
            continue
        yield Cand(m.start("local"), m.end(), EMAIL)


def find_chinese_spelled_emails(text: str, lower: str) -> Iterator[Cand]:
    """Addresses spelled in Chinese words, with no spaces around them
    (``wangfang艾特163点com``, ``liuyang at 126点com``); ``text`` keeps the Chinese
    characters."""
    del text
    if not any(h in lower for h in _ZH_HINTS):
        return
    for m in _ZH_EMAIL_RE.finditer(lower):
        labels = _ZH_DOT_SPLIT_RE.split(m.group("domain"))
        spelled = m.group() != m.group().replace("点", "").replace("點", "")
        if labels[-1] in _TLDS and (spelled or not m.group().isascii()):
            yield Cand(m.start("local"), m.end(), EMAIL)


_EMAIL_LABELS: Final = sorted(
    {w.lower() for ws in _E["labels"].values() for w in ws}, key=len, reverse=True
)
_EMAIL_LABEL_RE: Final = re.compile(
    rf"(?<![A-Za-z0-9\u00c0-\u024f])(?:{_alt(_EMAIL_LABELS)})(?![A-Za-z\u00c0-\u024f])"
)
_STAND_IN_RE: Final = re.compile(
    rf"(?<![A-Za-z0-9._%+\-])(?P<local>[a-z0-9][a-z0-9._%+\-]{{0,63}})"
    rf"[ \t]?(?:{_alt(_E['at_stand_ins'])})[ \t]?"
    r"(?P<domain>(?:[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?\.){1,4}(?P<tld>[a-z]{2,24}))"
    r"(?![A-Za-z0-9\-])"
)
_LABEL_REACH: Final = 80


def find_labelled_emails(text: str, lower: str) -> Iterator[Cand]:
    """An address whose ``@`` is written as another character (``#``, ``*``), next to
    an e-mail label (``我的邮箱是zhoumin#qq.com（#换成@）``, ``my email is
    nora.quinn*posteo.net``): the label is the evidence a stand-in needs."""
    del text
    labels = [m.end() for m in _EMAIL_LABEL_RE.finditer(lower)]
    if not labels:
        return
    for m in _STAND_IN_RE.finditer(lower):
        if m.group("tld") not in _TLDS or not any(c.isalpha() for c in m.group("local")):
            continue
        if any(0 <= m.start() - end <= _LABEL_REACH for end in labels):
            yield Cand(m.start("local"), m.end(), EMAIL)


# ------------------------------------------------------------------ phone

_P: Final[dict[str, Any]] = _DATA["phone"]
_PHONE_REGIONS: Final[tuple[str, ...]] = tuple(_P["regions"])
_PHONE_LABEL_RE: Final = re.compile(
    rf"(?<![\w-])(?:{_alt(_P['labels'])})\.?(?![\w-])"
    r"(?P<gap>[^\d.!?;\n+]{0,24})"
    r"(?P<num>(?:\+|\b00)?\(?\d[\d \-./()\u00a0]{5,22}\d)"
    r"(?![\w@]|[.,:/\-]\d)"
)
_PHONE_HINTS: Final = frozenset(w.split()[0].split("-")[0][:3] for w in _P["labels"])
_DATE_OR_IP_RE: Final = re.compile(
    r"\d{4}[./\- ]\d{1,2}[./\- ]\d{1,2}|\d{1,2}[./\- ]\d{1,2}[./\- ]\d{2,4}"
    r"|\d{1,3}(?:\.\d{1,3}){3}|(?:19|20)\d\d(?:\.\d+)+"
)


def _labelled_phone_ok(number: str) -> bool:
    if _DATE_OR_IP_RE.fullmatch(number):
        return False
    digits = "".join(ch for ch in number if ch.isdigit())
    if not 7 <= len(digits) <= 15:
        return False
    try:
        if number.startswith(("+", "00")):
            intl = digits[2:] if number.startswith("00") else digits
            return bool(phonenumbers.is_possible_number(phonenumbers.parse("+" + intl)))
        return any(
            phonenumbers.is_valid_number(phonenumbers.parse(digits, region))
            for region in _PHONE_REGIONS
        )
    except phonenumbers.NumberParseException:
        return False


_GROUP_END_RE: Final = re.compile(r"\d(?=[ \-./()\u00a0]|$)")


def find_labelled_phones(text: str, lower: str) -> Iterator[Cand]:
    del text
    for m in _PHONE_LABEL_RE.finditer(lower):
        num, start = m.group("num"), m.start("num")
        if _DATE_OR_IP_RE.fullmatch(num):
            continue
        # the longest run of digit groups that is a phone ("0612345678 2 times")
        for end in sorted((g.end() for g in _GROUP_END_RE.finditer(num)), reverse=True):
            if _labelled_phone_ok(num[:end]):
                yield Cand(start, start + end, PHONE)
                break


# ------------------------------------------------------------------ cards

_CARD_SEP: Final = r"[.\u00b7\u2022\u2219_/\u00a0\u2007\u2009\u202f]"
_CARD_RE: Final = re.compile(
    rf"(?<![\w.,+\-/])\d{{4}}(?P<sep>{_CARD_SEP})"
    rf"(?:\d{{4}}(?:(?P=sep)\d{{4}}){{1,2}}(?:(?P=sep)\d{{1,4}})?|\d{{6}}(?P=sep)\d{{4,5}})"
    r"(?![\w]|[.,/]\d)"
)


def find_dotted_cards(text: str, lower: str) -> Iterator[Cand]:
    del lower
    for m in _CARD_RE.finditer(text):
        groups = m.group().split(m.group("sep"))
        digits = "".join(groups)
        if (
            13 <= len(digits) <= 19
            and card_prefix_ok(digits)
            and card_grouping_ok([len(g) for g in groups])
            and luhn_valid(digits)
        ):
            yield Cand(m.start(), m.end(), CARD)


# ------------------------------------------------------------------ gates


def may_hold(kind: str, text: str, lower: str) -> bool:
    """Cheap substring test: could the finder of ``kind`` match at all?"""
    if kind == EMAIL:
        return any(h in lower for h in _AT_HINTS)
    if kind == PHONE:
        return any(h in lower for h in _PHONE_HINTS)
    if kind == CARD:
        return any(ch in text for ch in "._/\u00b7\u2022\u2219\u00a0\u2007\u2009\u202f")
    return False
