"""Paraphrase folding: a restatement of the same slot with the same value is one fact.

A user says a thing again in other words ("Ma banque est la Société Générale" ->
"Je suis cliente de la Société Générale pour mes comptes"; ``works_as: enfermeira``
-> "Sou enfermeira de profissão"). Nothing changed, so the second saying must
count as a second occurrence of the first fact rather than a second fact. Read
on the facts' structure, not their phrasing:

- :func:`restated_value` (same key): the new value holds the old one and adds
  only words of the slot or of the old fact's own sentence ("Postgres 15" ->
  "Postgres 15 for the main database");
- :func:`fold_target` (another key): the same owner (the user's or the team's
  own thing, never another person's: ``persons`` in ``memgate/data/paraphrase.json``),
  no change cue, the same polarity, the same names and numbers on both sides
  (anchors, each side's within the other) and the same slot: one thing of the
  owner ("team's backend"), a family both name, or the slot word of one side said in
  the other ("uses_tool:plan Enterprise tier" / "our account is on the Enterprise
  plan"), or else a cosine of the
  statements at or above ``fold_similarity`` with no value swapped in one frame.
  A statement with no name or number folds only when its meaning is nearer still
  (``fold_similarity_unanchored``) and most of its content terms are shared.
  Episodes never fold (two trips are two trips), nor long chat sentences
  (``max_words``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import Any, Final, NamedTuple

import numpy as np

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, FactStatus, FactType, StoredFact, normalise
from memgate.core.memo import reading_cache
from memgate.core.stores import FactView, subject_key_prefixes
from memgate.stages.contrasts import alternatives_swapped
from memgate.stages.fact_keys import cites_turn
from memgate.stages.lasting import without_lasting
from memgate.stages.name_variants import name_said
from memgate.stages.resolution_lexicon import LEXICON, READING_CACHE, Lexicon
from memgate.stages.resolve_meaning import BARS, meaning_text, near_in_meaning
from memgate.stages.resolve_qualifier import adds_another
from memgate.stages.resolve_replaced import replaced_value, replaces
from memgate.stages.resolve_slots import (
    SlotMatch,
    _clause_words,
    _is_sentence,
    _owner_and_rest,
    _val,
    anchors,
    cjk_swap,
    clause_terms,
    named_tokens,
    slot_terms,
    substitution,
)
from memgate.stages.resolve_stance import STANCE, averse, polarity_words, same_stance
from memgate.stages.statement_text import rules_read

__all__ = [
    "FOLD",
    "CandidateReading",
    "CitedFacts",
    "Fold",
    "fold_target",
    "other_persons",
    "possessed_subject",
    "read_candidate",
    "restated_value",
]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
#: The types a restatement by words may be of: a fact, a preference, or a habit the
#: extractor typed as an instruction ("Kaffee trinke ich immer schwarz").
_HABITS: Final = frozenset({FactType.FACT, FactType.PREFERENCE, FactType.INSTRUCTION})
_WORD_RE: Final = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Fold:
    """The data of paraphrase folding (``memgate/data/paraphrase.json``)."""

    version: str
    fold_similarity: float
    fold_similarity_unanchored: float
    unanchored_overlap: float
    max_words: int
    persons: frozenset[str]
    suffixes: tuple[tuple[str, str], ...]  # (phrase, owner), longest first
    noun_determiners: frozenset[str] = frozenset()
    words_min_shared: int = 2
    words_overlap: float = 0.5
    words_max_words: int = 16
    words_english_overlap: float = 2.0
    fillers: frozenset[str] = frozenset()
    """Terms that say nothing of the fact restated (``restatement_fillers``: an
    agreement, how often, a function word): left out of the words path's counts."""
    concepts: dict[str, int] = field(default_factory=dict)
    """Term -> concept: the words of one ``concepts`` group (the same thing in other
    words or languages: "Arbeit" / "Büro", "répondre" / "contestar") count as one term."""
    things: dict[str, int] = field(default_factory=dict)
    """Noun -> thing: the nouns of one ``things`` group name one possessed thing of the
    owner in six languages ("dog", "chien", "Hund"): ``user's chien`` is ``user's dog``."""

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Fold:
        persons = frozenset(normalise(w) for ws in data["persons"].values() for w in ws)
        suffixes = sorted(
            (
                (normalise(p), owner)
                for owner, ps in data["possessive_suffixes"].items()
                for p in ps
            ),
            key=lambda x: len(x[0]),
            reverse=True,
        )
        return cls(
            version=str(data["version"]),
            fold_similarity=float(data["fold_similarity"]),
            fold_similarity_unanchored=float(data["fold_similarity_unanchored"]),
            unanchored_overlap=float(data["unanchored_overlap"]),
            max_words=int(data["max_words"]),
            persons=persons,
            suffixes=tuple(suffixes),
            noun_determiners=frozenset(
                w.casefold() for ws in data.get("noun_determiners", {}).values() for w in ws
            ),
            words_min_shared=int(data.get("words_min_shared", 2)),
            words_overlap=float(data.get("words_overlap", 0.5)),
            words_max_words=int(data.get("words_max_words", 16)),
            words_english_overlap=float(data.get("words_english_overlap", 2.0)),
            fillers=frozenset(
                _stem(w) for ws in data.get("restatement_fillers", {}).values() for w in ws
            ),
            concepts={
                _stem(w): i for i, group in enumerate(data.get("concepts", [])) for w in group
            },
            things={
                normalise(w): i for i, group in enumerate(data.get("things", [])) for w in group
            },
        )

    def same_thing(self, a: str, b: str) -> bool:
        """Two owners' things (the subjects without their owner) are one: the same noun,
        or nouns of one ``things`` group ("dog" / "chien"; "" is no thing)."""
        if a == b:
            return True
        ta, tb = self.things.get(normalise(a)), self.things.get(normalise(b))
        return ta is not None and ta == tb

    def content(self, terms: set[str]) -> set[str]:
        """The terms that carry content: no filler, no Latin term under three letters."""
        return {t for t in terms if t not in self.fillers and (len(t) >= 3 or _CJK_RE.search(t))}

    def concept(self, term: str) -> int | None:
        """The concept group of a term, None when it has none."""
        return self.concepts.get(term)

    def common_nouns(self, value: str) -> set[str]:
        """Capitalised words after a determiner of a language that capitalises every noun
        ("mein Getränk", "unsere Deployments", "jeden Morgen"), adjectives between them
        ("meine bevorzugte Airline"): nouns, not names. A word with another capital or a
        digit ("McFit", "S3") stays a name."""
        out: set[str] = set()
        open_ = False  # a determiner was read and its noun not yet
        for tok in _WORD_RE.findall(value):
            if tok.casefold() in self.noun_determiners:
                open_ = True
                continue
            if open_ and tok[:1].isupper():
                if tok[1:].islower():
                    out.add(normalise(tok))
                open_ = False
            elif not (open_ and tok.islower()):
                open_ = False  # only lower-case words (adjectives) keep the noun to come
        return out

    @cached_property
    def cjk_persons(self) -> tuple[str, ...]:
        """The person nouns written in Chinese ("女儿"): found inside a text, not as a
        word of it."""
        return tuple(sorted(p for p in self.persons if _CJK_RE.search(p)))

    def is_person(self, rest: str) -> bool:
        """The possessed noun names another person ("sister", "hija", "同事")."""
        if not rest:
            return False
        if _CJK_RE.search(rest):
            return any(p in rest for p in self.cjk_persons)
        return any(w in self.persons for w in _WORD_RE.findall(rest))

    def persons_in(self, text: str) -> frozenset[str]:
        """The person nouns a text names ("hija", "brother", "女儿")."""
        return self._persons_read(text)

    @cached_property
    def _persons_read(self) -> Callable[[str], frozenset[str]]:
        # kept per text: resolution reads every active value of the speaker again for each
        # candidate (other_persons, about 100 reads a candidate on LoCoMo); the texts are
        # the redacted ones the stores hold, and an erasure empties it (reading_cache)
        return reading_cache(READING_CACHE)(self._read_persons)

    def _read_persons(self, text: str) -> frozenset[str]:
        low = normalise(text)
        found = {w for w in _WORD_RE.findall(low) if w in self.persons}
        if _CJK_RE.search(low):
            found.update(p for p in self.cjk_persons if p in low)
        return frozenset(found)


