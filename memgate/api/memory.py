"""``Memory``: memgate as a library, the one facade every interface calls.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d, Memory(data_dir=d, embedder="hashing") as m:
...     added = m.add([{"role": "user", "content": "I use Neovim as my editor."}],
...                   tenant="acme", user="alice", session="s1")
...     hits = m.search("which editor do I use?", tenant="acme", user="alice", min_score=0)
...     added.facts_stored, [h.fact.value for h in hits.hits]
(1, ['Neovim'])
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memgate.api.models import (
    AddResult,
    ForgetResult,
    HistoryEntry,
    MemoryFact,
    MemoryHit,
    ScoreBreakdown,
    SearchResult,
)
from memgate.api.requests import (
    check_fact_id,
    check_id,
    check_k,
    check_query,
    check_time,
    to_turns,
)
from memgate.core.closing import Closing
from memgate.core.errors import InvalidRequest, MemgateError, shown
from memgate.core.events import ERASED_ID_PREFIX, FactType, TurnEvent, utcnow
from memgate.core.settings import Settings, load_settings
from memgate.core.stores import FactUsage, SearchQuery, UsageStore
from memgate.recall import Recall, tenant_decay
from memgate.runtime import Runtime
from memgate.streams.metrics import Metrics
from memgate.usage_buffer import UsageBuffer

if TYPE_CHECKING:
    from memgate.lifecycle import ConsolidateResult
    from memgate.receipts import ErasureReceipt
    from memgate.replay import ExtractorChoice, ReplayReport
    from memgate.streams.pipeline import Pipeline


class FactNotFound(InvalidRequest):
    """No fact with that id for that tenant (and user): another tenant's facts are not found."""


