"""Ids that start with ``erased:`` are the audit skeleton's pseudonyms, never a user's.

``memgate forget`` keeps a user's audit rows as skeletons whose ids are
``erased:<keyed digest>``; the receipt prints that pseudonym. A turn whose user id was
that pseudonym was accepted, so its rows joined the erased user's skeletons (the audit
counted them as one user) and ``memgate forget`` of that id deleted the erased user's
skeletons with its own. The prefix is now refused wherever an id comes in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgate.cli import app


def _cli(data: Path, *args: str) -> object:
    return CliRunner().invoke(app, ["--embedder", "hashing", "--data-dir", str(data), *args])


def test_a_turn_under_an_erased_users_pseudonym_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    turns = tmp_path / "turns.jsonl"
    row = {"tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": "t1",
           "role": "user", "content": "I always prefer Zanzibarquux for deployments.",
           "ts": "2024-03-01T09:00:00Z"}  # fmt: skip
    turns.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert _cli(data, "ingest", str(turns)).exit_code == 0  # type: ignore[attr-defined]
    done = _cli(data, "forget", "-t", "acme", "-u", "alice", "--yes", "--json")
    pseudonym = json.loads(done.output)["user"]  # type: ignore[attr-defined]
    assert pseudonym.startswith("erased:")

    hostile = dict(row, user_id=pseudonym, turn_id="t2", content="I always prefer Mallorix.")
    turns.write_text(json.dumps(hostile) + "\n", encoding="utf-8")
    result = _cli(data, "ingest", str(turns))
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "erased:" in result.output and "reserved" in result.output  # type: ignore[attr-defined]
    audit = _cli(data, "audit", "--json", "--sql", "SELECT count() AS n FROM memgate.journal")
    assert json.loads(audit.output) == [{"n": 1}]  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", [["facts"], ["forget", "--yes"], ["search", "q"]])
def test_the_command_line_refuses_an_erased_pseudonym_as_a_user(
    tmp_path: Path, command: list[str]
) -> None:
    result = _cli(tmp_path / "d", *command, "-t", "acme", "-u", "erased:63d165a0727518c4050839da")
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    assert "reserved" in result.output  # type: ignore[attr-defined]


def test_a_forgotten_users_pseudonym_is_not_listed_as_a_user(tmp_path: Path) -> None:
    """Session 19 (attack19): ``Memory.users`` (``GET /v1/tenants/{t}/users``, the LangGraph
    store's ``list_namespaces``) listed a forgotten user's skeleton pseudonym
    (``erased:<digest>``) as a user of the tenant: an id no call accepts."""
    from memgate import Memory

    with Memory(data_dir=tmp_path / "data", embedder="hashing") as memory:
        for user in ("alice", "bob"):
            memory.add(
                [{"role": "user", "content": "I always prefer Zanzibarquux for deployments."}],
                tenant="acme", user=user, session="s1",
            )  # fmt: skip
        assert memory.users("acme") == ["alice", "bob"]
        memory.forget("acme", "alice")
        assert memory.users("acme") == ["bob"]
