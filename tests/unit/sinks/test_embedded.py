"""EmbeddedIndex: the retrieval contract plus what only a SQLite file has."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgate.core.errors import ConfigError, PermanentError, StoreError
from memgate.core.events import FactStatus
from memgate.core.stores import SearchQuery
from memgate.sinks.embedded import SCHEMA_VERSION, EmbeddedIndex, fts_query
from tests.contracts.lifecycle import LifecycleContract
from tests.contracts.retrieval import DIM, RetrievalStoreContract


class TestEmbeddedIndex(LifecycleContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[EmbeddedIndex]:
        with EmbeddedIndex(tmp_path / "facts.db", dim=self.DIM) as s:
            yield s


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "index" / "facts.db"


@pytest.fixture
def index(path: Path) -> Iterator[EmbeddedIndex]:
    with EmbeddedIndex(path, dim=DIM) as s:
        yield s


helper = RetrievalStoreContract()


# -- the query builder ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("vim", '"vim"'),
        ("Which editor?", '"Which" OR "editor"'),
        ("vim VIM Vim", '"vim"'),
        ('NEAR(a b, 2) OR "c"*', '"NEAR" OR "a" OR "b" OR "2" OR "OR" OR "c"'),
        ("text:vim -emacs", '"text" OR "vim" OR "emacs"'),
        ("café naïve", '"café" OR "naïve"'),
        ("snake_case", '"snake_case"'),
        ('" * - : ( ) ^', None),
        ("___", None),
        ("", None),
    ],
)
def test_fts_query_quotes_every_term(text: str, expected: str | None) -> None:
    assert fts_query(text) == expected


def test_fts_query_caps_the_number_of_terms() -> None:
    q = fts_query(" ".join(f"w{i}" for i in range(500)), max_terms=10)
    assert q is not None
    assert q.count(" OR ") == 9


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(min_size=1, max_size=80))
def test_any_query_text_is_safe(index: EmbeddedIndex, text: str) -> None:
    if not index.list_facts("acme", "u1"):
        index.upsert([helper.make_fact("vim"), helper.make_fact("vim", tenant_id="globex")])
    hits = index.search(
        SearchQuery(tenant_id="acme", user_id="u1", text=text), helper.vector("editor")
    )
    assert [h.fact.tenant_id for h in hits] == ["acme"]


# -- the file -----------------------------------------------------------------------------


def test_file_layout(index: EmbeddedIndex, path: Path) -> None:
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        cols = {r[1] for r in con.execute("PRAGMA table_info(facts)")}
        assert {
            "fact_id",
            "tenant_id",
            "user_id",
            "key",
            "status",
            "predicate",
            "type",
            "valid_from",
            "valid_to",
            "recorded_at",
            "superseded_at",
            "doc",
            "embedding",
        } <= cols
        indexes = {
            r[0]: r[1]
            for r in con.execute("SELECT name, sql FROM sqlite_master WHERE type='index'")
        }
        assert "(tenant_id, user_id, key)" in (indexes["facts_by_key"] or "")
        assert "(tenant_id, user_id, status)" in (indexes["facts_by_status"] or "")
        fts = con.execute("SELECT sql FROM sqlite_master WHERE name = 'facts_fts'").fetchone()[0]
        assert "fts5" in fts
        assert "remove_diacritics 2" in fts
    finally:
        con.close()


def test_embedding_is_stored_as_float32_and_json_without_it(
    index: EmbeddedIndex, path: Path
) -> None:
    fact = helper.make_fact("vim")
    index.upsert([fact])
    con = sqlite3.connect(path)
    try:
        doc, blob = con.execute("SELECT doc, embedding FROM facts").fetchone()
    finally:
        con.close()
    assert "embedding" not in doc
    assert len(blob) == 4 * DIM
    np.testing.assert_array_equal(
        np.frombuffer(blob, dtype="<f4"), np.asarray(fact.embedding, dtype=np.float32)
    )


def test_data_survives_reopening(path: Path) -> None:
    fact = helper.make_fact("vim")
    with EmbeddedIndex(path, dim=DIM) as s:
        s.upsert([fact])
    with EmbeddedIndex(path, dim=DIM) as s:
        helper.assert_same(s.get("acme", "u1", fact.fact_id), fact)
        hits = s.search(
            SearchQuery(tenant_id="acme", user_id="u1", text="vim"), helper.vector("vim")
        )
        assert hits[0].bm25_rank == 1


def test_a_version_1_file_is_upgraded_in_place(path: Path) -> None:
    # the v1 layout: no search_embedding column
    path.parent.mkdir(parents=True)
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE facts (
            rid INTEGER PRIMARY KEY, fact_id TEXT NOT NULL UNIQUE, tenant_id TEXT NOT NULL,
            user_id TEXT NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL,
            predicate TEXT NOT NULL, type TEXT NOT NULL, valid_from INTEGER NOT NULL,
            valid_to INTEGER, recorded_at INTEGER NOT NULL, superseded_at INTEGER,
            doc TEXT NOT NULL, embedding BLOB);
        CREATE VIRTUAL TABLE facts_fts USING fts5(
            text, tokenize = 'porter unicode61 remove_diacritics 2');
        PRAGMA user_version = 1;
        """
    )
    old = helper.make_fact("vim")
    blob = np.asarray(old.embedding, dtype="<f4").tobytes()
    con.execute(
        "INSERT INTO facts (rid, fact_id, tenant_id, user_id, key, status, predicate, type, "
        "valid_from, recorded_at, doc, embedding) VALUES (1, ?, 'acme', 'u1', ?, 'active', "
        "'editor', 'preference', 0, 0, ?, ?)",
        (old.fact_id, old.key, old.model_dump_json(exclude={"embedding"}), blob),
    )
    con.execute("INSERT INTO facts_fts (rowid, text) VALUES (1, ?)", (old.text,))
    con.commit()
    con.close()
    with EmbeddedIndex(path, dim=DIM) as s:
        helper.assert_same(s.get("acme", "u1", old.fact_id), old)
        hits = s.search(
            SearchQuery(tenant_id="acme", user_id="u1", text="vim"),
            helper.vector("user editor vim"),
        )
        assert (hits[0].bm25_rank, hits[0].vector_rank) == (1, 1)
        new = helper.make_fact(
            "went to a support group",
            predicate="event",
            context="at the library",
            search_embedding=helper.embed("library"),
        )
        s.upsert([new])
        helper.assert_same(s.get("acme", "u1", new.fact_id), new)
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        con.close()


