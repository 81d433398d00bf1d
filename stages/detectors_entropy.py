"""Secrets by their randomness, whatever their prefix: detect-secrets' plugins in prose.

A key of a vendor that no list knows (``qvx_live_7Hq2LpZ9rT4mKw8NcY3bVd``) has no
format to match; what gives it away is that it is random and that a credential
word stands near it. Three finders, each on the spaced view of the text (Chinese
characters as spaces, :mod:`memgate.stages.detector_text`):

* **High-entropy tokens near credential words**: a token of twelve characters or
  more, of at least two character classes (lower, upper, digit), whose Shannon
  entropy (detect-secrets' ``Base64HighEntropyString``; hex strings by its
  ``HexHighEntropyString``) passes a threshold, within the sentence of a
  credential word (the password, token and bearer labels of
  ``memgate/data/labels.json`` and its ``credential_words``).
* **Vendor-shaped tokens anywhere**: a short lower-case prefix and a separator
  (``xyz_live_``, ``abc-``) before a random body of all three character classes;
  or any token of 24 characters or more of all three classes and high entropy.
  Commit hashes, UUIDs, tracking numbers (one case, or hex) far from credential
  words stay.
* **detect-secrets' own plugins**: its vendor regular expressions (AWS, GitHub,
  GitLab, Slack, Stripe, Twilio, SendGrid, npm, PyPI, OpenAI, Discord, Telegram,
  Mailchimp, Square, Azure, Artifactory) and its ``KeywordDetector`` for
  ``name: value`` and ``name = value`` lines.

detect-secrets' filters (``is_potential_uuid``, ``is_sequential_string``,
``is_templated_secret``) keep look-alikes out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib import resources
from typing import Final

from detect_secrets.filters.heuristic import (
    is_potential_uuid,
    is_sequential_string,
    is_templated_secret,
)
from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
)
from detect_secrets.plugins.keyword import CONFIG_DENYLIST_REGEX_TO_GROUP, KeywordDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from memgate.stages.detector_kinds import Cand, char_classes, looks_like_placeholder, slug_like
from memgate.stages.detectors_labelled import s10_valid
from memgate.stages.literal_scan import LiteralScan
from memgate.stages.regex_literals import required_literals

__all__ = ["find_keyword_values", "find_random_tokens", "find_vendor_keys", "shannon"]

API_KEY: Final = "api_key"
PASSWORD: Final = "password"

_B64: Final = Base64HighEntropyString()
_HEX: Final = HexHighEntropyString()
_KEYWORD: Final = KeywordDetector()
_VENDORS: Final[tuple[RegexBasedDetector, ...]] = (
    ArtifactoryDetector(), AWSKeyDetector(), AzureStorageKeyDetector(),
    DiscordBotTokenDetector(), GitHubTokenDetector(), GitLabTokenDetector(),
    MailchimpDetector(), NpmDetector(), OpenAIDetector(), PypiTokenDetector(),
    SendGridDetector(), SlackDetector(), SquareOAuthDetector(), StripeDetector(),
    TelegramBotTokenDetector(), TwilioKeyDetector(),
)  # fmt: skip
#: Every vendor pattern, in the plugins' order, and the literals one of which each needs,
#: found in a text in one pass: a pattern none of whose literals occurs is not run (issue
#: 14: the same keys found, 1.8 times faster; tests/unit/stages/test_literal_scan.py)
_VENDOR_RES: Final = tuple(rx for plugin in _VENDORS for rx in plugin.denylist)
_VENDOR_SCAN: Final = LiteralScan([required_literals(rx) for rx in _VENDOR_RES])


def _credential_words() -> list[str]:
    raw = (resources.files("memgate") / "data" / "labels.json").read_text("utf-8")
    data = json.loads(raw)
    words = set(data["credential_words"])
    for name in ("password", "token", "bearer"):
        for ws in data["families"][name]["labels"].values():
            words.update(ws)
    return sorted({w.lower() for w in words}, key=len, reverse=True)


_CRED_RE: Final = re.compile(
    r"(?<![a-z0-9])(?:" + "|".join(re.escape(w) for w in _credential_words()) + r")"
)
_TOKEN_RE: Final = re.compile(r"[A-Za-z0-9+/_\-.~]{12,}={0,2}")
_SENTENCE_END_RE: Final = re.compile(r"[.!?;\n]\s|[。！？；\n]")
_NEAR: Final = 100
_VENDOR_SHAPE_RE: Final = re.compile(
    r"[A-Za-z][A-Za-z0-9]{1,11}[_\-](?:[A-Za-z0-9]{1,10}[_\-]){0,2}(?P<body>[A-Za-z0-9]{16,})"
)
_HEX_RE: Final = re.compile(r"[0-9a-fA-F]+")
_DATE_OR_VERSION_RE: Final = re.compile(r"[vV]?\d+(?:[.\-/]\d+)+(?:[-+.][\w.]+)?")
_DOTTED_RE: Final = re.compile(r"[A-Za-z_][\w\-]*(?:\.[A-Za-z_][\w\-]*)+")


def shannon(value: str) -> float:
    """Bits per character, as detect-secrets computes them (hex strings by its hex plugin)."""
    if _HEX_RE.fullmatch(value):
        return float(_HEX.calculate_shannon_entropy(value))
    return float(_B64.calculate_shannon_entropy(value))


def _boring(tok: str) -> bool:
    """Not a secret whatever its context: a placeholder, UUID, sequence, date,
    version, dotted name, path of words or file name."""
    if looks_like_placeholder(tok) or is_templated_secret(tok):
        return True
    if is_potential_uuid(tok) or is_sequential_string(tok) or s10_valid(tok):
        return True  # (a UPU S10 parcel number is a tracking number)
    if _DATE_OR_VERSION_RE.fullmatch(tok) or _DOTTED_RE.fullmatch(tok):
        return True
    return "/" in tok and all(part.isalpha() for part in tok.strip("/").split("/") if part)


def _random_near(tok: str) -> bool:
    """Random enough to be a secret next to a credential word: a digit in it (or
    sixteen characters of both cases), and not words joined by hyphens."""
    if slug_like(tok):
        return False
    if tok.isalpha() and (len(tok) < 16 or sum(c.isupper() for c in tok) < 3):
        return False  # a word, or words in camel case
    if _HEX_RE.fullmatch(tok):
        return len(tok) >= 16 and shannon(tok) >= 2.8
    if char_classes(tok) < 2:
        return False
    return shannon(tok) >= (3.0 if len(tok) < 20 else 3.3)


def _random_anywhere(tok: str) -> bool:
    """Random enough to be a secret with no credential word around it."""
    m = _VENDOR_SHAPE_RE.fullmatch(tok)
    if m is not None:
        body = m.group("body")
        return char_classes(body) == 3 and shannon(body) >= 3.5
    core = tok.strip("=")
    return (
        len(core) >= 24
        and char_classes(core) == 3
        and "." not in core
        and "/" not in core
        and shannon(core) >= 4.0
    )


def _near_credential_word(lower: str, cred_at: list[int], start: int, end: int) -> bool:
    for at in cred_at:
        if abs(at - start) > _NEAR and abs(at - end) > _NEAR:
            continue
        lo, hi = (at, start) if at < start else (end, at)
        if _SENTENCE_END_RE.search(lower, lo, hi) is None:
            return True
    return False


def find_random_tokens(spaced: str, lower: str) -> Iterator[Cand]:
    """High-entropy tokens: near a credential word, or vendor-shaped anywhere."""
    cred_at = [m.start() for m in _CRED_RE.finditer(lower)]
    for m in _TOKEN_RE.finditer(spaced):
        start, end = m.start(), m.end()
        while end > start and spaced[end - 1] in ".-~":
            end -= 1
        tok = spaced[start:end]
        if len(tok) < 12 or (start > 0 and spaced[start - 1] in ":@") or _boring(tok):
            continue
        if "://" in spaced[max(0, start - 3) : start + 3]:
            continue  # a URL's host or path (memgate.stages.detectors_url)
        if _random_anywhere(tok) or (
            cred_at and _random_near(tok) and _near_credential_word(lower, cred_at, start, end)
        ):
            yield Cand(start, end, API_KEY)


def find_vendor_keys(spaced: str, lower: str) -> Iterator[Cand]:
    """detect-secrets' vendor patterns (the whole match, its delimiters trimmed)."""
    del lower
    found = _VENDOR_SCAN.found(spaced)
    for i, rx in enumerate(_VENDOR_RES):
        if _VENDOR_SCAN.may(i, found):
            for m in rx.finditer(spaced):
                start, end = vendor_key_span(spaced, *m.span())
                if end - start >= 8:
                    yield Cand(start, end, API_KEY)


