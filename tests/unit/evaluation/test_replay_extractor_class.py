"""The replay actions of ``memgate eval`` take the replay's extractor and clock (issue 12):
a scenario replays the journal through another extractor at a given ``now``, and a replay
action without one runs at a time read from the stored facts, never the real clock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memgate.core.embedding import HashingEmbedder
from memgate.core.settings import load_settings
from memgate.evaluation import scenarios

EMBEDDER = HashingEmbedder()


def _turn(tid: str, content: str, ts: str) -> dict[str, Any]:
    return {
        "tenant_id": "acme", "user_id": "ola", "session_id": tid, "turn_id": tid,
        "role": "user", "content": content, "ts": ts,
    }  # fmt: skip


def _run(tmp_path: Path, checks: list[dict[str, Any]]) -> list[tuple[bool, str]]:
    story = {
        "id": "extractor", "description": "another extractor", "covers": ["replay"],
        "turns": [
            _turn("t1", "My name is Ola Nordmann.", "2024-03-01T09:00:00Z"),
            _turn("t2", "Nadei no rio com o meu primo no sábado.", "2024-03-02T09:00:00Z"),
        ],
        "checks": checks,
    }  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(story) + "\n", encoding="utf-8")
    settings = load_settings(data_dir=tmp_path / "unused", embedder="hashing")
    (r,) = scenarios.evaluate(path, settings, EMBEDDER).results
    return [(c.passed, c.message) for c in r.checks]


def test_a_replay_action_runs_another_extractor_at_its_now(tmp_path: Path) -> None:
    now = "2024-04-01T00:00:00Z"
    got = _run(
        tmp_path,
        [
            {"type": "replay_shadow", "extractor": "hybrid", "now": now, "expect": {}},
            # the Portuguese episode only the hybrid reads: the rules drop it
            {"type": "replay_shadow", "extractor": "rules", "now": now, "expect": {}},
            {"type": "replay_apply", "extractor": "rules", "now": now, "expect": {"dropped": 1}},
            {"type": "replay_apply", "extractor": "rules", "expect": {}},
        ],
    )
    assert [ok for ok, _ in got] == [True, False, True, True], got
    assert "counts {'dropped': 1} != expected {}" in got[1][1]
