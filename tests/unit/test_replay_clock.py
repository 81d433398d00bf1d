"""`memgate replay --extractor ... --now ...`: the journal replayed through another extractor
(issue 12: a policy *or extractor* version), at a given instant, so that the same journal
replays to the same stored result whatever the real clock says."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.backends import build_pipeline
from memgate.cli import app
from memgate.core.embedding import load_embedder
from memgate.core.events import DecisionRecord, TurnEvent
from memgate.core.settings import load_settings

DEMO = Path(__file__).resolve().parents[2] / "memgate" / "data" / "demo.jsonl"
NOW = "2024-06-01T00:00:00Z"


def _cli(data: Path, *args: str) -> Any:
    out = CliRunner().invoke(app, ["--embedder", "hashing", "--data-dir", str(data), *args])
    assert out.exit_code == 0, out.output
    return out


def _all_facts(data: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for tenant, user in (("acme", "alice"), ("globex", "bob")):
        out = _cli(data, "facts", "-t", tenant, "-u", user, "--all", "--json")
        rows += json.loads(out.stdout)
    return sorted(rows, key=lambda f: f["fact_id"])


def test_the_extractor_of_a_replay_is_chosen_and_its_version_recorded(tmp_path: Path) -> None:
    data = tmp_path / "d"
    _cli(data, "ingest", str(DEMO))  # the default extractor: hybrid
    same = json.loads(_cli(data, "replay", "--shadow", "--extractor", "hybrid", "--json").stdout)
    assert same["counts"] == {}
    other = json.loads(_cli(data, "replay", "--shadow", "--extractor", "rules", "--json").stdout)
    assert other["counts"]  # the rule extractor reads the journal otherwise
    news = {c["new_version"] for c in other["changes"] if c["new_version"]}
    assert news and all("/rules-" in v for v in news)
    olds = {c["old_version"] for c in other["changes"] if c["old_version"]}
    assert all("/hybrid-" in v for v in olds)


def test_a_replay_at_a_given_now_is_deterministic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one deployment: fact ids are keyed digests under its key (stages/fact_keys.py)
    monkeypatch.setenv("MEMGATE_HMAC_KEY", "r" * 40)
    stored = []
    for name in ("one", "two"):
        data = tmp_path / name
        _cli(data, "ingest", str(DEMO))
        done = json.loads(
            _cli(data, "replay", "--apply", "--extractor", "rules", "--now", NOW, "--json").stdout
        )
        assert done["applied"] and done["counts"]
        facts = _all_facts(data)
        added = {c["new_fact_id"] for c in done["changes"] if c["new_fact_id"]}
        assert added and all(
            f["recorded_at"].startswith("2024-06-01T00:00:00") for f in facts
            if f["fact_id"] in added
        )  # fmt: skip
        out = _cli(
            data, "audit", "--json", "--sql",
            "SELECT toString(decided_at) AS at FROM memgate.decisions FINAL "
            "WHERE stage = 'replay'",
        )  # fmt: skip
        assert {r["at"][:19] for r in json.loads(out.stdout)} == {"2024-06-01 00:00:00"}
        stored.append([f for f in facts if f["fact_id"] in added])
    # the same journal at the same now: the same facts, to the last timestamp
    assert stored[0] == stored[1]


def test_the_gate_stamps_its_clock_on_every_decision(tmp_path: Path) -> None:
    at = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    settings = load_settings(data_dir=tmp_path / "d", embedder="hashing")
    gate = build_pipeline(settings, load_embedder("hashing"), clock=lambda: at)
    turn = TurnEvent(tenant_id="acme", user_id="u", session_id="s", turn_id="t1", role="user",
                     content="My name is Ines Varga.", ts="2024-03-01T09:00:00Z")  # fmt: skip
    out = gate.triage(turn)
    decisions = [r for r in out if isinstance(r, DecisionRecord)]
    assert decisions and {d.decided_at for d in decisions} == {at}
    assert (gate.extract.clock(), gate.redact.clock(), gate.resolve.clock()) == (at, at, at)


def test_a_bad_now_is_a_usage_error(tmp_path: Path) -> None:
    out = CliRunner().invoke(
        app, ["--data-dir", str(tmp_path / "d"), "replay", "--shadow", "--now", "yesterday"]
    )
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert "not an ISO 8601 time" in out.output
