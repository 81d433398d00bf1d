"""Restatements with a part added or left out: a reason said with the fact, a tail dropped.

Two shapes of saying a stored fact again that the folds read as another fact:

- :func:`without_reason`: the fact said again with its reason or ground after it
  ("Nüsse vertrage ich überhaupt nicht, weil ich davon allergische Reaktionen bekomme",
  "No como carne, por razones éticas"). The reason's words (a noun capitalised in German,
  a term more) read as another name or another thing, so the paraphrase fold
  (:func:`~memgate.stages.resolve_paraphrase.fold_target`) refuses. The reason is no part of
  the fact restated: the fold reads the candidate cut before the conjunction that opens it
  (``reason_openers`` of ``memgate/data/restate.json``, six languages), every other check of
  the fold unchanged. A change cue in the reason still counts (``fold_target`` reads it on
  the candidate's context, which keeps the whole turn; the cut value is checked too).
- :func:`without_request`: the fact said again with a clause addressed to the assistant
  after it ("Ich fahre einen Kombi, falls du mir Parkhäuser heraussuchst", "On est sur
  Django, donc pas de solution Node s'il te plaît"): a politeness word, a condition on the
  assistant, a reminder to keep it in mind (``request_tails``). Read as without a reason.
- :func:`persons_apart`: a fact of another person of the speaker's ("Ma sœur ne mange pas
  de porc", ``user's sœur``) is never the speaker's own fact said again ("Je ne mange pas de
  porc", ``user``), however many words the two share: the paraphrase fold already reads
  the owners so, and the fold by the clause's words (``same_clause``) now asks it too.
- :func:`shortened_value`: under one key, the value said again without the tail it had
  ("lives_in: Porto com a minha namorada" then "Porto"; "works_at: Airbus in Toulouse"
  then "Airbus"): the new value is the stored one's head, cut where a function word opens
  its tail. Another word in its place ("Porto Alegre" / "Porto") is another value.

No similarity bar is chosen here: the cut candidate meets the paraphrase fold's own bars.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

import numpy as np

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, StoredFact, normalise
from memgate.core.stores import FactView
from memgate.stages.relation_model import _sequence
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_paraphrase import FOLD, Fold, fold_target
from memgate.stages.resolve_slots import SlotMatch, _owner_and_rest

__all__ = [
    "RESTATE",
    "Restate",
    "fold_target_of_core",
    "led_by_person",
    "persons_apart",
    "shortened_value",
    "without_reason",
    "without_request",
]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_WORD_RE: Final = re.compile(r"\w+", re.UNICODE)


def _words_pattern(by_language: dict[str, list[str]]) -> re.Pattern[str]:
    words = sorted({w.casefold() for ws in by_language.values() for w in ws}, key=len, reverse=True)
    alts = [
        re.escape(w) if _CJK_RE.search(w) else rf"(?<![\w']){re.escape(w)}(?!\w)" for w in words
    ]
    return re.compile("|".join(alts), re.IGNORECASE)


#: How much of a restatement :func:`without_request` reads.
_REQUEST_SPAN: Final = 2000
#: Where a clause after the fact may start: a comma, semicolon, colon or dash.
_CLAUSE_RE: Final = re.compile(r"\s*(?:[,;:，；：]|\s[—–-]\s)\s*")


@dataclass(frozen=True)
class Restate:
    """The data of :mod:`memgate.stages.resolve_restate` (``memgate/data/restate.json``)."""

    version: str
    min_words: int
    reason: re.Pattern[str]
    request: re.Pattern[str]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Restate:
        words = sorted(
            {w.casefold() for ws in data["reason_openers"].values() for w in ws},
            key=len,
            reverse=True,
        )
        alts = [
            re.escape(w) if _CJK_RE.search(w) else rf"(?<![\w']){re.escape(w)}(?!\w)" for w in words
        ]
        return cls(
            version=str(data["version"]),
            min_words=int(data["min_words"]),
            reason=re.compile("|".join(alts), re.IGNORECASE),
            request=_words_pattern(data["request_tails"]),
        )


def _load() -> Restate:
    text = resources.files("memgate.data").joinpath("restate.json").read_text("utf-8")
    return Restate.from_data(json.loads(text))


RESTATE: Final = _load()


def _words_before(text: str) -> int:
    if _CJK_RE.search(text):
        return len(_CJK_RE.findall(text)) // 2
    return len(_WORD_RE.findall(text))


def without_reason(text: str, data: Restate = RESTATE) -> str | None:
    """``text`` cut before the first conjunction that opens its reason, None when it has
    none after at least ``min_words`` words.

    >>> without_reason("Nüsse vertrage ich nicht, weil ich davon Ausschlag bekomme.")
    'Nüsse vertrage ich nicht'
    >>> without_reason("No como carne, por razones éticas"), without_reason("因为我喜欢")
    ('No como carne', None)
    """
    for m in data.reason.finditer(text):
        head = text[: m.start()].strip().rstrip(",;:，；：-–— ").strip()
        if _words_before(head) >= data.min_words:
            return head
    return None


def without_request(text: str, data: Restate = RESTATE) -> str | None:
    """``text`` cut before the first clause (after a comma, semicolon, colon or dash) that
    is addressed to the assistant (``request_tails``: "please", "falls du", "lembra disso",
    "记得"), None when it has none after at least ``min_words`` words. Only the first
    :data:`_REQUEST_SPAN` characters are read: a restatement is a sentence, and a long
    text of separators stays linear.

    >>> without_request("Tenho asma desde criança, lembra disso quando sugerir exercícios")
    'Tenho asma desde criança'
    >>> without_request("I'm vegetarian, so skip the steak places please")
    "I'm vegetarian"
    >>> without_request("Please note: I'm vegetarian") is None
    True
    """
    text = text[:_REQUEST_SPAN]
    last = None
    for r in data.request.finditer(text):
        last = r.start()
    if last is None:
        return None
    words = 0
    start = 0
    for m in _CLAUSE_RE.finditer(text):
        if m.end() > last:
            return None  # no request word after this clause's start
        words += _words_before(text[start : m.start()])
        start = m.end()
        if words >= data.min_words:
            return text[: m.start()].strip()
    return None


def fold_target_of_core(
    c: CandidateFact,
    key: str,
    view: FactView,
    vec: np.ndarray,
    meaning: Meaning | None,
    lex: Lexicon = LEXICON,
) -> SlotMatch | None:
    """The paraphrase fold of ``c`` read without its reason (:func:`without_reason`): None
    when it has no reason, or the cut candidate folds into nothing. A change cue anywhere in
    the candidate (its reason included) folds nothing."""
    core = without_reason(c.object) or without_request(c.object)
    if core is None or lex.has_change_cue(c.object):
        return None
    match = fold_target(c.model_copy(update={"object": core}), key, view, vec, meaning=meaning)
    if match is None:
        return None
    return SlotMatch(match.fact, match.similarity, f"{match.why}+reason")


def shortened_value(f: StoredFact, c: CandidateFact, lex: Lexicon = LEXICON) -> bool:
    """``c``, under ``f``'s key, says ``f``'s value without its tail: ``f``'s value starts
    with ``c``'s, and a function word opens what follows; no change cue, the same polarity.

    >>> f = StoredFact.model_construct(value="Porto com a minha namorada")
    >>> said = CandidateFact.model_construct(object="Porto", context="")
    >>> other = StoredFact.model_construct(value="Porto Alegre")
    >>> shortened_value(f, said), shortened_value(other, said)
    (True, False)
    """
    old, new = normalise(f.value), normalise(c.object)
    if not new or _CJK_RE.search(old) or not old.startswith(new + " "):
        return False
    tail = old[len(new) + 1 :].split()
    if not tail or (tail[0] not in lex.stopwords and tail[0] not in lex.clause_stopwords):
        return False
    if lex.has_change_cue(c.object) or lex.has_change_cue(c.context):
        return False
    return lex.has_negation(f.value) == lex.has_negation(c.object)


def persons_apart(
    f: StoredFact, c: CandidateFact, lex: Lexicon = LEXICON, fold: Fold = FOLD
) -> bool:
    """``c`` is a fact of another person than ``f``'s: its thing is a person of the
    speaker's and ``f``'s is not that one ("user's sœur" after "user"; "user's grande
    hermano" after "user's hermano": the kin word with a qualifier of its own is another
    person), or its sentence is led by a person ("My husband plays tennis ...", the
    extractor leaving the subject the user's) while ``f`` names no person at all (a
    companion said later in the sentence, "I play tennis with my husband", is no other
    person's fact). A fact of a person said again by the speaker as their own sentence
    ("user" after "user's wife") is not read here: the extractor may leave the person in
    the words.

    >>> f = StoredFact.model_construct(subject="user", value="I play tennis on weekends")
    >>> persons_apart(f, CandidateFact.model_construct(subject="user's sœur"))
    True
    >>> persons_apart(f, CandidateFact.model_construct(subject="user's car"))
    False
    >>> persons_apart(f, CandidateFact.model_construct(
    ...     subject="user", object="My husband plays tennis on weekends"))
    True
    >>> persons_apart(f, CandidateFact.model_construct(
    ...     subject="user", object="I play tennis with my husband on weekends"))
    False
    """
    _, rest_f = _owner_and_rest(lex.canonical_subject(f.subject))
    _, rest_c = _owner_and_rest(lex.canonical_subject(c.subject))
    if fold.is_person(rest_c) and not fold.same_thing(rest_f, rest_c):
        return True
    said = getattr(c, "object", None) or ""
    stored = getattr(f, "value", None) or ""
    return (
        led_by_person(said, lex, fold)
        and not fold.is_person(rest_f)
        and not fold.persons_in(stored)
    )


def led_by_person(text: str, lex: Lexicon = LEXICON, fold: Fold = FOLD) -> bool:
    """The sentence's first content word is a person noun of the data ("My husband ...",
    "Ma fille ...", "Mi hermano ..."; Chinese: a person word after "我", "我的" or nothing).

    >>> led_by_person("Mein Mann spielt Tennis"), led_by_person("我老公周末打网球")
    (True, True)
    >>> led_by_person("I play tennis with my husband"), led_by_person("我周末和老公打网球")
    (False, False)
    """
    if _CJK_RE.search(text):
        rest = normalise(text).lstrip()
        for lead in ("我的", "我"):
            if rest.startswith(lead):
                rest = rest[len(lead) :]
                break
        return any(rest.startswith(p) for p in fold.cjk_persons)
    words = _sequence(text, lex)
    return bool(words) and words[0] in fold.persons
