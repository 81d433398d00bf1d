"""EmbeddedIndex batches (one transaction over many writes) and the turns ledger."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from memgate.core.errors import PermanentError, StoreError
from memgate.sinks.embedded import EmbeddedIndex
from tests.contracts.retrieval import DIM, RetrievalStoreContract

helper = RetrievalStoreContract()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "facts.db"


@pytest.fixture
def index(path: Path) -> Iterator[EmbeddedIndex]:
    with EmbeddedIndex(path, dim=DIM) as s:
        yield s


def _outside(path: Path) -> tuple[int, int]:
    """(facts, turns) as another connection (another process) sees them."""
    with sqlite3.connect(path) as conn:
        return (
            conn.execute("SELECT count(*) FROM facts").fetchone()[0],
            conn.execute("SELECT count(*) FROM turns").fetchone()[0],
        )


def test_a_batch_is_visible_to_its_own_reads_and_to_others_only_once_committed(
    index: EmbeddedIndex, path: Path
) -> None:
    index.begin()
    assert index.in_batch
    index.upsert([helper.make_fact("vim")])
    index.upsert([helper.make_fact("emacs", predicate="other_editor")])
    index.record_turns([("acme", "t1", "u1", "d1")])
    assert len(index.list_facts("acme", "u1")) == 2  # the next candidate sees them
    assert index.seen_turns("acme", ["t1"]) == {"t1": ("u1", "d1")}
    assert _outside(path) == (0, 0)
    index.commit()
    assert not index.in_batch
    assert _outside(path) == (2, 1)


def test_a_rolled_back_batch_leaves_nothing(index: EmbeddedIndex, path: Path) -> None:
    index.begin()
    index.upsert([helper.make_fact("vim")])
    index.record_turns([("acme", "t1", "u1", "d1")])
    index.rollback()
    assert index.list_facts("acme", "u1") == [] and index.seen_turns("acme", ["t1"]) == {}
    assert _outside(path) == (0, 0)


def test_closing_with_an_open_batch_commits_nothing(path: Path) -> None:
    """What a crash does: the batch is lost whole (the runner then redoes it)."""
    store = EmbeddedIndex(path, dim=DIM)
    store.begin()
    store.upsert([helper.make_fact("vim")])
    store.close()
    with EmbeddedIndex(path, dim=DIM) as again:
        assert again.list_facts("acme", "u1") == []


def test_a_savepoint_undoes_part_of_a_batch(index: EmbeddedIndex, path: Path) -> None:
    index.begin()
    index.upsert([helper.make_fact("vim")])
    index.savepoint("turn")
    index.upsert([helper.make_fact("emacs", predicate="other_editor")])
    index.record_turns([("acme", "t2", "u1", "d2")])
    index.rollback_to("turn")
    index.savepoint("turn")
    index.record_turns([("acme", "t3", "u1", "d3")])
    index.release("turn")
    index.commit()
    assert [f.value for f in index.list_facts("acme", "u1")] == ["vim"]
    assert set(index.seen_turns("acme", ["t2", "t3"])) == {"t3"}
    assert _outside(path) == (1, 1)


def test_a_refused_upsert_inside_a_batch_undoes_only_itself(index: EmbeddedIndex) -> None:
    index.begin()
    index.upsert([helper.make_fact("vim")])
    theirs = helper.make_fact("nano", tenant_id="globex", fact_id="shared-id")
    mine = helper.make_fact("emacs", predicate="other_editor")
    index.upsert([theirs])
    with pytest.raises(PermanentError):
        index.upsert([mine, theirs.model_copy(update={"tenant_id": "acme"})])
    index.commit()
    assert [f.value for f in index.list_facts("acme", "u1")] == ["vim"]


def test_batch_misuse_is_a_clear_error(index: EmbeddedIndex) -> None:
    with pytest.raises(StoreError, match="needs an open batch"):
        index.savepoint("turn")
    index.begin()
    with pytest.raises(StoreError, match="already open"):
        index.begin()
    with pytest.raises(ValueError, match="plain identifier"):
        index.savepoint("x; DROP TABLE facts")
    index.rollback()
    index.commit()  # no batch: nothing to do


def test_the_ledger_is_per_tenant_and_keeps_the_latest_entry(index: EmbeddedIndex) -> None:
    index.record_turns([("acme", "t1", "u1", "d1"), ("globex", "t1", "u9", "d9")])
    assert index.seen_turns("acme", ["t1", "t2"]) == {"t1": ("u1", "d1")}
    assert index.seen_turns("globex", ["t1"]) == {"t1": ("u9", "d9")}
    many = [f"t{i}" for i in range(1200)]  # more ids than one IN list takes
    index.record_turns([("acme", t, "u1", "d") for t in many])
    assert len(index.seen_turns("acme", many)) == 1200
    index.record_turns([("acme", "t1", "u1", "d1b")])
    assert index.seen_turns("acme", ["t1"])["t1"] == ("u1", "d1b")


def test_a_version_2_file_gets_the_ledger(path: Path) -> None:
    with EmbeddedIndex(path, dim=DIM) as s:
        s.upsert([helper.make_fact("vim")])
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE turns")
        conn.execute("PRAGMA user_version = 2")
    with EmbeddedIndex(path, dim=DIM) as s:
        assert len(s.list_facts("acme", "u1")) == 1
        s.record_turns([("acme", "t1", "u1", "d1")])
        assert s.seen_turns("acme", ["t1"]) == {"t1": ("u1", "d1")}
