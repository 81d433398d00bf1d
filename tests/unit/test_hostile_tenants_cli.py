"""Hostile tenants through the command line: ``memgate search/facts/forget/audit``.

One file ingested by ``memgate ingest`` holds random turns of owners whose ids
are built to be confused (``alice`` under ``acme``, ``Acme`` and ``acme1``;
a user ``acme``; the same turn ids in every tenant). Each command scoped to
one owner prints only that owner's facts and audit rows; ``forget`` of one
leaves the others' output unchanged; ids the rule refuses are a usage error
(exit 2, the character named, no traceback). ``audit`` with ``--user`` but no
``--tenant`` is refused: a user id names a person only within its tenant, and
the report would add up every tenant's ``alice``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from memgate.cli import app

TENANTS = ("acme", "Acme", "acme1")
USERS = ("alice", "Alice", "acme")
SENTENCES = ("I use {x} as my editor.", "We deploy with {x}.", "I live in {x}.")
WORDS = ("Neovim", "Helix", "Lisbon", "Oslo")


def _cli(data: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["--embedder", "hashing", "--data-dir", str(data), *args])


def _ok(data: Path, *args: str) -> Any:
    result = _cli(data, *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _owner_view(data: Path, t: str, u: str) -> tuple[list[dict[str, Any]], list[Any]]:
    facts = _ok(data, "facts", "-t", t, "-u", u, "--all", "--json")
    hits = _ok(data, "search", "editor deploy live", "-t", t, "-u", u, "-k", "50", "--json")
    return facts, hits


@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    drawn=st.lists(
        st.tuples(
            st.sampled_from(TENANTS),
            st.sampled_from(USERS),
            st.integers(0, len(SENTENCES) - 1),
            st.sampled_from(WORDS),
        ),
        min_size=3,
        max_size=6,
    ),
    victim=st.tuples(st.sampled_from(TENANTS), st.sampled_from(USERS)),
)
def test_every_command_scoped_to_an_owner_prints_only_that_owner(
    tmp_path_factory: pytest.TempPathFactory,
    drawn: list[tuple[str, str, int, str]],
    victim: tuple[str, str],
) -> None:
    tmp = tmp_path_factory.mktemp("cli")
    data, path = tmp / "data", tmp / "turns.jsonl"
    said: dict[tuple[str, str, str], str] = {}
    rows = []
    for i, (t, u, s, w) in enumerate(drawn):
        turn_id = f"{u}.{sum(1 for k in said if k[:2] == (t, u))}"
        said[(t, u, turn_id)] = SENTENCES[s].format(x=w)
        rows.append({
            "tenant_id": t, "user_id": u, "session_id": "s1", "turn_id": turn_id,
            "role": "user", "content": said[(t, u, turn_id)], "ts": f"2024-03-01T09:{i:02d}:00Z",
        })  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = _cli(data, "ingest", str(path))
    assert result.exit_code == 0, result.output

    views = {}
    for t in TENANTS:
        for u in USERS:
            facts, hits = _owner_view(data, t, u)
            for f in facts:
                assert (f["tenant_id"], f["user_id"]) == (t, u)
                for turn_id in f["source_turn_ids"]:
                    assert f["value"].split()[0] in said[(t, u, turn_id)]
            assert {h["fact"]["fact_id"] for h in hits} <= {f["fact_id"] for f in facts}
            journal = _ok(data, "audit", "--sql", "SELECT tenant_id, user_id, turn_id FROM "
                          "journal FINAL WHERE tenant_id = {tenant:String} AND user_id = "
                          "{user:String}", "-t", t, "-u", u, "--json")  # fmt: skip
            got = {(r["tenant_id"], r["user_id"], r["turn_id"]) for r in journal}
            assert got == {k for k in said if k[:2] == (t, u)}
            daily = _ok(data, "audit", "daily", "-t", t, "-u", u, "--json")
            assert sum(r["turns"] for r in daily) == len(got)
            views[(t, u)] = facts
    assert any(views.values()), "no owner holds a fact: the isolation checks read nothing"

    result = _cli(data, "forget", "-t", victim[0], "-u", victim[1], "--yes")
    assert result.exit_code == (0 if views[victim] or any(k[:2] == victim for k in said) else 1)
    for owner, facts in views.items():
        after = _ok(data, "facts", "-t", owner[0], "-u", owner[1], "--all", "--json")
        assert after == ([] if owner == victim else facts), owner


@pytest.mark.parametrize(
    "bad", ["acme/alice", "acme\x1b[2J", "\u0430cme", "acme\u202e", "ac me", "ａcme"]
)
@pytest.mark.parametrize("command", ["search", "facts", "forget", "audit"])
def test_a_refused_id_is_a_usage_error(tmp_path: Path, bad: str, command: str) -> None:
    args = {
        "search": ["search", "editor", "-t", bad, "-u", "alice"],
        "facts": ["facts", "-t", "acme", "-u", bad],
        "forget": ["forget", "-t", bad, "-u", "alice", "--yes"],
        "audit": ["audit", "daily", "-t", bad],
    }[command]
    result = _cli(tmp_path / "data", *args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output
    assert "ids are" in result.output or "look-alike" in result.output
    assert not (tmp_path / "data").exists()


def test_audit_with_a_user_but_no_tenant_is_refused(tmp_path: Path) -> None:
    result = _cli(tmp_path / "data", "audit", "daily", "-u", "alice")
    assert result.exit_code == 2, result.output
    assert "--user needs --tenant" in result.output
    assert "Traceback" not in result.output
