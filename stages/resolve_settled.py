"""A plan or hedge, then the turn that says it happened: one fact, the guess promoted.

A speaker says a plan before it is decided ("I'm thinking about signing up for the Berlin
marathon", "Je compte démissionner", "我打算报一个吉他班"): :func:`tentative` reads such a
sentence of the speaker, by clause (a clause of the speaker's own with a word of
statements.json ``uncertain`` or of ``tentative`` here, no second person, hypothetical or
negation beside the hedge, no time of the moment, no indefinite time, no settled word),
and the extractor says its facts as a belief (confidence 0.5,
:func:`memgate.stages.statements._believed`): the write policy holds it pending, never
served. Triage and the keep classifier, which dropped such a sentence as a doubt or as too
short to be sure of, keep it when it names a thing (:func:`plan_of_speaker`). A plan never
confirmed, or given up ("finalement je ne pars pas"), so never becomes active.

Later the speaker says it happened, in other words and mostly without the turn being
flagged ``confirmed``: "Signed the contract yesterday", "Erledigt, ich bin jetzt
angemeldet", "Sí, la acepté", "定了，下个月正式入职". A word of ``settled``
(``memgate/data/settled.json``) with no negation and no hedge just before it makes the
candidate a confirmation (:func:`settles`), read by structure, whatever its key:

- one that speaks of the same thing as the owner's latest pending guess replaces it with
  its own value, as a confirmed turn does
  (:func:`memgate.stages.resolve_confirm.confirmed_guess`): near in meaning, content terms
  shared, one single-valued family, or, for a settled word, one anchor shared
  (:func:`anchors`: a name, "Leipzig"; a Chinese term, "腾讯");
- one that names no thing of its own (:func:`bare`: at most ``bare_max_terms`` content
  terms once its settled words and ``bare_words``, times and words of agreement, are cut)
  answers the single latest pending guess of its owner said before it within
  ``window_days`` (:func:`settled_guess`): that guess is promoted, the confirmation one
  more occurrence. Such a sentence is kept by triage and the extractors
  (:func:`bare_confirmation`), as is one of the speaker that says a plan happened
  (:func:`settled_own`).

A confirmation of something else ("Confirmado: a reunião com o cliente é na quinta")
names a thing of its own and shares none with the guess: the guess stays pending.

>>> settles("Signed the contract yesterday"), settles("I haven't signed anything yet")
(True, False)
>>> settles("Fui aceite e já confirmei a matrícula no mestrado"), settles("No firmé nada")
(True, False)
>>> settles("I'm thinking about starting a choir")
False
>>> tentative("I'm leaning towards spending April in Japan."), tentative("I live in Japan.")
(True, False)
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from functools import cache
from importlib import resources
from typing import Any, Final

from memgate.core.events import CandidateFact, FactStatus, StoredFact, normalise
from memgate.core.stores import FactView
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_semantic import said_before
from memgate.stages.resolve_slots import clause_terms
from memgate.stages.statement_text import _without_month_names, cues, lexicon, word_pattern

__all__ = [
    "anchors",
    "bare",
    "bare_confirmation",
    "names",
    "plan_of_speaker",
    "settled_frame",
    "settled_guess",
    "settled_own",
    "settles",
    "tentative",
]

_CJK: Final = re.compile(r"[\u3400-\u9fff]")
_OWNERS: Final = ("user", "team")
#: The words before a settled word a negation of it stands in.
_NEGATION_REACH: Final = 3


@cache
def _data() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "settled.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


def _words(name: str) -> list[str]:
    return [normalise(w) for ws in _data()[name].values() for w in ws]


@cache
def _pattern(name: str) -> re.Pattern[str]:
    """Any word of the list ``name``, a Latin one as whole words, a Chinese one anywhere."""
    words = _words(name)
    alts = [re.escape(w) if _CJK.search(w) else rf"(?<!\w){re.escape(w)}(?!\w)" for w in words]
    return re.compile("|".join(sorted(alts, key=len, reverse=True)))


def settles(text: str, lex: Lexicon = LEXICON) -> bool:
    """The text says a plan happened or was decided (a word of ``settled``), not negated."""
    norm, words = normalise(text), text.split()
    for m in _pattern("settled").finditer(norm):
        # a negation just before the word ("haven't signed", "n'ai pas signé", "não
        # assinei"), not anywhere ("no" is Spanish for "not" and Portuguese for "in the");
        # read in the words as written (normalised, "haven't" loses its apostrophe)
        k = len(norm[: m.start()].split())
        before = " ".join(words[max(0, k - _NEGATION_REACH) : k])
        near = f"{before} {m.group(0)}"
        if lex.has_negation(near) or _pattern("not_yet").search(normalise(near)) is not None:
            continue
        if not _hedge_in(normalise(before)):  # "thinking about starting": still a plan
            return True
    return False


def _hedge_in(norm: str) -> bool:
    return _pattern("tentative").search(norm) is not None or any(
        w.search(norm) for w in _uncertain()
    )


_NAME_RE: Final = re.compile(r"(?<=[^\W\d_])[^\S\n]+([A-ZÀ-ÖØ-Þ][^\W\d_]{2,}(?:-[^\W\d_]+)*)")


def names(text: str) -> frozenset[str]:
    """The names a text holds: words written with a capital inside a clause (after a word,
    not opening the sentence), case-folded, cut to six letters as content terms are.

    >>> sorted(names("Ab Oktober wohne ich in Leipzig."))
    ['leipzi', 'oktobe']
    """
    return frozenset(m.group(1).lower()[:6] for m in _NAME_RE.finditer(text))


def anchors(f: StoredFact | CandidateFact, lex: Lexicon = LEXICON) -> frozenset[str]:
    """What names the thing a fact is about: its names (:func:`names`), and its Chinese
    content terms (character pairs: Chinese writes no capital to tell a name by)."""
    text = f.object if isinstance(f, CandidateFact) else f.value
    return names(text) | {t for t in clause_terms(f, lex) if _CJK.search(t)}


@cache
def _moment_time() -> re.Pattern[str]:
    return word_pattern([normalise(w) for w in lexicon()["moment_time"]])


def tentative(sentence: str) -> bool:
    """A sentence of the speaker (or the speaker's team) that says a plan not yet decided
    or a leaning: one of its clauses holds a word of statements.json ``uncertain`` or of
    ``tentative`` and is the speaker's own, with no word of the second person ("maybe you
    would like that", "as you might tell"), of a hypothetical ("if acting calls, I might")
    or a negation beside the hedge ("I can't stop thinking about it"); and no time of the
    moment (statements.json ``moment_time``: a doubt of the day is no plan) nor an
    indefinite one (``someday``: "irgendwann", "algún día": a wish set at no time), and no
    settled word (:func:`settles`: "we decided to ..., considering ..." is settled)."""
    c = cues(sentence)
    own = c["first_person"] or c["first_person_plural"] or c["first_person_verb"]
    if not own or c["question"] or c["hypothetical"] or c["moment"]:
        return False
    norm = normalise(sentence)
    if _moment_time().search(norm) is not None:
        return False  # "wahrscheinlich zu wenig getrunken" since this morning: a doubt of the day
    if _pattern("someday").search(norm) is not None:
        return False  # "vielleicht lerne ich irgendwann Japanisch": a wish set at no time
    if settles(sentence):
        return False  # "we decided to ..., considering ...": the plan is settled
    return any(_hedged_clause(clause) for clause in _CLAUSE_RE.split(sentence))


#: Where a sentence's clauses part: a comma, a semicolon, a dash (Chinese ones too).
_CLAUSE_RE: Final = re.compile(r"[,;:，；：、]|\s[-–—]\s")


def _hedged_clause(clause: str) -> bool:
    # a month that is also a word of doubt ("took over in May") is the month
    norm = normalise(_without_month_names(clause))
    if _others().search(norm) is not None:
        return False
    words = clause.split()
    for pattern in (_pattern("tentative"), *_uncertain()):
        for m in pattern.finditer(norm):
            # a negation just before the hedge denies it ("I can't stop thinking about"); one
            # elsewhere is no part of it ("no" is Portuguese for "in the"), nor is the "not"
            # of a hedge ("not sure")
            k = len(norm[: m.start()].split())
            before = " ".join(words[max(0, k - _NEGATION_REACH) : k])
            if not LEXICON.has_negation(before) and not _pattern("not_yet").search(
                normalise(before)
            ):
                return True
    return False


@cache
def _others() -> re.Pattern[str]:
    """A word of the second person or of a hypothetical (statements.json)."""
    words = [*lexicon()["second_person"], *lexicon()["hypothetical"]]
    return word_pattern([normalise(w) for w in words])


def plan_of_speaker(sentence: str) -> bool:
    """A plan of the speaker not yet decided that names a thing (:func:`tentative`, and
    content terms left once its hedge, settled and bare words are cut): kept as a belief
    by triage and the extractors where a word of doubt alone would veto it.

    >>> plan_of_speaker("Estou pensando em vender o meu carro."), plan_of_speaker("I'm not sure.")
    (True, False)
    """
    if not tentative(sentence):
        return False
    rest = _pattern("tentative").sub(" ", normalise(sentence))
    for word in _uncertain():
        rest = word.sub(" ", rest)
    return not _bare_text(rest)


@cache
def _uncertain() -> tuple[re.Pattern[str], ...]:
    return tuple(
        re.compile(re.escape(w) if _CJK.search(w) else rf"(?<!\w){re.escape(w)}(?!\w)")
        for w in sorted((normalise(w) for w in lexicon().get("uncertain", ())), key=len)[::-1]
    )


def bare_confirmation(sentence: str) -> bool:
    """A sentence that says a plan happened and names no thing of its own
    ("Erledigt, ich bin jetzt angemeldet", "Yes, I took it"): kept by triage and the
    extractors, for the resolver to settle the guess it answers (or to drop it)."""
    if cues(sentence)["question"] or not settles(sentence):
        return False
    return _bare_text(normalise(sentence))


def settled_frame(sentence: str) -> bool:
    """A plan of the speaker (:func:`plan_of_speaker`), a bare confirmation
    (:func:`bare_confirmation`) or a plan said to have happened (:func:`settled_own`): read
    by its structure, kept where a word of doubt or a
    classifier unsure of a short sentence would drop it."""
    return plan_of_speaker(sentence) or bare_confirmation(sentence) or settled_own(sentence)


def settled_own(sentence: str) -> bool:
    """A sentence that says a plan of the speaker happened: a settled word with no negation
    before it, in a sentence of the speaker (a pronoun, a verb of the first person) or one
    that opens with the settled word ("C'est fait, je l'ai acheté samedi", "定了，下个月正式
    入职腾讯", "Signed the lease today"): a fact of the speaker, whatever the classifier
    makes of its few words."""
    c = cues(sentence)
    if c["question"] or c["hypothetical"] or not settles(sentence):
        return False
    own = c["first_person"] or c["first_person_plural"] or c["first_person_verb"]
    opens = _pattern("settled").match(normalise(sentence).lstrip(" ,.!，。")) is not None
    return own or opens


def _bare_text(norm: str, lex: Lexicon = LEXICON) -> bool:
    rest = _pattern("bare_words").sub(" ", _pattern("settled").sub(" ", norm))
    left = clause_terms(CandidateFact.model_construct(subject="", predicate="", object=rest), lex)
    return len(left) <= int(_data()["bare_max_terms"])


def bare(c: CandidateFact, lex: Lexicon = LEXICON) -> bool:
    """``c`` names no thing of its own: at most ``bare_max_terms`` content terms once its
    settled words and the words of ``bare_words`` (times, days, words of agreement) are cut
    ("I did it, I registered for it last night", "Erledigt, ich bin jetzt angemeldet").

    >>> bare(CandidateFact.model_construct(subject="user", predicate="statement",
    ...      object="Erledigt, ich bin jetzt angemeldet"))
    True
    >>> bare(CandidateFact.model_construct(subject="user", predicate="statement",
    ...      object="I signed up for the gym"))
    False
    """
    return _bare_text(normalise(c.object), lex)


def settled_guess(c: CandidateFact, key: str, view: FactView) -> StoredFact | None:
    """The pending guess a bare confirmation ``c`` answers: the single latest pending fact
    of ``c``'s owner under another key, said before ``c`` within ``window_days``; None when
    ``c`` is no bare confirmation, or two guesses were said last (which one is unsaid)."""
    if c.retracts or c.confirmed is False or not settles(c.object) or not bare(c):
        return None
    seen: set[str] = set()
    pool: list[StoredFact] = []
    for root in _OWNERS:
        for f in view.by_subject(
            c.tenant_id, c.user_id, root, statuses=(FactStatus.PENDING,), qualified=True
        ):
            if (
                f.fact_id in seen
                or f.key == key
                or (f.tenant_id, f.user_id)
                != (
                    c.tenant_id,
                    c.user_id,
                )
            ):
                continue
            seen.add(f.fact_id)
            if said_before(f, c):
                pool.append(f)
    if not pool:
        return None
    latest = max(f.last_seen for f in pool)
    last = [f for f in pool if f.last_seen == latest]
    window = timedelta(days=int(_data()["window_days"]))
    if len(last) != 1 or c.turn_ts - latest > window:
        return None
    return last[0]
