"""benchmarks/bench_search.py, the search part of ``make bench``: its rows (library and
HTTP per size, on the embedded store) and the OpenSearch row when that store is not set
or does not answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


def bench(tmp_path: Path, opensearch_url: str | None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "MEMGATE_OPENSEARCH_URL"}
    env["MEMGATE_BENCH_RESULTS"] = str(tmp_path)
    if opensearch_url is not None:
        env["MEMGATE_OPENSEARCH_URL"] = opensearch_url
    done = subprocess.run(
        [sys.executable, "bench_search.py", "--embedder", "hashing", "--facts", "40,80",
         "--queries", "4"],
        cwd=BENCH, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out: dict[str, Any] = json.loads((tmp_path / "search.json").read_text())
    return out


def test_rows_per_size_with_phases_and_the_command(tmp_path: Path) -> None:
    out = bench(tmp_path, None)
    assert set(out["machine"]) >= {"cpu", "cores", "date", "commit", "load_avg"}
    rows = {r["what"]: r for r in out["rows"]}
    for n in ("40", "80"):
        lib = rows[f"search, embedded, {n} facts, library"]
        http = rows[f"search, embedded, {n} facts, HTTP"]
        for r in (lib, http):
            p50, p99 = (float(x) for x in r["figure"].split(" / "))
            assert 0 < p50 <= p99 and r["unit"] == "ms (p50 / p99)"
            assert r["command"].startswith(".venv/bin/python benchmarks/bench_search.py ")
        assert "usage_record" in lib["note"] and "dense" in lib["note"]
        assert "usage batches written in the background" in lib["note"]
    assert rows["search, opensearch"]["figure"] == "not run: MEMGATE_OPENSEARCH_URL not set"


def test_an_opensearch_that_does_not_answer_is_a_row_not_a_number(tmp_path: Path) -> None:
    out = bench(tmp_path, "http://127.0.0.1:9")
    row = next(r for r in out["rows"] if r["what"] == "search, opensearch")
    assert row["figure"] == "not run: service unreachable" and row["note"] == "http://127.0.0.1:9"


def test_opensearch_is_measured_at_100k_by_default_and_sizes_can_be_given(
    monkeypatch: Any,
) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_search

    a = bench_search.parse([])
    assert a.facts == [1_000, 10_000] and a.opensearch_facts == [1_000, 10_000, 100_000]
    a = bench_search.parse(["--facts", "40,80"])
    assert a.facts == [40, 80] and a.opensearch_facts == [40, 80]
    a = bench_search.parse(["--opensearch-facts", "10000"])
    assert a.facts == [1_000, 10_000] and a.opensearch_facts == [10_000]
