"""The typed results of :class:`memgate.Memory`: facts with provenance, scores, summaries."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memgate.core.events import FactStatus, FactType, StoredFact
from memgate.core.stores import FactUsage
from memgate.receipts import ErasureReceipt


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Provenance(_Result):
    """Where a fact comes from and under which rules it was kept."""

    source_turn_ids: list[str]
    session_ids: list[str]
    extractor: str
    extractor_version: str
    policy_version: str
    rationale: str
    context: str = Field(description="Masked words of the source turn around the statement.")


class Usage(_Result):
    """How often the read path served the fact, and when last (written in batches)."""

    served_count: int = 0
    last_served: datetime | None = None


class MemoryFact(_Result):
    """A stored fact as the library returns it (no vectors)."""

    fact_id: str
    tenant_id: str
    user_id: str
    key: str
    type: FactType
    subject: str
    predicate: str
    value: str
    text: str
    status: FactStatus
    confidence: float
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    superseded_at: datetime | None
    superseded_by: str | None
    supersedes: str | None
    occurrences: int
    first_seen: datetime
    last_seen: datetime
    provenance: Provenance
    usage: Usage = Field(default_factory=Usage)

    @classmethod
    def of(cls, f: StoredFact, usage: FactUsage | None = None) -> MemoryFact:
        d = f.model_dump(
            exclude={
                "embedding", "search_embedding", "schema_version", "session_ids",
                "source_turn_ids", "extractor", "extractor_version", "policy_version",
                "rationale", "context",
            }
        )  # fmt: skip
        prov = Provenance(
            source_turn_ids=list(f.source_turn_ids),
            session_ids=list(f.session_ids),
            extractor=f.extractor,
            extractor_version=f.extractor_version,
            policy_version=f.policy_version,
            rationale=f.rationale,
            context=f.context,
        )
        use = Usage()
        if usage is not None:
            use = Usage(served_count=usage.served_count, last_served=usage.last_served)
        return cls(**d, provenance=prov, usage=use)


class ScoreBreakdown(_Result):
    """How a hit was ranked.

    ``fused`` is the reciprocal-rank-fusion score (sum of ``1/(60 + rank)`` over the
    lexical and dense rankings: 0.0164 for rank 1 in one, 0.0328 for rank 1 in both);
    ``fused_share`` is it over that best possible 0.0328. ``decay`` is the salience
    factor (1.0: no decay) and ``final``, the fusion of each rank divided by the decay
    (``1/(60 + rank/decay)``; the fact's subject focus times it), orders the hits.
    ``relevance`` is the cosine of the query and the fact (-1 to 1): the relevance
    floor (``min_score``) applies to it.
    """

    lexical_rank: int | None
    dense_rank: int | None
    fused: float
    fused_share: float
    relevance: float | None
    decay: float
    final: float
    ranked_below: str | None = Field(
        default=None,
        description="Why the hit is served below a newer active fact of the same "
        "single-valued slot, lifted right above it (a change said in words the resolver did "
        "not read as one): that fact's id and the slot. The scores stay with the places.",
    )


class MemoryHit(_Result):
    fact: MemoryFact
    score: ScoreBreakdown
    tokens: int = Field(description="Tokens of the fact's text (the budget's unit).")


class SearchResult(_Result):
    query: str
    tenant_id: str
    user_id: str
    as_of: datetime | None
    hits: list[MemoryHit]
    tokens_used: int
    token_budget: int | None
    min_score: float
    below_floor: int = Field(description="Hits dropped because their relevance was too low.")
    over_budget: int = Field(description="Relevant hits left out to stay in the token budget.")
    tokenizer: str


class AddResult(_Result):
    """What :meth:`memgate.Memory.add` did with the turns."""

    mode: Literal["in_process", "kafka"]
    turns: int
    applied: int = 0
    replayed: int = 0
    rejected: int = 0
    facts_stored: int = 0
    produced: int = Field(default=0, description="Turns sent to the input topic (Kafka).")
    errors: list[str] = Field(default_factory=list)


class HistoryEntry(_Result):
    """One change to one fact, from the audit store."""

    fact_id: str
    action: str
    value: str
    confidence: float
    occurrences: int
    superseded_by: str
    supersedes: str
    source_turn_id: str
    policy_version: str
    at: datetime


class ForgetResult(_Result):
    tenant_id: str
    user_id: str
    facts: int
    audit_rows: int
    #: the Claude extractor's cached answers for this user (derived from their turns)
    cached_answers: int = 0
    #: what was removed where (no content): memgate.receipts.ErasureReceipt
    receipt: ErasureReceipt | None = None
