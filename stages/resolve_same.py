"""The same fact said again, found among the nearest facts when no rule named a target.

The folds by rule (:mod:`memgate.stages.resolve_paraphrase`, :mod:`~.resolve_clause`,
:mod:`~.resolve_repeat`) read the facts of the candidate's owner by subject: a fact whose
subject names a thing with no owner said ("El código del proyecto está alojado en GitLab":
subject ``código del proyecto``) or a candidate read so ("Die Staging-Umgebung ...") is
never met, and a restatement in a longer sentence than their bars is never read. Here the
candidate's nearest active facts (the read the resolver already holds for its
near-duplicate check: no read of its own) are asked, in order, whether one is the same fact:

* the structure first, the rules' own guards: the tenant's and user's facts only, one said
  before the candidate (or a redelivery of its turn), the same type, no episode, not two
  subjects named apart, not one typed predicate, not two single-valued families, not two
  people (:func:`~memgate.stages.resolve_learned.comparable`, :func:`~.resolve_restate.
  persons_apart`); the names and numbers of the stored fact all said again, none changed
  (one more name may come with the restatement: "..., au cas où ça aide pour le vol vers
  Lyon"); a stored fact that names no name and no number at all ("I'm allergic to
  shellfish", "Sou intolerante à lactose": most facts of health, diet and habits) has no
  name to say again: there at least ``plain_cover_bar`` of its content words must be said
  again instead (the word, or an inflection: :func:`~.resolve_probe.covered`); not two
  owners said (the team's thing is no fact of the user's); no change cue
  on either side, no value swapped in one frame, no replacement ("Y instead of X"),
  nothing added ("also", another day), the same stance;
* then one judgement of meaning, by ``mode`` (``memgate/data/same.json``): ``model``, the
  learned pair classifier (:mod:`memgate.stages.relation_model`) reads the pair as ``same``
  with at least ``model_bar``; ``usem``, the multilingual cosine at least ``usem_bar``
  (MiniLM's at ``minilm_bar`` for two English sides); ``off``: never.

Only a fold: the candidate is one more occurrence of the fact found, never a supersession
(a change stays the change rules' to find). The bars are chosen on the pair corpus
``memgate/data/train/relations*.jsonl`` (``tools/same_sweep.py``), never on a test case.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final, Literal

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, FactStatus, FactType, StoredFact
from memgate.stages.contrasts import alternatives_swapped
from memgate.stages.fact_keys import cites_turn
from memgate.stages.lasting import alternation
from memgate.stages.lasting import without_lasting as _without
from memgate.stages.relation_model import (
    _CJK_RE,
    FEATURE_NAMES,
    RelationModel,
    _sequence,
    pair_features,
)
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_learned import LearnedMatch, candidate_text, comparable
from memgate.stages.resolve_meaning import meaning_text, usem_similarity
from memgate.stages.resolve_probe import covered
from memgate.stages.resolve_qualifier import adds_another
from memgate.stages.resolve_replaced import replaced_value, replaces
from memgate.stages.resolve_restate import persons_apart
from memgate.stages.resolve_slots import _owner_and_rest, anchors
from memgate.stages.resolve_stance import same_stance

__all__ = ["SAME", "Same", "as_type_of", "guarded", "same_target", "without_lasting"]

Mode = Literal["off", "model", "usem"]
_CJK_RUN_RE: Final = re.compile(r"[\u3400-\u9fff]+")
_FEATURE: Final = {name: i for i, name in enumerate(FEATURE_NAMES)}
#: the pair features that must be 0 for a fold: a stored name not said again, a number
#: changed, a value swapped in one frame, two people, a change cue in the new text
_MUST_BE_OFF: Final = (
    "anchor_stored_only",
    "number_differs",
    "substitution",
    "other_persons",
    "change_cue",
)


@dataclass(frozen=True)
class Same:
    """The data of :mod:`memgate.stages.resolve_same` (``memgate/data/same.json``)."""

    version: str
    mode: Mode
    model_bar: float
    usem_bar: float
    minilm_bar: float
    plain_cover_bar: float
    """The share of a stored fact's content words said again when it names no name and no
    number (:func:`guarded`; 1.0 or more: such a fact never folds here)."""
    zh_function_chars: frozenset[str] = frozenset()
    """Chinese characters of no content (pronouns, particles, the copula): a character
    bigram with one of them is not read by :func:`chinese_said_again`."""
    lasting: re.Pattern[str] | None = None
    """A span of time reaching back from now ("seit Jahren", "depuis dix ans", "since
    2015", "从小"): the fact has held all along, no change (:func:`without_lasting`)."""

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Same:
        mode = str(data["mode"])
        if mode not in ("off", "model", "usem"):
            raise ValueError(f"same.json: unknown mode {mode!r}")
        return cls(
            version=str(data["version"]),
            mode=mode,  # type: ignore[arg-type]
            model_bar=float(data["model_bar"]),
            usem_bar=float(data["usem_bar"]),
            minilm_bar=float(data["minilm_bar"]),
            plain_cover_bar=float(data["plain_cover_bar"]),
            zh_function_chars=frozenset(str(data.get("zh_function_chars", ""))),
            lasting=alternation(data.get("lasting", {})),
        )


def _load() -> Same:
    text = resources.files("memgate.data").joinpath("same.json").read_text("utf-8")
    return Same.from_data(json.loads(text))


SAME: Final = _load()


def guarded(
    stored_predicate: str,
    stored_value: str,
    new_text: str,
    cosine: float,
    lex: Lexicon = LEXICON,
    data: Same = SAME,
) -> bool:
    """The structure of a pair allows a fold: a name or number both say (or, the stored side
    naming none, :func:`plainly_said_again`), every name of the stored side said again,
    none changed, no value swapped, no two people, no change cue, nothing added, the same
    stance. Read on the texts alone (the sweep reads the corpus so).

    >>> guarded("statement", "El código del proyecto está alojado en GitLab",
    ...         "Lo tenemos todo en GitLab, el código del proyecto, quiero decir", 0.78)
    True
    >>> guarded("statement", "The billing service is deployed on Kubernetes.",
    ...         "The search service is deployed on Kubernetes as well.", 0.7)
    False
    >>> guarded("statement", "Mi hermano vive en Madrid", "Mi hermana vive en Madrid", 0.8)
    False
    >>> guarded("statement", "I'm allergic to shellfish",
    ...         "Shellfish makes me break out in hives, so I avoid it", 0.8)
    True
    """
    x = pair_features(stored_predicate, stored_value, "statement", new_text, cosine, lex)
    if any(x[_FEATURE[n]] for n in _MUST_BE_OFF):
        return False
    if not x[_FEATURE["anchor_shared"]] and not plainly_said_again(stored_value, new_text, data):
        return False
    if lex.has_change_cue(stored_value) or adds_another(stored_value, new_text):
        return False
    if replaces(replaced_value(new_text), stored_value):
        return False
    if alternatives_swapped(stored_value, new_text):
        return False  # "de chez moi" / "au bureau": another value of one slot
    return same_stance(stored_value, new_text)


def plainly_said_again(stored_value: str, new_text: str, data: Same = SAME) -> bool:
    """A stored value with no name and no number (read as a sentence) whose content words,
    at least ``plain_cover_bar`` of them and its last one (the complement of a short
    statement: "allergic to *peanuts*", not the frame "allergic" with another thing),
    ``new_text`` says again: what a fact of common words shares with its restatement in
    place of a name. Chinese: :func:`chinese_said_again` (no word order to read the
    complement by).

    >>> plainly_said_again("Sou intolerante à lactose", "Não tolero lactose, leite me faz mal")
    True
    >>> plainly_said_again("Soy alérgico al polen", "Tengo alergia al polen desde niño")
    True
    >>> plainly_said_again("Soy alérgico al polen", "Tengo alergia a los ácaros del polvo")
    False
    >>> plainly_said_again("I'm allergic to pollen", "I react badly to dust mites")
    False
    >>> plainly_said_again("I'm allergic to peanuts", "I'm allergic to cat hair")
    False
    >>> plainly_said_again("I live in Porto", "Porto is where I live")
    False
    >>> plainly_said_again("我对花生过敏", "花生我不能吃，会过敏")
    True
    """
    if anchors(stored_value, sentence=True):
        return False  # a name or a number to say again: the anchor guard reads it
    if _CJK_RE.search(stored_value):
        return chinese_said_again(stored_value, new_text, data)
    words = _sequence(stored_value, LEXICON)
    if not words or covered(words[-1], new_text) < 1.0:
        return False
    return covered(stored_value, new_text) >= data.plain_cover_bar


def without_lasting(text: str, data: Same = SAME) -> str:
    """``text`` without its spans of time reaching back from now ("seit Jahren", "depuis
    dix ans", "desde hace años", "since 2015", "从小"): a word of such a span ("seit",
    "depuis", "desde", "since", "从") is a change cue of the lexicon ("seit kurzem", "since
    I moved"), but a fact said to have held for years has not changed: it is read without
    the span, here only (a fold's guards; a change is still the change rules' to find).

    >>> without_lasting("Ich spiele seit Jahren Schach im Verein")
    'Ich spiele Schach im Verein'
    >>> without_lasting("Je suis végétarienne depuis dix ans.")
    'Je suis végétarienne.'
    >>> without_lasting("Seit kurzem arbeite ich bei Bosch")
    'Seit kurzem arbeite ich bei Bosch'
    >>> without_lasting("Since I moved I walk to work")
    'Since I moved I walk to work'
    """
    return _without(text, data.lasting)


def _content_bigrams(text: str, function: frozenset[str]) -> list[str]:
    """The character bigrams of the Chinese runs of ``text``, in order, with no function
    character (pronouns, particles, the copula: ``zh_function_chars``)."""
    out: list[str] = []
    for run in _CJK_RUN_RE.findall(text):
        out += [
            run[i : i + 2]
            for i in range(len(run) - 1)
            if run[i] not in function and run[i + 1] not in function
        ]
        if len(run) == 1 and run not in function:
            out.append(run)
    return out


def chinese_said_again(stored_value: str, new_text: str, data: Same = SAME) -> bool:
    """A Chinese stored value with no name (no word boundaries, no word order to read its
    complement by): at least ``plain_cover_bar`` of its content character bigrams, and its
    last one (most often the complement or the head noun: "过敏", "咖啡", "护士"), are in
    ``new_text``. Another thing in one frame ("我对海鲜过敏" after "我对花生过敏", "绿茶"
    after "咖啡") shares the frame's bigrams, not enough of the value's.

    >>> chinese_said_again("我每天喝两杯咖啡", "咖啡我每天喝两杯")
    True
    >>> chinese_said_again("我每天喝两杯咖啡", "我每天喝两杯绿茶")
    False
    >>> chinese_said_again("我对花生过敏", "我对海鲜过敏")
    False
    >>> chinese_said_again("成都", "我住在成都")
    True
    """
    want = _content_bigrams(stored_value, data.zh_function_chars)
    if not want or want[-1] not in new_text:
        return False
    hit = sum(1 for b in set(want) if b in new_text)
    return hit / len(set(want)) >= data.plain_cover_bar


def _owners_apart(f: StoredFact, c: CandidateFact, lex: Lexicon = LEXICON) -> bool:
    """Both say whose fact it is, and not the same owner: the team's backend is no habit of
    the user ("Our backend is written in Rust" / "I write Rust at home"). A thing said with
    no owner ("El repositorio del cliente ...") is the speaker's or the team's alike.

    >>> f = StoredFact.model_construct(subject="team's backend")
    >>> _owners_apart(f, CandidateFact.model_construct(subject="user"))
    True
    >>> _owners_apart(f, CandidateFact.model_construct(subject="team"))
    False
    >>> _owners_apart(StoredFact.model_construct(subject="frontend"),
    ...               CandidateFact.model_construct(subject="user"))
    False
    """
    owner_f = _owner_and_rest(lex.canonical_subject(f.subject))[0]
    owner_c = _owner_and_rest(lex.canonical_subject(c.subject))[0]
    return bool(owner_f and owner_c and owner_f != owner_c)


def _near(
    f: StoredFact,
    c: CandidateFact,
    sim: float,
    model: RelationModel,
    meaning: Meaning | None,
    data: Same,
) -> float | None:
    """How sure the fold is (a probability or a cosine), or None when it is not."""
    if data.mode == "model":
        stored, said = without_lasting(f.value, data), without_lasting(candidate_text(c), data)
        x = pair_features(f.predicate, stored, c.predicate, said, sim)
        relation, p = model.relation(x)
        return p if relation == "same" and p >= data.model_bar else None
    if data.mode == "usem":
        u = usem_similarity(meaning, meaning_text(f), meaning_text(c))
        if u is None:  # two English sides (or usem off): MiniLM's cosine reads them
            return sim if sim >= data.minilm_bar else None
        return u if u >= data.usem_bar else None
    return None


def as_type_of(f: StoredFact, c: CandidateFact) -> CandidateFact:
    """``c`` read with ``f``'s type when one of the two is a fact and the other a free
    statement read as an instruction for a standing word ("siempre", "always", "toujours":
    "En todos mis proyectos la base de datos es siempre Postgres" after "Uso PostgreSQL en
    todos mis proyectos"): a habit said with "always" is the fact said again, its guards and
    its judgement of meaning still read. A typed instruction (a language to answer in) and
    every other pair of types keep their own.

    >>> f = StoredFact.model_construct(type=FactType.FACT, predicate="uses_tool:database")
    >>> c = CandidateFact.model_construct(type=FactType.INSTRUCTION, predicate="statement")
    >>> as_type_of(f, c).type is FactType.FACT
    True
    >>> typed = CandidateFact.model_construct(type=FactType.INSTRUCTION, predicate="instruction")
    >>> as_type_of(f, typed).type is FactType.INSTRUCTION
    True
    """
    kinds = {f.type, c.type}
    if kinds != {FactType.FACT, FactType.INSTRUCTION}:
        return c
    told = f if f.type is FactType.INSTRUCTION else c
    if told.predicate != "statement":
        return c
    return c.model_copy(update={"type": f.type})


def same_target(
    c: CandidateFact,
    key: str,
    nearest: Sequence[tuple[StoredFact, float]],
    model: RelationModel,
    meaning: Meaning | None = None,
    data: Same = SAME,
) -> LearnedMatch | None:
    """The fact among ``nearest`` (the candidate's nearest active facts, with MiniLM's
    cosine) that ``c`` says again, the surest first; None when there is none."""
    if data.mode == "off" or c.retracts or c.type is FactType.EVENT:
        return None
    said = without_lasting(candidate_text(c), data)
    if LEXICON.has_change_cue(without_lasting(c.context, data) or said):
        return None
    best: LearnedMatch | None = None
    for f, sim in nearest:
        if (
            f.key == key
            or f.status is not FactStatus.ACTIVE
            or (f.tenant_id, f.user_id) != (c.tenant_id, c.user_id)
            or (f.last_seen > c.turn_ts and not cites_turn(f, c))
            or not comparable(f, as_type_of(f, c))
            or persons_apart(f, c)
            or _owners_apart(f, c)
            or not guarded(f.predicate, without_lasting(f.value, data), said, sim)
        ):
            continue
        sure = _near(f, c, sim, model, meaning, data)
        if sure is not None and (
            best is None or (sure, f.fact_id) > (best.probability, best.fact.fact_id)
        ):
            best = LearnedMatch(f, "same", sure, sim)
    return best
