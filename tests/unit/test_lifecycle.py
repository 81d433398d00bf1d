"""`memgate consolidate` / Memory.consolidate on the embedded stores: every change is in the
audit store (decision records with reasons, fact history rows, policy version), a dry run
writes nothing, a second run changes nothing; the store-level behaviour of each job is the
lifecycle contract (tests/contracts/lifecycle.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgate import Memory
from memgate.cli import app
from memgate.core.tenant_policy import RetentionPolicy, TenantPolicy

EPISODES = [
    ("s1", "Yesterday I went to the dentist."),
    ("s2", "I went to a concert on Friday."),
    ("s3", "I ran a marathon last Sunday."),
    ("s4", "I went to my sister's wedding."),
]
NOW = datetime(2024, 3, 20, tzinfo=UTC)


def turns(user: str = "alice") -> list[dict[str, object]]:
    return [
        {
            "tenant_id": "acme", "user_id": user, "session_id": s, "turn_id": f"{user}-{i}",
            "role": "user", "content": text, "ts": f"2024-03-0{i + 1}T09:00:00Z",
        }
        for i, (s, text) in enumerate(EPISODES)
    ]  # fmt: skip


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    policies = {"acme": TenantPolicy(retention=RetentionPolicy(episodic_max=2))}
    with Memory(data_dir=tmp_path, embedder="hashing", tenant_policies=policies) as m:
        m.add(turns())
        m.add(turns("bob"))
        yield m


def test_retention_writes_its_reasons_to_the_audit_store(mem: Memory) -> None:
    assert len(mem.get_all("acme", "alice")) == 4
    dry = mem.consolidate("acme", "alice", now=NOW, dry_run=True)
    assert dry.decisions == {"retire": 2} and len(mem.get_all("acme", "alice")) == 4
    done = mem.consolidate("acme", "alice", now=NOW)
    assert done.decisions == {"retire": 2} and done.facts_deleted == 2
    assert done.by_tenant == {"acme": {"retire": 2}} and done.by_reason == {"over_cap": 2}
    facts = mem.get_all("acme", "alice")
    assert sorted(f.type for f in facts) == ["event", "event", "fact"]
    (digest,) = [f for f in facts if f.predicate == "episode_digest"]
    assert digest.provenance.source_turn_ids == ["alice-0", "alice-1"]  # the provenance is kept
    audit = mem._open().audit
    _, rows = audit.query(
        "SELECT stage, verdict, reason, policy_version FROM decisions FINAL "
        "WHERE stage = 'retention' AND user_id = 'alice'"
    )
    version = TenantPolicy(retention=RetentionPolicy(episodic_max=2)).version()
    assert rows == [("retention", "retire", "over_cap", f"lifecycle-1+balanced-1+{version}")] * 2
    _, hist = audit.query(
        "SELECT action, count() FROM fact_history FINAL WHERE user_id = 'alice' "
        "AND action IN ('retire', 'digest') GROUP BY action ORDER BY action"
    )
    assert hist == [("digest", 1), ("retire", 2)]
    # bob is untouched by a run scoped to alice, and a second run changes nothing
    assert len(mem.get_all("acme", "bob")) == 4
    again = mem.consolidate("acme", "alice", now=NOW)
    assert again.changed_users == 0 and again.decisions == {}


def test_a_run_over_every_user_then_changes_nothing(mem: Memory) -> None:
    first = mem.consolidate(now=NOW)
    assert first.users == 2 and first.changed_users == 2 and first.decisions == {"retire": 4}
    second = mem.consolidate(now=NOW)
    assert (second.users, second.changed_users, second.decisions) == (2, 0, {})


def test_the_command_prints_json_and_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in turns()), encoding="utf-8")
    base = ["--embedder", "hashing", "--data-dir", str(tmp_path / "d")]
    cfg = tmp_path / "memgate.toml"
    cfg.write_text("[tenant_policies.acme.retention]\nepisodic_max = 1\n", encoding="utf-8")
    cli = CliRunner()
    assert cli.invoke(app, [*base, "--config", str(cfg), "ingest", str(path)]).exit_code == 0
    args = [*base, "--config", str(cfg), "consolidate", "--now", "2024-03-20T00:00:00Z", "--json"]
    first = cli.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["decisions"] == {"retire": 3}
    second = cli.invoke(app, args)
    assert json.loads(second.stdout)["decisions"] == {}
    bad = cli.invoke(app, [*base, "consolidate", "-u", "alice"])
    assert bad.exit_code == 2 and "--user needs --tenant" in bad.output