def test_reopening_with_another_dimension_is_refused(path: Path) -> None:
    with EmbeddedIndex(path, dim=DIM) as s:
        s.upsert([helper.make_fact("vim")])
    with pytest.raises(ConfigError, match="64-dimensional"):
        EmbeddedIndex(path, dim=DIM * 2)


def test_newer_schema_is_refused(path: Path) -> None:
    EmbeddedIndex(path, dim=DIM).close()
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(ConfigError, match="schema version"):
        EmbeddedIndex(path, dim=DIM)


def test_wrong_dimensions_are_refused(index: EmbeddedIndex) -> None:
    with pytest.raises(PermanentError, match="dim=64"):
        index.upsert([helper.make_fact("vim", embedding=[0.1] * 3)])
    with pytest.raises(ValueError, match="dim=64"):
        index.search(SearchQuery(tenant_id="acme", user_id="u1", text="vim"), np.ones(3))
    with pytest.raises(ValueError, match="dim=64"):
        index.nearest("acme", "u1", np.ones(DIM + 1))


def test_a_fact_id_of_another_tenant_is_not_overwritten_and_the_batch_is_atomic(
    index: EmbeddedIndex,
) -> None:
    theirs = helper.make_fact("vim", tenant_id="globex", fact_id="shared-id")
    index.upsert([theirs])
    innocent = helper.make_fact("python", predicate="language")
    hostile = helper.make_fact("emacs", fact_id="shared-id")
    with pytest.raises(PermanentError, match="shared-id"):
        index.upsert([innocent, hostile])
    assert index.get("acme", "u1", innocent.fact_id) is None  # nothing of the batch
    helper.assert_same(index.get("globex", "u1", "shared-id"), theirs)


