"""The replay class of ``memgate eval`` (issue 12): scenarios replay the journal through
another policy, in shadow and then applied, and the checks can fail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import memgate
from memgate.core.embedding import HashingEmbedder
from memgate.core.events import FactStatus
from memgate.core.settings import Settings, load_settings
from memgate.evaluation import scenarios
from memgate.evaluation.aggregate import summarise_scenarios
from memgate.evaluation.common import DEV_EXTRA_FILES, Workspace
from memgate.evaluation.replay_checks import ReplayApply, _store_diff, _versions
from memgate.evaluation.run import TEST_FILES
from memgate.replay import ReplayChange, ReplayReport

EVAL_DIR = Path(memgate.__file__).parent / "data" / "eval"
EMBEDDER = HashingEmbedder()
DEV_REPLAY = EVAL_DIR / "scenarios_dev_replay.jsonl"


def _settings(tmp_path: Path) -> Settings:
    return load_settings(data_dir=tmp_path / "unused", embedder="hashing")


def _turn(tid: str, content: str, ts: str, user: str = "bo") -> dict[str, Any]:
    return {
        "tenant_id": "acme", "user_id": user, "session_id": tid, "turn_id": tid,
        "role": "user", "content": content, "ts": ts,
    }  # fmt: skip


def test_the_replay_class_is_a_development_file_run_by_memgate_eval(tmp_path: Path) -> None:
    assert "scenarios_dev_replay.jsonl" in DEV_EXTRA_FILES["scenarios"]
    assert "scenarios_dev_replay.jsonl" not in TEST_FILES["scenarios"]  # not in the frozen split
    stories = scenarios.load(DEV_REPLAY)
    assert len(stories) >= 8 and {s.covers[0] for s in stories} == {"replay"}
    types = {c.type for s in stories for c in s.checks}
    assert {"replay_shadow", "replay_apply"} <= types
    # every scenario that applies a change applies it again and expects nothing
    for s in stories:
        applies = [c for c in s.checks if isinstance(c, ReplayApply)]
        if any(c.expect for c in applies):
            assert any(c.expect == {} for c in applies), s.id
    rep = scenarios.evaluate(DEV_REPLAY, _settings(tmp_path), EMBEDDER)
    assert rep.failed == [], [r.first_failure for r in rep.failed]
    summary = summarise_scenarios(rep).as_dict()
    assert summary["by_class"]["replay"] == {"ok": len(stories), "n": len(stories), "share": 1.0}


def test_replay_checks_fail_on_a_wrong_diff_and_a_store_that_moved(tmp_path: Path) -> None:
    story = {
        "id": "moved",
        "description": "the store changes between the shadow and the apply",
        "covers": ["replay"],
        "turns": [
            _turn(
                "t1", "Always write commit messages in the imperative mood.", "2024-03-01T09:00:00Z"
            ),
            _turn(
                "t2", "Always use pnpm instead of npm in this repository.", "2024-03-02T09:00:00Z"
            ),
        ],
        "checks": [
            {"type": "replay_shadow", "policy": "conservative", "expect": {}, "after": "t1"},
            {
                "type": "replay_shadow",
                "policy": "conservative",
                "expect": {"dropped": 1},
                "expect_by_tenant": {"acme": {"dropped": 1}},
                "after": "t1",
            },
            {"type": "replay_apply", "policy": "conservative"},
            {"type": "replay_apply", "policy": "conservative", "expect": {"dropped": 1}},
            {"type": "replay_apply", "policy": "conservative", "expect": {}},
        ],
    }
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(story) + "\n", encoding="utf-8")
    rep = scenarios.evaluate(path, _settings(tmp_path), EMBEDDER)
    (r,) = rep.results
    ok = [c.passed for c in r.checks]
    msgs = [c.message for c in r.checks]
    assert ok == [False, True, False, False, True], msgs
    assert "counts {'dropped': 1} != expected {}" in msgs[0]
    # t2 came in after the shadow: the apply drops two, the shadow said one
    assert "the shadow reported dropped acme/bo" in msgs[2]
    # the second apply changes nothing, so its expectation of one drop fails
    assert "counts {} != expected {'dropped': 1}" in msgs[3]
    assert summarise_scenarios(rep).first_failing == {"replay": {"replay_shadow": 1}}


def test_the_store_diff_names_every_change_and_the_versions_are_looked_up(
    tmp_path: Path,
) -> None:
    settings = _settings(tmp_path).model_copy(update={"data_dir": tmp_path / "ws"})
    from memgate.core.events import TurnEvent

    with Workspace(settings, EMBEDDER) as ws:
        for t in (
            _turn("t1", "I use vim as my editor.", "2024-03-01T09:00:00Z"),
            _turn("t2", "My name is Bo.", "2024-03-02T09:00:00Z"),
        ):
            ws.process(TurnEvent.model_validate(t))
        before = {f.fact_id: f for f in ws.facts()}
        vim, name = sorted(before.values(), key=lambda f: f.source_turn_ids[0])
        new = vim.model_copy(update={"fact_id": "f-new", "value": "helix"})
        after = {
            **before,
            vim.fact_id: vim.model_copy(
                update={"status": FactStatus.SUPERSEDED, "superseded_by": "f-new"}
            ),
            name.fact_id: name.model_copy(update={"status": FactStatus.SUPERSEDED}),
            "f-new": new,
            "f-add": new.model_copy(update={"fact_id": "f-add", "key": "acme/bo/user/x"}),
        }
        diff, other = _store_diff(before, after)
        assert dict(diff) == {
            ("acme", "bo", "superseded", vim.key): 1,
            ("acme", "bo", "dropped", name.key): 1,
            ("acme", "bo", "added", "acme/bo/user/x"): 1,
        }
        assert other == []
        # a fact gone from the store, or pending turned superseded, is "other"
        gone = {k: v for k, v in after.items() if k != name.fact_id}
        assert _store_diff(before, gone)[1] == [name.fact_id]
        # no replay ran: the change's decision and history rows are missing
        lie = ReplayReport(
            applied=True, turns=2, users=1, counts={"dropped": 1}, by_tenant={}, by_reason={},
            changes=[ReplayChange(tenant_id="acme", user_id="bo", change="dropped",
                                  key=name.key, reason="x", old_fact_id=name.fact_id)],
        )  # fmt: skip
        bad = _versions(ws, lie, before, after)
        assert len(bad) == 2 and "no replay decision" in bad[0] and "replay_close" in bad[1]
