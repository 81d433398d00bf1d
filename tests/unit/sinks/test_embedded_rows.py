"""The embedded index keeps the facts it parsed, by their stored row (issue 14).

A row read again is answered with the fact parsed the first time (resolution reads
every fact of a speaker for each candidate); a rewritten row is parsed anew, never
answered with the old version; erasing facts empties what is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.sinks.embedded_rows import ROW_CACHE, RowCache, parse_fact
from tests.contracts.retrieval import DIM, RetrievalStoreContract

helper = RetrievalStoreContract()


@pytest.fixture
def index(tmp_path: Path) -> Iterator[EmbeddedIndex]:
    with EmbeddedIndex(tmp_path / "facts.db", dim=DIM) as s:
        yield s


def _values(facts: list[object]) -> list[str]:
    return [f.value for f in facts]  # type: ignore[attr-defined]


def test_a_row_read_again_is_the_fact_parsed_the_first_time(index: EmbeddedIndex) -> None:
    index.upsert([helper.make_fact("vim"), helper.make_fact("tea", predicate="drinks")])
    first = index.by_subject("acme", "u1", "user", qualified=True)
    again = index.by_subject("acme", "u1", "user", qualified=True)
    assert _values(first) == ["vim", "tea"] or _values(first) == ["tea", "vim"]
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert len(index._rows) == 2


def test_the_kept_fact_is_the_parsed_row(index: EmbeddedIndex) -> None:
    fact = helper.make_fact("vim", search_embedding=helper.embed("vim editor"))
    index.upsert([fact])
    (kept,) = index.by_subject("acme", "u1", "user", qualified=True)
    row = index._conn.execute(  # type: ignore[union-attr]
        "SELECT doc, embedding, search_embedding FROM facts"
    ).fetchone()
    assert kept == parse_fact(*row)
    helper.assert_same(kept, fact)


def test_a_rewritten_fact_is_read_in_its_new_version(index: EmbeddedIndex) -> None:
    fact = helper.make_fact("vim")
    index.upsert([fact])
    assert index.get("acme", "u1", fact.fact_id).status is FactStatus.ACTIVE  # type: ignore[union-attr]
    index.upsert([fact.model_copy(update={"status": FactStatus.SUPERSEDED})])
    assert index.get("acme", "u1", fact.fact_id).status is FactStatus.SUPERSEDED  # type: ignore[union-attr]
    assert index.by_subject("acme", "u1", "user", qualified=True) == []
    assert len(index._rows) == 1  # one version kept per fact


@pytest.mark.parametrize("erase", ["forget", "erase_fact", "delete_fact"])
def test_erasing_facts_empties_what_is_kept(index: EmbeddedIndex, erase: str) -> None:
    fact = helper.make_fact("vim")
    index.upsert([fact])
    assert index.get("acme", "u1", fact.fact_id) is not None
    assert len(index._rows) == 1
    if erase == "forget":
        index.forget("acme", "u1")
    else:
        getattr(index, erase)("acme", "u1", fact.fact_id)
    assert len(index._rows) == 0
    assert index.get("acme", "u1", fact.fact_id) is None


def test_what_is_kept_is_bounded() -> None:
    rows = RowCache(size=3)
    facts = [helper.make_fact(f"v{i}", predicate=f"p{i}") for i in range(5)]
    for f in facts:
        rows.fact(f.model_dump_json(exclude={"embedding", "search_embedding"}), None)
    assert len(rows) == 3
    assert RowCache().size == ROW_CACHE


def test_a_scan_without_vectors_reads_none_and_is_kept_beside_the_reading_with_them(
    index: EmbeddedIndex,
) -> None:
    """The paraphrase check's scan (``vectors=False``) leaves the vector blobs out; the
    two readings of one stored version are both kept (neither pushes the other out), and
    a rewrite drops both."""
    fact = helper.make_fact("vim", search_embedding=helper.embed("vim editor"))
    index.upsert([fact])
    (bare,) = index.by_subject("acme", "u1", "user", qualified=True, vectors=False)
    assert bare.embedding is None and bare.search_embedding is None
    assert bare == fact.model_copy(update={"embedding": None, "search_embedding": None})
    (full,) = index.by_subject("acme", "u1", "user", qualified=True)
    helper.assert_same(full, fact)
    assert full.embedding is not None
    (bare_again,) = index.by_subject("acme", "u1", "user", qualified=True, vectors=False)
    (full_again,) = index.by_key("acme", "u1", fact.key)
    assert bare_again is bare and full_again is full
    assert len(index._rows) == 2
    index.upsert([fact.model_copy(update={"value": "neovim"})])
    assert len(index._rows) == 0
    (bare,) = index.by_subject("acme", "u1", "user", qualified=True, vectors=False)
    assert bare.value == "neovim" and bare.embedding is None


def test_a_new_version_pushes_out_the_old_one_read_with_or_without_vectors() -> None:
    rows = RowCache()
    fact = helper.make_fact("vim")
    doc = fact.model_dump_json(exclude={"embedding", "search_embedding"})
    rows.fact(doc, b"\0" * 4 * DIM)
    rows.fact(doc, None)
    assert len(rows) == 2
    newer = fact.model_copy(update={"value": "neovim"})
    rows.fact(newer.model_dump_json(exclude={"embedding", "search_embedding"}), None)
    assert len(rows) == 1
    rows.fact(doc, b"\1" * 4 * DIM)  # the same document, other vectors: another version
    rows.fact(doc, b"\2" * 4 * DIM)
    assert len(rows) == 1


@pytest.mark.parametrize("vectors", [True, False])
def test_by_subject_keeps_the_newest_oldest_first_ties_by_id(
    index: EmbeddedIndex, vectors: bool
) -> None:
    """The documents are read by rowid after the rows are chosen on their ids: the same
    facts in the same order as one sorted query (recorded time, then the id as SQLite
    compares text: UTF-8 bytes), the limit keeping the newest."""
    t0 = datetime(2024, 5, 1, tzinfo=UTC)
    ids = ["b", "a", "é", "z", "Z", "ä1", "c"]
    facts = [
        helper.make_fact(
            f"v{i}",
            predicate=f"p{i}",
            fact_id=fid,
            recorded_at=t0 + timedelta(seconds=i // 3),  # three share each second
        )
        for i, fid in enumerate(ids)
    ]
    index.upsert(facts)
    index.upsert(
        [helper.make_fact("old", predicate="q", fact_id="old", status=FactStatus.SUPERSEDED)]
    )
    order = index._conn.execute(  # type: ignore[union-attr]
        "SELECT fact_id FROM facts WHERE status = 'active' ORDER BY recorded_at DESC, fact_id DESC"
    ).fetchall()
    expected = [r[0] for r in reversed(order)]
    got = index.by_subject("acme", "u1", "user", qualified=True, vectors=vectors)
    assert [f.fact_id for f in got] == expected
    assert expected[:3] == ["a", "b", "é"]  # the first second's three, by code point
    newest = index.by_subject("acme", "u1", "user", qualified=True, limit=4, vectors=vectors)
    assert [f.fact_id for f in newest] == expected[-4:]
    assert all((f.embedding is not None) is vectors for f in got)
