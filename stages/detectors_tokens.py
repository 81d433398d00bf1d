"""Tokens and key material masked whole or by value: bearer tokens and
``Authorization`` headers, JWTs (header decoded), connection strings with
credentials, and PEM private-key blocks.

Split from :mod:`memgate.stages.detectors`, which routes text to these finders.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator
from typing import Final

from memgate.stages.detector_kinds import (
    BEARER_TOKEN,
    CONNECTION_STRING,
    JWT,
    PRIVATE_KEY,
    Cand,
    looks_like_placeholder,
    looks_random,
)
from memgate.stages.detector_text import occurrences
from memgate.stages.detectors_assign import PROSE_STOPWORDS, TRAILING_PUNCT

__all__ = ["find_bearer_tokens", "find_connection_strings", "find_jwts", "find_private_keys"]


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


def find_bearer_tokens(text: str, lower: str) -> Iterator[Cand]:
    del lower
    for m in _BEARER_RE.finditer(text):
        value = m.group("val")
        if looks_like_placeholder(value):
            continue
        if m.group("auth"):
            ok = len(value) >= 8 and value.lower() not in PROSE_STOPWORDS
        elif m.group("scheme").lower() == "bearer":
            ok = looks_random(value, min_len=16)
        else:
            continue  # "basic"/"token" only in an Authorization header
        if ok:
            yield Cand(m.start("val"), m.end("val"), BEARER_TOKEN)


def _jwt_header_ok(segment: str) -> bool:
    try:
        raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
        header = json.loads(raw)
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and "alg" in header


def find_jwts(text: str, lower: str) -> Iterator[Cand]:
    del lower
    for i in occurrences(text, ("eyJ", "eyA")):
        m = _JWT_RE.match(text, i)
        if m is not None and _jwt_header_ok(m.group("header")):
            yield Cand(m.start(), m.end(), JWT)


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


def find_connection_strings(text: str, lower: str) -> Iterator[Cand]:
    last_end = -1
    for i in occurrences(text, ("://",)):
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
        while end > m.start() and text[end - 1] in TRAILING_PUNCT:
            end -= 1
        last_end = end
        yield Cand(m.start(), end, CONNECTION_STRING)
    for i in occurrences(lower, ("jdbc:",)):
        m = _JDBC_PASSWORD_RE.match(text, i)
        if m is not None and not looks_like_placeholder(m.group("pw")):
            yield Cand(m.start(), m.end(), CONNECTION_STRING)
    if ";" in text and ("password" in lower or "pwd" in lower):
        for m in _KV_CONN_RE.finditer(text):
            pairs = {
                re.sub(r"\s+", " ", k.strip().lower()): v.strip()
                for k, v in _KV_PAIR_RE.findall(m.group())
            }
            pw = pairs.get("password", pairs.get("pwd"))
            if pw and not looks_like_placeholder(pw) and _KV_HOST_KEYS & pairs.keys():
                yield Cand(m.start(), m.end(), CONNECTION_STRING)


_PEM_BEGIN_RE: Final = re.compile(
    r"-----BEGIN (?P<label>(?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?)-----"
)
# A truncated block (no END line): swallow what still looks like key material.
_PEM_TAIL_RE: Final = re.compile(
    r"(?>(?:\s|\\[nr])*(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]{1,15}={1,2}"
    r"|Proc-Type:[^\n\\]*|DEK-Info:[^\n\\]*|Version:[^\n\\]*))*"
)


def find_private_keys(text: str, lower: str) -> Iterator[Cand]:
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
        yield Cand(m.start(), end, PRIVATE_KEY)
        pos = end
