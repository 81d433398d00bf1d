"""Search latency (p50, p99) through the library and through the HTTP service.

    python benchmarks/search_latency.py                       # 10k facts, embedded store
    python benchmarks/search_latency.py --facts 2000 --queries 200
    python benchmarks/search_latency.py --backend opensearch --opensearch-url http://127.0.0.1:19200

Seeds ``--facts`` facts over ``--users`` users of one tenant straight into the
retrieval store (seeding is setup, not what is measured: the gate's own throughput
is ``memgate bench``'s business), then times ``--queries`` searches of random users
through :class:`memgate.Memory` and the same through ``memgate serve`` (uvicorn on a
free port of this machine, one httpx client, keep-alive), after ``--warmup`` of each.
Prints one JSON document. Self-contained: only memgate (with the ``http`` extra) and
httpx.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from memgate import Memory
from memgate.apikeys import KeyStore
from memgate.core.events import FactStatus, FactType, StoredFact, normalise, stable_id
from memgate.core.settings import load_settings
from memgate.runtime import Runtime
from memgate.service import BackgroundServer, create_app

TENANT = "bench"
TOOLS = ["vim", "emacs", "neovim", "vscode", "helix", "jetbrains", "sublime", "nano", "kate"]
TOPICS = ["editor", "deploy", "database", "language", "framework", "cloud", "ci", "shell",
          "testing", "monitoring", "queue", "cache", "orm", "linter", "formatter",
          "os"]  # fmt: skip
QUERIES = ["which editor do I use", "how do we deploy", "what database do we run",
           "favourite language", "which cloud provider", "what CI do we use",
           "how do we monitor production", "which shell"]  # fmt: skip


def seed(
    settings: Any, n_facts: int, n_users: int, rng: random.Random, *, fast: bool = False
) -> None:
    """``n_facts`` active facts with vectors, written straight to the retrieval store.

    ``fast``: each fact's vector is that of its text without the numbers (the same
    tool-and-topic sentence), embedded once and reused: the stored vectors are then
    those of a handful of sentences, so seeding 100k facts takes minutes instead of an
    hour of embedding; what a search costs (BM25 over the texts, k-NN over the vectors,
    fusion) is the same work."""
    cache: dict[str, list[float]] = {}
    rt = Runtime(settings)
    try:
        store, embedder = rt.retrieval, rt.embedder
        ensure_index = getattr(store, "ensure_index", None)  # OpenSearch: the index first
        if ensure_index is not None:
            ensure_index()
        t0 = datetime(2024, 1, 1, tzinfo=UTC)
        batch: list[StoredFact] = []
        for i in range(n_facts):
            user = f"u{i % n_users:04d}"
            topic = f"{rng.choice(TOPICS)}_{i // len(TOPICS)}"
            value = f"{rng.choice(TOOLS)} {i}"
            key = f"{TENANT}/{user}/user/{normalise(topic)}"
            text = f"user uses {value} for {topic.replace('_', ' ')}"
            at = t0 + timedelta(minutes=i)
            batch.append(StoredFact(
                fact_id=stable_id(TENANT, user, key, value), tenant_id=TENANT, user_id=user,
                key=key, type=FactType.PREFERENCE, subject="user", predicate=topic, value=value,
                text=text, status=FactStatus.ACTIVE, confidence=0.9, valid_from=at,
                recorded_at=at, first_seen=at, last_seen=at, source_turn_ids=[f"t{i}"],
                extractor="bench", extractor_version="1", policy_version="bench",
            ))  # fmt: skip
            if len(batch) == 500 or i == n_facts - 1:
                if fast:
                    stems = [" ".join(w for w in f.text.split() if not w.isdigit()) for f in batch]
                    todo = sorted({t for t in stems if t not in cache})
                    if todo:
                        cache.update(
                            zip(todo, (v.tolist() for v in embedder.embed(todo)), strict=True)
                        )
                    vlist = [cache[t] for t in stems]
                else:
                    vlist = [v.tolist() for v in embedder.embed([f.text for f in batch])]
                store.upsert(
                    [f.model_copy(update={"embedding": v, "search_embedding": v})
                     for f, v in zip(batch, vlist, strict=True)],
                    wait=False,
                )  # fmt: skip
                batch = []
        refresh = getattr(store, "refresh", None)  # OpenSearch: everything searchable now
        if refresh is not None:
            refresh()
    finally:
        rt.close()


def summary(ms: list[float]) -> dict[str, float]:
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50_ms": round(q[49], 2), "p99_ms": round(q[98], 2),
            "mean_ms": round(statistics.fmean(ms), 2), "n": len(ms)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--users", type=int, default=10, help="facts are spread over these users")
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--embedder", choices=["minilm", "hashing"], default="minilm")
    ap.add_argument("--backend", choices=["embedded", "opensearch"], default="embedded")
    ap.add_argument("--opensearch-url", default="http://127.0.0.1:19200")
    ap.add_argument("--data-dir", type=Path, default=None, help="default: a temporary folder")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--fast-seed",
        action="store_true",
        help="reuse one vector per tool-and-topic sentence while seeding (100k facts)",
    )
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    tmp = tempfile.TemporaryDirectory(prefix="memgate-bench-")
    data_dir = args.data_dir or Path(tmp.name)
    overrides: dict[str, Any] = {
        "data_dir": data_dir, "embedder": args.embedder, "retrieval_backend": args.backend,
        "min_relevance": -1.0,
    }  # fmt: skip
    if args.backend == "opensearch":
        overrides |= {"opensearch_url": args.opensearch_url,
                      "opensearch_index": f"memgate-bench-{uuid.uuid4().hex[:8]}"}  # fmt: skip
    settings = load_settings(**overrides)
    t = time.perf_counter()
    seed(settings, args.facts, args.users, rng, fast=args.fast_seed)
    seeded_s = time.perf_counter() - t
    plan = [(rng.choice(QUERIES), f"u{rng.randrange(args.users):04d}")
            for _ in range(args.warmup + args.queries)]  # fmt: skip
    keys = KeyStore(data_dir / "api_keys.json")
    key, _ = keys.create(TENANT)
    out: dict[str, Any] = {"facts": args.facts, "users": args.users, "k": args.k,
                           "embedder": args.embedder, "backend": args.backend,
                           "seed_s": round(seeded_s, 1)}  # fmt: skip
    with Memory(settings) as memory:
        lib: list[float] = []
        hits = 0
        for i, (q, user) in enumerate(plan):
            t = time.perf_counter()
            res = memory.search(q, TENANT, user, k=args.k)
            if i >= args.warmup:
                lib.append((time.perf_counter() - t) * 1000)
                hits += len(res.hits)
        out["library"] = summary(lib) | {"mean_hits": round(hits / len(lib), 2)}
        http: list[float] = []
        with (
            BackgroundServer(create_app(memory, keys)) as server,
            httpx.Client(
                base_url=server.url, headers={"Authorization": f"Bearer {key}"}, timeout=60
            ) as c,
        ):
            for i, (q, user) in enumerate(plan):
                t = time.perf_counter()
                r = c.post(f"/v1/tenants/{TENANT}/users/{user}/search",
                           json={"query": q, "k": args.k})  # fmt: skip
                r.raise_for_status()
                if i >= args.warmup:
                    http.append((time.perf_counter() - t) * 1000)
        out["http"] = summary(http)
    if args.backend == "opensearch":  # after the Memory closed: its usage flush reads the index
        from opensearchpy import OpenSearch

        client = OpenSearch(hosts=[args.opensearch_url])
        for name in (f"{settings.opensearch_index}*", f"usage.{settings.opensearch_index}"):
            client.indices.delete(index=name, params={"ignore_unavailable": "true"})
        client.close()
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