def _stem(word: str) -> str:
    """A word of the data as a clause term reads it (normalised, six letters at most;
    Chinese as it is)."""
    w = normalise(word).replace(" ", "")
    return w if _CJK_RE.search(w) else w[:6]


def _load() -> Fold:
    text = resources.files("memgate.data").joinpath("paraphrase.json").read_text("utf-8")
    return Fold.from_data(json.loads(text))


FOLD: Final = _load()


def possessed_subject(subject: str, fold: Fold = FOLD) -> str:
    """A subject said with a possessive after its noun, as the owner's thing.

    >>> possessed_subject("backend da gente"), possessed_subject("user's dog")
    ("team's backend", "user's dog")
    """
    n = normalise(subject)
    for phrase, owner in fold.suffixes:
        if n.endswith(" " + phrase):
            noun = n[: -len(phrase)].strip()
            if noun and noun not in ("user", "team"):
                return f"{owner}'s {noun}"
    return subject


def _terms(text: str, lex: Lexicon) -> set[str]:
    out: set[str] = set()
    for w in _WORD_RE.findall(normalise(text)):
        if w in lex.stopwords or w in lex.clause_stopwords or len(w) < 2:
            continue
        out.add(w[:6])
    return out


def restated_value(f: StoredFact, c: CandidateFact, lex: Lexicon = LEXICON) -> bool:
    """``c`` (same key as ``f``) says ``f``'s value again: every content term of ``f``
    is in ``c``, and ``c`` adds only words of the slot or of ``f``'s own sentence, with
    no change cue and the same polarity."""
    if _CJK_RE.search(f.value) or _CJK_RE.search(c.object):
        return False
    if lex.has_change_cue(c.object) or lex.has_change_cue(c.context):
        return False
    if lex.has_negation(f.value) != lex.has_negation(c.object):
        return False
    tf, tc = clause_terms(f, lex), clause_terms(c, lex)
    if not tf or not tf <= tc:
        return False
    return not (tc - tf - _terms(f.context, lex))


