"""The stance of a restatement towards its thing, and its words said in another form.

A fact is said again in other words with the value first and an idiom for the verb:
"I'm allergic to peanuts" / "Peanuts are a no-go for me"; "I never eat shellfish" /
"Shellfish is a hard pass for me"; "pas de viande" / "La viande, très peu pour moi".
A negation word alone reads those as of opposite polarity ("no-go" holds "no", an allergy
holds none). What the folds compare instead is the statement's stance towards its thing
(:func:`averse`): an aversion cue of ``memgate/data/stance.json`` (an allergy, avoiding,
an idiom of refusal) not negated in its clause, else a negation. "I'm not allergic to
peanuts" keeps the other stance, and stays another fact.

:func:`polarity_words` are the words that make the stance: no name of the value ("no
shellfish": the value's name is ``shellfish``). :func:`inflected` reads a name said in
another form ("Friday" / "Fridays") as the same name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from memgate.core.events import normalise
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.word_trie import alternation, bounded_words

__all__ = ["STANCE", "Stance", "averse", "inflected", "polarity_words", "same_stance"]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_WORD_RE: Final = re.compile(r"[\w'-]+", re.UNICODE)
_CLAUSE_END: Final = re.compile(r"[,;:.!?，；：。！？]")
#: Where a sentence splits into segments a stance may hold alone ("..., pas dans Jira")
_SEGMENT_RE: Final = re.compile(r"[,;，；、]|\s[-\u2013\u2014]\s")


@dataclass(frozen=True)
class Stance:
    """The data of :mod:`memgate.stages.resolve_stance` (``memgate/data/stance.json``)."""

    version: str
    cues: re.Pattern[str] | None
    negated_within: int
    negated_within_cjk: int
    suffixes: tuple[str, ...]
    min_stem: int
    fold_similarity: float
    #: words that name no thing, whatever the language (:func:`same_stance`'s segments)
    function_words: frozenset[str] = frozenset()

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Stance:
        words = {w.lower() for ws in data["aversion"].values() for w in ws}
        # the head of a compound ("Erdnussallergie", "Laktoseintoleranz"): at a word's end
        heads = {w.lower() for ws in data.get("compound_heads", {}).values() for w in ws}
        return cls(
            version=str(data["version"]),
            cues=cue_pattern(words, heads),
            negated_within=int(data["negated_within"]),
            negated_within_cjk=int(data["negated_within_cjk"]),
            suffixes=tuple(sorted(data["inflection_suffixes"], key=len, reverse=True)),
            min_stem=int(data["inflection_min_stem"]),
            fold_similarity=float(data["fold_similarity"]),
            function_words=frozenset(
                normalise(w) for ws in data.get("segment_function_words", {}).values() for w in ws
            ),
        )

    def cue_spans(self, text: str) -> list[tuple[int, int]]:
        """Where the aversion cues of ``text`` (lower-cased) are."""
        if self.cues is None:
            return []
        return [m.span() for m in self.cues.finditer(text)]


def cue_pattern(words: set[str], heads: set[str]) -> re.Pattern[str] | None:
    """The aversion cues as one pattern: each word whole (a Chinese one anywhere), the
    longest first, then each compound head at a word's end, the longest first.

    Written as prefix trees (issue 14: the same matches, ``tests/unit/stages/
    test_word_trie.py``); a Latin and a Chinese word that start with the same letter would
    need their lengths compared across the two trees, so such a list is written as one
    alternation sorted longest first, as before."""
    latin = {w for w in words if w and not _CJK_RE.search(w)}
    cjk = {w for w in words if w and _CJK_RE.search(w)}
    heads = {w for w in heads if w}
    if {w[0] for w in latin} & {w[0] for w in cjk}:
        parts = [
            re.escape(w) if _CJK_RE.search(w) else rf"(?<!\w){re.escape(w)}(?!\w)"
            for w in sorted(latin | cjk, key=len, reverse=True)
        ]
        parts += [rf"{re.escape(w)}(?!\w)" for w in sorted(heads, key=len, reverse=True)]
        return re.compile("|".join(parts)) if parts else None
    trees = []
    if latin or cjk:
        trees.append(bounded_words(latin, cjk, r"\w", r"\w"))
    if heads:
        trees.append(f"(?:{alternation(heads)})(?!\\w)")
    return re.compile("|".join(trees)) if trees else None


def _load() -> Stance:
    text = resources.files("memgate.data").joinpath("stance.json").read_text("utf-8")
    return Stance.from_data(json.loads(text))


STANCE: Final = _load()


def _negated(low: str, start: int, st: Stance, lex: Lexicon) -> bool:
    """A negation negates the cue at ``start``: one among the few words (Chinese: the
    characters) before it in its clause ("not allergic", "nicht allergisch", "不过敏")."""
    before = _CLAUSE_END.split(low[:start])[-1]
    if _CJK_RE.search(low[start : start + 1]):
        return lex.has_negation(before[-st.negated_within_cjk :])
    words = _WORD_RE.findall(before)[-st.negated_within :]
    return bool(words) and lex.has_negation(" ".join(words))


def averse(text: str, st: Stance = STANCE, lex: Lexicon = LEXICON) -> bool:
    """The statement is averse to its thing: an aversion cue no negation in its clause
    negates, or, with no cue, a negation.

    >>> averse("Peanuts are a no-go for me"), averse("I'm allergic to peanuts")
    (True, True)
    >>> averse("I'm not allergic to peanuts"), averse("I never eat shellfish")
    (False, True)
    """
    low = text.lower()
    spans = st.cue_spans(low)
    if spans:
        return any(not _negated(low, a, st, lex) for a, _ in spans)
    return lex.has_negation(text)


def polarity_words(text: str, st: Stance = STANCE, lex: Lexicon = LEXICON) -> set[str]:
    """The normalised words of ``text`` that make its stance (its negations and aversion
    cues): none of them is a name of the value ("no shellfish", "pas de viande")."""
    low = text.lower()
    out: set[str] = set()
    for a, b in st.cue_spans(low):
        out.update(normalise(low[a:b]).split())
    for w in _WORD_RE.findall(low):
        if not _CJK_RE.search(w) and lex.has_negation(w):
            out.add(normalise(w))
    return out


def inflected(a: str, b: str, st: Stance = STANCE) -> bool:
    """Two words are one word in two forms: one is the other with an inflection ending
    ("friday" / "fridays", "woche" / "wochen"), the shorter of at least ``min_stem``
    letters."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) < st.min_stem or not long_.startswith(short):
        return False
    return long_[len(short) :] in st.suffixes