def test_a_fact_without_embedding_is_found_by_bm25_only(index: EmbeddedIndex) -> None:
    fact = helper.make_fact("vim").model_copy(update={"embedding": None})
    index.upsert([fact])
    hits = index.search(
        SearchQuery(tenant_id="acme", user_id="u1", text="vim"), helper.vector("vim")
    )
    assert [(h.bm25_rank, h.vector_rank) for h in hits] == [(1, None)]
    assert index.get("acme", "u1", fact.fact_id) == fact


def test_stemming_and_diacritics(index: EmbeddedIndex) -> None:
    fact = helper.make_fact("café near the station", predicate="prefers")
    index.upsert([fact])
    for text in ("cafe", "CAFÉ", "preferring", "stations"):
        hits = index.search(
            SearchQuery(tenant_id="acme", user_id="u1", text=text), helper.vector("unrelated")
        )
        assert hits[0].bm25_rank == 1, text


def test_naive_as_of_is_refused_when_the_query_is_built() -> None:
    with pytest.raises(ValueError, match="time zone"):
        SearchQuery(tenant_id="acme", user_id="u1", text="vim", as_of=datetime(2024, 1, 1))


def test_empty_types_filter_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        SearchQuery(tenant_id="acme", user_id="u1", text="vim", types=())


def test_nearest_with_no_status_or_k_zero_is_empty(index: EmbeddedIndex) -> None:
    index.upsert([helper.make_fact("vim")])
    assert index.nearest("acme", "u1", helper.vector("vim"), statuses=()) == []
    assert index.nearest("acme", "u1", helper.vector("vim"), k=0) == []


def test_forget_leaves_no_trace_in_the_file(index: EmbeddedIndex, path: Path) -> None:
    secret = "zanzibarquux"
    index.upsert(
        [
            helper.make_fact(f"{secret} street", predicate="lives_on"),
            helper.make_fact("vim", predicate="uses", context=f"I moved to {secret} street"),
            helper.make_fact("vim", user_id="u2"),
        ]
    )
    # many more rows so that FTS holds several segments
    index.upsert([helper.make_fact(f"v{i}", predicate=f"p{i}", user_id="u3") for i in range(300)])
    assert index.forget("acme", "u1") == 2
    raw = b"".join(p.read_bytes() for p in path.parent.iterdir() if p.is_file())
    assert secret.encode() not in raw
    assert index.stats()[FactStatus.ACTIVE.value] == 301


def test_stats_lists_every_status(index: EmbeddedIndex) -> None:
    assert index.stats() == {"active": 0, "pending": 0, "superseded": 0}


def test_closed_index_raises_and_close_is_idempotent(path: Path) -> None:
    s = EmbeddedIndex(path, dim=DIM)
    s.close()
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.stats()


def test_bad_dim_is_a_config_error(path: Path) -> None:
    with pytest.raises(ConfigError):
        EmbeddedIndex(path, dim=0)


def test_threads_share_one_index(index: EmbeddedIndex) -> None:
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(25):
                index.upsert([helper.make_fact(f"w{n} v{i}", predicate=f"p{n}_{i}")])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader() -> None:
        try:
            for _ in range(25):
                index.search(
                    SearchQuery(tenant_id="acme", user_id="u1", text="user value"),
                    helper.vector("user value"),
                )
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    threads += [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert index.stats()[FactStatus.ACTIVE.value] == 100


def test_two_instances_on_one_file_see_each_others_writes(path: Path) -> None:
    with EmbeddedIndex(path, dim=DIM) as a, EmbeddedIndex(path, dim=DIM) as b:
        fact = helper.make_fact("vim")
        a.upsert([fact])
        helper.assert_same(b.get("acme", "u1", fact.fact_id), fact)


def test_a_file_that_is_not_sqlite_is_a_config_error(path: Path) -> None:
    path.parent.mkdir(parents=True)
    path.write_bytes(b"definitely not a database" * 100)
    with pytest.raises(ConfigError, match="cannot open"):
        EmbeddedIndex(path, dim=DIM)
