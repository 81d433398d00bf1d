"""Search latency (p50, p99) through the library and through the HTTP service, with
the library's breakdown by phase.

    python benchmarks/search_latency.py                       # 10k facts, embedded store
    python benchmarks/search_latency.py --facts 2000 --queries 200
    python benchmarks/search_latency.py --facts 1000,10000,100000 --fast-seed
    python benchmarks/search_latency.py --backend opensearch --opensearch-url http://127.0.0.1:19200

Seeds ``--facts`` facts over ``--users`` users of one tenant straight into the
retrieval store (seeding is setup, not what is measured: the gate's own throughput
is ``memgate bench``'s business), then times ``--queries`` searches of random users
through :class:`memgate.Memory` and the same through ``memgate serve`` (uvicorn on a
free port of this machine, one httpx client, keep-alive), after ``--warmup`` of each.

Each library search is recorded (:func:`memgate.core.timings.recording`): p50 and
p99 per phase (``embedding``: the query vector; ``lexical``, ``dense``: the two
retrievers; ``retrieve``: OpenSearch's one ``_msearch`` round trip for both;
``fusion``; ``fetch``: loading the fused facts; ``usage``: reading the served
counts; ``packing``: decay, relevance floor and token packing; ``usage_record``:
counting the served facts into the usage buffer, whose flusher writes them in the
background: ``usage_writes`` says how many batches it wrote during the library
searches) and, on
OpenSearch, of the ``took`` the server reported for BM25 and k-NN (inside
``retrieve``). A phase a search did not run counts 0 for it.

``--facts`` takes several sizes (``1000,10000,100000``): each is seeded into a new
store (a new data dir, a new OpenSearch index) and measured in turn. Prints one
JSON document on stdout: the first size's figures at the top level (the shape of
one size) and every size's in ``runs``; a table of the phases on stderr. An
OpenSearch index, its usage index and its template are deleted after each size,
also on an error or Ctrl-C. On OpenSearch, seeding runs with ``refresh_interval:
-1`` and an asynchronous translog, restored before the searches
(``--seed-with-refresh``: with the index defaults, as before). Self-contained:
only memgate (with the ``http`` extra) and httpx.
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
from memgate.core.errors import MemgateError
from memgate.core.events import FactStatus, FactType, StoredFact, normalise, stable_id
from memgate.core.settings import load_settings
from memgate.core.timings import recording
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


#: Facts per store write while seeding (the OpenSearch store cuts its bulk requests at 500).
SEED_BATCH = 2000
#: OpenSearch index settings while seeding: no refresh (no small segments to merge) and
#: an asynchronous translog; put back to the defaults (null) before the searches.
SEEDING_SETTINGS = {"refresh_interval": "-1", "translog.durability": "async"}


def seed(
    settings: Any,
    n_facts: int,
    n_users: int,
    rng: random.Random,
    *,
    fast: bool = False,
    bulk_settings: bool = True,
) -> None:
    """``n_facts`` active facts with vectors, written straight to the retrieval store.

    ``fast``: each fact's vector is that of its text without the numbers (the same
    tool-and-topic sentence), embedded once and reused: the stored vectors are then
    those of a handful of sentences, so seeding 100k facts takes minutes instead of an
    hour of embedding; what a search costs (BM25 over the texts, k-NN over the vectors,
    fusion) is the same work.

    ``bulk_settings`` (OpenSearch): seed with :data:`SEEDING_SETTINGS`, else with the
    index's defaults (a refresh a second, a durable translog)."""
    cache: dict[str, list[float]] = {}
    rt = Runtime(settings)
    try:
        store, embedder = rt.retrieval, rt.embedder
        os_store = None
        if settings.retrieval_backend == "opensearch":  # the index first, set for seeding
            from memgate.sinks.opensearch import OpenSearchStore

            assert isinstance(store, OpenSearchStore)
            os_store = store
            os_store.ensure_index()
            if bulk_settings:
                os_store.client.indices.put_settings(
                    index=os_store.index, body={"index": SEEDING_SETTINGS}
                )
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
            if len(batch) == SEED_BATCH or i == n_facts - 1:
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
        if os_store is not None:  # the defaults back, then everything searchable now
            back = {f"index.{k}": None for k in SEEDING_SETTINGS}
            os_store.client.indices.put_settings(index=os_store.index, body=back)
            os_store.refresh()
    finally:
        rt.close()


