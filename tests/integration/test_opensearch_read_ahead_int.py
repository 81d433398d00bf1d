"""The dedupe stage's read-ahead on a real OpenSearch node (memgate.core.read_ahead,
memgate.sinks.opensearch_reads); written for the lead to run, marker integration:

* a plan of lookups is answered by one ``_msearch`` exactly as the single lookups answer,
  each in its owner's scope (another tenant's facts under the same keys never come back);
* the agents resolve the same turns to the same decisions and facts with and without
  read-ahead, on fresh indexes, in fewer round trips per candidate (printed).

Needs only OpenSearch (``MEMGATE_OPENSEARCH_URL``, default http://127.0.0.1:19200); each
test uses its own index and deletes it. When the node is unreachable the tests fail.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memgate.core.embedding import HashingEmbedder
from memgate.core.events import FactStatus, StoredFact
from memgate.core.read_ahead import ByKey, BySubject, Nearest, Prefetched, ReadPlan, read_ahead
from memgate.core.settings import load_settings
from memgate.sinks.audit import ClickHouseAudit
from memgate.sinks.opensearch import OpenSearchStore
from memgate.streams.app import Worker
from memgate.streams.metrics import Metrics
from memgate.streams.topology import AUDIT_TOPIC
from tests.contracts.retrieval import DIM, T0, RetrievalStoreContract, embed
from tests.integration.conftest import OPENSEARCH
from tests.unit.streams.conftest import KEY, turn
from tests.unit.streams.replay_harness import Clock, Topics, drain_stages, pipeline

pytestmark = pytest.mark.integration
_C = RetrievalStoreContract()

SAID = [
    "I like long hikes in the mountains near the lake.",
    "I like long hikes in the mountains near the lake.",
    "I prefer green tea in the morning.",
    "I now prefer black coffee in the morning.",
    "My manager is Ana.",
    "My new boss is Tom.",
    "My dog is called Rex.",
    "Our team uses Python for the backend.",
    "We moved from Python to Rust for the backend.",
    "I love jazz, especially Coltrane.",
    "Forget that I like jazz.",
    "I live in Berlin.",
    "I moved to Paris last month.",
    "Please delete what you know about my manager.",
    "I prefer black coffee in the morning.",
    "My favourite editor is vim.",
    "I switched my editor to emacs.",
]


class Counting(OpenSearchStore):
    """The real store, counting its search round trips (``_search`` and ``_msearch``)."""

    trips: int = 0

    def _search(self, body: Any, what: str) -> Any:
        self.trips += 1
        return super()._search(body, what)

    def _msearch(self, bodies: Sequence[Any], what: str) -> Any:
        self.trips += 1
        return super()._msearch(bodies, what)


class SingleReads(Counting):
    """The real store without read-ahead: every read its own round trip, as before."""

    read_ahead = None  # type: ignore[assignment]


def _open(cls: type[Counting], dim: int) -> Counting:
    s = load_settings(opensearch_url=OPENSEARCH, opensearch_index=f"it-ra-{uuid.uuid4().hex[:8]}")
    store = cls.from_settings(s, dim)
    try:
        store.ensure_index()
    except Exception as exc:  # the node is down: say so
        store.close()
        pytest.fail(f"OpenSearch is not reachable at {OPENSEARCH}: {exc}", pytrace=False)
    return store


@pytest.fixture
def stores() -> Iterator[list[Counting]]:
    made: list[Counting] = []
    yield made
    for s in made:
        s.client.indices.delete(index=s.index, params={"ignore_unavailable": "true"})
        s.close()


def test_a_plan_is_answered_in_one_msearch_as_the_single_lookups_answer(
    stores: list[Counting],
) -> None:
    store = _open(Counting, DIM)
    stores.append(store)
    facts: list[StoredFact] = []
    for tenant in ("acme", "other"):  # the same keys under another tenant
        for i, (subject, predicate, value) in enumerate([
            ("user", "editor", "vim"), ("user", "likes", "jazz"), ("user's dog", "name", "rex"),
            ("team", "language", "python"), ("users friend", "city", "paris"),
        ]):  # fmt: skip
            facts.append(_C.make_fact(
                value, subject=subject, predicate=predicate, tenant_id=tenant,
                status=FactStatus.SUPERSEDED if i == 1 else FactStatus.ACTIVE,
                recorded_at=T0 + timedelta(minutes=i),
            ))  # fmt: skip
    store.upsert(facts, wait=True)
    vec = np.asarray(embed("user editor vim"), dtype=np.float32)
    plan = ReadPlan((
        ByKey("acme", "u1", "acme/u1/user/editor"),
        ByKey("acme", "u1", "acme/u1/user/none"),
        Nearest.of("acme", "u1", vec, k=10, statuses=(FactStatus.ACTIVE, FactStatus.SUPERSEDED)),
        Nearest.of("acme", "u1", vec, k=3, statuses=(FactStatus.ACTIVE,)),
        Nearest.of("acme", "u1", vec, k=3, statuses=(FactStatus.ACTIVE,), predicate="likes"),
        BySubject.of("acme", "u1", "user", statuses=(FactStatus.ACTIVE,), qualified=True,
                     vectors=False),
        BySubject.of("acme", "u1", "user", statuses=(FactStatus.ACTIVE,), qualified=True),
        BySubject.of("acme", "u1", "team", statuses=(FactStatus.ACTIVE,), qualified=True,
                     vectors=False),
        BySubject.of("acme", "u1", "user", limit=1),
    ))  # fmt: skip

    def reads(view: Any) -> list[Any]:
        out: list[Any] = []
        for r in plan.reads:
            if isinstance(r, ByKey):
                out.append(view.by_key(r.tenant_id, r.user_id, r.key))
            elif isinstance(r, BySubject):
                out.append(view.by_subject(
                    r.tenant_id, r.user_id, r.subject, statuses=r.statuses,
                    qualified=r.qualified, limit=r.limit, vectors=r.vectors,
                ))  # fmt: skip
            else:
                out.append(view.nearest(
                    r.tenant_id, r.user_id, vec.copy(), k=r.k, statuses=r.statuses,
                    predicate=r.predicate,
                ))  # fmt: skip
        return out

    want = reads(store)
    trips = store.trips
    view = read_ahead(store, plan)
    assert isinstance(view, Prefetched) and len(view) == len(plan)
    got = reads(view)
    assert store.trips == trips + 1
    assert got == want
    assert sum(len(x) for x in got) >= 10
    for answer in got:
        for item in answer:
            f = item[0] if isinstance(item, tuple) else item
            assert (f.tenant_id, f.user_id) == ("acme", "u1")


def _resolve_all(store: Counting, tmp_path: Path, name: str) -> tuple[list[Any], list[StoredFact]]:
    s = load_settings(data_dir=tmp_path / name, embedder="hashing", hmac_key=KEY)
    s.data_dir.mkdir(parents=True)
    audit = ClickHouseAudit.embedded(s.audit_path)
    topics = Topics("memgate")
    try:
        worker = Worker(s, pipeline(s, Clock()), store, audit, Metrics())
        assert worker.recent is not None  # the read-your-writes cache, as a worker runs

        async def go() -> None:
            for i, text in enumerate(SAID):
                t = turn(f"t{i}", text, minutes=i, session_id=f"s{i // 4}")
                await topics.send("turns", t.partition_key, t.model_dump_json().encode())
                await drain_stages(worker, topics)

        asyncio.run(go())
    finally:
        audit.close()
    store.refresh()
    return (
        [json.loads(raw) for _, raw, _ in topics.queues[AUDIT_TOPIC]],
        store.list_facts("acme", "alice", include_inactive=True),
    )


def test_the_agents_decide_alike_with_and_without_read_ahead_in_fewer_round_trips(
    stores: list[Counting], tmp_path: Path
) -> None:
    dim = HashingEmbedder().dim
    plain, ahead = _open(SingleReads, dim), _open(Counting, dim)
    stores += [plain, ahead]
    want = _resolve_all(plain, tmp_path, "plain")
    got = _resolve_all(ahead, tmp_path, "ahead")
    assert got == want
    decisions = [r for r in want[0] if r.get("stage") == "dedupe"]
    reasons = {r["reason"] for r in decisions}
    assert {"same_value", "new_key", "new_value"} <= reasons, reasons
    per_candidate = (plain.trips / len(decisions), ahead.trips / len(decisions))
    print(f"search round trips per candidate: {per_candidate[0]:.2f} single reads, "
          f"{per_candidate[1]:.2f} with read-ahead ({len(decisions)} candidates)")  # fmt: skip
    assert per_candidate[1] < 0.6 * per_candidate[0], per_candidate


class Widening(Counting):
    """The real store without ``nearest_excluding``: the read-your-writes cache asks a
    k-nearest read for one more fact per cached id instead (as before)."""

    nearest_excluding = None  # type: ignore[assignment]


def test_ids_left_out_in_the_query_answer_as_the_wider_read_without_them(
    stores: list[Counting],
) -> None:
    store = _open(Counting, DIM)
    stores.append(store)
    facts = [
        _C.make_fact(v, predicate=p, tenant_id=t)
        for t in ("acme", "other")
        for v, p in (
            ("vim", "prefers"),
            ("vim editor daily", "uses"),
            ("jazz", "likes"),
            ("tea daily", "prefers"),
            ("rust", "uses"),
        )
    ]
    store.upsert(facts, wait=True)
    vec = np.asarray(embed("user prefers vim editor daily"), dtype=np.float32)
    every = store.nearest("acme", "u1", vec, k=5)
    assert len(every) == 5 and all(f.tenant_id == "acme" for f, _ in every)
    for gone in ({every[0][0].fact_id}, {every[1][0].fact_id, every[3][0].fact_id}):
        want = [(f, s) for f, s in every if f.fact_id not in gone][:2]
        got = store.nearest_excluding("acme", "u1", vec, k=2, exclude=frozenset(gone))
        assert [f.fact_id for f, _ in got] == [f.fact_id for f, _ in want]
        assert [round(s, 5) for _, s in got] == [round(s, 5) for _, s in want]
        plan = ReadPlan((Nearest.of("acme", "u1", vec, k=2, exclude=gone),))
        view = read_ahead(store, plan)
        assert isinstance(view, Prefetched)
        again = view.nearest_excluding("acme", "u1", vec, k=2, exclude=frozenset(gone))
        assert again == got and view.served == 1


def test_the_agents_decide_alike_leaving_cached_ids_out_or_widening_k(
    stores: list[Counting], tmp_path: Path
) -> None:
    dim = HashingEmbedder().dim
    wide, out = _open(Widening, dim), _open(Counting, dim)
    stores += [wide, out]
    want = _resolve_all(wide, tmp_path, "wide")
    got = _resolve_all(out, tmp_path, "out")
    assert got == want
