"""``memgate scan``: a secret written around the gate is found by kind, never printed.

The stores are filled through the gate (clean), then a raw token, an email and
a card number are written *around* it: a fact upserted straight into the
retrieval store (in its value and its context), a journal row written straight
into the audit store, an answer put straight into the Claude answer cache. The
scan names each by tenant, store and kind with the record's id, exits 1, and
neither its output nor its metrics file holds a value. The same stores before
the raw writes scan clean (exit 0).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memgate import Memory
from memgate.cli import app
from memgate.core.events import JournalRecord, Role, TriageVerdict
from tests.contracts.retrieval import RetrievalStoreContract

TOKEN = "ghp_R8x2kQ9vLm4TzP7wYc3NbF6hJd1sGa5eKu0o"
EMAIL = "bob.smith@example.org"
CARD = "4111 1111 1111 1111"
KEY = "unit-test-hmac-key-0123456789abcdef0123"
helper = RetrievalStoreContract()


def _cli(data: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app,
        ["--embedder", "hashing", "--data-dir", str(data), "scan", *args],
        env={"MEMGATE_HMAC_KEY": KEY},
    )


def _seed_clean(data: Path) -> None:
    with Memory(data_dir=data, embedder="hashing", hmac_key=KEY) as m:
        added = m.add(
            [
                {"role": "user", "content": "I use Neovim as my editor."},
                {"role": "user", "content": f"Mail me at {EMAIL}, my token is {TOKEN}."},
            ],
            tenant="acme", user="alice",
        )  # fmt: skip
        assert added.rejected == 0


def _write_around_the_gate(data: Path) -> dict[str, str]:
    """Raw values straight into each store; returns the ids of the records written."""
    with Memory(data_dir=data, embedder="hashing", hmac_key=KEY) as m:
        rt = m._open()
        fact = helper.make_fact(
            TOKEN, tenant_id="globex", user_id="bob", predicate="token",
            context=f"reach me at {EMAIL}", embedding=rt.embedder.embed(["token"])[0].tolist(),
        )  # fmt: skip
        rt.retrieval.upsert([fact], wait=True)
        row = JournalRecord(
            event_id="raw-journal-1", tenant_id="acme", user_id="alice", session_id="s1",
            turn_id="raw1", role=Role.USER, ts=datetime(2024, 1, 1, tzinfo=UTC), length=20,
            content_hmac="0" * 64, verdict=TriageVerdict.KEEP, reason="raw",
            redacted_text=f"pay with {CARD}", redaction_counts={},
            ingested_at=datetime(2024, 1, 1, tzinfo=UTC),
        )  # fmt: skip
        rt.audit.write([row])
        from memgate.sinks.extract_cache import SQLiteAnswerCache

        cache = SQLiteAnswerCache(m.settings.extract_cache_path, key=KEY.encode())
        cache.put("acme", "carol", "request", json.dumps({"object": TOKEN}))
        (digest,) = [d for d, *_ in cache.entries()]
    return {"fact": fact.fact_id, "journal": row.event_id, "cache": digest}


def test_a_clean_store_scans_clean_and_a_raw_write_is_found_without_its_value(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    _seed_clean(data)
    prom = tmp_path / "scan.prom"
    clean = _cli(data, "--json", "--metrics-file", str(prom))
    assert clean.exit_code == 0, clean.output
    report = json.loads(clean.stdout)
    assert report["findings"] == 0 and report["groups"] == []
    assert report["records"]["facts"] >= 1 and report["records"]["journal"] >= 2
    assert 'memgate_scan_findings_total{kind="none",store="facts"} 0.0' in prom.read_text()

    ids = _write_around_the_gate(data)
    found = _cli(data, "--json", "--metrics-file", str(prom))
    assert found.exit_code == 1, found.output
    for value in (TOKEN, EMAIL, CARD, "4111", "ghp_"):
        assert value not in found.output and value not in prom.read_text()
    found_groups = json.loads(found.stdout)["groups"]
    groups = {(g["tenant_id"], g["store"], g["kind"]): g for g in found_groups}
    assert groups[("globex", "facts", "api_key")]["record_ids"] == [ids["fact"]]
    assert groups[("globex", "facts", "email")]["record_ids"] == [ids["fact"]]
    assert groups[("acme", "journal", "card")]["record_ids"] == [ids["journal"]]
    assert groups[("acme", "answer_cache", "api_key")]["record_ids"] == [ids["cache"]]
    assert not any(t == "acme" and s == "facts" for t, s, _ in groups), groups
    text = prom.read_text()
    assert 'memgate_scan_findings_total{kind="card",store="journal"} 1.0' in text
    assert 'memgate_scan_findings_total{kind="api_key",store="answer_cache"} 1.0' in text

    table = _cli(data)
    assert table.exit_code == 1
    assert "values are not shown" in table.output and TOKEN not in table.output
    rows = [line.split() for line in table.stdout.splitlines()]
    assert ["globex", "facts", "api_key", "1", ids["fact"]] in rows
