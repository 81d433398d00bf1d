"""`memgate replay`: the journal's redacted turns through another policy, reported as a
diff (--shadow, nothing written) and then applied (--apply: old and new versions recorded,
a second apply changes nothing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.replay import _surrogates, with_surrogates
from memgate.stages.detectors import Detector
from memgate.stages.redact import mask_all

DEMO = Path(__file__).resolve().parents[2] / "memgate" / "data" / "demo.jsonl"


def _cli(data: Path, *args: str) -> Any:
    out = CliRunner().invoke(app, ["--embedder", "hashing", "--data-dir", str(data), *args])
    assert out.exit_code == 0, out.output
    return out


def _facts(data: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for user in ("alice", "bob"):
        tenant = "acme" if user == "alice" else "globex"
        out = _cli(data, "facts", "-t", tenant, "-u", user, "--all", "--json")
        rows += json.loads(out.stdout)
    return rows


@pytest.fixture
def data(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    _cli(d, "ingest", str(DEMO))
    return d


def test_the_same_policy_replays_to_no_change(data: Path) -> None:
    # the journal's placeholders ([CARD], [PASSWORD]) read as values of their kind: the
    # turns whose credential or card was rejected are rejected again, not stored as
    # "my card number is"
    report = json.loads(_cli(data, "replay", "--shadow", "--json").stdout)
    assert report["counts"] == {} and report["turns"] == 28 and not report["applied"]


def test_a_stricter_policy_is_reported_then_applied(data: Path) -> None:
    before = _facts(data)
    shadow = json.loads(
        _cli(data, "--policy", "conservative", "replay", "--shadow", "--json").stdout
    )
    assert shadow["counts"] == {"dropped": 2, "superseded": 2}
    assert shadow["by_reason"] == {
        "dropped: dedupe:needs_confirmation_or_evidence": 2,
        "superseded: dedupe:needs_confirmation_or_evidence": 2,
    }
    assert sum(sum(t.values()) for t in shadow["by_tenant"].values()) == 4
    assert _facts(data) == before  # a shadow run writes nothing

    done = json.loads(_cli(data, "--policy", "conservative", "replay", "--apply", "--json").stdout)
    assert done["applied"] and done["counts"] == shadow["counts"]
    after = {f["fact_id"]: f for f in _facts(data)}
    for c in done["changes"]:
        old = after[c["old_fact_id"]]
        assert old["status"] == "superseded"
        if c["change"] == "superseded":
            assert old["superseded_by"] == c["new_fact_id"]
            assert after[c["new_fact_id"]]["status"] == "active"
            assert c["old_version"].startswith("balanced-1/")
            assert c["new_version"].startswith("conservative-1/")
    out = _cli(
        data, "audit", "--json", "--sql",
        "SELECT verdict, details['old_version'] AS old, details['new_version'] AS new "
        "FROM memgate.decisions FINAL WHERE stage = 'replay' ORDER BY verdict",
    )  # fmt: skip
    rows = json.loads(out.stdout)
    assert [r["verdict"] for r in rows] == ["dropped", "dropped", "superseded", "superseded"]
    assert all(r["old"].startswith("balanced-1/") for r in rows)
    assert {r["new"][:14] for r in rows if r["verdict"] == "superseded"} == {"conservative-1"}
    again = json.loads(_cli(data, "--policy", "conservative", "replay", "--apply", "--json").stdout)
    assert again["counts"] == {}


def test_replay_needs_one_mode(tmp_path: Path) -> None:
    out = CliRunner().invoke(app, ["--data-dir", str(tmp_path / "d"), "replay"])
    assert out.exit_code == 2 and "exactly one of --shadow and --apply" in out.output


def test_every_surrogate_is_masked_again_as_its_kind() -> None:
    det = Detector()
    contexts = {"password": "the password is {}", "bearer_token": "use Bearer {} now"}
    for kind, value in _surrogates().items():
        text = contexts.get(kind, "it is {}").format(value)
        assert mask_all(det, text).counts == {kind: 1}, kind
    assert with_surrogates("mail [EMAIL] today") == f"mail {_surrogates()['email']} today"
    # a health term is regulated: read as one, it is rejected again under "reject" (the
    # journal of LoCoMo's conv-43 held "do my [HEALTH]", which a replay stored as
    # "trying to stay active and do my" before the health surrogate)
    assert mask_all(det, with_surrogates("I try to do my [HEALTH].")).counts == {"health": 1}
    # a placeholder whose surrogate the detectors would not find in its sentence stays
    assert with_surrogates("hello [PASSWORD]") == "hello [PASSWORD]"
    assert with_surrogates("no placeholder") == "no placeholder"


def test_a_replay_does_not_bring_back_what_retention_retired(tmp_path: Path) -> None:
    # before the lifecycle facts were left out, the digest was reported dropped and the
    # retired episodes added back (LoCoMo dev: 577 "added" under the same policy)
    turns = [
        {
            "tenant_id": "acme", "user_id": "erin", "session_id": f"s{i}", "turn_id": f"e{i}",
            "role": "user", "content": text, "ts": f"2024-03-0{i}T09:00:00Z",
        }
        for i, text in enumerate(
            ["Yesterday I went to the dentist.", "I went to a concert on Friday.",
             "I ran a marathon last Sunday.", "I went to my sister's wedding."], start=1,
        )
    ]  # fmt: skip
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in turns), encoding="utf-8")
    cfg = tmp_path / "memgate.toml"
    cfg.write_text("[retention]\nepisodic_max = 1\n", encoding="utf-8")
    data = tmp_path / "data"
    _cli(data, "--config", str(cfg), "ingest", str(path))
    _cli(data, "--config", str(cfg), "consolidate", "--now", "2024-03-10T00:00:00Z")
    report = json.loads(_cli(data, "--config", str(cfg), "replay", "--shadow", "--json").stdout)
    assert report["counts"] == {}


def test_a_turn_s_successful_outcome_is_read_back_from_the_journal(tmp_path: Path) -> None:
    # conservative stores an instruction only after a successful task; the journal kept
    # failures and confirmations but not a success, so the same policy replayed reported
    # the instruction "dropped" (eval scenario d5-replay-conservative-success)
    turns = [
        {
            "tenant_id": "acme", "user_id": "gus", "session_id": "s1", "turn_id": "g1",
            "role": "user", "content": "Always squash commits before merging.",
            "ts": "2024-03-01T09:00:00Z", "outcome": "success",
        },
        {
            "tenant_id": "acme", "user_id": "gus", "session_id": "s2", "turn_id": "g2",
            "role": "user", "content": "Always use pnpm instead of npm in this repository.",
            "ts": "2024-03-02T09:00:00Z",
        },
    ]  # fmt: skip
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in turns), encoding="utf-8")
    data = tmp_path / "data"
    _cli(data, "--policy", "conservative", "ingest", str(path))
    out = _cli(data, "facts", "-t", "acme", "-u", "gus", "--json")
    assert [f["source_turn_ids"] for f in json.loads(out.stdout)] == [["g1"]]
    shadow = _cli(data, "--policy", "conservative", "replay", "--shadow", "--json")
    assert json.loads(shadow.stdout)["counts"] == {}
    # the flag is the turn's, not a guess: the instruction without one is still held back
    # by conservative and added by a balanced replay
    balanced = json.loads(_cli(data, "replay", "--shadow", "--json").stdout)
    assert [(c["change"], c["key"]) for c in balanced["changes"]] == [
        ("added", "acme/gus/user/instruction/always use pnpm instead of npm in this repository")
    ]
