"""Resolution by the learned pair classifier (:mod:`memgate.stages.relation_model`).

With the setting ``resolution_model = "assist"``, a candidate the rules of
:class:`memgate.stages.dedupe.Resolver` found no target for is compared with the nearest
active facts of its tenant and user (the read the resolver made for its near-duplicate
check: no read of its own). The fact the model reads as ``same`` (a restatement in other
words) takes the candidate in; the one it reads as ``update`` (a new value of the same
thing) is superseded by it; ``other`` leaves the candidate a new fact.

What the rules guarantee holds here too: the facts read are the tenant's and user's only;
a fact said at the same instant as the candidate or later stands (never folded into nor
superseded); a redelivered turn changes nothing (:func:`learned_redelivery` finds the
fact the first delivery folded it into); and the structure the rules read is kept
(:func:`comparable`): only facts of the candidate's type, no episode (events are the
consolidation pass's to fold), no two people (``other_persons``), and no supersession in
a family that holds several values at once (a second pet is not a new pet).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from memgate.core.events import CandidateFact, FactStatus, FactType, StoredFact, normalise
from memgate.core.stores import FactView
from memgate.stages.fact_keys import cites_turn
from memgate.stages.relation_model import RelationModel, pair_features
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_paraphrase import other_persons

__all__ = ["LearnedMatch", "candidate_text", "comparable", "learned_redelivery", "learned_target"]

#: A candidate value of more words than this is its own sentence (a statement extractor's);
#: a shorter one (a typed value: "Tom") is read with the sentence it came from.
_VALUE_WORDS: Final = 3
#: The speakers' subjects: a fact about the user or the team may be about anything.
_SPEAKERS: Final = frozenset({"user", "team"})


@dataclass(frozen=True)
class LearnedMatch:
    fact: StoredFact
    relation: str  # "same" or "update"
    probability: float
    similarity: float


def candidate_text(c: CandidateFact) -> str:
    """The new side of a pair: the candidate's sentence."""
    if len(c.object.split()) > _VALUE_WORDS or not c.context.strip():
        return c.object
    return c.context


def comparable(f: StoredFact, c: CandidateFact) -> bool:
    """Whether the model may read the pair at all (the rules' structure, kept): the same
    type, no episode, no two people, not two subjects named apart ("user's sister" /
    "user's brother", one product / another), not two slots of two single-valued families
    (the home city / the time zone, by predicate or by words), and not one typed predicate
    (its key tells its values apart already: a second thing liked is not the first one said
    again)."""
    if f.type != c.type or c.type is FactType.EVENT:
        return False
    fs, cs = normalise(f.subject), normalise(c.subject)
    if fs != cs and fs not in _SPEAKERS and cs not in _SPEAKERS:
        return False
    if f.predicate == c.predicate and c.predicate != "statement":
        return False
    ff = LEXICON.family(f.predicate, f.value)
    cf = LEXICON.family(c.predicate, candidate_text(c))
    if ff is not None and cf is not None and ff.single and cf.single and ff.name != cf.name:
        return False
    return not other_persons(f.value, candidate_text(c))


def _additive(f: StoredFact, c: CandidateFact) -> bool:
    """The stored fact or the candidate is of a family that holds several values at once."""
    return any(
        fam is not None and fam.additive
        for fam in (LEXICON.family(f.predicate, f.value), LEXICON.family(c.predicate, c.object))
    )


def _read(model: RelationModel, f: StoredFact, c: CandidateFact, sim: float) -> tuple[str, float]:
    x = pair_features(f.predicate, f.value, c.predicate, candidate_text(c), sim)
    return model.action(x)


def learned_target(
    model: RelationModel,
    c: CandidateFact,
    key: str,
    nearest: Sequence[tuple[StoredFact, float]],
) -> LearnedMatch | None:
    """The stored fact among ``nearest`` (the candidate's nearest active facts) that the
    model reads as the same fact or as the one ``c`` updates, the most probable first;
    None when it reads every one as another fact."""
    best: LearnedMatch | None = None
    for f, sim in nearest:
        if (
            f.key == key
            or f.status is not FactStatus.ACTIVE
            or f.tenant_id != c.tenant_id
            or f.user_id != c.user_id
            or f.last_seen >= c.turn_ts  # said at the same instant or later: it stands
            or any(t in f.source_turn_ids for t in c.source_turn_ids)
            or not comparable(f, c)
        ):
            continue
        relation, p = _read(model, f, c, sim)
        if relation == "other" or (relation == "update" and _additive(f, c)):
            continue
        if best is None or (p, f.fact_id) > (best.probability, best.fact.fact_id):
            best = LearnedMatch(f, relation, p, sim)
    return best


def learned_redelivery(
    model: RelationModel,
    c: CandidateFact,
    key: str,
    nearest: Sequence[tuple[StoredFact, float]],
) -> StoredFact | None:
    """The fact under another key that a first delivery of ``c``'s turn was folded into
    (it cites the turn and the model reads it as the same fact), whatever its status now.
    A supersession by the model needs no such check: the new fact is under ``c``'s key."""
    for f, sim in nearest:
        if f.key != key and cites_turn(f, c) and f.tenant_id == c.tenant_id and comparable(f, c):
            relation, _ = _read(model, f, c, sim)
            if relation == "same":
                return f
    return None


def nearest_of(
    view: FactView,
    c: CandidateFact,
    vec: np.ndarray,
    k: int,
    statuses: tuple[FactStatus, ...],
) -> list[tuple[StoredFact, float]]:
    """The candidate's nearest facts of its tenant and user (a read the resolver's plan
    already holds)."""
    return list(view.nearest(c.tenant_id, c.user_id, vec, k=k, statuses=statuses))
