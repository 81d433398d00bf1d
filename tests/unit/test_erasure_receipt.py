"""Erasure everywhere with a receipt: a user's audit rows become skeletons (pseudonymous
ids, no content) so that every count still adds up, and one fact (Memory.delete /
`memgate forget --fact`) leaves no byte of its content under the data dir; the receipt
says what was removed where and holds no content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memgate import Memory
from memgate.cli import app
from memgate.evaluation.bytescan import scan

TENANT = "acme"
GONE = "zoe.quarrington@example.org"
TURNS = [
    (GONE, "zq-s1", "zq-t1", "From now on, always deploy the billing service with Quoxtrelpipe."),
    (GONE, "zq-s1", "zq-t2", "I prefer the Vantablorp editor for writing code."),
    ("bob", "bk-s1", "bk-t1", "I prefer the Gorptastic editor for writing code."),
]


def _turns() -> list[dict[str, Any]]:
    return [
        {
            "tenant_id": TENANT, "user_id": user, "session_id": session, "turn_id": turn,
            "role": "user", "content": text, "ts": f"2024-03-01T09:0{i}:00Z",
        }
        for i, (user, session, turn, text) in enumerate(TURNS)
    ]  # fmt: skip


def _counts(m: Memory) -> list[tuple[Any, ...]]:
    _, rows = m._open().audit.query(
        "SELECT 'decisions', stage, verdict, reason, count() FROM decisions FINAL "
        "GROUP BY ALL UNION ALL SELECT 'journal', verdict, reason, '', count() FROM journal "
        "FINAL GROUP BY ALL UNION ALL SELECT 'history', action, '', '', count() "
        "FROM fact_history FINAL GROUP BY ALL"
    )
    # sorted here: an ORDER BY after UNION ALL orders only the last SELECT's rows
    return sorted(rows)


def test_forgetting_a_user_keeps_the_counts_and_returns_a_receipt(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        m.add(_turns())
        before = _counts(m)
        done = m.forget(TENANT, GONE)
        assert done.facts == 2 and done.receipt is not None
        r = done.receipt
        # two vectors per fact: the statement's and the one with its context
        assert r.removed["retrieval"] == {
            "facts": 2, "vectors": 4, "fts_rows": 2, "usage": 0, "turn_ledger": 2,
        }  # fmt: skip
        assert r.removed["audit"]["journal"] == 2 and r.kept["audit"] == r.removed["audit"]
        assert r.user.startswith("erased:") and r.kafka["compacted_topics"] == 0
        # the skeletons keep every count of every report
        assert _counts(m) == before
        _, users = m._open().audit.query("SELECT DISTINCT user_id FROM journal FINAL")
        assert sorted(u for (u,) in users) == ["bob", r.user]
        _, text = m._open().audit.query(
            "SELECT redacted_text, content_hmac FROM journal FINAL WHERE user_id = {u:String}",
            {"u": r.user},
        )
        assert text == [("", ""), ("", "")]
    receipt = r.model_dump_json()
    for needle in (GONE, "zq-t1", "zq-s1", "Quoxtrelpipe", "Vantablorp"):
        assert needle not in receipt
    gone = scan(tmp_path, {"id": GONE, "session": "zq-s1", "turn": "zq-t1", "w": "Vantablorp"})
    assert gone.hits == [], [h.describe() for h in gone.hits]
    assert scan(tmp_path, {"kept": "Gorptastic"}).found("kept")


def test_erasing_one_fact_leaves_no_byte_of_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in _turns()), encoding="utf-8")
    base = ["--embedder", "hashing", "--data-dir", str(data)]
    cli = CliRunner()
    assert cli.invoke(app, [*base, "ingest", str(path)]).exit_code == 0
    facts = json.loads(cli.invoke(app, [*base, "facts", "-t", TENANT, "-u", GONE, "--json"]).stdout)
    (editor,) = [f for f in facts if "Vantablorp" in f["value"]]
    needles = {"value": "Vantablorp", "other": "Quoxtrelpipe"}
    before = scan(data, needles)
    assert {h.path.split("/", 1)[0] for h in before.found("value")} == {
        "retrieval.sqlite3", "audit.chdb",
    }  # fmt: skip
    out = cli.invoke(
        app, [*base, "forget", "-t", TENANT, "-u", GONE, "--fact", editor["fact_id"], "--yes",
              "--json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    receipt = json.loads(out.stdout)
    assert receipt["kind"] == "fact" and receipt["fact_id"] == editor["fact_id"]
    assert receipt["removed"]["retrieval"]["facts"] == 1
    assert receipt["removed"]["retrieval"]["fts_rows"] == 1
    assert receipt["removed"]["audit_content"]["journal"] == 1
    assert receipt["removed"]["audit_content"]["fact_history"] >= 1
    assert "Vantablorp" not in out.stdout and GONE not in out.stdout
    after = scan(data, needles)
    assert after.found("value") == [], [h.describe() for h in after.found("value")]
    assert after.found("other")  # the user's other fact is intact
    left = json.loads(cli.invoke(app, [*base, "facts", "-t", TENANT, "-u", GONE, "--json"]).stdout)
    assert [f["fact_id"] for f in left] == [f["fact_id"] for f in facts if f is not editor]
    again = cli.invoke(app, [*base, "forget", "-t", TENANT, "-u", GONE, "--fact", "nope", "--yes"])
    assert again.exit_code == 1 and "no fact 'nope'" in again.output
