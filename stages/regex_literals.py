"""The literal strings a compiled pattern needs: a cheap test that it cannot match.

:func:`required_literals` reads a pattern's parse tree once and returns a set of literal
strings at least one of which occurs in every string the pattern finds anything in (so
where none occurs, ``pattern.search`` finds nothing and need not run), or ``None`` when it
cannot prove such a set. It is conservative: whatever is optional (``?``, ``*``,
``{0,n}``), a character class, a lookaround, a backreference, a group with flags of its
own, or a pattern compiled with ``IGNORECASE`` proves nothing; an alternation proves a set
only when each of its branches does. A sequence's literals run on across its parts while
each part matches one of a few known strings ("d[ao]s" -> "das", "dos").

>>> sorted(required_literals(re.compile(r"\\b(?:delete|erase)\\s+my\\s+(?P<t>\\w+)")))
['delete', 'erase']
>>> sorted(required_literals(re.compile(r"(?:we|i)\\s+moved off(?: of)?\\s+(\\w+)")))
['moved off']
>>> sorted(required_literals(re.compile(r"sobre|d[ao]s?\\s")))
['da', 'do', 'sobre']
>>> required_literals(re.compile(r"(?:x)?\\w+")) is None  # nothing is required
True
>>> required_literals(re.compile(r"delete", re.IGNORECASE)) is None
True

:func:`may_match` is the test: ``False`` only where the pattern cannot match.

>>> lits = required_literals(re.compile(r"(?:forget|ignore) that"))
>>> may_match(lits, "please ignore that"), may_match(lits, "ignore this")
(True, False)
>>> may_match(None, "anything")  # no set proved: the pattern always runs
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from re import _constants as _c  # type: ignore[attr-defined]  # the standard library's
from re import _parser as _sre_parse  # type: ignore[attr-defined]  # pattern parser (3.11+)
from typing import Any, Final

__all__ = ["may_match", "required_literals"]

#: The most strings a part may stand for and still be run on with its neighbours.
_MAX_EXACT: Final = 64
#: The most literals a prefilter is worth testing when a smaller set is proved too.
_MANY: Final = 16
_REPEATS: Final = (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT))
_ZERO_WIDTH: Final = (_c.AT, _c.ASSERT, _c.ASSERT_NOT)


@dataclass(frozen=True)
class _Info:
    """What a part of a pattern is known to match: ``exact``, every string it can match
    (``None``: too many or unknown); ``covers``, sets of literals each of which has one
    literal in every string it matches (none proved: empty; never a set holding "")."""

    exact: frozenset[str] | None
    covers: tuple[frozenset[str], ...] = ()


_UNKNOWN: Final = _Info(None)
_EMPTY: Final = _Info(frozenset({""}))


def required_literals(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Literals one of which occurs in any string ``pattern`` matches in, or ``None`` when
    none are proved (the pattern must always run). Of the sets proved, the one whose
    shortest literal is the longest (in UTF-8 bytes: a Chinese character tells as much as
    a few Latin letters), then the one with the fewest literals; a set of more than
    :data:`_MANY` only when there is no other."""
    if not isinstance(pattern.pattern, str) or pattern.flags & (re.IGNORECASE | re.LOCALE):
        return None
    try:
        tree = _sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:
        return None
    covers = _sequence(list(tree)).covers
    return min(
        covers,
        key=lambda c: (len(c) > _MANY, -min(len(x.encode()) for x in c), len(c), sorted(c)),
        default=None,
    )


def may_match(literals: frozenset[str] | None, text: str) -> bool:
    """Whether a pattern whose :func:`required_literals` are ``literals`` may match in
    ``text``: ``False`` only when none of them occurs in it."""
    return literals is None or any(lit in text for lit in literals)


def _cover(exact: Iterable[str]) -> frozenset[str] | None:
    """A cover of these strings: each, less those that hold another ("das" holds "da": where
    "das" occurs, "da" does); ``None`` when one is empty (it proves nothing)."""
    strings = frozenset(exact)
    if not strings or "" in strings:
        return None
    return frozenset(s for s in strings if not any(t != s and t in s for t in strings))


def _best(covers: Iterable[frozenset[str]]) -> frozenset[str] | None:
    """The most telling cover: its shortest literal the longest, then the fewest literals."""
    return max(covers, key=lambda c: (min(map(len, c)), -len(c)), default=None)


def _sequence(items: list[tuple[Any, Any]]) -> _Info:
    covers: list[frozenset[str]] = []
    run: frozenset[str] = frozenset({""})
    whole = True  # every part so far ran on: the run is all the sequence matches

    def close(strings: frozenset[str]) -> None:
        if (c := _cover(strings)) is not None:
            covers.append(c)

    for op, av in items:
        info = _node(op, av)
        covers.extend(info.covers)
        if info.exact is not None and len(run) * len(info.exact) <= _MAX_EXACT:
            run = frozenset(a + b for a in run for b in info.exact)
            continue
        close(run)
        whole = False
        # the run starts again after this part, or with it when its strings are known
        run = info.exact if info.exact is not None else frozenset({""})
    close(run)
    return _Info(run if whole else None, tuple(covers))


def _node(op: Any, av: Any) -> _Info:
    if op is _c.LITERAL:
        ch = frozenset({chr(av)})
        return _Info(ch, (ch,))
    if op is _c.IN:
        # a class of plain characters only ("[aoe]"): each is a one-character string
        if av and all(o is _c.LITERAL for o, _ in av):
            chars = frozenset(chr(v) for _, v in av)
            return _Info(chars, (chars,))
        return _UNKNOWN
    if op in _ZERO_WIDTH:
        return _EMPTY  # it matches no text of its own (what it asserts proves nothing here)
    if op is _c.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        if add_flags or del_flags:
            return _UNKNOWN
        return _sequence(list(sub))
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _sequence(list(av))
    if op is _c.BRANCH:
        branches = [_sequence(list(b)) for b in av[1]]
        exact: frozenset[str] | None = None
        if all(b.exact is not None for b in branches):
            exact = frozenset().union(*(b.exact for b in branches if b.exact is not None))
            if len(exact) > _MAX_EXACT:
                exact = None
        # one literal of each branch's best cover: the union is a cover of the whole
        best = [_best(b.covers) for b in branches]
        if all(c is not None for c in best):
            union = _cover(frozenset().union(*(c for c in best if c is not None)))
            return _Info(exact, () if union is None else (union,))
        return _Info(exact)
    if op in _REPEATS:
        lo, hi, sub = av
        inner = _sequence(list(sub))
        if lo == 0:
            if hi == 1 and inner.exact is not None:
                return _Info(inner.exact | {""})
            return _UNKNOWN
        if lo == 1 and hi == 1:
            return inner
        return _Info(None, inner.covers)
    return _UNKNOWN  # a class, any character, a backreference, a conditional: unknown
