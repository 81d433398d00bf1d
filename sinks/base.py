"""What the stores share: reciprocal rank fusion and the hits built from it.

The interfaces the stores implement (:class:`~memgate.core.stores.RetrievalStore`,
:class:`~memgate.core.stores.AuditStore`) live in :mod:`memgate.core.stores`,
below the stages that read through them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memgate.core.events import StoredFact
from memgate.core.stores import SearchHit

RRF_K = 60

Fused = list[tuple[str, float, list[int | None]]]


def rrf_fuse(rankings: Sequence[Sequence[str]], *, k: int = RRF_K) -> Fused:
    """Reciprocal rank fusion: score(d) = sum over rankings of 1 / (k + rank), rank from 1.

    Returns (id, score, [rank in each ranking or None]) best first; ties broken
    by best single rank then id, so the order is deterministic.

    >>> [(d, round(s, 4)) for d, s, _ in rrf_fuse([["a", "b"], ["b", "c"]])]
    [('b', 0.0325), ('a', 0.0164), ('c', 0.0161)]
    """
    scores: dict[str, float] = {}
    ranks: dict[str, list[int | None]] = {}
    for i, ranking in enumerate(rankings):
        for r, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + r)
            ranks.setdefault(doc, [None] * len(rankings))[i] = r
    return sorted(
        ((d, s, ranks[d]) for d, s in scores.items()),
        key=lambda x: (-x[1], min(r for r in x[2] if r is not None), x[0]),
    )


def fused_hits(
    fused: Fused, facts: Mapping[str, StoredFact], sims: Mapping[str, float]
) -> list[SearchHit]:
    """The search hits of a fused ranking, in its order, with both ranks and the cosine.

    ``fused`` comes from a lexical and a dense ranking (in that order); an id
    missing from ``facts`` (deleted or changed between the ranking and the
    fetch) is left out rather than failing the search.
    """
    return [
        SearchHit(
            fact=facts[fid],
            score=score,
            bm25_rank=ranks[0],
            vector_rank=ranks[1],
            vector_score=sims.get(fid),
        )
        for fid, score, ranks in fused
        if fid in facts
    ]
