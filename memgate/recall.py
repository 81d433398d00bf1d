"""The read path: hybrid search, decay, and packing under a token budget.

The store fuses BM25 and k-NN by reciprocal rank (both filtered by tenant
and user inside the store); here the fused score is multiplied by a salience
decay with a half-life per predicate (or per type), the hits are re-ranked
and the best are packed under a token budget with their provenance. Every
retrieval is counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from memgate.core.embedding import Embedder
from memgate.core.errors import MemgateError
from memgate.core.events import FactType, utcnow
from memgate.core.stores import RetrievalStore, SearchHit, SearchQuery
from memgate.streams.metrics import Metrics

DAY = 86400.0
#: Most results one search returns (the bound of :attr:`SearchQuery.k`).
MAX_K = 1000
#: Longest query text, in characters (the embedder reads 256 tokens at most).
MAX_QUERY_CHARS = 2_000


class QueryError(MemgateError):
    """A search query that cannot be run (blank or too long)."""


def query_problem(text: str) -> str | None:
    """Why ``text`` cannot be a query, in a few words; ``None`` when it can.

    >>> query_problem("how do we deploy?") is None
    True
    >>> query_problem("  ")
    'must not be empty'
    """
    if not text.strip():
        return "must not be empty"
    if len(text) > MAX_QUERY_CHARS:
        return f"is {len(text):,} characters long; at most {MAX_QUERY_CHARS:,}"
    return None

#: Half-lives in days by fact type; ``None`` means no decay.
DEFAULT_TYPE_HALF_LIFE: dict[FactType, float | None] = {
    FactType.PREFERENCE: 365.0,
    FactType.INSTRUCTION: None,
    FactType.FACT: 730.0,
    FactType.CORRECTION: 730.0,
    FactType.EVENT: 180.0,
}


@dataclass(frozen=True)
class DecayPolicy:
    """Salience decay: score * 0.5 ** (age / half_life), age since the fact was last seen."""

    by_type: Mapping[FactType, float | None] = field(
        default_factory=lambda: dict(DEFAULT_TYPE_HALF_LIFE)
    )
    by_predicate: Mapping[str, float | None] = field(
        default_factory=lambda: {"on_call": 7.0, "current_task": 14.0, "customer_tier": None}
    )
    floor: float = 0.1
    """Decay never takes a fact below this share of its score."""

    def factor(self, predicate: str, type_: FactType, age_days: float) -> float:
        hl = self.by_predicate.get(predicate, self.by_type.get(type_))
        if hl is None or age_days <= 0:
            return 1.0
        return max(self.floor, math.pow(0.5, age_days / hl))


@dataclass
class Recall:
    store: RetrievalStore
    embedder: Embedder
    metrics: Metrics | None = None
    decay: DecayPolicy | None = field(default_factory=DecayPolicy)
    clock: Callable[[], datetime] = utcnow
    backend: str = "embedded"

    def search(self, query: SearchQuery, *, now: datetime | None = None) -> list[SearchHit]:
        problem = query_problem(query.text)
        if problem is not None:
            raise QueryError(f"the query {problem}")
        vec = self.embedder.embed([query.text])[0]
        hits = self.store.search(query, vec)
        ref = query.as_of or now or self.clock()
        if self.decay is not None:
            decayed = []
            for h in hits:
                age = (ref - h.fact.last_seen).total_seconds() / DAY
                f = self.decay.factor(h.fact.predicate, h.fact.type, age)
                decayed.append(h.model_copy(update={"score": h.score * f}))
            hits = sorted(decayed, key=lambda h: -h.score)
        if self.metrics is not None:
            self.metrics.retrievals.labels(backend=self.backend).inc()
            for h in hits:
                self.metrics.served_age.observe(max(0.0, (ref - h.fact.last_seen).total_seconds()))
        return hits


def pack(hits: list[SearchHit], token_budget: int) -> list[SearchHit]:
    """The best hits whose texts (with provenance) fit in ``token_budget`` (~4 chars a token)."""
    out, used = [], 0
    for h in hits:
        cost = math.ceil((len(h.fact.text) + 48) / 4)
        if used + cost > token_budget:
            break
        out.append(h)
        used += cost
    return out
