"""Rank fusion and the hits built from it, shared by both retrieval stores (memgate.sinks.base)."""

from __future__ import annotations

from datetime import UTC, datetime

from memgate.core.events import FactStatus, FactType, StoredFact, stable_id
from memgate.sinks.base import fused_hits, rrf_fuse

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def fact(value: str) -> StoredFact:
    key = f"acme/u1/user/{value}"
    return StoredFact(
        fact_id=value, tenant_id="acme", user_id="u1", key=key, type=FactType.PREFERENCE,
        subject="user", predicate=value, value=value, text=f"user likes {value}",
        status=FactStatus.ACTIVE, confidence=0.9, valid_from=T0, recorded_at=T0, first_seen=T0,
        last_seen=T0, source_turn_ids=[stable_id("t", value)], extractor="test",
        extractor_version="1", policy_version="test",
    )  # fmt: skip


def test_hits_follow_the_fused_order_with_both_ranks_and_the_cosine() -> None:
    fused = rrf_fuse([["a", "b"], ["b", "c"]])
    facts = {v: fact(v) for v in "abc"}
    hits = fused_hits(fused, facts, {"b": 0.9, "c": 0.4})
    assert [h.fact.fact_id for h in hits] == ["b", "a", "c"]
    assert [(h.bm25_rank, h.vector_rank) for h in hits] == [(2, 1), (1, None), (None, 2)]
    assert [h.vector_score for h in hits] == [0.9, None, 0.4]
    assert hits[0].score == fused[0][1]


def test_an_id_gone_between_ranking_and_fetch_is_left_out() -> None:
    fused = rrf_fuse([["a", "b"], ["b", "c"]])
    hits = fused_hits(fused, {"a": fact("a"), "c": fact("c")}, {})
    assert [h.fact.fact_id for h in hits] == ["a", "c"]
