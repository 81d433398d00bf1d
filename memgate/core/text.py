"""Text helpers every stage shares: one sentence splitter, one question detector.

The words a question starts with are data (``memgate/data/questions.json``,
five languages); triage drops turns that are only questions and the rule
extractor skips questions, and both ask :func:`is_question`.

>>> split_sentences("Thanks! I moved to Berlin. Any tips?")
['Thanks!', 'I moved to Berlin.', 'Any tips?']
>>> is_question("Any tips?"), is_question("where do you live"), is_question("¿Dónde vives")
(True, True, True)
>>> is_question("I moved to Berlin."), is_question("Can't wait to see it")
(False, False)
>>> starts_like_question("Do you know I'm vegan"), starts_like_question("I use vim, any tips?")
(True, False)
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

__all__ = [
    "MAX_QUERY_TERMS", "abbreviations", "bounded_alternation", "ends_with_abbreviation",
    "initial_dots", "is_question", "ordinal_dots", "query_terms", "question_starts",
    "split_sentences", "starts_like_question",
]

# CJK sentence ends (。！？) need no space after them
_SENT_SPLIT_RE = re.compile(r"(?<=[.!?…])\s+|\n+|(?<=[.!?])(?=[A-Z¿¡])|(?<=[。！？])\s*")
_TERMINAL_Q_RE = re.compile(r"[?？][\s\"'”)\]]*$")
_WORD_RE = re.compile(r"\w+", re.UNICODE)
_HAS_ALNUM_RE = re.compile(r"[^\W_]", re.UNICODE)
#: Free-text queries are cut to this many distinct terms (bounds the BM25 cost of both
#: retrieval stores).
MAX_QUERY_TERMS = 64
#: closing quotes and brackets after a sentence's last punctuation mark
_CLOSERS = " \"')]”"


def split_sentences(text: str) -> list[str]:
    """Split on sentence punctuation and line breaks; drop empty pieces. A full stop after
    an abbreviation of ``memgate/data/abbreviations.json`` ends no sentence ("St. Mary's"),
    nor one after the initial of a name ("Ursula K. Le Guin", "J. R. R. Tolkien") or a day
    before its month ("am 12. August").

    >>> split_sentences("I work at St. Mary's hospital. I said no. It is big.")
    ["I work at St. Mary's hospital.", 'I said no.', 'It is big.']
    >>> split_sentences("My favourite author is Ursula K. Le Guin. I take vitamin D. It helps.")
    ['My favourite author is Ursula K. Le Guin.', 'I take vitamin D.', 'It helps.']
    >>> split_sentences("Wir fliegen am 12. August nach Rom. Ich bin 30. Das ist viel.")
    ['Wir fliegen am 12. August nach Rom.', 'Ich bin 30.', 'Das ist viel.']
    """
    out: list[list[str]] = []
    tail = ""  # the end of the sentence so far: every reading below looks at its end only
    for piece in _SENT_SPLIT_RE.split(text):
        if not piece or not piece.strip():
            continue
        piece = piece.strip()
        if out and (
            ends_with_abbreviation(tail)
            or _initial_of_a_name(tail, piece)
            or _ordinal_day(tail, piece)
        ):
            out[-1].append(piece)
            tail = f"{tail} {piece}"[-_TAIL:]
        else:
            out.append([piece])
            tail = piece[-_TAIL:]
    return [" ".join(parts) for parts in out]


#: How much of a sentence's end the readings of its last full stop look at: a joined
#: sentence is never read again whole (a text of a thousand "Dr." stays linear).
_TAIL = 64


#: A capital letter and its full stop, before a space and a capital: a name's initial if
#: a capitalised word or another initial stands before it, or another initial after it.
_INITIAL_RE = re.compile(r"(?<![^\W\d_])[A-Z]\.(?=\s+[A-Z])")
_NAME_WORD_RE = re.compile(r"[A-Z][^\W\d_]*|[A-Z]\.")
_NEXT_INITIAL_RE = re.compile(r"\s+[A-Z]\.(?:\s|$)")


def initial_dots(text: str) -> list[int]:
    """Where the full stops of a name's initials stand in ``text`` ("Ursula K. Le Guin",
    "J. R. R. Tolkien"): no sentence or value ends there. A lone capital after a lower-case
    word ("vitamin D. Then") ends its sentence.

    >>> initial_dots("I read Ursula K. Le Guin and J. R. R. Tolkien. I take vitamin D. It helps.")
    [15, 30, 33, 36]
    """
    return [
        m.end() - 1
        for m in _INITIAL_RE.finditer(text)
        if _name_before(text, m.start()) or _NEXT_INITIAL_RE.match(text, m.end())
    ]


def _name_before(text: str, at: int) -> bool:
    """A capitalised word or an initial right before ``at``, after a space (the word is
    read within the ``_TAIL`` characters before: the reading stays linear)."""
    before = text[max(0, at - _TAIL) : at]
    if not before[-1:].isspace():
        return False
    words = before.split()
    return bool(words) and _NAME_WORD_RE.fullmatch(words[-1]) is not None


def _initial_of_a_name(piece: str, following: str) -> bool:
    """``piece`` ends with a name's initial that ``following`` goes on from."""
    return len(piece) - 1 in initial_dots(f"{piece} {following[:3]}")