def _families(f: StoredFact | CandidateFact, rest: str, lex: Lexicon) -> set[str]:
    found = lex.families_of(f.predicate, f"{rest} {_val(f)}".strip())
    return {fam.name for fam in found}


def _names_within(names: set[str], f: StoredFact | CandidateFact) -> bool:
    """Every name of one side is in the other's clause (the slot's own words left out
    of the names: a typed value may keep them, "PostgreSQL como banco de dados")."""
    words, flat = _clause_words(f"{f.subject} {f.predicate} {_val(f)}")
    return all(name_said(t, words, flat) for t in names)


def _same_names(
    names_f: set[str],
    names_c: set[str],
    f: StoredFact,
    c: CandidateFact,
    fold: Fold,
) -> bool:
    """Each side's names are in the other's clause; in a language that capitalises every
    noun, a noun after a determiner ("mein Getränk") is left out of the names when both
    sides keep a name of their own that the other names ("Argo CD", "Tee")."""
    if _names_within(names_f, c) and _names_within(names_c, f):
        return True
    if _shortened(names_f, f, c) or _shortened(names_c, c, f):
        return True
    core_f = names_f - fold.common_nouns(f.value)
    core_c = names_c - fold.common_nouns(c.object)
    if (core_f, core_c) == (names_f, names_c):
        return False
    if not core_f or not core_c:
        # one side's capitalised words are all common nouns: its name may open the sentence,
        # where a capital says nothing ("Bruno ist der Name von unserem Hund"); the other
        # side's names are then all said in it
        core = core_f or core_c
        return bool(core) and _names_within(core, c if core is core_f else f)
    return _names_within(core_f, c) and _names_within(core_c, f)


def _name_runs(value: str, names: set[str]) -> list[set[str]]:
    """The names of ``value`` in runs of adjacent tokens ("a Toyota Corolla": one run),
    names written as names only (a capital or a digit: not the words of a typed value
    that has none, "love hiking")."""
    text, tokens = named_tokens(value)
    runs: list[set[str]] = [set()]
    for a, b, _ in tokens:
        n = normalise(text[a:b])
        if n in names and any(ch.isupper() or ch.isdigit() for ch in text[a:b]):
            runs[-1].add(n)
        elif runs[-1]:
            runs.append(set())
    return [r for r in runs if r]


