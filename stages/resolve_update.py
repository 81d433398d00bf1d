"""A change said in new words, found among the nearest facts when no rule named a target.

The change rules (:mod:`memgate.stages.resolve_semantic`, :mod:`~.resolve_slots`,
:mod:`~.resolve_change`) find the fact a change replaces by a family's words, a slot noun,
the old value of a replacement structure or a masked frame. A change that shares none of
them with the stored fact ("I report to Tom Becker" / "Ana Whitfield is the person I answer
to now"; "我们团队用Jira管理任务" / "团队已经全部转到飞书项目上了") was left active beside it, and
the search served the stale value. Here the candidate's nearest active facts (the read the
resolver already holds: no read of its own) are asked, in order, whether ``c`` is a new
value of one of them:

* the structure first, the rules' own guards (:func:`~memgate.stages.resolve_learned.
  comparable`, :func:`~.resolve_restate.persons_apart`, two owners said): the tenant's and
  user's facts only, said before the candidate, the same type, no episode, not two subjects
  named apart, not two single-valued families, not two people (nor a person the new
  sentence names whose slot it is: "我老婆的牙医"), no family and no typed predicate that
  holds several values (a language spoken); and on the texts (:func:`guarded`): the new
  text says it is a change (a change cue of the lexicon, or a replacement structure of
  ``data/change.json``), adds
  nothing ("also"), is not of the moment or hedged, and names no other person and no other
  thing by a qualifier of the same noun;
* then one judgement, the learned pair classifier (:mod:`memgate.stages.relation_model`)
  reading the pair as ``update`` with at least ``model_bar`` (``memgate/data/update.json``),
  chosen on the pair corpus ``memgate/data/train/relations*.jsonl`` (``tools/
  update_sweep.py``), never on a test case.

Only a supersession: the candidate is the new fact, the one found superseded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from memgate.core.events import CandidateFact, FactStatus, FactType, StoredFact
from memgate.stages.fact_keys import cites_turn
from memgate.stages.moment_scope import of_the_day
from memgate.stages.relation_model import FEATURE_NAMES, RelationModel, pair_features
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_change import qualifier_clash
from memgate.stages.resolve_learned import LearnedMatch, _additive, candidate_text, comparable
from memgate.stages.resolve_paraphrase import other_persons
from memgate.stages.resolve_replaced import CHANGE, replaced_value
from memgate.stages.resolve_restate import persons_apart
from memgate.stages.resolve_same import _owners_apart
from memgate.stages.resolve_slots import _about_another
from memgate.stages.statement_text import hedged
from memgate.stages.vocabulary import is_multi_valued

__all__ = ["UPDATE", "Update", "guarded", "update_target"]

_FEATURE: Final = {name: i for i, name in enumerate(FEATURE_NAMES)}


@dataclass(frozen=True)
class Update:
    """The data of :mod:`memgate.stages.resolve_update` (``memgate/data/update.json``)."""

    version: str
    on: bool
    model_bar: float

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Update:
        return cls(
            version=str(data["version"]), on=bool(data["on"]), model_bar=float(data["model_bar"])
        )


def _load() -> Update:
    text = resources.files("memgate.data").joinpath("update.json").read_text("utf-8")
    return Update.from_data(json.loads(text))


UPDATE: Final = _load()


def guarded(
    stored_predicate: str, stored_value: str, new_text: str, lex: Lexicon = LEXICON
) -> bool:
    """The texts of a pair allow a change: the new text says it is one (a change cue, or a
    replacement structure), adds nothing, is not of the moment nor hedged, names no other
    person and no other thing by a qualifier of one noun. Read on the texts alone (the
    sweep reads the corpus so).

    >>> guarded("statement", "I report to Tom Becker", "Ana Whitfield is my lead now")
    True
    >>> guarded("statement", "I speak Portuguese", "I now also speak some Italian")
    False
    >>> guarded("statement", "Our staging database is Postgres",
    ...         "Our analytics database is now ClickHouse")
    False
    >>> guarded("lives_in", "Köln", "Ich wohne in Köln und mag es")
    False
    """
    if not (lex.has_change_cue(new_text) or replaced_value(new_text) is not None):
        return False
    if CHANGE.adds(new_text) or of_the_day(new_text) or hedged(new_text):
        return False
    x = pair_features(stored_predicate, stored_value, "statement", new_text, 0.0, lex)
    if x[_FEATURE["other_persons"]]:
        return False
    return not qualifier_clash(stored_value, new_text, lex)


def _comparable(f: StoredFact, c: CandidateFact, said: str, lex: Lexicon = LEXICON) -> bool:
    """:func:`~memgate.stages.resolve_learned.comparable`, with every family a side names
    read: a statement that names two families ("飞书" is a chat and a tracker) is of the
    stored fact's single-valued family when it names it too.

    >>> f = StoredFact.model_construct(type=FactType.FACT, subject="team",
    ...     predicate="statement", value="我们团队用Jira管理任务")
    >>> c = CandidateFact.model_construct(type=FactType.FACT, subject="team",
    ...     predicate="statement", object="团队已经全部转到飞书项目上了，Jira不再用了", context="")
    >>> _comparable(f, c, c.object)
    True
    """
    if comparable(f, c):
        return True
    if f.type != c.type or (f.predicate == c.predicate and c.predicate != "statement"):
        return False
    ff = {fam.name for fam in lex.families_of(f.predicate, f.value) if fam.single}
    cf = {fam.name for fam in lex.families_of(c.predicate, said) if fam.single}
    if not (ff & cf):
        return False
    bare = c.model_copy(update={"predicate": "statement", "object": f.value, "context": ""})
    return comparable(f, bare) and not other_persons(f.value, said)


def _persons_fact(f: StoredFact, c: CandidateFact, lex: Lexicon = LEXICON) -> bool:
    """``f`` is another person's fact ("user's sister") and ``c`` not that person's: the
    speaker's own change never replaces it."""
    from memgate.stages.resolve_paraphrase import FOLD
    from memgate.stages.resolve_slots import _owner_and_rest

    rest_f = _owner_and_rest(lex.canonical_subject(f.subject))[1]
    rest_c = _owner_and_rest(lex.canonical_subject(c.subject))[1]
    return FOLD.is_person(rest_f) and not FOLD.same_thing(rest_f, rest_c)


