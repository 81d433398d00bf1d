"""Search latency in ``make bench``: p50 and p99 through the library and through HTTP,
with the library's phases, on the embedded store at 1k and 10k facts, and on OpenSearch
at 1k, 10k and 100k facts (issue 14's targets: 10k embedded, 100k OpenSearch) when
``MEMGATE_OPENSEARCH_URL`` is set (``search_latency.py`` does the seeding and the timing;
this writes its figures as ``results/search.json`` rows).

    .venv/bin/python benchmarks/bench_search.py
    .venv/bin/python benchmarks/bench_search.py --facts 1000,10000,100000 --queries 300
    .venv/bin/python benchmarks/bench_search.py --opensearch-facts 10000
    MEMGATE_OPENSEARCH_URL=http://127.0.0.1:19200 .venv/bin/python benchmarks/bench_search.py

Seeding uses ``--fast-seed`` (one vector per tool-and-topic sentence: the searches do
the same work, the seeding takes minutes instead of an hour at 100k). Without
``MEMGATE_OPENSEARCH_URL`` the OpenSearch row says so; when it is set and does not
answer, the row says "not run: service unreachable".
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import search_latency as sl
from common import NOT_RUN, reachable, write

from memgate.core.errors import MemgateError

#: the phases in the order of a search (those a store does not run are left out)
PHASES = ["embedding", "lexical", "dense", "retrieve", "fusion", "fetch", "usage", "packing",
          "usage_record"]  # fmt: skip


def pair(d: dict[str, Any]) -> str:
    return f"{d['p50_ms']:.2f} / {d['p99_ms']:.2f}"


def rows_of(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The library and HTTP rows of one measured size."""
    lib, http = run["library"], run["http"]
    where = f"search, {run['backend']}, {run['facts']:,} facts"
    phases = ", ".join(f"{n} {pair(lib['phases'][n])}" for n in PHASES if n in lib["phases"])
    took = ", ".join(f"{n} {pair(p)}" for n, p in sorted(lib["server"].items()))
    writes = lib.get("usage_writes") or {}
    note = (
        f"{lib['n']} queries over {run['users']} users, k={run['k']}, {run['embedder']}, "
        f"max {lib['max_ms']:.1f} ms; phases p50 / p99 ms: {phases}"
        + (f"; server took: {took}" if took else "")
        + f"; usage batches written in the background: {writes.get('flushes', 0)}"
        + f" (failed {writes.get('failures', 0)}); seeding {run['seed_s']} s (fast seed)"
    )
    return [
        {"what": f"{where}, library", "figure": pair(lib), "unit": "ms (p50 / p99)", "note": note},
        {
            "what": f"{where}, HTTP",
            "figure": pair(http),
            "unit": "ms (p50 / p99)",
            "note": f"memgate serve on this machine, one keep-alive client; max "
            f"{http['max_ms']:.1f} ms",
        },
    ]


def measure(backend: str, facts: list[int], a: argparse.Namespace, url: str) -> list[Any]:
    args = sl.parser().parse_args(
        ["--backend", backend, "--opensearch-url", url, "--queries", str(a.queries),
         "--embedder", a.embedder, "--fast-seed"]
    )  # fmt: skip
    rows = []
    for n in facts:
        run = sl.measure(args, n)
        print(sl.table([run]), file=sys.stderr, flush=True)
        rows += rows_of(run)
    return rows


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The options, with the sizes per store filled in (``facts``, ``opensearch_facts``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--facts",
        type=sl.sizes,
        default=None,
        help="sizes on both stores, e.g. 1000,10000 (default: 1000,10000 "
        "embedded, 1000,10000,100000 on OpenSearch)",
    )
    ap.add_argument(
        "--opensearch-facts",
        type=sl.sizes,
        default=None,
        help="sizes on OpenSearch alone (100k seeds in about two minutes)",
    )
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--embedder", choices=["minilm", "hashing"], default="minilm")
    a = ap.parse_args(argv)
    a.opensearch_facts = a.opensearch_facts or a.facts or [1_000, 10_000, 100_000]
    a.facts = a.facts or [1_000, 10_000]
    if a.queries < 2:
        ap.error("--queries must be at least 2 (percentiles)")
    return a


def main(argv: list[str] | None = None) -> int:
    a = parse(argv)
    url = os.environ.get("MEMGATE_OPENSEARCH_URL", "")
    rows = measure("embedded", a.facts, a, url or "http://127.0.0.1:19200")
    failed = None
    if not url:
        unset = "not run: MEMGATE_OPENSEARCH_URL not set"
        rows.append({"what": "search, opensearch", "figure": unset, "unit": ""})
    elif not reachable(url.split("//")[-1]):
        rows.append({"what": "search, opensearch", "figure": NOT_RUN, "unit": "", "note": url})
    else:
        try:
            rows += measure("opensearch", a.opensearch_facts, a, url)
        except MemgateError as exc:  # the embedded rows are still written, with this one
            failed = f"failed: {exc}"
            rows.append({"what": "search, opensearch", "figure": failed, "unit": "", "note": url})
    write("search", rows)
    if failed:
        print(f"bench_search: OpenSearch {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