def _shortened(
    names: set[str], long_: StoredFact | CandidateFact, short: StoredFact | CandidateFact
) -> bool:
    """``short`` names a name of ``long_`` by a part of it ("the Corolla" / "a Toyota
    Corolla", "Okafor" / "Dr. Okafor"): every name of ``short`` is said in ``long_``, and
    each of ``long_``'s ``names`` that ``short`` leaves out is in one run of adjacent names
    with one it says. Another name in its place ("Toyota Yaris") is another value."""
    said = {n for n in names if _names_within({n}, short)}
    left = names - said
    own = anchors(_val(short), sentence=_is_sentence(short))
    if not said or not left or not own or not _names_within(own, long_):
        return False
    return all(any(n in r and r & said for r in _name_runs(_val(long_), names)) for n in left)


def other_persons(a: str, b: str, fold: Fold = FOLD, lex: Lexicon = LEXICON) -> bool:
    """Each statement names a person and none the other's, nor one of its single-valued
    family ("boss" / "manager": one person of one role): two people, two facts ("mi hija"
    / "mi hijo"; a reference topic groups kin for a deletion, not for one person)."""
    pa, pb = fold.persons_in(a), fold.persons_in(b)
    if not pa or not pb or pa & pb:
        return False
    groups = lex.single_words
    return not any(any(g.search(x) for x in pa) and any(g.search(y) for y in pb) for g in groups)


def _two_slots(
    f: StoredFact,
    c: CandidateFact,
    rest_f: str,
    rest_c: str,
    shared: set[str],
    lex: Lexicon,
) -> bool:
    """Each side names a single-valued family by its own words (the names both say cut
    first: "Argo CD" is a CI tool and the deployment's tool alike) and none is the
    other's (the home city and the workplace): the same name in two slots is two facts."""

    def relation(predicate: str, value: str, rest: str) -> set[str]:
        words = [w for w in value.split() if normalise(w) not in shared]
        found = lex.families_of(predicate, f"{rest} {' '.join(words)}".strip())
        return {fam.name for fam in found if fam.single}

    a = relation(f.predicate, _val(f), rest_f)
    b = relation(c.predicate, _val(c), rest_c)
    return bool(a) and bool(b) and not (a & b)


def _one_concept(f: StoredFact, c: CandidateFact, lex: Lexicon, fold: Fold) -> bool:
    """Both sides say a word of one concept (``concepts``: "Lieblingsessen" / "am
    liebsten", "travail" / "bureau"): with the same names, they speak of one slot."""
    ids_f = {fold.concept(t) for t in fold.content(clause_terms(f, lex))} - {None}
    ids_c = {fold.concept(t) for t in fold.content(clause_terms(c, lex))} - {None}
    return bool(ids_f & ids_c)


def _only_common_nouns(
    names_f: set[str], names_c: set[str], f: StoredFact, c: CandidateFact, fold: Fold
) -> bool:
    """Every capitalised word of both sides is a common noun of a language that
    capitalises every noun ("mit dem Fahrrad zur Arbeit" / "mit dem Fahrrad ins Büro"):
    no name on either side, so the two are read by their words, as a statement with no
    name is. Only where the words path may read them (one side not English)."""
    if rules_read(f.value) and rules_read(c.object):
        return False
    return not (names_f - fold.common_nouns(f.value)) and not (
        names_c - fold.common_nouns(c.object)
    )


def _cos(a: list[float] | None, b: np.ndarray) -> float:
    if a is None:
        return 0.0
    return float(np.dot(np.asarray(a, dtype=np.float32), b))


def _usem(meaning: Meaning | None, f: StoredFact, c: CandidateFact, bar: float) -> float | None:
    """usem's cosine of ``f`` and ``c`` when at or above ``bar`` (None: below, or off)."""
    return near_in_meaning(meaning, meaning_text(f), meaning_text(c), bar)


