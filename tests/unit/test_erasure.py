"""`memgate forget` erases a user from every byte under the data dir.

Two users of one tenant are ingested through the CLI with distinctive words;
one is forgotten; then every file under the data dir (SQLite main file and
WAL, chDB parts active or not, decompressed, mutation files) is scanned for
the forgotten user's words and ids. None may remain, and the other user's
words must still be found, in both stores (so the scan can see them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memgate.cli import app
from memgate.evaluation.bytescan import scan
from tests.datasets import locomo_file

TENANT = "acme"
GONE = "zoe.quarrington@example.org"  # a user id may be an e-mail address
KEPT = "bob.kept"

TURNS = [
    (GONE, "zq-s1", "zq-t1", "From now on, always deploy the billing service with Quoxtrelpipe."),
    (GONE, "zq-s1", "zq-t2", "I prefer the Vantablorp editor for writing code."),
    (KEPT, "bk-s1", "bk-t1", "From now on, always deploy the ledger service with Brambleworth."),
    (KEPT, "bk-s1", "bk-t2", "I prefer the Gorptastic editor for writing code."),
]
GONE_NEEDLES = {
    "forgotten user id": GONE,
    "forgotten session id": "zq-s1",
    "forgotten turn id": "zq-t1",
    "forgotten word 1": "Quoxtrelpipe",
    "forgotten word 2": "Vantablorp",
}
KEPT_NEEDLES = {"kept user id": KEPT, "kept word 1": "Brambleworth", "kept word 2": "Gorptastic"}


def _cli(data: Path, *args: str) -> Any:
    result = CliRunner().invoke(app, ["--embedder", "hashing", "--data-dir", str(data), *args])
    assert result.exit_code == 0, result.output
    return result


def _ingest(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    path = tmp_path / "turns.jsonl"
    rows = [
        {
            "tenant_id": TENANT,
            "user_id": user,
            "session_id": session,
            "turn_id": turn,
            "role": "user",
            "content": text,
            "ts": f"2024-03-01T09:0{i}:00Z",
        }
        for i, (user, session, turn, text) in enumerate(TURNS)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _cli(data, "ingest", str(path))
    return data


def _stores(hits: list[Any]) -> set[str]:
    return {h.path.split("/", 1)[0] for h in hits}


def test_forget_leaves_no_byte_of_the_user_under_the_data_dir(tmp_path: Path) -> None:
    data = _ingest(tmp_path)
    before = scan(data, {**GONE_NEEDLES, **KEPT_NEEDLES})
    # the scan sees the user in both stores before the erasure (so this test can fail)
    assert _stores(before.found("forgotten word 1")) == {"retrieval.sqlite3", "audit.chdb"}
    assert before.found("forgotten user id")

    out = _cli(data, "forget", "-t", TENANT, "-u", GONE, "--yes").output
    assert "2 facts" in out

    after = scan(data, {**GONE_NEEDLES, **KEPT_NEEDLES})
    residues = [h.describe() for h in after.hits if h.label in GONE_NEEDLES]
    assert residues == [], residues
    assert after.undecoded == []
    # the other user is intact, in both stores, and some of it only decompressed
    for label in KEPT_NEEDLES:
        assert after.found(label), label
    assert _stores(after.found("kept word 1")) == {"retrieval.sqlite3", "audit.chdb"}
    assert any(h.how == "decompressed" for h in after.hits)
    assert not any(p.name.endswith("-wal") and p.stat().st_size for p in data.iterdir())

    # still nothing after reopening the stores (a read opens both)
    _cli(data, "facts", "-t", TENANT, "-u", KEPT)
    again = scan(data, GONE_NEEDLES)
    assert again.hits == [], [h.describe() for h in again.hits]


def test_forget_after_a_long_ingest_leaves_no_stale_page_copy(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # 1,500 LoCoMo turns (all seven conversations, sessions in order): the SQLite
    # B-trees split and rebalance many times, and old copies of moved cells stay in
    # the unused gap of live pages, where secure_delete (it zeroes only the cells a
    # DELETE frees) never looks. With this input and key, a copy of a ledger row of
    # conv1/jon was left on disk before forget rebuilt the file.
    locomo = locomo_file()
    import re

    monkeypatch.setenv("MEMGATE_HMAC_KEY", "0123456789abcdef0123456789abcdef0123")
    rows: list[dict[str, str]] = []
    for ci, conv in enumerate(json.loads(locomo.read_text(encoding="utf-8"))):
        c = conv["conversation"]
        for s in range(1, 12):
            for t in c.get(f"session_{s}", []):
                if len(rows) < 1500:
                    rows.append(
                        {
                            "tenant_id": f"conv{ci}",
                            "user_id": t["speaker"].lower(),
                            "session_id": f"s{s}",
                            "turn_id": t["dia_id"],
                            "role": "user",
                            "content": t["text"],
                            "ts": "2023-05-01T10:00:00Z",
                        }
                    )
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    data = tmp_path / "data"
    _cli(data, "ingest", str(path))

    def disk() -> bytes:
        return b"".join(p.read_bytes() for p in sorted(data.iterdir()) if p.is_file())

    ledger_row = re.compile(rb"conv1D\d+:\d+jon")
    assert ledger_row.search(disk())
    _cli(data, "forget", "-t", "conv1", "-u", "jon", "--yes")
    assert not ledger_row.search(disk()), "a stale copy of the user's ledger row is on disk"
    assert re.search(rb"conv1D\d+:\d+gina", disk())
