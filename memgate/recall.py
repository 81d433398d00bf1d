"""The read path: hybrid search, decay, a relevance floor and a token budget.

The store fuses BM25 and k-NN by reciprocal rank (both filtered by tenant
and user inside the store); here a salience decay with a half-life per
predicate (or per type), measured from the later of when the fact was last
seen and when it was last served, divides each of the hit's ranks before they
are fused again (:func:`decayed`), and the hits are re-ranked
(:meth:`Recall.search`). :meth:`Recall.serve` then drops the hits
whose *relevance* is under a floor, packs the best under a token budget
counted by a real tokenizer (:mod:`memgate.core.tokens`), counts the search
in the metrics and records the served facts' usage in batches
(:class:`~memgate.usage_buffer.UsageBuffer`, which writes them in the
background).

**Relevance** is the cosine similarity, in [-1, 1], between the query's
vector and the fact's retrieval vector (statement and context), as the
store's k-NN measured it (computed here from the fact's vector when only
BM25 found it). Unlike the fused RRF score, which only encodes ranks (every
search has a rank 1, so an unrelated question still gets 0.016 to 0.033), it
says how close the fact is in meaning: with all-MiniLM-L6-v2 an unrelated
question scored at most 0.17 against the demo users' facts, a question about a
stored fact 0.40 to 0.64 (``tests/unit/test_memory_read.py``).
:data:`DEFAULT_MIN_RELEVANCE` is the default floor.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from memgate.core.embedding import Embedder
from memgate.core.errors import InvalidRequest
from memgate.core.events import FactType, StoredFact, text_problem, utcnow
from memgate.core.settings import Settings
from memgate.core.stores import FactUsage, RetrievalStore, SearchHit, SearchQuery, UsageStore
from memgate.core.tenant_policy import DecayOverride
from memgate.core.timings import phase
from memgate.core.tokens import TokenCounter, token_counter
from memgate.read_conflict import conflict_order
from memgate.sinks.base import RRF_K
from memgate.streams.metrics import Metrics
from memgate.usage_buffer import UsageBuffer

DAY = 86400.0
#: Most results one search returns (the bound of :attr:`SearchQuery.k`).
MAX_K = 1000
#: Longest query text, in characters (the embedder reads 256 tokens at most).
MAX_QUERY_CHARS = 2_000


#: Default relevance floor (cosine of query and fact, see the module notes).
DEFAULT_MIN_RELEVANCE = 0.3
#: The best fused score a hit can have: rank 1 in both retrievers.
BEST_FUSED = 2.0 / (RRF_K + 1)


class QueryError(InvalidRequest):
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
    return text_problem(text)  # a lone surrogate (a byte that was not UTF-8 in argv)


def _decay_data() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "decay.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


@dataclass(frozen=True)
class DecayPolicy:
    """Salience decay: score * 0.5 ** (age / half_life), age since the fact was last seen
    or served, whichever is later.

    The half-life is the predicate's (a qualified ``uses_tool:editor`` falls back to
    ``uses_tool``), else the type's; ``None`` never decays. :meth:`default` reads them
    from ``memgate/data/decay.json``; :meth:`overridden` applies a tenant's changes.
    """

    by_type: Mapping[FactType, float | None] = field(default_factory=dict)
    by_predicate: Mapping[str, float | None] = field(default_factory=dict)
    floor: float = 0.1
    """Decay never takes a fact below this share of its score."""

    @classmethod
    def default(cls) -> DecayPolicy:
        """The half-lives of the data file ``memgate/data/decay.json``."""
        data = _decay_data()
        return cls(
            by_type={FactType(k): v for k, v in data["by_type"].items()},
            by_predicate=dict(data["by_predicate"]),
            floor=float(data["floor"]),
        )

    def overridden(self, o: DecayOverride) -> DecayPolicy:
        """This policy with a tenant's half-lives (and floor) in place of its own."""
        return DecayPolicy(
            by_type={**self.by_type, **o.by_type},
            by_predicate={**self.by_predicate, **o.by_predicate},
            floor=self.floor if o.floor is None else o.floor,
        )

    def half_life(self, predicate: str, type_: FactType) -> float | None:
        for name in (predicate, predicate.split(":", 1)[0]):
            if name in self.by_predicate:
                return self.by_predicate[name]
        return self.by_type.get(type_)

    def factor(self, predicate: str, type_: FactType, age_days: float) -> float:
        """The share of the score kept at ``age_days``; 1.0 when the fact never decays."""
        hl = self.half_life(predicate, type_)
        if hl is None or age_days <= 0:
            return 1.0
        return max(self.floor, math.pow(0.5, age_days / hl))