def _thing_named(thing: str, value: str) -> bool:
    """The owner's thing of one side ("team's frontend": ``frontend``) is named in the other
    side's statement, said by the owner alone ("todo el frontend lo escribimos en ...")."""
    words = thing.split()
    low = normalise(value)
    if _CJK_RE.search(thing):
        flat = low.replace(" ", "")  # no spaces in Chinese: "后端我们一直都用Go"
        return bool(words) and all(w in flat for w in words)
    return bool(words) and all(w in set(low.split()) for w in words)


def _named_by_name(thing: str, names: set[str], other_names: set[str]) -> bool:
    """The owner's thing of one side is named by a name of its own sentence that the other
    side names too ("team's clúster de kubernetes" / "El Kubernetes lo tenemos montado
    sobre Google Cloud"): the same thing, whatever else its noun phrase holds."""
    if not thing or _CJK_RE.search(thing):
        return False
    own = {w for w in _WORD_RE.findall(normalise(thing)) if w in names}
    return bool(own) and own <= other_names


def _person_said_last(rest_f: str, said: str, lex: Lexicon, fold: Fold) -> bool:
    """A statement of the speaker that ends by naming the person of a stored fact ("A
    Beatriz é a minha filha" / "user's daughter name_is Beatriz"): the person noun it ends
    with and the stored fact's person are words of one reference topic (the same kin in
    any language), so the two speak of one person."""
    if not fold.is_person(rest_f):
        return False
    words = _WORD_RE.findall(normalise(said))
    if not words or not fold.is_person(words[-1]):
        return False
    return any(t.words.search(rest_f) and t.words.search(words[-1]) for t in lex.topics)


def _shared_terms(ta: set[str], tb: set[str], fold: Fold = FOLD) -> int:
    """How many content terms of the smaller side the other side says too, the same word
    in another form counted ("trains" / "train", "vuelos" / "vuelo") and so a word of the
    same concept ("Arbeit" / "Büro"), each term of the other side answering one term only;
    a term of two letters or fewer ("au", "el") is a function word, not content. Chinese
    pairs count as they are."""
    small, big = sorted((ta, tb), key=len)
    free = set(big)  # each term of the other side answers one term only
    n = 0
    for t in sorted(small, key=lambda t: (t not in big, t)):  # the same word first
        if len(t) < 3 and not _CJK_RE.search(t):
            continue
        concept = fold.concept(t)
        match = next(
            (
                b
                for b in sorted(free, key=lambda b: b != t)
                if b == t
                or (len(t) >= 5 and b[:5] == t[:5])
                or (concept is not None and fold.concept(b) == concept)
            ),
            None,
        )
        if match is not None:
            free.discard(match)
            n += 1
    return n


def _said_again_in_words(
    f: StoredFact, c: CandidateFact, ta: set[str], tb: set[str], fold: Fold
) -> bool:
    """A restatement read by its words where the embedder cannot read it: neither is
    longer than ``words_max_words``, both are facts, preferences or habits (typed as
    instructions) of the owner, and they share at least ``words_min_shared`` content terms,
    at least ``words_overlap`` of the smaller side's ("trains de nuit" / "je prends le train
    de nuit quand le trajet est long"). Two English sides (the embedding model reads English,
    but a paraphrase with the value first or a noun for an adjective is far in its space:
    "I'm allergic to peanuts" / "Peanuts are a no-go for me, I have an allergy") share at
    least ``words_english_overlap`` of the smaller side's (above 1: never)."""
    english = rules_read(f.value) and rules_read(c.object)
    if english and fold.words_english_overlap > 1.0:
        return False
    if max(len(c.object.split()), len(f.value.split())) > fold.words_max_words:
        return False
    if not {f.type, c.type} <= _HABITS:
        return False
    ta, tb = fold.content(ta), fold.content(tb)
    small = min(len(ta), len(tb))
    shared = _shared_terms(ta, tb, fold)
    bar = fold.words_english_overlap if english else fold.words_overlap
    return small > 0 and shared >= fold.words_min_shared and shared / small >= bar


