"""The secret parts of URLs: credentials in the user info, keys in the query, tokens in the path.

A URL is kept (it is often the memorable part: "the dashboard pulls from
https://api.tidewatch.io/v3/levels") and only what would let someone in is
masked:

* the **user info**: ``https://deploy:Wint3rSonne!@git.example.de/x.git`` masks
  ``deploy:Wint3rSonne!``; a token alone as the user (``https://ghp_...@github.com``)
  is masked when it looks random;
* **query and fragment parameters** whose name says key, token, secret,
  signature, password, auth, credential or session (``?apikey=...``,
  ``&X-Amz-Signature=...``, ``#access_token=...``), whatever the value, and any
  parameter whose value is random (24 characters or more of three classes);
* **path segments** that are random (16 characters or more of two classes) in a
  URL whose path names a hook, token, key or secret (webhook URLs), or of 32
  characters and three classes in any URL.

Placeholders (``?api_key=YOUR_KEY``, ``${TOKEN}``) stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from memgate.stages.detector_kinds import Cand, char_classes, looks_like_placeholder
from memgate.stages.detectors_entropy import shannon

__all__ = ["find_url_secrets"]

API_KEY: Final = "api_key"
CONNECTION_STRING: Final = "connection_string"

_URL_RE: Final = re.compile(r"(?<![\w+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s<>\"'`]+")
_TRAILING: Final = ".,;:!?)]}>"
_PARAM_RE: Final = re.compile(r"(?<=[?&#;])(?P<name>[^=&#;?/]{1,64})=(?P<value>[^&#;]*)")
_KEY_NAME_RE: Final = re.compile(
    r"key|token|secret|sig|pass|pwd|auth|credential|session|jwt|sas|otp|code", re.IGNORECASE
)
_HOOK_PATH_RE: Final = re.compile(r"hook|token|secret|/keys?/|apikey|api_key", re.IGNORECASE)


def _random(value: str, min_len: int, classes: int) -> bool:
    return len(value) >= min_len and char_classes(value) >= classes and shannon(value) >= 3.0


def _userinfo(url: str, base: int, start: int) -> Iterator[Cand]:
    """``start``: index of the authority in ``url``."""
    stop = len(url)
    for sep in "/?#":
        i = url.find(sep, start)
        if i != -1:
            stop = min(stop, i)
    at = url.rfind("@", start, stop)
    if at <= start:
        return
    info = url[start:at]
    if ":" in info:
        if not looks_like_placeholder(info.split(":", 1)[1]):
            yield Cand(base + start, base + at, CONNECTION_STRING)
    elif _random(info, 16, 2) and not looks_like_placeholder(info):
        yield Cand(base + start, base + at, API_KEY)


def find_url_secrets(spaced: str, lower: str) -> Iterator[Cand]:
    del lower
    for m in _URL_RE.finditer(spaced):
        url = m.group().rstrip(_TRAILING)
        base = m.start()
        authority = url.find("://") + 3
        yield from _userinfo(url, base, authority)
        for p in _PARAM_RE.finditer(url):
            value = p.group("value")
            if len(value) < 4 or looks_like_placeholder(value):
                continue
            if _KEY_NAME_RE.search(p.group("name")) or _random(value, 24, 3):
                yield Cand(base + p.start("value"), base + p.end("value"), API_KEY)
        path_start = url.find("/", authority)
        if path_start == -1:
            continue
        stops = (url.find(c, path_start) for c in "?#")
        path_end = min((i for i in stops if i != -1), default=len(url))
        hooked = _HOOK_PATH_RE.search(url, authority, path_end) is not None
        pos = path_start + 1
        for seg in url[path_start + 1 : path_end].split("/"):
            random = (hooked and _random(seg, 16, 2)) or _random(seg, 32, 3)
            if random and not looks_like_placeholder(seg):
                yield Cand(base + pos, base + pos + len(seg), API_KEY)
            pos += len(seg) + 1