class Memory(Closing):
    """Write turns through the gate and read facts back, on the stores the settings name.

    * ``Memory()``: the settings from the environment and ``MEMGATE_CONFIG`` (the
      embedded stores under the default data dir);
    * ``Memory(data_dir=..., embedder=...)``: any setting overridden by keyword;
    * ``Memory.from_settings(settings)``: a :class:`Settings` built elsewhere.

    Stores open on first use and close with :meth:`close` (or the ``with``
    block), which also writes the buffered usage counts. ``metrics`` is the
    :class:`~memgate.streams.metrics.Metrics` every served search counts in
    (its own registry by default: serve ``memory.metrics.registry``). One
    instance may be shared by threads.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        metrics: Metrics | None = None,
        runtime: Runtime | None = None,
        **overrides: Any,
    ) -> None:
        if runtime is not None:
            self._rt, self._owns = runtime, False
        else:
            if settings is None:
                settings = load_settings(**{k: v for k, v in overrides.items()})
            elif overrides:
                settings = settings.model_copy(update=overrides)
            self._rt, self._owns = Runtime(settings), True
        self.settings = self._rt.settings
        self.metrics = metrics or Metrics()
        self._lock = threading.Lock()
        self._pipeline: Pipeline | None = None
        self._usage: UsageBuffer | None = None
        self._recall: Recall | None = None
        self._closed = False

    @classmethod
    def from_settings(
        cls, settings: Settings | None = None, /, *, metrics: Metrics | None = None, **kw: Any
    ) -> Memory:
        """From a :class:`Settings` (or the environment's), with ``kw`` overriding fields."""
        return cls(settings, metrics=metrics, **kw)

    # -- lifecycle ----------------------------------------------------------------

    def close(self) -> None:
        """Write the buffered usage, then close the stores this instance opened (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._usage is not None:  # its flusher stopped, what is left written
                self._usage.close()
        finally:
            if self._owns:
                self._rt.close()

    def flush(self) -> None:
        """Write the buffered usage counts now (searches hand them to a background
        flusher; this waits for its write in flight and writes the rest)."""
        if self._usage is not None:
            self._usage.flush()

    def checks(self) -> dict[str, Callable[[], object]]:
        """Readiness checks, one per store this instance uses: each returns when its store
        answers and raises when it does not (a service's ``/ready``); with ``write_mode =
        "kafka"`` also the cluster (one metadata request, ``kafka_ready_timeout_s``)."""
        rt = self._open()
        checks: dict[str, Callable[[], object]] = {
            "retrieval": lambda: rt.retrieval.stats(),
            "audit": lambda: rt.audit.query("SELECT 1"),
        }
        if self.settings.write_mode == "kafka":  # the writes go to the input topic
            from memgate.streams.kafka_probe import kafka_check

            s = self.settings
            checks["kafka"] = kafka_check(s)
        return checks

    def users(self, tenant: str) -> list[str]:
        """The users of ``tenant`` that have (or had, until forgotten) facts, sorted.

        A forgotten user's audit skeletons keep only its pseudonym (``erased:<digest>``),
        which names no user and is refused as an id: it is not listed."""
        tenant = check_id("tenant", tenant)
        _, rows = self._open().audit.query(
            "SELECT DISTINCT user_id FROM fact_history WHERE tenant_id = {t:String} "
            "AND NOT startsWith(user_id, {erased:String}) ORDER BY user_id",
            {"t": tenant, "erased": ERASED_ID_PREFIX},
        )
        return [str(r[0]) for r in rows]

    def _open(self) -> Runtime:
        if self._closed:
            raise MemgateError("this Memory is closed; make a new one")
        return self._rt

    @property
    def recall(self) -> Recall:
        """The read path on the configured retrieval store (opened on first use)."""
        with self._lock:
            if self._recall is None:
                rt = self._open()
                store = rt.retrieval
                if isinstance(store, UsageStore):
                    self._usage = UsageBuffer(
                        store,
                        max_facts=self.settings.usage_flush_facts,
                        interval_s=self.settings.usage_flush_seconds,
                    )
                self._recall = Recall(
                    store,
                    rt.embedder,
                    metrics=self.metrics,
                    backend=self.settings.retrieval_backend,
                    usage=self._usage,
                    tenant_decay=tenant_decay(self.settings),
                )
            return self._recall

    # -- writes -------------------------------------------------------------------

    def _turns(
        self,
        items: Iterable[TurnEvent | Mapping[str, Any]],
        tenant: str | None,
        user: str | None,
        session: str | None,
    ) -> list[TurnEvent]:
        from memgate.keys import hmac_key

        return to_turns(
            items, tenant=tenant, user=user, session=session, now=utcnow(),
            hmac_key=hmac_key(self.settings),
        )  # fmt: skip

    def add(
        self,
        items: Iterable[TurnEvent | Mapping[str, Any]],
        tenant: str | None = None,
        user: str | None = None,
        session: str | None = None,
    ) -> AddResult:
        """Run turns through the gate: turn events (``TurnEvent`` or its JSON fields), or
        OpenAI-style messages ``[{"role": "user", "content": "..."}]`` of ``tenant``/``user``
        in ``session`` (``"default"`` if not given).

        With ``write_mode = "kafka"`` the turns are sent to the input topic and the
        workers gate them; otherwise they are gated here, into the configured stores.
        A turn refused by the gate (a turn id reused for other content) is counted in
        ``rejected`` with its line in ``errors``; the others are stored.
        """
        turns = self._turns(items, tenant, user, session)
        if self.settings.write_mode == "kafka":
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return asyncio.run(self._produce(turns))
            raise InvalidRequest(
                "Memory.add cannot send to Kafka from inside a running event loop; "
                "use AsyncMemory (await memory.add(...))"
            )
        return self._add_in_process(turns)

    async def _produce(self, turns: list[TurnEvent]) -> AddResult:
        from memgate.streams.producer import produce_turns

        n = await produce_turns(self.settings, turns) if turns else 0
        return AddResult(mode="kafka", turns=len(turns), produced=n)

    def _add_in_process(self, turns: Sequence[TurnEvent]) -> AddResult:
        from memgate.backends import build_pipeline
        from memgate.streams.runner import InProcessRunner

        rt = self._open()
        with self._lock:
            if self._pipeline is None:
                self._pipeline = build_pipeline(self.settings, rt.embedder)
            pipeline = self._pipeline
        errors: list[str] = []
        runner = InProcessRunner(
            pipeline,
            rt.retrieval,
            rt.audit,
            metrics=self.metrics,
            on_error=errors.append,
            window=self.settings.ingest_window,
        )
        try:
            summary = runner.run(turns)
        finally:
            runner.close()
        return AddResult(
            mode="in_process",
            turns=summary.turns,
            applied=summary.turns - summary.replayed - sum(summary.failed.values()),
            replayed=summary.replayed,
            rejected=sum(summary.failed.values()),
            facts_stored=summary.stored,
            errors=errors,
        )

    # -- reads --------------------------------------------------------------------

    def search(
        self,
        query: str,
        tenant: str,
        user: str,
        *,
        k: int | None = None,
        as_of: datetime | None = None,
        now: datetime | None = None,
        token_budget: int | None = None,
        min_score: float | None = None,
        types: Sequence[FactType | str] | None = None,
    ) -> SearchResult:
        """Hybrid search over one user's facts, the best first, under a token budget.

        * ``k``: most hits (1 to 1,000; default the ``search_k`` setting);
        * ``as_of``: what was true then (valid time): superseded facts are served only
          for such a past instant; without it, current facts only;
        * ``now``: the instant decay is measured at (default: the current time);
        * ``token_budget``: tokens (MiniLM WordPiece) of fact text returned (default
          the ``token_budget`` setting; ``0``: no limit);
        * ``min_score``: the relevance floor, a cosine in [-1, 1] (default the
          ``min_relevance`` setting);
        * ``types``: only facts of these types.

        Bad arguments raise :class:`~memgate.core.errors.InvalidRequest` (one line).
        """
        text = check_query(query)
        tenant, user = check_id("tenant", tenant), check_id("user", user)
        k = check_k(self.settings.search_k if k is None else k)
        as_of, now = check_time("as_of", as_of), check_time("now", now)
        budget = self.settings.token_budget if token_budget is None else token_budget
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
            raise InvalidRequest(f"token_budget must be a whole number >= 0, got {budget!r}")
        floor = self.settings.min_relevance if min_score is None else min_score
        if isinstance(floor, bool) or not isinstance(floor, int | float) or not -1 <= floor <= 1:
            raise InvalidRequest(f"min_score must be a number from -1 to 1, got {floor!r}")
        try:
            type_filter = tuple(FactType(t) for t in types) if types is not None else None
        except ValueError:
            raise InvalidRequest(
                f"types must be among {', '.join(t.value for t in FactType)}, got {types!r}"
            ) from None
        if type_filter is not None and not type_filter:
            raise InvalidRequest("types must name at least one type (or be None for all)")
        # vectors=False: the hits are served without vectors, so the store need not load
        # those of the hits k-NN scored (OpenSearch: most of each fetched document)
        q = SearchQuery(
            tenant_id=tenant, user_id=user, text=text, k=k, as_of=as_of, types=type_filter,
            vectors=False,
        )  # fmt: skip
        served = self.recall.serve(
            q, now=now, min_relevance=float(floor), token_budget=budget or None
        )
        hits = [
            MemoryHit(
                fact=MemoryFact.of(r.hit.fact, r.usage),
                score=ScoreBreakdown(
                    lexical_rank=r.hit.bm25_rank,
                    dense_rank=r.hit.vector_rank,
                    fused=r.hit.score,
                    fused_share=r.fused_share,
                    relevance=r.relevance,
                    decay=r.decay,
                    final=r.final,
                    ranked_below=r.ranked_below,
                ),
                tokens=n,
            )
            for r, n in zip(served.hits, served.tokens, strict=True)
        ]
        return SearchResult(
            query=text, tenant_id=tenant, user_id=user, as_of=as_of, hits=hits,
            tokens_used=served.tokens_used, token_budget=budget or None, min_score=float(floor),
            below_floor=served.below_floor, over_budget=served.over_budget,
            tokenizer=self.recall.counter.name,
        )  # fmt: skip

    def get_all(
        self, tenant: str, user: str, *, include_inactive: bool = False
    ) -> list[MemoryFact]:
        """Every current fact of a user, oldest first (with superseded and pending ones
        when ``include_inactive``)."""
        tenant, user = check_id("tenant", tenant), check_id("user", user)
        store = self.recall.store
        facts = store.list_facts(tenant, user, include_inactive=include_inactive)
        ids = [f.fact_id for f in facts]
        usage: dict[str, FactUsage] = {}
        if isinstance(store, UsageStore):
            usage_store = store

            def read() -> dict[str, FactUsage]:
                return usage_store.usage(tenant, user, ids)

            # with what is counted but not written yet: the same answer before and
            # after the background flusher writes it
            usage = (
                read() if self._usage is None else self._usage.read_through(tenant, user, ids, read)
            )
        return [MemoryFact.of(f, usage.get(f.fact_id)) for f in facts]

    def get(self, fact_id: str, tenant: str, user: str) -> MemoryFact:
        """One fact of that user; :class:`FactNotFound` if that user has none with this id."""
        tenant, user = check_id("tenant", tenant), check_id("user", user)
        fact = self.recall.store.get(tenant, user, check_fact_id(fact_id))
        if fact is None:
            raise FactNotFound(f"no fact {shown(fact_id)} for {tenant}/{user}")
        return MemoryFact.of(fact)

    def history(self, fact_id: str, tenant: str, user: str | None = None) -> list[HistoryEntry]:
        """The changes to a fact (add, occurrences, supersede, delete) and the facts it
        superseded or was superseded by, oldest first, from the audit store; scoped to
        ``tenant`` (and ``user`` if given). :class:`FactNotFound` when there are none."""
        tenant = check_id("tenant", tenant)
        if user is not None:
            user = check_id("user", user)
        cols = (
            "fact_id, action, value, confidence, occurrences, superseded_by, supersedes, "
            "source_turn_id, policy_version, at"
        )
        sql = (
            f"SELECT {cols} FROM fact_history FINAL WHERE tenant_id = {{t:String}} "
            "AND (fact_id = {f:String} OR superseded_by = {f:String} OR supersedes = {f:String})"
        )
        params: dict[str, Any] = {"t": tenant, "f": check_fact_id(fact_id)}
        if user is not None:
            sql += " AND user_id = {u:String}"
            params["u"] = user
        names, rows = self._open().audit.query(sql + " ORDER BY at, event_id", params)
        entries = [HistoryEntry(**dict(zip(names, row, strict=True))) for row in rows]
        if not entries:
            who = tenant if user is None else f"{tenant}/{user}"
            raise FactNotFound(f"no history of fact {fact_id!r} for {who}")
        return entries

    def delete(self, fact_id: str, tenant: str, user: str) -> MemoryFact:
        """Erase one fact of that user: from the retrieval store (document, vectors, FTS
        rows, usage; from the disk too), and its content from the audit store (its history
        and decisions, the redacted text of its source turns), recording the deletion in
        the fact's history without content. :class:`FactNotFound` if that user has no
        such fact: a fact of another tenant or user is never touched. :meth:`erase`
        returns the deletion receipt instead."""
        return self._erase_fact(fact_id, tenant, user)[0]

    def erase(self, fact_id: str, tenant: str, user: str) -> ErasureReceipt:
        """:meth:`delete`, returning the deletion receipt (what was removed where, per
        store and table; no content)."""
        return self._erase_fact(fact_id, tenant, user)[1]

    def _erase_fact(
        self, fact_id: str, tenant: str, user: str
    ) -> tuple[MemoryFact, ErasureReceipt]:
        from memgate.receipts import erase_fact

        tenant, user = check_id("tenant", tenant), check_id("user", user)
        store = self.recall.store
        fact_id = check_fact_id(fact_id)
        done = erase_fact(self.settings, store, self._open().audit, tenant, user, fact_id)
        if done is None:
            raise FactNotFound(f"no fact {shown(fact_id)} for {tenant}/{user}")
        fact, receipt = done
        if self._usage is not None:
            self._usage.drop(tenant, user, fact.fact_id)
        return MemoryFact.of(fact), receipt

    def consolidate(
        self,
        tenant: str | None = None,
        user: str | None = None,
        *,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> ConsolidateResult:
        """The lifecycle jobs (``memgate consolidate``): settle pending facts, merge
        near-duplicates, fold episodes, apply retention, for every user (of ``tenant``,
        or ``tenant``/``user``); ``now`` is the instant the retention TTL is measured at.
        Off the request path; idempotent. With ``dry_run``, reports without writing."""
        from memgate.lifecycle import consolidate

        if tenant is not None:
            tenant = check_id("tenant", tenant)
        if user is not None:
            if tenant is None:
                raise InvalidRequest("consolidate: a user needs its tenant")
            user = check_id("user", user)
        now = check_time("now", now)
        rt = self._open()
        self.flush()
        return consolidate(
            self.recall.store, rt.audit, rt.embedder, self.settings,
            tenant=tenant, user=user, now=now, dry_run=dry_run,
        )  # fmt: skip

    def replay(
        self,
        tenant: str | None = None,
        user: str | None = None,
        *,
        apply: bool = False,
        now: datetime | None = None,
        extractor: ExtractorChoice | None = None,
    ) -> ReplayReport:
        """``memgate replay``: the journal's redacted turns through the gate these settings
        build (``extractor`` replaces theirs); the facts added, dropped and superseded
        (written only with ``apply``), at ``now`` (default: the current time)."""
        from memgate.replay import replay

        if tenant is not None:
            tenant = check_id("tenant", tenant)
        if user is not None:
            if tenant is None:
                raise InvalidRequest("replay: a user needs its tenant")
            user = check_id("user", user)
        rt = self._open()
        return replay(
            self.recall.store, rt.audit, rt.embedder, self.settings,
            tenant=tenant, user=user, apply=apply, now=now, extractor=extractor,
        )  # fmt: skip

    def forget(self, tenant: str, user: str) -> ForgetResult:
        """Erase a user from every store: the cached answers, the audit rows (kept as
        pseudonymous skeletons without content, so that counts add up), then the facts
        (see ``memgate forget`` in the README for what is erased from the disk); the
        result carries the deletion receipt."""
        tenant, user = check_id("tenant", tenant), check_id("user", user)
        rt = self._open()
        if self._usage is not None:
            self._usage.drop(tenant, user)
        from memgate.receipts import erase_user

        # the cached answers are derived from the user's turns: erased with them
        receipt = erase_user(self.settings, rt.retrieval, rt.audit, rt.answer_cache, tenant, user)
        removed = receipt.removed
        return ForgetResult(
            tenant_id=tenant,
            user_id=user,
            facts=next(iter(removed["retrieval"].values())),
            audit_rows=sum(removed["audit"].values()),
            cached_answers=removed.get("answer_cache", {}).get("answers", 0),
            receipt=receipt,
        )
