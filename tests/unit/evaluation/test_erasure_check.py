"""The leak suite reads compressed ClickHouse parts and runs an erasure check:
forgotten users must leave no residue, and a forget that leaves one is caught."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from memgate.core.events import TurnEvent
from memgate.evaluation import erasure as erasure_check
from memgate.evaluation import leaks
from memgate.evaluation.common import BUNDLED_FILES, Workspace
from memgate.sinks.audit import TABLES, ClickHouseAudit
from memgate.stages.detectors import Detector
from tests.unit.evaluation.test_harness import (
    EMBEDDER,
    EVAL_DIR,
    KeepEverything,
    gate,
    settings,
)


class SqlOnlyForget(ClickHouseAudit):
    """forget() as memgate had it: the DELETE mutation, ids in its condition, no wait."""

    def forget(self, tenant_id: str, user_id: str) -> int:
        for table in TABLES:
            self.client.command(
                f"ALTER TABLE `{table.name}` DELETE "
                "WHERE tenant_id = {tenant:String} AND user_id = {user:String}",
                parameters={"tenant": tenant_id, "user": user_id},
                settings={"mutations_sync": 2},
            )
        return 0


def _turn(user: str, n: int, text: str) -> TurnEvent:
    return TurnEvent.model_validate(
        {
            "tenant_id": "acme",
            "user_id": user,
            "session_id": f"{user}-s",
            "turn_id": f"{user}-{n}",
            "role": "user",
            "content": text,
            "ts": f"2024-03-01T09:0{n}:00Z",
        }
    )


TURNS = [
    _turn("erin.gone@example.org", 1, "Send the Quoxtrelpipe invoices to erin.private@mail.test"),
    _turn("erin.gone@example.org", 2, "We deploy Vantablorp with Helm charts."),
    _turn("kept.user", 3, "We deploy Brambleworth with Jenkins."),
]
SECRETS = {("acme", "erin.gone@example.org-1"): ["erin.private@mail.test"]}


def test_the_bundled_leak_check_decodes_parts_and_erases_without_residue(
    tmp_path: Path,
) -> None:
    path = EVAL_DIR / BUNDLED_FILES["leaks"]
    blind = Detector(kinds=frozenset())  # nothing masked: every secret is stored
    rep = leaks.evaluate(
        path,
        settings(tmp_path, "permissive"),
        EMBEDDER,
        pipeline_factory=gate(KeepEverything(), detector=blind),
    )
    assert rep.leaks == rep.secrets
    where = [w for r in rep.leaked for w in r.where]
    assert any(w.startswith("files:audit.chdb/") and w.endswith("(decompressed)") for w in where)
    assert rep.undecoded == []

    e = rep.erasure
    assert e is not None
    assert e.users == ["ledgerly/leak-derek", "lumen/leak-elodie", "northwind/leak-priya"]
    assert e.ok, e.residues
    assert e.residues == [] and e.blind == []
    # the stores held everything searched (secrets included, since nothing was masked)
    assert e.strings > 50 and e.found_before == e.strings
    dumped = json.dumps(rep.as_dict())
    assert "erasure" in dumped and "leak-derek" in dumped
    cases = leaks.load(path)
    assert not any(c.secret and c.secret in json.dumps(e.as_dict()) for c in cases)


def test_the_erasure_check_finds_what_a_sql_only_forget_leaves(tmp_path: Path) -> None:
    s = settings(tmp_path)
    with Workspace(s, EMBEDDER, gate(KeepEverything())) as ws:
        base = erasure_check.baseline(ws)
        ws.ingest(TURNS)
        good = erasure_check.check(ws, TURNS, SECRETS, base, leaks.scan_workspace)
    assert good.users == ["acme/erin.gone@example.org"]
    assert good.ok and good.found_before >= 3, good.as_dict()

    with Workspace(s, EMBEDDER, gate(KeepEverything())) as ws:
        base = erasure_check.baseline(ws)
        ws.ingest(TURNS)
        assert ws.audit is not None
        ws.audit = SqlOnlyForget(ws.audit.client)
        bad = erasure_check.check(ws, TURNS, SECRETS, base, leaks.scan_workspace)
    assert not bad.ok
    assert any("user id in" in r and "mutation_" in r for r in bad.residues), bad.residues
    # residues are named by label (a user's id, a secret's or word's number), never by value
    assert not any("Quoxtrelpipe" in r or "erin.private" in r for r in bad.residues)
    assert bad.summary().startswith(f"{len(bad.residues)} residues over 1 forgotten user")
    [failure] = bad.failures()  # what `memgate eval` prints on stderr, exit code 1
    assert failure.startswith("erasure: ") and "user id in" in failure
    assert good.failures() == []


def test_memgate_eval_prints_the_erasure_line_and_its_target(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from memgate.cli import app

    t0, t2 = (t.model_dump(mode="json") for t in (TURNS[0], TURNS[2]))
    rows = [
        {"id": "k1", "kind": "email", "secret": "erin.private@mail.test", "turn": t0},
        {"id": "k2", "kind": "benign", "lookalike": "Jenkins", "lookalike_kind": "w", "turn": t2},
    ]
    path = tmp_path / "leaks.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    base = ["--embedder", "hashing", "--data-dir", str(tmp_path / "d"), "eval", "--leaks"]
    base.append(str(path))
    result = CliRunner().invoke(app, base)
    assert result.exit_code == 0, result.output
    row = [ln for ln in result.stdout.splitlines() if "erasure (users" in ln]
    assert row and "1, 0" in row[0], result.stdout  # 1 user forgotten, 0 residues
    assert "erasure=met" in result.stdout
    out = json.loads(CliRunner().invoke(app, [*base, "--json"]).stdout)
    assert out["splits"] == ["dev"], "a corpus file given: the development split only"
    assert out["targets"]["dev"]["erasure"] is True
    assert out["dev"]["leaks"]["erasure"]["users"] == 1
    assert out["dev"]["detail"]["leaks"]["erasure"]["users"] == ["acme/erin.gone@example.org"]
    assert out["dev"]["detail"]["leaks"]["erasure"]["residues"] == []


def _said(user: str, turn_id: str, text: str) -> TurnEvent:
    return TurnEvent.model_validate(
        {
            "tenant_id": "acme",
            "user_id": user,
            "session_id": f"{user}-s",
            "turn_id": turn_id,
            "role": "user",
            "content": text,
            "ts": "2024-03-01T09:00:00Z",
        }
    )


def test_a_word_another_users_record_spells_across_two_columns_is_no_residue(
    tmp_path: Path,
) -> None:
    # the kept user's fact key ends in 'said_radio' and its status column, written
    # right after it in the record's body (no separator), is 'active': the file spells
    # 'radioactive', a word of the forgotten user's alone as read back (the dev leak
    # check's 'dashboards': a key ending in 'im dashboard', then 'superseded')
    turns = [
        _said("erin.gone", "g1", "Send the Quoxtrelpipe invoices to erin.private@mail.test"),
        _said("erin.gone", "g2", "Our lab measures radioactive isotopes."),
        _said("kept.user", "radio", "We deploy Brambleworth with Jenkins."),
    ]
    with Workspace(settings(tmp_path), EMBEDDER, gate(KeepEverything())) as ws:
        base = erasure_check.baseline(ws)
        ws.ingest(turns)
        secrets = {("acme", "g1"): ["erin.private@mail.test"]}
        result = erasure_check.check(ws, turns, secrets, base, leaks.scan_workspace)
        on_disk = ws.settings.retrieval_path.read_bytes()  # the WAL is empty after a forget
    assert b"said_radioactive" in on_disk  # the kept user's row, key then status
    assert result.users == ["acme/erin.gone"]
    assert result.ok, result.residues
    assert result.found_before >= 3  # its other words were searched and found before


def test_record_texts_run_adjacent_text_columns_together(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE facts (rid INTEGER PRIMARY KEY, tenant_id TEXT, user_id TEXT,
                            key TEXT, status TEXT, n INTEGER, doc TEXT, flag INTEGER, tail TEXT);
        CREATE INDEX facts_by_status ON facts (tenant_id, user_id, status);
        CREATE TABLE turns (turn_id TEXT, user_id TEXT, tenant_id TEXT, body TEXT,
                            PRIMARY KEY (tenant_id, turn_id)) WITHOUT ROWID;
        INSERT INTO facts VALUES (7, 'acme', 'kept', 'k/dashboard', 'superseded', 42,
                                  'doc', 1, 'end');
        INSERT INTO turns VALUES ('t1', 'kept', 'acme', 'body');
        """
    )
    conn.commit()
    conn.close()
    texts = erasure_check._record_texts(path)
    assert set(texts) == {("acme", "kept")}
    got = texts["acme", "kept"]
    # the rowid is no column of the record; 42 takes bytes of its own; 1 takes none
    assert "acmekeptk/dashboardsuperseded docend" in got
    assert "acmekeptsuperseded" in got  # the index's record
    assert "acmet1keptbody" in got  # a WITHOUT ROWID table: its primary key first
    assert erasure_check._record_body([None, "a", 0, "b", 2.5, "c", b"x", "d"]) == "ab c d"


def test_a_word_spelled_across_another_users_columns_is_not_searched() -> None:
    turns = [_said("gone", "g1", "Our dashboards are green.")]
    stored = {("acme", "gone"): ["Our dashboards are green."], ("acme", "kept"): ["im dashboard"]}
    records = {("acme", "kept"): ["acme/kept/im dashboardsuperseded"]}
    words = {v for v, _ in erasure_check._needles(("acme", "gone"), turns, {}, stored, []).values()}
    assert "dashboards" in words
    kept_alone = erasure_check._needles(("acme", "gone"), turns, {}, stored, [], records)
    assert "dashboards" not in {v for v, _ in kept_alone.values()}
    assert "green" not in words and "gone" in words  # 6+ letters only; the user id always
    # the forgotten user's own records never supply or withdraw a word
    own = {("acme", "gone"): ["acme/gone/our dashboardsactive"]}
    mine = erasure_check._needles(("acme", "gone"), turns, {}, stored, [], own)
    assert {v for v, _ in mine.values()} == words
