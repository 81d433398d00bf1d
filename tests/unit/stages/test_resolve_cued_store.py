"""The cued change (stages/resolve_cued.py) through the resolver and a real store: the
decision it records, a redelivered turn, and another tenant's fact of the same user id.

The store holds MiniLM vectors and the resolver reads usem, as the gate does.
"""

from __future__ import annotations

from memgate.core.events import DecisionRecord, FactStatus, RedactedCandidate, Resolution
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from tests.unit.stages.resolver_kit import CLOCK, USEM, cand, facts, minilm, resolve

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm

#: a pair no earlier rule of the resolver reads (no family, no replacement structure, no
#: named value on either side for the masked frame)
OLD = "我们的文档放在语雀上"
OTHER = "Ich spiele Cello in einem Laienorchester"
NEW = "我们的文档现在都迁到飞书了"


def _apply(store: EmbeddedIndex, item: RedactedCandidate) -> tuple[Resolution, DecisionRecord]:
    resolver = Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM, slotmask=True)
    return resolve(store, item, resolver)


def test_the_change_is_recorded_with_its_reason_and_a_redelivery_changes_nothing(
    store: EmbeddedIndex,
) -> None:
    _apply(store, cand(OLD, days=0, subject="team", multi=True))
    _apply(store, cand(OTHER, days=1, multi=True))
    res, dec = _apply(store, cand(NEW, days=14, subject="team", multi=True))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "cued_update")
    assert str(dec.details["match"]).startswith("cued:update=")
    got = facts(store)
    assert got[OLD].status is FactStatus.SUPERSEDED
    assert got[NEW].status is FactStatus.ACTIVE
    assert got[OTHER].status is FactStatus.ACTIVE
    # the same turn delivered again: nothing more is closed, nothing new is written
    again, _ = _apply(store, cand(NEW, days=14, subject="team", multi=True))
    assert again.action.value == "DUPLICATE"
    after = facts(store)
    assert len(after) == 3
    assert after[OTHER].status is FactStatus.ACTIVE
    assert after[NEW].status is FactStatus.ACTIVE


def test_another_tenants_fact_of_the_same_user_id_is_never_read(store: EmbeddedIndex) -> None:
    _apply(store, cand(OLD, days=0, subject="team", multi=True, tenant="globex"))
    res, _ = _apply(store, cand(NEW, days=14, subject="team", multi=True))
    assert res.action.value == "ADD"
    theirs = facts(store, tenant="globex")
    assert theirs[OLD].status is FactStatus.ACTIVE
