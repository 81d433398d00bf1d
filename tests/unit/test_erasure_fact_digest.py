"""One fact erased: no keyed digest of its turns is left to confirm a guess, and the same
turns delivered again still write nothing.

`memgate forget --fact` cleared the audit journal's digest of the fact's source turns but
left the turn ledger's (``turns`` in retrieval.sqlite3): a keyed digest of the raw turn
under the key the embedded data dir keeps beside it (``hmac.key``), so whoever holds the
data dir confirmed a guess of the erased value ("I always prefer X for deployments."
for each X). And the journal's digest cleared to '' made a worker (which reads the
journal as its ledger) take the turn, delivered again, as new: the erased fact came
back. Both now hold the marker :data:`memgate.core.events.ERASED_TURN_DIGEST`, which
reads as a replay for the same user (the turn was applied; its fact was erased).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.events import ERASED_TURN_DIGEST, TurnEvent, content_hmac
from memgate.core.settings import load_settings
from memgate.evaluation.bytescan import scan
from memgate.keys import HMAC_KEY_FILE
from memgate.sinks.audit import ClickHouseAudit
from memgate.streams.turns import JournalLedger, TurnState, classify_turn

SAID = "I always prefer Zanzibarquux for deployments."
TURNS = [
    ("t1", SAID),
    ("t2", "We deploy the billing service with Brambleworth."),
]


def _cli(data: Path, *args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(app, ["--embedder", "hashing", "--data-dir", str(data), *args])
    assert result.exit_code == code, result.output
    return result


def _facts(data: Path) -> list[dict[str, Any]]:
    out = _cli(data, "facts", "-t", "acme", "-u", "alice", "--json").output
    return json.loads(out)  # type: ignore[no-any-return]


def _turns_file(tmp_path: Path) -> Path:
    path = tmp_path / "turns.jsonl"
    rows = [
        {"tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": turn,
         "role": "user", "content": text, "ts": f"2024-03-01T09:0{i}:00Z"}
        for i, (turn, text) in enumerate(TURNS)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_an_erased_fact_leaves_no_digest_of_its_turn_and_does_not_come_back(
    tmp_path: Path,
) -> None:
    data, turns = tmp_path / "data", _turns_file(tmp_path)
    _cli(data, "ingest", str(turns))
    (gone,) = [f for f in _facts(data) if "Zanzibarquux" in f["value"]]
    key = (data / HMAC_KEY_FILE).read_bytes()  # beside the stores, as on every embedded data dir
    guess = content_hmac(key, SAID)
    assert scan(data, {"digest": guess}).found("digest")  # the needle is there before

    _cli(data, "forget", "-t", "acme", "-u", "alice", "--fact", gone["fact_id"], "--yes")
    after = scan(data, {"digest of the erased turn": guess, "value": "Zanzibarquux"})
    assert after.hits == [], [h.describe() for h in after.hits]

    # the same file again: both turns are replays, the erased fact stays erased
    out = json.loads(_cli(data, "ingest", str(turns), "--json").output)
    assert out["replayed"] == 2 and out["stored"] == 0, out
    assert [f["value"] for f in _facts(data)] != [] and not [
        f for f in _facts(data) if "Zanzibarquux" in f["value"]
    ]


def test_the_journal_ledger_reads_an_erased_turn_as_a_replay(tmp_path: Path) -> None:
    """A worker's ledger is the audit journal: after one fact's erasure its turn, delivered
    again, must not be taken as new (its fact would be made again)."""
    data, turns = tmp_path / "data", _turns_file(tmp_path)
    _cli(data, "ingest", str(turns))
    (gone,) = [f for f in _facts(data) if "Zanzibarquux" in f["value"]]
    _cli(data, "forget", "-t", "acme", "-u", "alice", "--fact", gone["fact_id"], "--yes")
    audit = ClickHouseAudit.embedded(load_settings(data_dir=data).audit_path)
    try:
        seen = JournalLedger(audit).seen_turns("acme", ["t1", "t2"])
    finally:
        audit.close()
    assert seen["t1"] == ("alice", ERASED_TURN_DIGEST)
    turn = TurnEvent(tenant_id="acme", user_id="alice", session_id="s1", turn_id="t1",
                     role="user", content=SAID, ts="2024-03-01T09:00:00Z")  # type: ignore[arg-type]  # fmt: skip
    assert classify_turn(turn, "any digest", seen["t1"]) is TurnState.REPLAY
    other = turn.model_copy(update={"user_id": "mallory"})
    assert classify_turn(other, "any digest", seen["t1"]) is TurnState.CONFLICT
