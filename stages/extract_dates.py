"""Stated and relative dates of the rule extractor ("last week", "on 3 June 2023")."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from memgate.stages.extract_lexicon import _MONTHS, _NUMBERS, _WEEKDAYS

# ============================================================== dates

_MON = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_WD = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUM = r"(?P<num>\d{1,2}|a couple of|a couple|couple of|a few|few|several|an?|one|two|" \
       r"three|four|five|six|seven|eight|nine|ten)"
_DATE_RES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(p))
    for name, p in (
        ("iso", r"\b(?:on |since )?(?P<y>(?:19|20)\d\d)-(?P<m>[01]?\d)-(?P<d>[0-3]?\d)\b"),
        ("dmy", r"\b(?:on )?(?:the )?(?P<d>[0-3]?\d)(?:st|nd|rd|th)? (?:of )?" + _MON
         + r",? (?P<y>(?:19|20)\d\d)\b"),
        ("mdy", r"\b(?:on )?" + _MON
         + r" (?P<d>[0-3]?\d)(?:st|nd|rd|th)?,? (?P<y>(?:19|20)\d\d)\b"),
        ("dm", r"\bon (?:the )?(?P<d>[0-3]?\d)(?:st|nd|rd|th)? (?:of )?" + _MON + r"(?!\w)"),
        ("md", r"\bon " + _MON + r" (?P<d>[0-3]?\d)(?:st|nd|rd|th)?\b"),
        ("my", r"\b(?:in |back in )?" + _MON + r",? (?P<y>(?:19|20)\d\d)\b"),
        ("y", r"\b(?:in|back in|since|during) (?P<y>(?:19|20)\d\d)\b"),
        ("dby", r"\bthe day before yesterday\b"),
        ("yday", r"\b(?:yesterday|last night)\b"),
        ("today", r"\b(?:today|this morning|this afternoon|this evening|tonight|earlier today)\b"),
        ("ago", r"\b" + _NUM + r" (?P<unit>day|week|month|year)s? (?:ago|back)\b"),
        ("lwkend", r"\b(?:last|this past|past) weekend\b|\bover the weekend\b"),
        ("lwd", r"\b(?:last|this past|past|on) " + _WD + r"\b"),
        ("lunit", r"\b(?:last|this past|past) (?P<unit>week|month|year|summer|winter|spring|"
                  r"fall|autumn)\b"),
        ("lmon", r"\b(?:last|in|back in|this past) " + _MON + r"(?! \d)(?!\w)"),
        ("this", r"\b(?:earlier )?this (?P<unit>week|month|year)\b"),
    )
)
_ABSOLUTE = frozenset({"iso", "dmy", "mdy", "my", "y"})  # stated dates, taken as said
_SEASON_MONTH = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def _midnight(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _minus_months(d: date, n: int) -> date:
    y, m = divmod(d.year * 12 + (d.month - 1) - n, 12)
    return date(y, m + 1, 1)


def _safe_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def parse_event_date(text: str, ref: datetime) -> tuple[datetime, tuple[int, int]] | None:
    """The date a past event happened, from a (lower-cased) phrase, relative to ``ref``.

    Returns midnight UTC of that day and the span of the phrase, or None. Relative
    periods resolve to their first day: "last week" is the Monday of the week
    before, "last month" the 1st of the previous month, "in 2019" Jan 1 2019.

    >>> ref = datetime(2023, 6, 14, 15, 0, tzinfo=UTC)   # a Wednesday
    >>> [parse_event_date(p, ref)[0].date().isoformat() for p in (
    ...     "on 3 june 2023", "june 3, 2023", "2023-06-03", "yesterday", "last week",
    ...     "last saturday", "last month", "in 2019", "two days ago", "last weekend")]
    ['2023-06-03', '2023-06-03', '2023-06-03', '2023-06-13', '2023-06-05', '2023-06-10', \
'2023-05-01', '2019-01-01', '2023-06-12', '2023-06-10']
    """
    today = ref.astimezone(UTC).date()
    for name, rx in _DATE_RES:
        m = rx.search(text)
        if m is None:
            continue
        g = m.groupdict()
        d: date | None = None
        try:  # a turn dated year 1 has no yesterday: no date
            if name in ("iso", "dmy", "mdy"):
                mon = int(g["m"]) if name == "iso" else _MONTHS[g["mon"]]
                d = _safe_date(int(g["y"]), mon, int(g["d"]))
            elif name in ("dm", "md"):
                d = _safe_date(today.year, _MONTHS[g["mon"]], int(g["d"]))
                if d is not None and d > today:
                    d = _safe_date(today.year - 1, d.month, d.day)
            elif name == "my":
                d = date(int(g["y"]), _MONTHS[g["mon"]], 1)
            elif name == "y":
                d = date(int(g["y"]), 1, 1)
            elif name == "dby":
                d = today - timedelta(days=2)
            elif name == "yday":
                d = today - timedelta(days=1)
            elif name == "today":
                d = today
            elif name == "ago":
                n = _NUMBERS.get(g["num"]) or int(g["num"])
                unit = g["unit"]
                if unit == "day":
                    d = today - timedelta(days=n)
                elif unit == "week":
                    d = today - timedelta(weeks=n)
                elif unit == "month":
                    d = _minus_months(today, n).replace(day=1)
                    d = _safe_date(d.year, d.month, today.day) or d
                else:
                    d = _safe_date(today.year - n, today.month, today.day) or date(
                        today.year - n, today.month, 28
                    )
            elif name == "lwkend":
                d = today - timedelta(days=today.weekday() + 2)
            elif name == "lwd":
                back = (today.weekday() - _WEEKDAYS[g["wd"]]) % 7 or 7
                d = today - timedelta(days=back)
            elif name == "lunit":
                unit = g["unit"]
                if unit == "week":
                    d = today - timedelta(days=today.weekday() + 7)
                elif unit == "month":
                    d = _minus_months(today, 1)
                elif unit == "year":
                    d = date(today.year - 1, 1, 1)
                else:
                    sm = _SEASON_MONTH[unit]
                    y = today.year if (sm, 1) < (today.month, today.day) else today.year - 1
                    if sm == 12 or today.month < sm + 3:
                        y = today.year - 1 if sm <= today.month or sm == 12 else y
                    d = date(y, sm, 1)
            elif name == "lmon":
                mon = _MONTHS[g["mon"]]
                y = today.year if mon < today.month else today.year - 1
                d = date(y, mon, 1)
            elif name == "this":
                unit = g["unit"]
                if unit == "week":
                    d = today - timedelta(days=today.weekday())
                elif unit == "month":
                    d = today.replace(day=1)
                else:
                    d = date(today.year, 1, 1)
        except (OverflowError, ValueError):
            continue
        if d is not None and (d <= today or name in _ABSOLUTE):
            return _midnight(d), m.span()
    return None