def tenant_decay(settings: Settings, base: DecayPolicy | None = None) -> dict[str, DecayPolicy]:
    """The decay of each tenant that overrides the defaults in ``tenant_policies``."""
    base = base or DecayPolicy.default()
    return {
        t: base.overridden(p.decay)
        for t, p in settings.tenant_policies.items()
        if p.decay != DecayOverride()
    }


def reference_seen(fact: StoredFact, usage: FactUsage | None, ref: datetime) -> datetime:
    """When decay starts: the later of last seen and last served (if served before ``ref``)."""
    if usage is not None and fact.last_seen < usage.last_served <= ref:
        return usage.last_served
    return fact.last_seen


@dataclass(frozen=True)
class Ranked:
    """One hit of :meth:`Recall.rank`: the store's hit and what the read path added."""

    hit: SearchHit
    relevance: float | None
    decay: float
    final: float
    usage: FactUsage | None = None
    focus: float = 1.0
    """The subject focus factor (:func:`subject_focus`): below 1 for another person's fact
    that a first-person question does not name."""
    ranked_below: str | None = None
    """Why the hit is served below a newer fact of its single-valued slot, which took its
    place (:mod:`memgate.read_conflict`): that fact's id and the slot; ``None``: not so."""

    @property
    def fused_share(self) -> float:
        """The fused score as a share of the best possible one (rank 1 in both): 0 to 1."""
        return self.hit.score / BEST_FUSED


