"""`memgate search --now` ranks with decay at the given instant; `memgate demo` runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memgate.cli import app

TURNS = [
    # an event (decays, half-life 180 days) and an instruction (never decays), same words
    ("t1", "I deployed the billing service to Kubernetes.", "2024-03-01T09:00:00Z"),
    ("t2", "From now on, always deploy the billing service with a canary.", "2024-03-01T09:01:00Z"),
]


def _cli(tmp_path: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--embedder", "hashing", "--data-dir", str(tmp_path / "data"), *args]
    )


def _ingest(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    rows = [
        {
            "tenant_id": "acme",
            "user_id": "alice",
            "session_id": "s1",
            "turn_id": tid,
            "role": "user",
            "content": text,
            "ts": ts,
        }
        for tid, text, ts in TURNS
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = _cli(tmp_path, "ingest", str(path))
    assert result.exit_code == 0, result.output


def _scores(tmp_path: Path, *extra: str) -> dict[str, float]:
    result = _cli(
        tmp_path, "search", "billing service deploy", "-t", "acme", "-u", "alice", "--json", *extra
    )
    assert result.exit_code == 0, result.output
    return {h["fact"]["source_turn_ids"][0]: h["score"] for h in json.loads(result.stdout)}


def test_now_sets_the_instant_decay_is_measured_at(tmp_path: Path) -> None:
    _ingest(tmp_path)
    fresh = _scores(tmp_path, "--now", "2024-03-02T00:00:00Z")
    aged = _scores(tmp_path, "--now", "2026-03-02T00:00:00Z")
    assert set(fresh) == set(aged) == {"t1", "t2"}
    # the instruction does not decay; the two-year-old event does
    assert aged["t2"] == fresh["t2"]
    # two years at a half-life of 90 days: the floor (0.1), each rank counts ten times
    # as far down its list (memgate.recall.decayed)
    assert aged["t1"] < fresh["t1"]
    assert aged["t1"] <= 1 / (60 + 10) + 1 / (60 + 10) + 1e-6


def test_a_bad_now_is_a_clear_error(tmp_path: Path) -> None:
    _ingest(tmp_path)
    result = _cli(tmp_path, "search", "x", "-t", "acme", "-u", "alice", "--now", "yesterday")
    assert result.exit_code != 0
    assert "yesterday" in result.output or "ISO" in result.output


def test_demo_runs_and_shows_no_raw_email(tmp_path: Path) -> None:
    result = _cli(tmp_path, "demo")
    assert result.exit_code == 0, result.output
    assert "memgate demo: what the gate decided" in result.output
    assert "search 'how do we deploy?'" in result.output
    assert "alice.martin@" not in result.output  # the demo's email is stored as a placeholder
