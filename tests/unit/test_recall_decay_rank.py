"""Decay divides a hit's ranks, not its fused score (super32).

With reciprocal rank fusion (k = 60) the fused scores of the first two ranks differ by
under 2%, so multiplying the fused score by the decay let a fact a few weeks older, at a
half-life of two years, fall behind a fresher one that both retrievers rank second: "which
instrument do I play in the orchestra" served the banjo taken up this spring above the
cello of the orchestra. The decay now divides each rank before the ranks are fused again:
one half-life counts as twice as far down each list.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from memgate.core.events import FactType, StoredFact
from memgate.core.stores import SearchHit
from memgate.recall import DecayPolicy, Recall, decayed
from memgate.sinks.base import RRF_K

NOW = datetime(2025, 4, 12, tzinfo=UTC)


def _hit(fid: str, days_old: float, bm25: int | None, dense: int | None) -> SearchHit:
    fact = StoredFact.model_construct(
        fact_id=fid,
        subject="user",
        predicate="statement",
        type=FactType.FACT,
        last_seen=NOW - timedelta(days=days_old),
        retrieval_vector=None,
    )
    score = sum(1.0 / (RRF_K + r) for r in (bm25, dense) if r is not None)
    return SearchHit.model_construct(
        fact=fact, score=score, bm25_rank=bm25, vector_rank=dense, vector_score=0.5
    )


def _order(hits: list[SearchHit], decay: DecayPolicy | None = None) -> list[str]:
    ranked = Recall._ranked(
        hits, np.zeros(4, dtype=np.float32), NOW, decay or DecayPolicy.default(), {}
    )
    return [r.hit.fact.fact_id for r in ranked]


def test_weeks_of_age_do_not_overturn_both_retrievers() -> None:
    first = _hit("cello", days_old=40, bm25=1, dense=1)  # the fact the question names
    second = _hit("banjo", days_old=1, bm25=2, dense=2)  # a second value, said later
    assert _order([second, first]) == ["cello", "banjo"]


def test_weeks_of_age_do_not_overturn_the_one_retriever_that_found_both() -> None:
    # a Chinese question: no lexical match, the dense ranks alone
    first = _hit("badminton", days_old=40, bm25=None, dense=1)
    second = _hit("swimming", days_old=1, bm25=None, dense=2)
    assert _order([second, first]) == ["badminton", "swimming"]


def test_decay_still_orders_near_ranks_after_half_lives() -> None:
    """Hard negative: an event (half-life 90 days) a year old falls behind a fresh one
    ranked just below it; a fact a few days older does not."""
    old = _hit("old", days_old=365, bm25=1, dense=1)
    fresh = _hit("fresh", days_old=1, bm25=2, dense=2)
    events = DecayPolicy(by_type={FactType.FACT: 90.0}, by_predicate={}, floor=0.1)
    assert _order([old, fresh], events) == ["fresh", "old"]


def test_ties_in_rank_go_to_the_fresher_fact() -> None:
    a = _hit("older", days_old=60, bm25=1, dense=2)
    b = _hit("newer", days_old=2, bm25=2, dense=1)
    assert _order([a, b]) == ["newer", "older"]


def test_no_decay_is_the_fused_score() -> None:
    h = _hit("x", days_old=0, bm25=3, dense=1)
    assert decayed(h, 1.0) == h.score
    assert decayed(h, 0.5) == 1 / (RRF_K + 6) + 1 / (RRF_K + 2)


def test_an_exact_tie_goes_to_the_fact_nearer_in_meaning_whatever_the_store_order() -> None:
    # two facts of one turn, each first in one ranking: the same fused score and age. The
    # store broke the tie by fact id, which is keyed by the workspace's random HMAC key, so
    # the served order changed from one data dir to the next; the cosine decides it now.
    near = _hit("near", days_old=3, bm25=2, dense=1).model_copy(update={"vector_score": 0.62})
    far = _hit("far", days_old=3, bm25=1, dense=2).model_copy(update={"vector_score": 0.41})
    assert _order([far, near]) == ["near", "far"]
    assert _order([near, far]) == ["near", "far"]