def vendor_key_span(spaced: str, start: int, end: int) -> tuple[int, int]:
    """A vendor pattern's match with its delimiters trimmed (quotes, ``=``, ``:``, blanks)."""
    while start < end and spaced[start] in " \t\"'=:":
        start += 1
    while end > start and spaced[end - 1] in " \t\"'":
        end -= 1
    return start, end


_KEYWORD_HINT_RE: Final = re.compile(r"[:=]")
_VALUE_TOKEN_RE: Final = re.compile(r"[^\s,;]+")


def find_keyword_values(spaced: str, lower: str) -> Iterator[Cand]:
    """detect-secrets' ``KeywordDetector`` on each line (``password: x``, ``api_key = y``):
    the first word of the value it reports, unless it is a word or a placeholder."""
    pos = 0
    for line in spaced.split("\n"):
        if _KEYWORD_HINT_RE.search(line):
            for value in _KEYWORD.analyze_string(line, CONFIG_DENYLIST_REGEX_TO_GROUP):
                first = _VALUE_TOKEN_RE.match(value.strip())
                if first is None:
                    continue
                tok = first.group().rstrip(".:!?)")
                at = line.find(tok)
                if at < 0 or len(tok) < 4 or tok.isalpha() or _boring(tok) or "(" in tok:
                    continue
                kind = PASSWORD if "pass" in lower[pos : pos + at] or "pwd" in line else API_KEY
                yield Cand(pos + at, pos + at + len(tok), kind)
        pos += len(line) + 1