def _same_aversion(
    f: StoredFact, c: CandidateFact, ta: set[str], tb: set[str], slot: set[str], fold: Fold
) -> bool:
    """Both sides are averse to one thing and say nothing else (resolve_stance): the
    words of the stance (an allergy, "a no-go", "never") and of the slot left out, each
    side's content terms are the other's, in another form counted ("I'm allergic to
    hazelnuts" / "Hazelnuts are off the table for me"). A term more on either side
    ("hazelnut oil") is another thing."""
    if not (averse(f.value) and averse(c.object)):
        return False
    cut = {_stem(w) for w in polarity_words(f.value) | polarity_words(c.object) | slot}
    a, b = fold.content(ta) - cut, fold.content(tb) - cut
    if not a or not b:
        return False
    return _shared_terms(a, b, fold) == max(len(a), len(b))


def _residue(text: str, family_words: list[re.Pattern[str]], lex: Lexicon) -> str:
    """Chinese text without its family's words and function characters: the value the
    slot is said of ("我住在杭州" / "我家在杭州": "杭州")."""
    low = text.lower()
    for pat in family_words:
        low = pat.sub(" ", low)
    for stop in sorted(lex.clause_stopwords | lex.stopwords, key=len, reverse=True):
        if _CJK_RE.search(stop):
            low = low.replace(stop, " ")
    return "".join(low.split())


def _same_value_in_family(
    f: StoredFact, c: CandidateFact, families: set[str], lex: Lexicon
) -> bool:
    """A Chinese restatement in a single-valued family both sides name: with the family's
    words cut, both say the same value. Chinese has no spaces and no capitals, so no name
    stands out of the sentence to compare; the family's words are the slot, what is left
    is the value."""
    if not families or not (_CJK_RE.search(f.value) and _CJK_RE.search(c.object)):
        return False
    pats = [
        fam.words
        for fam in lex.families
        if fam.name in families and fam.single and fam.words is not None
    ]
    if not pats:
        return False
    a, b = _residue(f.value, pats, lex), _residue(c.object, pats, lex)
    return bool(a) and a == b


def _nouns_swapped(a: str, b: str, fold: Fold) -> bool:
    """Each side says a common noun (capitalised after a determiner, in a language that
    capitalises every noun: :meth:`Fold.common_nouns`) that the other says in no form nor
    by a word of its concept: one value swapped for another in the frame both share
    ("Ich fahre mit dem Zug zur Arbeit" / "Mit dem Fahrrad fahre ich ins Büro").

    >>> _nouns_swapped("Ich fahre mit dem Zug zur Arbeit", "Mit dem Rad fahre ich ins Büro", FOLD)
    True
    >>> _nouns_swapped("mit dem Fahrrad zur Arbeit", "Zur Arbeit nehme ich das Fahrrad", FOLD)
    False
    """
    na, nb = fold.common_nouns(a), fold.common_nouns(b)
    if not na or not nb:
        return False
    wa, wb = set(_WORD_RE.findall(normalise(a))), set(_WORD_RE.findall(normalise(b)))

    def said(noun: str, words: set[str]) -> bool:
        concept = fold.concept(_stem(noun))
        return any(
            w == noun
            or (len(noun) >= 5 and w[:5] == noun[:5])
            or (concept is not None and fold.concept(_stem(w)) == concept)
            for w in words
        )

    return any(not said(n, wb) for n in na) and any(not said(n, wa) for n in nb)


class CandidateReading(NamedTuple):
    """What a fold reads of a candidate once, before it reads the stored facts."""

    rest: str  # its subject without the owner ("user's sister" -> "sister")
    anchors: set[str]  # the names it says
    negated: bool


def read_candidate(
    c: CandidateFact, lex: Lexicon = LEXICON, *, bare: bool = False
) -> CandidateReading | None:
    """The reading of ``c`` for a fold into a stored fact (a restatement, a repeat), or
    None when it folds into none: said as a change (a cue in its words or its turn:
    "now", "moved to"), or with no owner ("user", "team") to fold into. ``bare``: a thing
    said with no owner ("the backend is still Rust": ``backend``) is read too, its rest
    the whole subject (it folds only into the owner's same thing: :func:`fold_target`)."""
    if lex.has_change_cue(without_lasting(c.object)) or lex.has_change_cue(
        without_lasting(c.context)
    ):
        return None  # a span of a fact held all along is no change ("seit Jahren")
    owner, rest = _owner_and_rest(lex.canonical_subject(c.subject))
    if not owner and not (bare and rest):
        return None
    # the names of the value, not the words of its stance ("no shellfish"), and the stance
    # itself (resolve_stance: "a no-go for me" is averse as "I never eat" is)
    return CandidateReading(rest, value_names(c, lex), averse(c.object))