def update_target(
    c: CandidateFact,
    key: str,
    nearest: Sequence[tuple[StoredFact, float]],
    model: RelationModel,
    data: Update = UPDATE,
) -> LearnedMatch | None:
    """The fact among ``nearest`` (the candidate's nearest active facts, with MiniLM's
    cosine) of which ``c`` is a new value, the surest first; None when there is none."""
    if not data.on or c.retracts or c.type is not FactType.FACT:
        return None
    said = candidate_text(c)
    best: LearnedMatch | None = None
    for f, sim in nearest:
        if (
            f.key == key
            or f.status is not FactStatus.ACTIVE
            or (f.tenant_id, f.user_id) != (c.tenant_id, c.user_id)
            or f.last_seen >= c.turn_ts
            or cites_turn(f, c)
            or not _comparable(f, c, said)
            or _additive(f, c)
            or (f.predicate != "statement" and is_multi_valued(f.predicate))
            or persons_apart(f, c)
            or _persons_fact(f, c)
            or _about_another(f, c, LEXICON)
            or _owners_apart(f, c)
            or not guarded(f.predicate, f.value, said)
        ):
            continue
        x = pair_features(f.predicate, f.value, c.predicate, said, sim)
        relation, p = model.relation(x)
        if relation != "update" or p < data.model_bar:
            continue
        if best is None or (p, f.fact_id) > (best.probability, best.fact.fact_id):
            best = LearnedMatch(f, "update", p, sim)
    return best
