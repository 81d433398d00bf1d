"""What the stores share: reciprocal rank fusion.

The interfaces the stores implement (:class:`~memgate.core.stores.RetrievalStore`,
:class:`~memgate.core.stores.AuditStore`) live in :mod:`memgate.core.stores`,
below the stages that read through them.
"""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 60


def rrf_fuse(
    rankings: Sequence[Sequence[str]], *, k: int = RRF_K
) -> list[tuple[str, float, list[int | None]]]:
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