def summary(ms: list[float]) -> dict[str, float]:
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50_ms": round(q[49], 2), "p99_ms": round(q[98], 2), "max_ms": round(max(ms), 2),
            "mean_ms": round(statistics.fmean(ms), 2), "n": len(ms)}  # fmt: skip


def by_phase(recorded: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    """p50, p99 and mean of each phase (seconds in, ms out), 0 where a search had none."""
    names = sorted({n for r in recorded for n in r})
    return {n: summary([r.get(n, 0.0) * 1000 for r in recorded]) for n in names}


def sizes(text: str) -> list[int]:
    """``--facts``: one count or several, comma-separated (``1000,10000,100000``)."""
    try:
        out = [int(p.replace("_", "")) for p in text.split(",") if p.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected counts like 1000,10000, got {text!r}") from None
    if not out or any(n < 1 for n in out):
        raise argparse.ArgumentTypeError(f"expected counts of at least 1, got {text!r}")
    return out


def drop_index(url: str, index: str) -> None:
    """Delete the bench's OpenSearch index, its usage index and its template."""
    from opensearchpy import NotFoundError, OpenSearch
    from opensearchpy.exceptions import OpenSearchException

    client = OpenSearch(hosts=[url])
    try:
        for name in (f"{index}*", f"usage.{index}"):
            client.indices.delete(index=name, params={"ignore_unavailable": "true"})
        try:
            client.indices.delete_index_template(name=f"{index}-template")
        except NotFoundError:
            pass  # seeding never got to install it
    except OpenSearchException as exc:  # never hide what went wrong before
        print(
            f"search_latency: could not delete index {index} ({type(exc).__name__}); "
            f"delete {index}*, usage.{index} and the template {index}-template by hand",
            file=sys.stderr,
        )
    finally:
        client.close()


def bench_settings(args: argparse.Namespace, n_facts: int, tmp: Path, index: str) -> Any:
    """The settings of one size: in ``--data-dir`` (kept: its key file is made as for any
    data dir), else in the throwaway folder ``tmp``, keyed in memory (no key file left
    behind in the key folder, one more each run)."""
    from memgate.keys import keyed_in_memory

    data_dir = args.data_dir / f"facts-{n_facts}" if args.data_dir else tmp
    overrides: dict[str, Any] = {
        "data_dir": data_dir, "embedder": args.embedder, "retrieval_backend": args.backend,
        "min_relevance": -1.0,
    }  # fmt: skip
    if args.backend == "opensearch":
        overrides |= {"opensearch_url": args.opensearch_url, "opensearch_index": index}
    settings = load_settings(**overrides)
    return settings if args.data_dir else keyed_in_memory(settings, data_dir)


def measure(args: argparse.Namespace, n_facts: int) -> dict[str, Any]:
    """Seed ``n_facts`` into a new store and time the searches (library, then HTTP)."""
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        index = f"memgate-bench-{uuid.uuid4().hex[:8]}"
        settings = bench_settings(args, n_facts, Path(tmp), index)
        data_dir = settings.data_dir
        try:
            return run(args, settings, data_dir, n_facts, rng)
        finally:  # also on an error or Ctrl-C; after the Memory closed (its usage flush)
            if args.backend == "opensearch":
                drop_index(args.opensearch_url, index)


def run(
    args: argparse.Namespace, settings: Any, data_dir: Path, n_facts: int, rng: random.Random
) -> dict[str, Any]:
    t = time.perf_counter()
    seed(
        settings, n_facts, args.users, rng, fast=args.fast_seed,
        bulk_settings=not args.seed_with_refresh,
    )  # fmt: skip
    seeded_s = time.perf_counter() - t
    plan = [(rng.choice(QUERIES), f"u{rng.randrange(args.users):04d}")
            for _ in range(args.warmup + args.queries)]  # fmt: skip
    keys = KeyStore(data_dir / "api_keys.json")
    key, _ = keys.create(TENANT)
    out: dict[str, Any] = {"facts": n_facts, "users": args.users, "k": args.k,
                           "embedder": args.embedder, "backend": args.backend,
                           "seed_s": round(seeded_s, 1),
                           "seed_facts_per_s": round(n_facts / max(seeded_s, 1e-9))}  # fmt: skip
    with Memory(settings) as memory:
        lib: list[float] = []
        phases: list[dict[str, float]] = []
        server: list[dict[str, float]] = []
        totals: list[float] = []
        hits = 0
        for i, (q, user) in enumerate(plan):
            t = time.perf_counter()
            with recording() as rec:
                res = memory.search(q, TENANT, user, k=args.k)
            if i >= args.warmup:
                lib.append((time.perf_counter() - t) * 1000)
                hits += len(res.hits)
                phases.append(rec.phases)
                server.append(rec.server)
                totals.append(rec.total)
        # a query vector comes from the embedder's cache when its text repeats (the plan
        # draws from the 8 QUERIES): the cache's hits and misses (warmup included)
        embedder = memory.recall.embedder
        cache = {n: getattr(embedder, f"cache_{n}", None) for n in ("hits", "misses")}
        buffer = memory.recall.usage
        writes = (
            {"flushes": buffer.flushes, "failures": getattr(buffer, "failures", 0)}
            if buffer
            else {}
        )
        out["library"] = summary(lib) | {
            "mean_hits": round(hits / len(lib), 2),
            "embedding_cache": cache,
            "usage_writes": writes,
            "phases": by_phase(phases),
            "server": by_phase(server) if any(server) else {},
            "unaccounted": summary(
                [(t - sum(p.values())) * 1000 for t, p in zip(totals, phases, strict=True)]
            ),
        }
        http: list[float] = []
        with (
            BackgroundServer(create_app(memory, keys)) as srv,
            httpx.Client(
                base_url=srv.url, headers={"Authorization": f"Bearer {key}"}, timeout=60
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
    return out


def table(runs: list[dict[str, Any]]) -> str:
    """The phases of every size as a markdown table (p50 / p99, ms)."""
    cols = [f"{r['facts']:,} facts p50 / p99 ms" for r in runs]
    rows = ["| phase | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    names = list(dict.fromkeys(
        ["embedding", "lexical", "dense", "retrieve", "fusion", "fetch", "usage", "packing",
         "usage_record",
         *(n for r in runs for n in r["library"]["phases"])]
    ))  # fmt: skip

    def cell(d: dict[str, Any] | None) -> str:
        return f"{d['p50_ms']:.2f} / {d['p99_ms']:.2f}" if d else "-"

    for n in names:
        got = [r["library"]["phases"].get(n) for r in runs]
        if any(got):
            rows.append(f"| {n} | " + " | ".join(cell(g) for g in got) + " |")
    for n in sorted({n for r in runs for n in r["library"]["server"]}):
        got = [r["library"]["server"].get(n) for r in runs]
        rows.append(f"| {n} (server took) | " + " | ".join(cell(g) for g in got) + " |")
    left = [cell(r["library"]["unaccounted"]) for r in runs]
    rows.append("| unaccounted | " + " | ".join(left) + " |")
    rows.append("| library total | " + " | ".join(cell(r["library"]) for r in runs) + " |")
    rows.append("| HTTP total | " + " | ".join(cell(r["http"]) for r in runs) + " |")
    return "\n".join(rows)


def parser() -> argparse.ArgumentParser:
    """The options (``bench_search.py`` builds its runs from the same)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--facts", type=sizes, default=[10_000], help="one count or several: 1000,10000,100000"
    )
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
    ap.add_argument(
        "--seed-with-refresh",
        action="store_true",
        help="OpenSearch: seed with the index defaults (1 s refresh, durable translog), "
        "not with refresh off",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    if args.queries < 2:
        ap.error("--queries must be at least 2 (percentiles)")
    runs = []
    try:
        for n in args.facts:
            runs.append(measure(args, n))
            print(table(runs[-1:]), file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("search_latency: interrupted; the store being measured was deleted", file=sys.stderr)
        return 130
    except MemgateError as exc:
        print(f"search_latency: {exc}", file=sys.stderr)
        return 1
    out = runs[0] | {"runs": runs}
    if len(runs) > 1:
        print(table(runs), file=sys.stderr)
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
