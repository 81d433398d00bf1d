"""How far a stated person name runs: "My name is Ines Carvalho and I live in Lisbon" names
"Ines Carvalho", not "Ines".

A rule finds the first word of a name; :func:`whole_name` reads on from it. In cased text
the name goes on over each following word that is capitalised (a name word: letters,
apostrophes, hyphens: "O'Neill", "Jean-Luc"), and over the lowercase particles that stand
between two capitalised words ("Ana de Souza", "Ludwig van Beethoven", "Maria dos Santos").
It stops at punctuation, a lowercase word, a conjunction, or a capitalised word that is no
name part (a weekday, a month, "I", a word that starts a sentence). In uncased text (all
lower or all upper case) the name is the first word, as the writer gave no capitals to
read. The word lists are data: ``memgate/data/person_names.json``.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Final

# a name word: a letter, then letters, apostrophes or hyphens
_WORD_RE: Final = re.compile(r"[^\W\d_][^\W\d_'\u2019-]*(?:['\u2019-][^\W\d_]+)*")
_GAP_RE: Final = re.compile(r"[ \t]+")
#: A name has at most this many words (particles included).
MAX_WORDS: Final = 6


@cache
def _lists() -> tuple[frozenset[str], tuple[str, ...], frozenset[str], frozenset[str]]:
    raw = (resources.files("memgate") / "data" / "person_names.json").read_text("utf-8")
    d = json.loads(raw)
    kinds: dict[str, list[str]] = d["not_name_parts"]
    stops = frozenset(w for ws in kinds.values() for w in ws)
    # a month is a given name too ("April", "June"): it ends a name but may begin one
    never = frozenset(w for k, ws in kinds.items() if k != "months" for w in ws)
    return frozenset(d["particles"]), tuple(d["elided_particles"]), stops, never


def not_a_name(word: str) -> bool:
    """``word`` (any case) is no part of a name after its first word: a weekday, a month,
    "I", a conjunction, a word that starts a sentence."""
    return word.lower() in _lists()[2]


def never_a_name(word: str) -> bool:
    """``word`` (any case) names no one even as a first name: "call me Monday"."""
    return word.lower() in _lists()[3]


def cased(text: str) -> bool:
    """The writer uses capitals as capitals: some upper and some lower case letters."""
    return text != text.lower() and text != text.upper()


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and not not_a_name(word)


def _elided(word: str) -> bool:
    """ "d'Estaing": an elided particle glued to a capitalised name word."""
    low = word.lower()
    return any(
        low.startswith(p) and word[len(p) : len(p) + 1].isupper() and word[:1].islower()
        for p in _lists()[1]
    )


def _next_word(text: str, pos: int) -> tuple[str, int] | None:
    """The name word right after ``pos`` (after spaces only), and where it ends."""
    gap = _GAP_RE.match(text, pos)
    if gap is None:
        return None
    w = _WORD_RE.match(text, gap.end())
    if w is None:
        return None
    end = w.end()
    if end < len(text) and (text[end].isalnum() or text[end] == "_"):
        return None  # "R2D2", "Ana_x": no name word
    return w.group(), end


def whole_name(text: str, start: int, end: int) -> str:
    """The name that starts with the word ``text[start:end]``, read on in ``text``.

    ``text`` is the sentence as written (original case)."""
    if not cased(text):
        return text[start:end]
    particles = _lists()[0]
    first = _WORD_RE.match(text, start)
    if first is not None and first.end() > end:
        end = first.end()  # "O\u2019Neill": a typographic apostrophe inside the word
    last = end
    pos = end
    words = 1
    pending = 0  # particles read since the last capitalised word
    while words + pending < MAX_WORDS:
        nxt = _next_word(text, pos)
        if nxt is None:
            break
        word, pos = nxt
        if word in particles:  # lower-case only: "de", "van", "dos"
            pending += 1
            continue
        if not (_capitalised(word) or _elided(word)):
            break
        words += 1 + pending
        pending = 0
        last = pos
    return text[start:last]
