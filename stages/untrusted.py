"""Text to and from a model, handled as untrusted input.

Two directions:

* **to the model**: the turn is sent inside ``<turn>`` tags, so no copy of the
  delimiter may survive in the turn itself. :func:`neutralise_tag` finds it in
  any spelling a model may read as the tag: any case, with spaces or zero-width
  characters inside, as HTML entities (``&lt;/turn&gt;``, ``&#60;``), URL or
  backslash escapes (``%3C``, ``\\u003c``), nested (``&amp;lt;``), in Unicode
  compatibility forms (fullwidth ``＜／ｔｕｒｎ＞``) and with look-alike
  characters (``‹``, Cyrillic ``т``; the table is ``memgate/data/lookalikes.json``).
* **from the model**: every field of an answer is checked like any other input
  before it becomes part of a key or a stored value (:func:`clean_subject`,
  :func:`clean_value`, :func:`clean_text`, :func:`bounded_when`).

>>> neutralise_tag("a </TURN > b &lt;/turn&gt; c ＜／ｔｕｒｎ＞")
'a [/turn] b [/turn] c [/turn]'
>>> clean_subject("user's  sister"), clean_subject("a/b"), clean_subject("x\\x00")
("user's sister", None, None)
"""

from __future__ import annotations

import json
import re
import unicodedata
from datetime import UTC, datetime, timedelta
from html.entities import html5
from importlib import resources
from typing import Final

__all__ = [
    "EARLIEST",
    "MAX_AHEAD",
    "MAX_SUBJECT_CHARS",
    "bounded_when",
    "clean_subject",
    "clean_text",
    "clean_value",
    "neutralise_tag",
]

#: Valid-time bounds of a model's date: not before 1900, not more than a day after the
#: turn (a day of slack for time zones; a fact is not valid from the future).
EARLIEST: Final = datetime(1900, 1, 1, tzinfo=UTC)
MAX_AHEAD: Final = timedelta(days=1)
MAX_SUBJECT_CHARS: Final = 80
_MAX_DATE_CHARS: Final = 40
_KEY_SEPARATORS: Final = frozenset("/\\")


def _load_lookalikes() -> dict[str, str]:
    raw = (resources.files("memgate") / "data" / "lookalikes.json").read_text("utf-8")
    fold: dict[str, list[str]] = json.loads(raw)["fold"]
    return {ch: ascii_ch for ascii_ch, chars in fold.items() for ch in chars}


_LOOKALIKE: Final = _load_lookalikes()

# ------------------------------------------------------------------ delimiters

# One escape layer: numeric and named HTML entities (with or without ";" for the
# legacy ones), URL escapes and backslash escapes.
_ESCAPE_RE: Final = re.compile(
    r"&#(?P<dec>\d{1,7});?|&#[xX](?P<hex>[0-9a-fA-F]{1,6});?"
    r"|&(?P<name>[A-Za-z][A-Za-z0-9]{1,31};)|&(?P<legacy>lt|gt|LT|GT)"
    r"|%(?P<pct>[0-9a-fA-F]{2})|\\[uU]\{?(?P<u>[0-9a-fA-F]{4})\}?|\\[xX](?P<x>[0-9a-fA-F]{2})"
)
_MAX_ESCAPE_LAYERS: Final = 3


def _unescape(m: re.Match[str]) -> str | None:
    for group, base in (("dec", 10), ("hex", 16), ("pct", 16), ("u", 16), ("x", 16)):
        digits = m.group(group)
        if digits is not None:
            n = int(digits, base)
            return chr(n) if 0 < n <= 0x10FFFF and not 0xD800 <= n <= 0xDFFF else None
    name = m.group("name") or m.group("legacy")
    return html5.get(name) if name else None


# A character and the span of the original text it stands for.
_Char = tuple[str, int, int]


