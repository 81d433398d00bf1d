"""`memgate audit` on data from a real in-process pipeline run (`memgate ingest`, chDB).

The demo turns (two tenants) plus one turn of a third tenant that reuses an acme turn id.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.events import FactHistoryRecord
from memgate.sinks.audit import ClickHouseAudit, ReportScope

REUSED = {
    "tenant_id": "initech",
    "user_id": "bob",
    "session_id": "s9",
    "turn_id": "a-003",  # acme's a-003 too
    "role": "user",
    "content": "I moved to Lisbon last spring and work as a nurse now.",
    "ts": "2024-06-01T10:00:00Z",
}


def _cli(data: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["--embedder", "hashing", "--data-dir", str(data), *args])


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("audit-cli")
    turns = root / "turns.jsonl"
    demo = (resources.files("memgate") / "data" / "demo.jsonl").read_text()
    turns.write_text(demo + json.dumps(REUSED) + "\n", encoding="utf-8")
    r = _cli(root / "data", "--json", "ingest", str(turns))
    assert r.exit_code == 0, r.output
    return {"dir": root / "data", "summary": json.loads(r.output), "root": root}


def _json(data: dict[str, Any], *args: str) -> list[dict[str, Any]]:
    r = _cli(data["dir"], "audit", *args, "--format", "json")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)  # type: ignore[no-any-return]


def test_write_amplification_agrees_with_the_ingest_summary(data: dict[str, Any]) -> None:
    rows = _json(data, "write-amplification")
    s = data["summary"]
    assert sum(r["turns"] for r in rows) == s["turns"]
    assert sum(r["facts_stored"] for r in rows) == s["stored"]
    assert sum(r["facts_superseded"] for r in rows) == s["actions"]["SUPERSEDE"]


def test_a_promoted_fact_counts_as_stored(tmp_path: Path) -> None:
    """LoCoMo promotes pending facts (1,370 stored, 5 of them promotions); they count."""
    at = datetime(2024, 5, 1, tzinfo=UTC)
    row = FactHistoryRecord(
        event_id="h1", tenant_id="acme", user_id="u1", fact_id="f1", key="k", action="promote",
        value="v", confidence=0.9, occurrences=2, source_turn_id="t1", policy_version="p", at=at,
    )  # fmt: skip
    with ClickHouseAudit.embedded(tmp_path / "audit") as audit:
        audit.write([row])
        cols, rows = audit.report("write-amplification")
    got = dict(zip(cols, rows[0], strict=True))
    assert got["facts_promoted"] == 1 and got["facts_stored"] == 1


def test_daily_counts_by_event_time_with_ingest_time_apart(data: dict[str, Any]) -> None:
    rows = _json(data, "daily")
    days = [r["day"] for r in rows]
    # the demo's turns were said in March-May 2024 (and initech's in June), not today
    assert days and all(d.startswith("2024-") for d in days), days
    assert sum(r["turns"] for r in rows) == data["summary"]["turns"]
    assert sum(r["facts_stored"] for r in rows) == data["summary"]["stored"]
    assert all(r["last_ingested_at"] > "2025" for r in rows)


def test_since_until_user_and_tenant_scope_every_report(data: dict[str, Any]) -> None:
    whole = _json(data, "daily", "-t", "acme")
    march = _json(data, "daily", "-t", "acme", "--since", "2024-03-01", "--until", "2024-04-01")
    assert march and len(march) < len(whole)
    assert all(r["day"].startswith("2024-03") for r in march)
    assert _json(data, "write-amplification", "-t", "acme", "-u", "nobody") == []
    for name in ("verdicts", "drop-reasons", "redactions", "supersessions", "daily"):
        assert _json(data, name, "--since", "2030-01-01") == [], name
        assert _json(data, name, "-t", "acme") != [] or name == "supersessions", name


def test_sql_binds_the_tenant_and_refuses_an_unused_one(data: dict[str, Any]) -> None:
    sql = "SELECT count() AS n FROM journal WHERE tenant_id = {tenant:String}"
    rows = _json(data, "--sql", sql, "-t", "globex")
    assert rows == [{"n": 4}]
    r = _cli(data["dir"], "audit", "--sql", "SELECT count() FROM journal", "-t", "globex")
    assert r.exit_code == 1
    assert "does not use {tenant:String}" in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_explain_turn_is_scoped_by_tenant(data: dict[str, Any]) -> None:
    r = _cli(data["dir"], "audit", "explain", "--turn", "a-003")
    assert r.exit_code == 1 and "acme, initech" in r.output and "--tenant" in r.output
    rows = _json(data, "explain", "--turn", "a-003", "-t", "acme")
    assert {r["tenant_id"] for r in rows} == {"acme"}
    steps = [(r["step"], r["stage"]) for r in rows if r["turn_id"] == "a-003"]
    assert steps[:5] == [
        ("turn", "ingest"), ("decision", "triage"), ("decision", "extract"),
        ("decision", "redact"), ("decision", "dedupe"),
    ]  # fmt: skip
    assert ("history", "persist") in steps


def test_explain_fact_goes_back_to_the_source_turn(data: dict[str, Any]) -> None:
    sup = _json(data, "supersessions", "-t", "acme")
    assert sup, "the demo supersedes facts"
    old = sup[0]["supersedes"]
    rows = _json(data, "explain", "--fact", old)
    assert {r["tenant_id"] for r in rows} == {"acme"}
    actions = [r["verdict"] for r in rows if r["step"] == "history" and r["fact_id"] == old]
    assert actions[0] == "add" and "superseded" in actions
    assert any(r["step"] == "turn" for r in rows)  # the turn behind the fact, as journaled
    assert _cli(data["dir"], "audit", "explain", "--fact", "nope").exit_code == 1


def test_csv_parquet_and_plot(data: dict[str, Any]) -> None:
    r = _cli(data["dir"], "audit", "daily", "--format", "csv")
    assert r.exit_code == 0, r.output
    table = list(csv.DictReader(io.StringIO(r.output)))
    assert sum(int(x["turns"]) for x in table) == data["summary"]["turns"]
    out = data["root"] / "daily.parquet"
    r = _cli(data["dir"], "audit", "daily", "--format", "parquet", "-o", str(out))
    assert r.exit_code == 0, r.output
    import pyarrow.parquet as pq  # a dependency of chdb: read the file back

    t = pq.read_table(out)
    assert t.column_names[:2] == ["day", "turns"]
    assert sum(t.column("turns").to_pylist()) == data["summary"]["turns"]
    png = data["root"] / "daily.png"
    r = _cli(data["dir"], "audit", "daily", "--plot", str(png))
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = _cli(data["dir"], "audit", "verdicts", "--plot", str(png))
    assert r.exit_code == 2 and "time-series" in r.output


def test_a_reader_while_a_writer_holds_the_store_gets_one_line(data: dict[str, Any]) -> None:
    path = data["dir"] / "audit.chdb"
    hold = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; "
         "from memgate.sinks.audit import ClickHouseAudit; "
         f"a = ClickHouseAudit.embedded(Path({str(path)!r})); print('open', flush=True); "
         "sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ),
    )  # fmt: skip
    try:
        assert hold.stdout is not None and hold.stdout.readline().strip() == b"open"
        r = subprocess.run(
            [str(Path(sys.executable).parent / "memgate"), "--data-dir", str(data["dir"]),
             "--embedder", "hashing", "audit", "verdicts"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        assert hold.stdin is not None
        hold.stdin.close()
        hold.wait(timeout=60)
    assert r.returncode == 1
    lines = (r.stdout + r.stderr).strip().splitlines()
    assert len(lines) == 1, lines
    assert "in use by another memgate process" in lines[0] and "Cannot lock" not in lines[0]
    time.sleep(0.1)
    assert _cli(data["dir"], "audit", "verdicts").exit_code == 0  # free again


def test_report_scope_parameters_default_to_every_row() -> None:
    p = ReportScope().parameters()
    assert p["tenant"] == "" and p["user"] == "" and p["since"] < p["until"]
