"""What the fact vectors cost the dedupe step's reads on OpenSearch (issue 14, lazyvec).

A dedupe candidate's planned reads (``Resolver._read_plan``: the key, the erasure keys,
two k-nearest probes, the closed facts of the speaker) go to OpenSearch in one
``_msearch``; the key and nearest hits carry their two 384-float vectors in ``_source``.
This probe indexes synthetic facts (random unit vectors, LoCoMo-sized texts) for a few
users in its own index, sends the same ``_msearch`` bodies many times, the variants
interleaved in blocks, and reports per ``_msearch`` (one candidate):

* OpenSearch's fetch phase of the index (``<index>/_stats/search``: fetch ms and count)
  and the OpenSearch process's CPU (``/proc/<pid>/stat``, :mod:`service_cpu`; the whole
  process, so another client's load shows up here);
* the client's CPU for the request (``time.process_time``: HTTP, JSON decoding) and, of
  it, for validating the hits into :class:`StoredFact` (``_answer``).

Variants: ``all`` (what main sends), ``key-embedding`` (nearest hits without vectors, key
hits with ``embedding`` only: the cosine the resolver computes on them), ``none`` (key
and nearest hits without vectors), all three on one index; and ``packed``: the bodies of
``all`` on a second index of the same facts whose mapping leaves both vectors out of
``_source`` (``embedding`` still indexed for k-NN) and keeps each as little-endian
float32 bytes in a ``binary`` field (base64 in JSON), decoded in the client before
validation (an alternative design, not memgate's mapping); ``packed-none``: that index,
the key and nearest hits without the packed vectors. The ``subject-*`` variants send
the paraphrase step's reads instead (the active facts of ``user`` and ``team``, read
without vectors: main's ``_source`` excludes, ``-vec`` whole documents, ``-packed`` on
the packed index, ``-packed-novec`` there without the packed vectors). The index of those
variants is created with mapping version 2 (main's before packvec); ``store-v2`` and
``store-v3`` (and ``subject-store-v2`` / ``-v3``) send the store's own bodies and decode
with its own ``_answer``, on that index and on a third one that the store creates with
mapping version 3 (packvec: the packed vectors as memgate now writes them). The indices and
their templates are deleted at the end. ``--only a,b``: those variants alone.

    MEMGATE_OPENSEARCH_URL=http://127.0.0.1:19200 .venv/bin/python \\
        benchmarks/probe_read_vectors.py [--facts 2000] [--rounds 400] [--blocks 4]

``--census TURNS``: instead, the dedupe stage on OpenSearch over the first TURNS LoCoMo
dev turns (``bench_dedupe_opensearch.py``'s read-your-writes row, its own throwaway
index), counting per kind of read (key, nearest, subject with or without vectors) the
searches, the hits and the hits that carry their vectors, per dedupe candidate: which
reads the fetch phase's bytes are for.
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import os
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_cpu import process_cpu_s, service_pids

from memgate.core.events import FactStatus, FactType, StoredFact
from memgate.core.read_ahead import ByKey, BySubject, Nearest, ReadRequest
from memgate.core.settings import Settings
from memgate.sinks.opensearch import OpenSearchStore
from memgate.sinks.opensearch_mapping import RETRIEVAL_VECTOR_FIELD, index_body
from memgate.sinks.opensearch_reads import scores

DIM = 384
USERS = ("u1", "u2", "u3", "u4")
TENANT = "t-probe"
#: about 14 active and 28 superseded facts of ``user`` (and of ``team``) for each user
_SUBJECTS = ("user", "team", "caroline", "melanie", "mom", "dog", "job", "car", "home",
             "book", "trip", "club")  # fmt: skip
#: the vectors in ``_source`` of a version-2 document (main's ``VECTOR_FIELDS`` before packvec)
VECTOR_FIELDS = ("embedding", "search_embedding")
_PACKED = tuple(f"{name}_b64" for name in VECTOR_FIELDS)
_WORDS = (  # noqa: SIM905
    "caroline went to the lgbtq support group yesterday and felt inspired by the stories "
    "melanie painted a sunrise over the lake last year for her kids camping trip pottery "
    "adoption agency counseling career mental health charity race running books beach"
).split()


def _unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def _text(rng: np.random.Generator, n: int) -> str:
    return " ".join(rng.choice(_WORDS, size=n))


def synthetic_facts(n: int, seed: int = 7) -> list[StoredFact]:
    """``n`` facts over :data:`USERS`, about three per key (the older ones superseded)."""
    rng = np.random.default_rng(seed)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    out: list[StoredFact] = []
    for i in range(n):
        user = USERS[i % len(USERS)]
        key_no = i // (3 * len(USERS))
        last = (i // len(USERS)) % 3 == 2
        at = t0 + timedelta(minutes=i)
        subject = _SUBJECTS[key_no % len(_SUBJECTS)]
        predicate = f"p{key_no % 40}"
        out.append(
            StoredFact(
                fact_id=f"f{i:06d}",
                tenant_id=TENANT,
                user_id=user,
                key=f"{TENANT}/{user}/{subject}/{predicate}/{key_no}",
                type=FactType("preference") if i % 2 else FactType("fact"),
                subject=subject,
                predicate=predicate,
                value=_text(rng, 6),
                text=_text(rng, 14),
                status=FactStatus.ACTIVE if last else FactStatus.SUPERSEDED,
                confidence=0.9,
                valid_from=at,
                valid_to=None if last else at + timedelta(minutes=1),
                recorded_at=at,
                superseded_at=None if last else at + timedelta(minutes=1),
                superseded_by=None if last else f"f{i + len(USERS):06d}",
                occurrences=1,
                session_ids=[f"s{i % 19}"],
                first_seen=at,
                last_seen=at,
                source_turn_ids=[f"turn-{i}"],
                extractor="probe",
                extractor_version="1",
                policy_version="1",
                context=_text(rng, 30),
                embedding=[float(x) for x in _unit(rng)],
                search_embedding=[float(x) for x in _unit(rng)],
            )
        )
    return out


def plans(facts: list[StoredFact], n: int, seed: int = 11) -> list[list[ReadRequest]]:
    """``n`` read plans as ``Resolver._read_plan`` makes them for a candidate near a
    stored fact: its key, two erasure keys (none stored), the nearest 10 (active or
    superseded) and 3 (active), and the closed facts of ``user`` and ``team``."""
    rng = np.random.default_rng(seed)
    closed = (FactStatus.SUPERSEDED,)
    out: list[list[ReadRequest]] = []
    for _ in range(n):
        f = facts[int(rng.integers(len(facts)))]
        t, u = f.tenant_id, f.user_id
        vec = np.asarray(f.embedding, dtype=np.float32) + 0.05 * _unit(rng)
        vec = vec / np.linalg.norm(vec)
        out.append([
            ByKey(t, u, f.key),
            ByKey(t, u, f"erased|{rng.integers(1 << 30)}"),
            ByKey(t, u, f"erased|{rng.integers(1 << 30)}"),
            Nearest.of(t, u, vec, k=10, statuses=(FactStatus.ACTIVE, FactStatus.SUPERSEDED)),
            Nearest.of(t, u, vec, k=3, statuses=(FactStatus.ACTIVE,)),
            *(BySubject.of(t, u, s, statuses=closed, qualified=True, vectors=False)
              for s in ("user", "team")),
        ])  # fmt: skip
    return out


def subject_plans(facts: list[StoredFact], n: int, seed: int = 13) -> list[list[ReadRequest]]:
    """``n`` plans of the paraphrase step's reads (``Resolver._paraphrase_of``): the
    active facts of ``user`` and of ``team``, without their vectors."""
    rng = np.random.default_rng(seed)
    out: list[list[ReadRequest]] = []
    for _ in range(n):
        f = facts[int(rng.integers(len(facts)))]
        out.append([
            BySubject.of(f.tenant_id, f.user_id, s, statuses=(FactStatus.ACTIVE,),
                         qualified=True, vectors=False)
            for s in ("user", "team")
        ])  # fmt: skip
    return out


#: variant: (index: ``v2`` main's, ``packed`` the probe's packed one, ``v3`` the store's
#: version 3; plans of subject reads; fields the key/nearest reads (the subject reads: every
#: read) leave out of ``_source``; None: what main sends; ``STORE``: the store's own bodies)
STORE = ("<store>",)
VARIANTS: dict[str, tuple[str, bool, tuple[str, ...] | None]] = {
    "all": ("v2", False, None),
    "key-embedding": ("v2", False, VECTOR_FIELDS),  # the key reads keep ``embedding``
    "none": ("v2", False, VECTOR_FIELDS),
    "packed": ("packed", False, None),
    "packed-none": ("packed", False, VECTOR_FIELDS),
    "subject-novec": ("v2", True, None),
    "subject-vec": ("v2", True, ()),
    "subject-packed-novec": ("packed", True, None),
    "subject-packed": ("packed", True, ()),
    "store-v2": ("v2", False, STORE),
    "store-v3": ("v3", False, STORE),
    "subject-store-v2": ("v2", True, STORE),
    "subject-store-v3": ("v3", True, STORE),
}


def bodies(store: OpenSearchStore, plan: list[ReadRequest], variant: str) -> list[Json]:
    """The ``_msearch`` bodies of ``plan`` for ``variant`` (on the packed index, a read
    that leaves the vectors out leaves out their packed fields)."""
    index, subject, left_out = VARIANTS[variant]
    if left_out is STORE:
        return [body for r in plan if (body := store._plan_body(r)[1]) is not None]
    on_packed = index == "packed"
    packed_name = dict(zip(VECTOR_FIELDS, _PACKED, strict=True))
    out = []
    for r in plan:
        body = copy.copy(store._plan_body(r)[1])
        assert body is not None
        if left_out is not None and (subject or isinstance(r, Nearest | ByKey)):
            body.pop("_source", None)
            fields = left_out
            if variant == "key-embedding" and isinstance(r, ByKey):
                fields = ("search_embedding",)
            if fields:
                body["_source"] = {"excludes": list(fields)}
        if on_packed and "_source" in body:
            names = body["_source"]["excludes"]
            body["_source"] = {"excludes": [packed_name.get(n, n) for n in names]}
        out.append(body)
    return out


Json = dict[str, Any]


def _fetch(store: OpenSearchStore) -> tuple[int, int]:
    s = store.client.indices.stats(index=store.index, metric="search")
    search = s["_all"]["primaries"]["search"]
    return int(search["fetch_time_in_millis"]), int(search["fetch_total"])


def create_packed(store: OpenSearchStore, facts: list[StoredFact]) -> None:
    """``store.index`` created with the vectors out of ``_source`` and packed beside them."""
    body = index_body(DIM, version=2)
    body["mappings"]["_source"]["excludes"] = [RETRIEVAL_VECTOR_FIELD, *VECTOR_FIELDS]
    body["mappings"]["properties"].update({p: {"type": "binary"} for p in _PACKED})
    store.client.indices.create(index=store.index, body=body)
    for i in range(0, len(facts), 500):
        lines = []
        for f in facts[i : i + 500]:
            doc = f.model_dump(mode="json")
            doc[RETRIEVAL_VECTOR_FIELD] = f.retrieval_vector
            del doc["search_embedding"]
            for name, packed in zip(VECTOR_FIELDS, _PACKED, strict=True):
                v = getattr(f, name)
                doc[packed] = base64.b64encode(np.asarray(v, "<f4").tobytes()).decode()
            lines += [json.dumps({"index": {"_id": f.fact_id}}), json.dumps(doc)]
        resp = store.client.bulk(index=store.index, body="\n".join(lines) + "\n")
        assert not resp["errors"], resp
    store.refresh()


def packed_fact(hit: Json) -> StoredFact:
    src = hit["_source"]
    for name, packed in zip(VECTOR_FIELDS, _PACKED, strict=True):
        b = src.pop(packed, None)
        src[name] = None if b is None else np.frombuffer(base64.b64decode(b), "<f4").tolist()
    return StoredFact.model_validate(src)


def packed_answer(r: ReadRequest, hits: list[Json]) -> object:
    facts = [packed_fact(h) for h in hits]
    if isinstance(r, Nearest):
        return tuple(zip(facts, scores(hits), strict=True))
    return tuple(sorted(facts, key=lambda f: (f.recorded_at, f.fact_id)))


def run_block(
    store: OpenSearchStore,
    work: list[tuple[list[ReadRequest], list[Json]]],
    os_pid: int | None,
    packed: bool = False,
) -> dict[str, float]:
    f0 = _fetch(store)
    os0 = process_cpu_s(os_pid) if os_pid else 0.0
    c0 = time.process_time()
    parse = 0.0
    hits = 0
    for plan, bs in work:
        resps = store._msearch(bs, "probe")
        p0 = time.process_time()
        for r, resp in zip(plan, resps, strict=True):
            if packed:
                packed_answer(r, resp["hits"]["hits"])
            else:
                store._answer(r, resp["hits"]["hits"])
        parse += time.process_time() - p0
        hits += sum(len(x["hits"]["hits"]) for x in resps)
    client = time.process_time() - c0
    os1 = process_cpu_s(os_pid) if os_pid else 0.0
    f1 = _fetch(store)
    n = len(work)
    return {
        "n": n,
        "fetch_ms": (f1[0] - f0[0]) / n,
        "fetches": (f1[1] - f0[1]) / n,
        "os_cpu_ms": 1000 * (os1 - os0) / n,
        "client_ms": 1000 * client / n,
        "parse_ms": 1000 * parse / n,
        "hits": hits / n,
    }


def _kind(body: Json) -> str:
    query = body.get("query", {})
    if "knn" in query:
        return "nearest"
    filters = query.get("bool", {}).get("filter", [])
    if any("key" in f.get("term", {}) for f in filters):
        return "by_key"
    vectors = "_source" not in body
    return "by_subject" + ("" if vectors else " (no vectors)")


def census(turns: int, url: str) -> None:
    """Per kind of read, what the dedupe stage's reads return over ``turns`` LoCoMo turns."""
    import bench_dedupe_opensearch as bench

    from memgate.sinks.opensearch import OpenSearchStore as Store

    counts: dict[str, list[int]] = {}

    def tally(body: Json, resp: Json) -> None:
        hits = resp["hits"]["hits"]
        row = counts.setdefault(_kind(body), [0, 0, 0])
        row[0] += 1
        row[1] += len(hits)
        row[2] += sum(1 for h in hits if h["_source"].get("embedding") is not None)

    search, msearch = Store._search, Store._msearch

    def counted_search(self: Store, body: Json, what: str) -> Json:
        resp = search(self, body, what)
        tally(body, resp)
        return resp

    def counted_msearch(self: Store, bodies: list[Json], what: str) -> list[Json]:
        resps = msearch(self, bodies, what)
        for b, r in zip(bodies, resps, strict=True):
            tally(b, r)
        return resps

    Store._search = counted_search  # type: ignore[method-assign]
    Store._msearch = counted_msearch  # type: ignore[method-assign]
    _, _, candidates, _ = bench.run(False, turns, url)
    print(f"{turns} LoCoMo dev turns, {candidates} dedupe candidates; per candidate:")
    print(f"{'read':<26}{'searches':>10}{'hits':>10}{'with vectors':>14}")
    for kind, (n, hits, vec) in sorted(counts.items()):
        c = max(candidates, 1)
        print(f"{kind:<26}{n / c:>10.2f}{hits / c:>10.2f}{vec / c:>14.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=400, help="_msearch calls per block")
    ap.add_argument("--blocks", type=int, default=4, help="blocks per variant, interleaved")
    ap.add_argument("--census", type=int, default=0, metavar="TURNS")
    ap.add_argument("--only", default="", help="comma-separated variants (default: all)")
    args = ap.parse_args()
    url = os.environ.get("MEMGATE_OPENSEARCH_URL", "http://127.0.0.1:19200")
    if args.census:
        census(args.census, url)
        return
    suffix = uuid.uuid4().hex[:8]
    index = f"lazyvec-{suffix}"
    settings = Settings(opensearch_url=url, opensearch_index=index)
    store = OpenSearchStore.from_settings(settings, DIM)
    packed = OpenSearchStore(store.client, f"{index}-packed", DIM)
    v3 = OpenSearchStore(store.client, f"packvec-{suffix}", DIM)
    stores = {"v2": store, "packed": packed, "v3": v3}
    os_pid = service_pids().get("opensearch")
    try:
        store.client.indices.create(index=index, body=index_body(DIM, version=2))
        store.ensure_index()
        v3.ensure_index()
        assert (store.mapping_version, v3.mapping_version) == (2, 3)
        facts = synthetic_facts(args.facts)
        for s in (store, v3):
            for i in range(0, len(facts), 500):
                s.upsert(facts[i : i + 500])
            s.refresh()
        create_packed(packed, facts)
        ps = plans(facts, args.rounds)
        sps = subject_plans(facts, args.rounds)
        variants = [v for v in VARIANTS if not args.only or v in args.only.split(",")]
        work = {v: [(p, bodies(store, p, v)) for p in (sps if VARIANTS[v][1] else ps)]
                for v in variants}  # fmt: skip

        pairs = [("all", "packed"), ("subject-novec", "subject-packed-novec"),
                 ("store-v2", "store-v3"), ("subject-store-v2", "subject-store-v3")]  # fmt: skip
        for std, pk in [p for p in pairs if set(p) <= set(variants)]:  # answers alike
            other = stores[VARIANTS[pk][0]]
            for (plan, bs), (_, pbs) in zip(work[std][:10], work[pk][:10], strict=True):
                a = [store._answer(r, x["hits"]["hits"]) for r, x in
                     zip(plan, store._msearch(bs, "probe"), strict=True)]  # fmt: skip
                b = [(packed_answer if other is packed else other._answer)(r, x["hits"]["hits"])
                     for r, x in zip(plan, other._msearch(pbs, "probe"), strict=True)]  # fmt: skip
                for r, x, y in zip(plan, a, b, strict=True):
                    if isinstance(r, Nearest):  # two HNSW graphs: the far hits may differ
                        got = {f.fact_id: f for f, _ in x}
                        same = [f == got[f.fact_id] for f, _ in y if f.fact_id in got]
                        assert x[:1] == y[:1] and all(same), "packed: other nearest facts"
                    else:
                        assert x == y, f"the packed index answered other facts ({pk})"

        def block(v: str, n: int | None = None) -> dict[str, float]:
            on = VARIANTS[v][0]
            return run_block(stores[on], work[v][:n], os_pid, on == "packed")

        for v in variants:  # warm-up
            block(v, 50)
        totals: dict[str, list[dict[str, float]]] = {v: [] for v in variants}
        for _ in range(args.blocks):
            for v in variants:
                totals[v].append(block(v))
        print(f"index {index}: {len(facts)} facts, {args.rounds} x {args.blocks} _msearch a "
              f"variant, OpenSearch pid {os_pid}")  # fmt: skip
        print("per _msearch: mean (min-max over the blocks)")
        cols = ("fetch_ms", "os_cpu_ms", "client_ms", "parse_ms")
        print(f"{'variant':<21}{'hits':>6}" + "".join(f"{c:>22}" for c in cols))
        for v in variants:
            rows = totals[v]
            cells = []
            for c in cols:
                xs = [r[c] for r in rows]
                cells.append(f"{np.mean(xs):.3f} ({min(xs):.2f}-{max(xs):.2f})")
            print(f"{v:<21}{rows[0]['hits']:>6.1f}" + "".join(f"{x:>22}" for x in cells))
    finally:
        for s in stores.values():
            s.client.indices.delete(index=s.index, ignore_unavailable=True)
            s.client.indices.delete(index=s.usage_index, ignore_unavailable=True)
            s.client.indices.delete_index_template(name=s.template_name, ignore=404)
        store.close()


if __name__ == "__main__":
    main()