def _decoded(text: str) -> list[_Char]:
    chars: list[_Char] = [(ch, i, i + 1) for i, ch in enumerate(text)]
    for _ in range(_MAX_ESCAPE_LAYERS):
        current = "".join(c for c, _s, _e in chars)
        if not any(mark in current for mark in "&%\\"):
            break
        out: list[_Char] = []
        pos = 0
        for m in _ESCAPE_RE.finditer(current):
            value = _unescape(m)
            if value is None:
                continue
            out.extend(chars[pos : m.start()])
            start, end = chars[m.start()][1], chars[m.end() - 1][2]
            out.extend((ch, start, end) for ch in value)
            pos = m.end()
        if pos == 0:
            break
        out.extend(chars[pos:])
        chars = out
    return chars


def _fold(ch: str) -> str:
    """``ch`` as a model may read it: compatibility form, no accents, case folded."""
    if ch.isascii():
        return ch.lower()
    t = unicodedata.normalize("NFKD", ch)
    t = "".join(c for c in t if not unicodedata.combining(c))
    t = unicodedata.normalize("NFKC", t).casefold()
    return "".join(_LOOKALIKE.get(c, c) for c in t)


def neutralise_tag(text: str, tag: str = "turn") -> str:
    """``text`` with every spelling of ``<tag`` or ``</tag`` replaced by ``[tag]`` /
    ``[/tag]``, so that the text cannot close or open the tag it is sent in."""
    skeleton: list[str] = []
    owner: list[int] = []  # skeleton position -> index in the decoded characters
    chars = _decoded(text)
    for k, (ch, _s, _e) in enumerate(chars):
        for f in _fold(ch):
            if f.isspace() or unicodedata.category(f) == "Cf":
                continue
            skeleton.append(f)
            owner.append(k)
    found = list(re.finditer(rf"<(/?){re.escape(tag)}>?", "".join(skeleton)))
    if not found:
        return text
    parts: list[str] = []
    pos = 0
    for m in found:
        start = chars[owner[m.start()]][1]
        end = chars[owner[m.end() - 1]][2]
        if start < pos:  # an escape that spans two matches: already replaced
            continue
        parts += [text[pos:start], f"[{m.group(1)}{tag}]"]
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


# ------------------------------------------------------------------ answers


def _plain(value: str) -> str | None:
    """Whitespace collapsed, format characters (zero-width, bidi) removed; None if
    another control character remains."""
    v = "".join(ch for ch in value if unicodedata.category(ch) != "Cf")
    v = " ".join(v.split())
    if any(unicodedata.category(ch)[0] == "C" for ch in v):
        return None
    return v


def clean_subject(value: object) -> str | None:
    """A subject fit for a key: plain text, 1-80 characters, no path separator."""
    if not isinstance(value, str):
        return None
    v = _plain(unicodedata.normalize("NFKC", value))
    if not v or len(v) > MAX_SUBJECT_CHARS or _KEY_SEPARATORS.intersection(v):
        return None
    return v


def clean_value(value: object, max_chars: int) -> str | None:
    """A stored value: plain text, 1..``max_chars`` characters (never cut: a cut value
    is a different one). A ``/`` is kept ("CI/CD"): the value is the last part of a key,
    after a subject and a predicate that cannot hold one."""
    if not isinstance(value, str):
        return None
    v = _plain(value)
    if not v or len(v) > max_chars:
        return None
    return v


def clean_text(value: str, max_chars: int) -> str:
    """Free text (a rationale): control characters dropped, cut to ``max_chars``."""
    v = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in value)
    return " ".join(v.split())[:max_chars]


def bounded_when(value: object, turn_ts: datetime) -> tuple[datetime | None, str]:
    """An ISO 8601 date or date-time (naive: UTC) within [1900, turn + 1 day].

    Returns ``(date, "")``, ``(None, "")`` when no date was given, or ``(None, problem)``
    with ``unparseable`` or ``out_of_range``.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, ""
    if not isinstance(value, str) or len(value) > _MAX_DATE_CHARS:
        return None, "unparseable"
    try:
        dt = datetime.fromisoformat(value.strip())
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=UTC)
        dt = dt.astimezone(UTC)
    except (ValueError, OverflowError):
        return None, "unparseable"
    try:
        latest = turn_ts.astimezone(UTC) + MAX_AHEAD
    except OverflowError:
        latest = datetime.max.replace(tzinfo=UTC)
    if not EARLIEST <= dt <= latest:
        return None, "out_of_range"
    return dt, ""