_DAY_DOT_RE = re.compile(r"(?<![\d.])\d{1,2}\.(?=\s+([^\W\d_]+))")


def ordinal_dots(text: str) -> list[int]:
    """Where the full stops of a day's ordinal number before its month stand in ``text``
    (``ordinal_months`` of ``memgate/data/abbreviations.json``): no sentence or value ends
    there.

    >>> ordinal_dots("Wir fliegen am 12. August. Ich bin 30. Das ist viel.")
    [17]
    """
    months = _months()
    return [m.end() - 1 for m in _DAY_DOT_RE.finditer(text) if m.group(1).casefold() in months]


def _ordinal_day(piece: str, following: str) -> bool:
    """``piece`` ends with a day's ordinal number that ``following`` names the month of."""
    return len(piece) - 1 in ordinal_dots(f"{piece} {following[:16]}")


@cache
def _months() -> frozenset[str]:
    raw = (resources.files("memgate") / "data" / "abbreviations.json").read_text("utf-8")
    return frozenset(str(w).casefold() for w in json.loads(raw).get("ordinal_months", []))


@cache
def abbreviations() -> frozenset[str]:
    """The abbreviations after which a full stop ends no sentence, lower case."""
    raw = (resources.files("memgate") / "data" / "abbreviations.json").read_text("utf-8")
    return frozenset(str(w).casefold() for w in json.loads(raw)["words"])


def ends_with_abbreviation(piece: str) -> bool:
    """The text ends with an abbreviation and its full stop ("... at St.")."""
    if not piece.endswith("."):
        return False
    words = piece[-_TAIL:-1].split()
    return bool(words) and words[-1].casefold().lstrip("(\"'") in abbreviations()


@cache
def question_starts() -> frozenset[str]:
    """Every word or phrase a question may start with (all languages), lower case."""
    raw = (resources.files("memgate") / "data" / "questions.json").read_text("utf-8")
    data = json.loads(raw)
    return frozenset(w.casefold() for words in data["starts"].values() for w in words)


@cache
def _start_re() -> re.Pattern[str]:
    alternatives = sorted(question_starts(), key=len, reverse=True)
    body = "|".join(r"\s+".join(map(re.escape, a.split())) for a in alternatives)
    # after opening punctuation; a whole word: not followed by a letter, "'" or "-"
    return re.compile(rf"^\W*(?:{body})(?![\w'-])", re.IGNORECASE)


def starts_like_question(sentence: str) -> bool:
    """The sentence opens with a question word or phrase (``what``, ``do``, ``est-ce``)."""
    return _start_re().match(sentence.replace("’", "'")) is not None


def is_question(sentence: str) -> bool:
    """A question: it ends with ``?``, starts with ``¿``, or starts like one and does not end
    with ``.``, ``!`` or ``…``."""
    s = sentence.strip()
    if _TERMINAL_Q_RE.search(s) or s.startswith("¿"):
        return True
    return not s.rstrip(_CLOSERS).endswith((".", "!", "…")) and starts_like_question(s)


def query_terms(text: str, max_terms: int = MAX_QUERY_TERMS) -> list[str]:
    """The words of a free-text query, as written: each once (case-folded), only those
    with a letter or digit, at most ``max_terms``.

    >>> query_terms('NEAR(editor* "vim") OR -emacs: x_y vim __')
    ['NEAR', 'editor', 'vim', 'OR', 'emacs', 'x_y']
    """
    terms: list[str] = []
    seen: set[str] = set()
    for token in _WORD_RE.findall(text):
        folded = token.casefold()
        if folded in seen or not _HAS_ALNUM_RE.search(token):
            continue
        seen.add(folded)
        terms.append(token)
        if len(terms) >= max_terms:
            break
    return terms


def bounded_alternation(branches: list[tuple[str, bool]]) -> str:
    r"""``"|".join`` of regex branches, each ``(pattern, bounded)``; a bounded branch
    matches as a whole word, ``(?<!\w)pattern(?!\w)``.

    Each run of bounded branches shares one pair of lookarounds,
    ``(?<!\w)(?:a|b|c)(?!\w)``: the same matches, tried in the same order, as
    ``(?<!\w)a(?!\w)|(?<!\w)b(?!\w)|...`` (a concatenation distributes over an
    alternation, and the lookbehind reads only the position), but the lookbehind is
    checked once per position instead of once per branch, and the regex engine's quick
    first-character test applies to every branch (issue 14: word lists of some hundred
    phrases searched 8 to 19 times faster).

    >>> print(bounded_alternation([("now", True), ("现在", False), ("new", True), ("neu", True)]))
    (?<!\w)(?:now)(?!\w)|现在|(?<!\w)(?:new|neu)(?!\w)
    """
    out: list[str] = []
    run: list[str] = []
    for pattern, bounded in branches:
        if bounded:
            run.append(pattern)
            continue
        if run:
            out.append(r"(?<!\w)(?:" + "|".join(run) + r")(?!\w)")
            run = []
        out.append(pattern)
    if run:
        out.append(r"(?<!\w)(?:" + "|".join(run) + r")(?!\w)")
    return "|".join(out)