def value_names(f: StoredFact | CandidateFact, lex: Lexicon = LEXICON) -> set[str]:
    """The names and numbers of a fact's value (:func:`anchors`), without the words of its
    stance (resolve_stance: "no shellfish", "pas de viande") and without a function word
    capitalised only as the value's first word ("We never deploy on Fridays")."""
    value = _val(f)
    names = anchors(value, sentence=_is_sentence(f)) - polarity_words(value)
    first = _WORD_RE.findall(normalise(value))[:1]
    if first and (first[0] in lex.stopwords or first[0] in lex.clause_stopwords):
        names.discard(first[0])
    return names


def fold_target(
    c: CandidateFact,
    key: str,
    view: FactView,
    vec: np.ndarray,
    lex: Lexicon = LEXICON,
    fold: Fold = FOLD,
    meaning: Meaning | None = None,
) -> SlotMatch | None:
    """The active fact of ``c``'s owner that ``c`` restates in other words (same slot,
    same value), the nearest in meaning; None when there is none. ``meaning`` (usem,
    :mod:`memgate.stages.resolve_meaning`): a second similarity, asked where MiniLM's
    cosine falls short of its bar, for a pair every other check lets through."""
    if c.retracts or c.type is FactType.EVENT:
        return None
    n_words = len(c.object.split())
    if n_words > max(fold.max_words, fold.words_max_words) or (
        n_words > fold.max_words and rules_read(c.object)
    ):
        return None  # a long English sentence is chat, never folded (the words path is not
        # for English, which the embedder reads)
    reading = read_candidate(c, lex, bare=True)
    if reading is None:
        return None
    rest_c, anchors_c, _ = reading
    bare = not _owner_and_rest(lex.canonical_subject(c.subject))[0]
    fams_c = _families(c, rest_c, lex)
    slot_c = slot_terms(c, lex)
    swap = replaced_value(c.object)  # "Y instead of X": never a restatement of X
    best: SlotMatch | None = None
    for root in ("user", "team"):
        for f in view.by_subject(
            c.tenant_id, c.user_id, root, statuses=(FactStatus.ACTIVE,), qualified=True
        ):
            # a fact seen after the candidate is no fold target, unless it already cites the
            # candidate's turn: then this is a redelivery of the turn folded into it
            later = f.last_seen > c.turn_ts and not cites_turn(f, c)
            if f.key == key or later or f.type is FactType.EVENT or replaces(swap, f.value):
                continue
            if len(f.value.split()) > max(fold.max_words, fold.words_max_words):
                continue
            _, rest_f = _owner_and_rest(f.subject)
            if bare and not (rest_f and fold.same_thing(rest_f, rest_c)):
                continue  # a thing with no owner said is the owner's same thing only
            kin = not rest_c and _person_said_last(rest_f, c.object, lex, fold)
            if (
                not fold.same_thing(rest_f, rest_c)
                and not kin
                and ((rest_f and rest_c) or fold.is_person(rest_f) or fold.is_person(rest_c))
            ):
                continue  # two things of the speaker, or another person's fact
            if lex.has_change_cue(without_lasting(f.value)) or not same_stance(f.value, c.object):
                continue
            if other_persons(f.value, c.object, fold, lex):
                continue  # "mi hija estudia en Sevilla" / "mi hijo estudia en Sevilla"
            if adds_another(f.value, c.object):
                continue  # "also", "a second", another day of the week: another fact
            sim = _cos(f.embedding, vec)
            slot = {*slot_terms(f, lex), *slot_c}
            if kin:  # the kin word said is the stored fact's slot, not a name
                slot |= {w for w in anchors_c if fold.is_person(w)}
            all_f = value_names(f, lex)
            names_f = all_f - slot
            # longer than max_words: only the words path of another language may fold it
            long_ = max(len(c.object.split()), len(f.value.split())) > fold.max_words
            if (anchors_c - slot or names_f) and not _only_common_nouns(
                names_f, anchors_c - slot, f, c, fold
            ):
                if long_ or not _same_names(names_f, anchors_c - slot, f, c, fold):
                    continue  # another name or number: another value
                # the same slot: one thing of the owner ("team's backend"), or one family
                same_slot = (
                    kin
                    or bool(rest_c and fold.same_thing(rest_f, rest_c))
                    or bool(fams_c & _families(f, rest_f, lex))
                    or _thing_named(rest_f, c.object)
                    or _thing_named(rest_c, f.value)
                    or _named_by_name(rest_f, all_f, anchors_c)
                    or _named_by_name(rest_c, anchors_c, all_f)
                    or any(_thing_named(t, c.object) for t in slot_terms(f, lex))
                    or any(_thing_named(t, f.value) for t in slot_c)
                    or _one_concept(f, c, lex, fold)
                )
                if not same_slot and _two_slots(f, c, rest_f, rest_c, all_f & anchors_c, lex):
                    continue  # one place, two relations: "wohne in Berlin" / "arbeite in Berlin"
                why = "paraphrase:family" if same_slot else "paraphrase:anchors"
                if not same_slot:  # no slot in common: near in meaning, no value swapped
                    if sim < fold.fold_similarity:
                        if _usem(meaning, f, c, BARS.fold) is None:
                            continue
                        why = "paraphrase:usem"
                    if substitution(f.value, c.object, lex) or cjk_swap(f.value, c.object):
                        continue
            else:
                ta, tb = clause_terms(f, lex), clause_terms(c, lex)
                words = (
                    _said_again_in_words(f, c, ta, tb, fold)
                    or _same_value_in_family(f, c, fams_c & _families(f, rest_f, lex), lex)
                    or (sim >= STANCE.fold_similarity and _same_aversion(f, c, ta, tb, slot, fold))
                )
                if not words and (long_ or f.type != c.type):
                    continue
                if _nouns_swapped(f.value, c.object, fold):
                    continue  # "mit dem Zug" / "mit dem Fahrrad": another value, one frame
                small = min(len(ta), len(tb))
                by_minilm = (
                    sim >= fold.fold_similarity_unanchored
                    and small >= 2
                    and len(ta & tb) / small >= fold.unanchored_overlap
                )
                why = "paraphrase:words" if words else "paraphrase:meaning"
                if not words and not by_minilm:
                    # no shared words needed: a restatement in another language shares none
                    if _usem(meaning, f, c, BARS.fold_unanchored) is None:
                        continue
                    why = "paraphrase:usem"
                if substitution(f.value, c.object, lex) or cjk_swap(f.value, c.object):
                    continue  # one value swapped for another in the same frame
            if alternatives_swapped(f.value, c.object):
                continue  # "at home" / "at the office": another value (read last: rare)
            if best is None or sim > best.similarity:
                best = SlotMatch(f, sim, why)
    return best


@dataclass(frozen=True)
class CitedFacts:
    """A few facts (closed since: superseded) read as a :class:`FactView` whatever status
    is asked for, so that the fold paths, which read active facts only, can find among
    them the one a candidate's first delivery was folded into (a redelivery's check)."""

    facts: Sequence[StoredFact]

    def by_key(self, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        return [f for f in self.facts if f.key == key]

    def nearest(
        self,
        tenant_id: str,
        user_id: str,
        vector: np.ndarray,
        *,
        k: int = 5,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        predicate: str | None = None,
    ) -> list[tuple[StoredFact, float]]:
        return []

    def by_subject(
        self,
        tenant_id: str,
        user_id: str,
        subject: str,
        *,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        qualified: bool = False,
        limit: int = 500,
        vectors: bool = True,
    ) -> list[StoredFact]:
        prefixes = subject_key_prefixes(tenant_id, user_id, subject, qualified=qualified)
        return [f for f in self.facts if f.key.startswith(prefixes)]