def same_stance(stored: str, said: str, st: Stance = STANCE, lex: Lexicon = LEXICON) -> bool:
    """``stored`` and ``said`` hold one stance towards what they both speak of.

    Read whole first (:func:`averse`). When the two readings differ, a side may hold its
    other stance in a segment of its own about another thing: "On suit tout dans Linear,
    pas dans Jira" is not averse to Linear, the thing the stored "les tickets sont gérés
    dans Linear" names. Each side is then read on its segments (split at commas and
    semicolons) that share a content word with the other side, the stance words left out;
    a side with one segment is read whole, and a side none of whose segments shares a
    word with the other keeps the whole reading.

    >>> same_stance("Chez nous, les tickets sont gérés dans Linear",
    ...             "On suit tout dans Linear, pas dans Jira")
    True
    >>> same_stance("I eat meat", "I don't eat meat, sadly")
    False
    >>> same_stance("Je bois du café, mais pas de thé", "Je ne bois pas de thé")
    True
    """
    a, b = averse(stored, st, lex), averse(said, st, lex)
    if a == b:
        return True
    kept_a = _shared_segments(stored, said, st, lex)
    kept_b = _shared_segments(said, stored, st, lex)
    if kept_a == stored and kept_b == said:
        return False
    return averse(kept_a, st, lex) == averse(kept_b, st, lex)


def _content_words(text: str, st: Stance, lex: Lexicon) -> set[str]:
    """The words of ``text`` that name a thing: no function word, no stance word; Chinese
    runs read as character bigrams."""
    low = text.lower()
    stance = polarity_words(low, st, lex)
    out: set[str] = set()
    for w in _WORD_RE.findall(low):
        if _CJK_RE.search(w):
            out.update(w[i : i + 2] for i in range(len(w) - 1))
            continue
        n = normalise(w)
        if len(n) < 2 or n in stance or n in st.function_words or n in lex.stopwords:
            continue
        out.add(n)
    return out


def _shared_segments(text: str, other: str, st: Stance, lex: Lexicon) -> str:
    """The segments of ``text`` that share a content word with ``other``, joined; ``text``
    itself when it is one segment or none of its segments shares one."""
    segments = [s.strip() for s in _SEGMENT_RE.split(text) if s.strip()]
    if len(segments) < 2:
        return text
    theirs = _content_words(other, st, lex)
    kept = [s for s in segments if _content_words(s, st, lex) & theirs]
    return ", ".join(kept) if kept else text