@lru_cache(maxsize=1)
def _focus_data() -> tuple[float, frozenset[str], tuple[str, ...]]:
    raw = (resources.files("memgate") / "data" / "recall_focus.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    words = [str(w).lower() for w in data["first_person"]]
    cjk = tuple(w for w in words if re.search("[\u4e00-\u9fff]", w))
    return float(data["factor"]), frozenset(words), cjk


_QWORD_RE = re.compile(r"[^\W\d_][\w']*")


def subject_focus(question: str) -> Callable[[str], float]:
    """The factor of a fact's subject for a question (``memgate/data/recall_focus.json``):
    a question in the first person that does not name the person who links a fact to
    someone else ("who is my manager" and "user's brother's boss": the brother) weighs that
    fact less.

    >>> f = subject_focus("who is my manager")
    >>> f("user"), f("user's brother's boss"), f("team's checkout service")
    (1.0, 0.8, 1.0)
    >>> subject_focus("where does my sister live")("user's sister")
    1.0
    >>> subject_focus("what did Caroline's sister do")("user's sister's dog")
    1.0
    """
    factor, first, cjk = _focus_data()
    low = question.lower().replace("\u2019", "'")
    words: set[str] = set()
    for m in _QWORD_RE.finditer(low):
        w = m.group(0)
        words.add(w)
        if "'" in w:  # "j'habite": the elided pronoun and the word
            head, _, tail = w.partition("'")
            words.update({head + "'", tail})
    if not (words & first or any(c in low for c in cjk)):
        return lambda _subject: 1.0
    stems = {w[:4] for w in words if len(w) >= 3}

    def focus(subject: str) -> float:
        if not subject.startswith("user's "):
            return 1.0
        # the person who links the fact to someone else: the first of the chain
        # ("user's brother's boss": brother)
        person = subject[len("user's ") :].lower().split("'s ", 1)[0]
        named = [w for w in _QWORD_RE.findall(person) if len(w) >= 3]
        if not named or any(w[:4] in stems or w in low for w in named):
            return 1.0
        return factor

    return focus


def decayed(hit: SearchHit, factor: float) -> float:
    """The hit's fused score with the decay ``factor`` applied to its rank in each retriever:
    reciprocal rank fusion of ``rank / factor`` (a fact one half-life old counts as ranked
    twice as far down each list). Without its ranks (a store that gives none), the fused
    score times ``factor``.

    Decay scales the retrievers' evidence, not the fused score: RRF's constant (k = 60)
    makes the scores of the top ranks differ by under 2% (rank 1 in both lists against rank
    2 in both), so multiplying the fused score let an age difference of a few weeks, at a
    half-life of two years, put a hit both retrievers rank second above the one both rank
    first (a second instrument taken up above the one the question names).

    >>> from memgate.core.events import StoredFact
    >>> f = StoredFact.model_construct()
    >>> first = SearchHit.model_construct(fact=f, score=2 / 61, bm25_rank=1, vector_rank=1)
    >>> second = SearchHit.model_construct(fact=f, score=2 / 62, bm25_rank=2, vector_rank=2)
    >>> decayed(first, 1.0) == first.score
    True
    >>> decayed(first, 0.96) > decayed(second, 1.0)  # a few weeks old: still first
    True
    >>> decayed(first, 0.4) < decayed(second, 1.0)  # more than a half-life: second
    True
    >>> alone = SearchHit.model_construct(fact=f, score=0.01, bm25_rank=None, vector_rank=None)
    >>> decayed(alone, 0.5)
    0.005
    """
    ranks = [r for r in (hit.bm25_rank, hit.vector_rank) if r is not None]
    if not ranks or factor <= 0:
        return hit.score * factor
    return sum(1.0 / (RRF_K + r / factor) for r in ranks)


def newer_first(ranked: list[Ranked], ref: datetime) -> list[Ranked]:
    """``ranked`` (best first) with a newer value of a single-valued slot lifted right above
    the older fact it conflicts with (:func:`memgate.read_conflict.conflict_order`, for
    the facts current at ``ref``). The final scores stay with the places, so the list is
    still best first by score; the older fact says why it is below.
    """
    moved = conflict_order([r.hit.fact for r in ranked], [r.relevance for r in ranked], ref)
    if not moved.below and moved.order == list(range(len(ranked))):
        return ranked
    out = []
    for place, k in enumerate(moved.order):
        why = moved.below.get(k)
        note = None if why is None else f"below newer fact {why[0]} of the slot {why[1]}"
        out.append(replace(ranked[k], final=ranked[place].final, ranked_below=note))
    return out


@dataclass(frozen=True)
class Served:
    """What one served search returned, and what it left out."""

    hits: list[Ranked]
    tokens: list[int]
    below_floor: int
    over_budget: int

    @property
    def tokens_used(self) -> int:
        return sum(self.tokens)


def _cosine(a: np.ndarray, b: list[float]) -> float:
    v = np.asarray(b, dtype=np.float32)
    den = float(np.linalg.norm(a) * np.linalg.norm(v))
    return float(a @ v) / den if den > 0 else 0.0


@dataclass
class Recall:
    store: RetrievalStore
    embedder: Embedder
    metrics: Metrics | None = None
    decay: DecayPolicy | None = field(default_factory=DecayPolicy.default)
    tenant_decay: Mapping[str, DecayPolicy] = field(default_factory=dict)
    """A tenant's own decay (``tenant_policies``), in place of ``decay``."""
    clock: Callable[[], datetime] = utcnow
    backend: str = "embedded"
    usage: UsageBuffer | None = None
    counter: TokenCounter = field(default_factory=token_counter)

    def decay_for(self, tenant_id: str) -> DecayPolicy | None:
        """The tenant's decay (``None``: no decay at all)."""
        if self.decay is None:
            return None
        return self.tenant_decay.get(tenant_id, self.decay)

    def rank(self, query: SearchQuery, *, now: datetime | None = None) -> list[Ranked]:
        """The store's hybrid hits, with relevance and decay, best final score first."""
        problem = query_problem(query.text)
        if problem is not None:
            raise QueryError(f"the query {problem}")
        with phase("embedding"):
            vec = np.asarray(self.embedder.embed([query.text])[0], dtype=np.float32)
        hits = self.store.search(query, vec)
        ref = query.as_of or now or self.clock()
        decay = self.decay_for(query.tenant_id)
        usage: dict[str, FactUsage] = {}
        if hits and decay is not None and isinstance(self.store, UsageStore):
            with phase("usage"):
                usage = self.store.usage(
                    query.tenant_id, query.user_id, [h.fact.fact_id for h in hits]
                )
        with phase("packing"):
            return self._ranked(hits, vec, ref, decay, usage, query.text)

    @staticmethod
    def _ranked(
        hits: list[SearchHit],
        vec: np.ndarray,
        ref: datetime,
        decay: DecayPolicy | None,
        usage: Mapping[str, FactUsage],
        question: str = "",
    ) -> list[Ranked]:
        out = []
        focus = subject_focus(question)
        for h in hits:
            rel = h.vector_score
            if rel is None and h.fact.retrieval_vector is not None:
                rel = _cosine(vec, h.fact.retrieval_vector)
            u = usage.get(h.fact.fact_id)
            f = 1.0
            if decay is not None:
                age = (ref - reference_seen(h.fact, u, ref)).total_seconds() / DAY
                f = decay.factor(h.fact.predicate, h.fact.type, age)
            on = focus(h.fact.subject)
            out.append(Ranked(
                hit=h, relevance=rel, decay=f, final=decayed(h, f) * on, usage=u, focus=on
            ))  # fmt: skip
        # an exact tie of final scores (two facts of one turn, each first in one ranking)
        # goes to the one nearer in meaning (the store's order after that: the sort is stable)
        out.sort(key=lambda r: (-r.final, -(r.relevance or 0.0)))
        return newer_first(out, ref)

    def search(self, query: SearchQuery, *, now: datetime | None = None) -> list[SearchHit]:
        """The hits re-ranked by decayed score (``score`` is the final score); no floor."""
        return [r.hit.model_copy(update={"score": r.final}) for r in self.rank(query, now=now)]

    def serve(
        self,
        query: SearchQuery,
        *,
        now: datetime | None = None,
        min_relevance: float = DEFAULT_MIN_RELEVANCE,
        token_budget: int | None = None,
        render: Callable[[StoredFact], str] = lambda f: f.text,
    ) -> Served:
        """One search as a user gets it: floor, budget, metrics and usage.

        A hit is kept when its relevance is at least ``min_relevance`` (a hit
        without relevance, a fact stored with no vector, is kept only when the
        floor is at most 0). The kept hits are packed, best first, while the
        tokens of ``render(fact)`` fit in ``token_budget`` (no limit: ``None``).
        """
        ranked = self.rank(query, now=now)
        with phase("packing"):
            served = self._packed(ranked, min_relevance, token_budget, render)
        with phase("usage_record"):  # handed to the buffer; its flusher writes them
            self._count(query, served.hits, now)
        return served

    def _packed(
        self,
        ranked: list[Ranked],
        min_relevance: float,
        token_budget: int | None,
        render: Callable[[StoredFact], str],
    ) -> Served:
        kept = [
            r for r in ranked
            if (r.relevance if r.relevance is not None else 0.0) >= min_relevance
        ]  # fmt: skip
        costs = self.counter.count_many([render(r.hit.fact) for r in kept])
        hits: list[Ranked] = []
        tokens: list[int] = []
        for r, cost in zip(kept, costs, strict=True):
            if token_budget is not None and sum(tokens) + cost > token_budget:
                break
            hits.append(r)
            tokens.append(cost)
        return Served(
            hits=hits,
            tokens=tokens,
            below_floor=len(ranked) - len(kept),
            over_budget=len(kept) - len(hits),
        )

    def _count(self, query: SearchQuery, hits: list[Ranked], now: datetime | None) -> None:
        """Count a served search in the metrics and its hits' usage."""
        at = self.clock()  # usage is served time, not a simulated ``now``
        if self.metrics is not None:
            self.metrics.retrievals.labels(backend=self.backend).inc()
            ref = query.as_of or now or at
            for r in hits:
                seen = reference_seen(r.hit.fact, r.usage, ref)
                self.metrics.served_age.observe(max(0.0, (ref - seen).total_seconds()))
        if self.usage is not None and hits:
            self.usage.add(query.tenant_id, query.user_id, [r.hit.fact.fact_id for r in hits], at)
