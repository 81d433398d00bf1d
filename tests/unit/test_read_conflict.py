"""A newer value of a single-valued slot served above the older one, at read time (sup34).

A change said in new words ("Ahora vivo en Sevilla" after "I live in Leeds") may be left
active beside the fact it replaces; the search served the old value first. Among the hits
of one search the newer value of the slot now takes the older one's place, the older is
served right below it and says why; nothing is deleted. Multi-valued slots, another
person's change, a hedge or plan, a state of the moment and a value added beside the
others never reorder. The logic is store-independent (memgate/read_conflict.py): tested
on result lists, through the read path's ranking and on the embedded store.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from memgate import Memory
from memgate.core.events import FactStatus, FactType, StoredFact
from memgate.core.stores import SearchHit
from memgate.read_conflict import conflict, conflict_order
from memgate.recall import Recall
from memgate.sinks.base import RRF_K

T0 = datetime(2025, 1, 8, tzinfo=UTC)
LATER = T0 + timedelta(days=40)
NOW = T0 + timedelta(days=60)


def _fact(
    fid: str,
    predicate: str,
    value: str,
    at: datetime,
    subject: str = "user",
    status: FactStatus = FactStatus.ACTIVE,
) -> StoredFact:
    return StoredFact.model_construct(
        fact_id=fid, subject=subject, predicate=predicate, value=value, text=value,
        type=FactType.FACT, status=status, valid_from=at, valid_to=None, last_seen=at,
        retrieval_vector=None,
    )  # fmt: skip


# the older fact names its slot; the newer says a change in other words, no slot noun
CHANGES = [
    ("lives_in", "Leeds", "We moved to Manchester last month"),
    ("lives_in", "Köln", "Ich wohne jetzt in Leipzig"),
    ("lives_in", "Lyon", "J'habite maintenant à Nantes"),
    ("works_at", "Globant", "Desde la semana pasada estoy en Mercado Libre"),
    ("lives_in", "Porto Alegre", "Agora moro em Recife"),
    ("lives_in", "杭州", "我现在住在深圳"),
    ("statement", "Mon médecin traitant, c'est le docteur Morel",
     "Depuis qu'il est parti à la retraite, c'est la docteure Haddad qui me suit"),
    ("statement", "我用的手机是iPhone 12", "现在换成了华为Mate 60"),
]  # fmt: skip


@pytest.mark.parametrize(("predicate", "old", "new"), CHANGES)
def test_a_change_in_new_words_ranks_above_the_older_value(
    predicate: str, old: str, new: str
) -> None:
    facts = [_fact("old", predicate, old, T0), _fact("new", "statement", new, LATER)]
    moved = conflict_order(facts, [0.6, 0.45], NOW)
    assert moved.order == [1, 0]
    assert moved.below[0][0] == "new"


def test_two_values_of_one_family_newest_first() -> None:
    facts = [
        _fact("a", "works_at", "Zalando", T0),
        _fact("b", "works_at", "Spotify", LATER),
        _fact("c", "works_at", "Klarna", T0 + timedelta(days=20)),
    ]
    moved = conflict_order(facts, [0.6, 0.5, 0.5], NOW)
    assert [facts[i].fact_id for i in moved.order] == ["b", "c", "a"]


# hard negatives: the older fact stays first
KEPT = [
    ("speaks_language", "Portuguese", "I've also picked up some Japanese"),  # multi-valued
    ("has_child", "a daughter, Maya", "Our son Leo was born last week"),  # multi-valued
    ("hobby", "football on Sundays", "Agora faço natação"),  # multi-valued
    ("statement", "我对花生过敏", "后来发现我对青霉素也过敏"),  # a value added, no family
    ("lives_in", "Leeds", "I'm now also renting a flat in Oslo for the summers"),  # added
    ("statement", "Mi médico de cabecera es el doctor Ruiz",
     "A mi madre ahora la atiende la doctora Salas"),  # another person's change
    ("lives_in", "Leeds", "My sister now lives in Oslo"),  # another person's move
    ("lives_in", "Valencia", "Quizás me mude a Berlín el año que viene"),  # a plan
    ("lives_in", "Leeds", "I might move to Berlin soon"),  # a hedge
    ("lives_in", "Bordeaux", "Cette semaine je suis à Lisbonne"),  # a week away
    ("lives_in", "Hangzhou", "这周我在深圳出差"),  # a week away
    ("works_at", "Siemens", "Wir nutzen jetzt Linear für die Tickets"),  # another slot
]  # fmt: skip


@pytest.mark.parametrize(("predicate", "old", "new"), KEPT)
def test_no_standing_change_of_the_slot_keeps_the_order(predicate: str, old: str, new: str) -> None:
    facts = [_fact("old", predicate, old, T0), _fact("new", "statement", new, LATER)]
    assert conflict(facts[0], facts[1]) is None
    moved = conflict_order(facts, [0.6, 0.45], NOW)
    assert moved.order == [0, 1] and not moved.below


def test_another_persons_fact_never_outranks() -> None:
    own = _fact("own", "works_at", "Siemens", T0)
    brother = _fact("b", "works_at", "Bosch", LATER, subject="user's brother")
    assert conflict_order([own, brother], [0.6, 0.5], NOW).order == [0, 1]


def test_as_of_compares_the_facts_valid_then() -> None:
    facts = [_fact("old", "lives_in", "Köln", T0), _fact("new", "lives_in", "Leipzig", LATER)]
    between = T0 + timedelta(days=20)
    assert conflict_order(facts, [0.6, 0.5], between).order == [0, 1]
    assert conflict_order(facts, [0.6, 0.5], NOW).order == [1, 0]


def test_a_superseded_or_far_fact_is_not_compared() -> None:
    old = _fact("old", "lives_in", "Köln", T0)
    gone = _fact("new", "lives_in", "Leipzig", LATER, status=FactStatus.SUPERSEDED)
    assert conflict_order([old, gone], [0.6, 0.5], NOW).order == [0, 1]
    new = _fact("new", "lives_in", "Leipzig", LATER)
    assert conflict_order([old, new], [0.6, 0.1], NOW).order == [0, 1]  # far from the query


def _hit(fact: StoredFact, rank: int) -> SearchHit:
    return SearchHit.model_construct(
        fact=fact, score=2.0 / (RRF_K + rank), bm25_rank=rank, vector_rank=rank,
        vector_score=0.5,
    )  # fmt: skip


def test_the_read_path_keeps_scores_with_places_and_says_why() -> None:
    other = _fact("pet", "has_pet", "a cat named Miso", T0)
    old = _fact("old", "lives_in", "Köln", T0)
    new = _fact("new", "statement", "Ich wohne jetzt in Leipzig", LATER)
    hits = [_hit(old, 1), _hit(other, 2), _hit(new, 3)]
    ranked = Recall._ranked(hits, np.zeros(4, dtype=np.float32), NOW, None, {})
    # the older fact stays right below the newer; the hit between moves one place down
    assert [r.hit.fact.fact_id for r in ranked] == ["new", "old", "pet"]
    finals = [r.final for r in ranked]
    assert finals == sorted(finals, reverse=True)
    assert ranked[1].ranked_below is not None and "new" in ranked[1].ranked_below
    assert ranked[0].ranked_below is None and ranked[2].ranked_below is None


def test_no_hit_leaves_the_list_and_the_others_keep_their_order() -> None:
    facts = [
        _fact("x", "has_pet", "a cat named Miso", T0),
        _fact("old", "works_at", "Zalando", T0),
        _fact("y", "hobby", "climbing", T0),
        _fact("z", "statement", "I like green tea", T0),
        _fact("new", "works_at", "Spotify", LATER),
    ]
    moved = conflict_order(facts, [0.6] * 5, NOW)
    assert [facts[i].fact_id for i in moved.order] == ["x", "new", "old", "y", "z"]


def _turn(tid: str, text: str, ts: str) -> dict[str, str]:
    return {"tenant_id": "t", "user_id": "u", "session_id": tid, "turn_id": tid,
            "role": "user", "content": text, "ts": ts}  # fmt: skip


def test_the_embedded_store_serves_the_new_employer_first(tmp_path: Path) -> None:
    """Read time: "user works at Globant" first, the change in other words second, before.
    The write path closes this pair since cued43 (stages/resolve_cued.py: a change cue and
    the one fact the relation model reads as replaced), as it closes a move said with a
    word of the home's slot since sup35 (tests/unit/stages/test_slot_changed.py); with
    ``resolution_slotmask`` off it leaves both open, and the read path orders them."""
    turns = [
        _turn("a1", "Trabajo en Globant.", "2025-01-08T09:00:00Z"),
        _turn("a2", "Desde la semana pasada estoy en Mercado Libre.", "2025-03-04T20:00:00Z"),
    ]
    with Memory(data_dir=tmp_path / "open", resolution_slotmask="off") as m:
        m.add(turns)
        hits = m.search("¿Dónde trabajo?", "t", "u", min_score=-1).hits
        before = m.search(
            "¿Dónde trabajo?", "t", "u", min_score=-1, as_of=datetime(2025, 2, 1, tzinfo=UTC)
        ).hits
    assert len(hits) == 2, [h.fact.text for h in hits]  # both stay served
    assert "Mercado Libre" in hits[0].fact.text and "Globant" in hits[1].fact.text
    assert hits[1].score.ranked_below is not None
    assert "Globant" in before[0].fact.text
    with Memory(data_dir=tmp_path / "closed") as m:
        m.add(turns)
        hits = m.search("¿Dónde trabajo?", "t", "u", min_score=-1).hits
        before = m.search(
            "¿Dónde trabajo?", "t", "u", min_score=-1, as_of=datetime(2025, 2, 1, tzinfo=UTC)
        ).hits
    assert [h.fact.text for h in hits] == [hits[0].fact.text]
    assert "Mercado Libre" in hits[0].fact.text
    assert "Globant" in before[0].fact.text  # the old employer, as of a day between


def test_the_embedded_store_keeps_the_own_employer_above_a_brothers(tmp_path: Path) -> None:
    turns = [
        _turn("b1", "Ich arbeite bei Siemens.", "2025-01-08T09:00:00Z"),
        _turn("b2", "Mein Bruder arbeitet jetzt bei Bosch.", "2025-03-04T20:00:00Z"),
    ]
    with Memory(data_dir=tmp_path) as m:
        m.add(turns)
        hits = m.search("Wo arbeite ich?", "t", "u", min_score=-1).hits
    assert hits and "Siemens" in hits[0].fact.text
    assert all(h.score.ranked_below is None for h in hits)
