"""After an erasure the OpenSearch store merges the deleted documents out of its segments
(forcemerge only_expunge_deletes on the facts and usage indices): bounded, reported per
index, never raised, even when the server is down or hangs. No server needed: a loopback
port nothing listens on, and a listener that never answers. (The merge on a real node, and
the receipt that lists it: tests/integration/test_ops_int.py.)"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from memgate.core.settings import load_settings
from memgate.core.stores import ExpungingRetrieval
from memgate.receipts import expunge
from memgate.sinks.embedded import EmbeddedIndex
from memgate.sinks.opensearch import OpenSearchStore
from memgate.sinks.opensearch_erasure import EXPUNGE_ACTION
from tests.unit.netfaults import Silent, closed_port


def _store(tmp_path: Path, url: str) -> OpenSearchStore:
    s = load_settings(data_dir=tmp_path, opensearch_url=url, opensearch_index="facts-x",
                      retry_max_attempts=1)  # fmt: skip
    return OpenSearchStore.from_settings(s, dim=4)


def test_a_server_that_is_down_is_reported_per_index_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = _store(tmp_path, f"http://127.0.0.1:{closed_port()}")
    assert isinstance(store, ExpungingRetrieval)
    with caplog.at_level(logging.WARNING, logger="memgate.sinks.opensearch"):
        records = expunge(store)
    assert [(r["index"], r["action"]) for r in records] == [
        ("facts-x", EXPUNGE_ACTION), ("usage.facts-x", EXPUNGE_ACTION),
    ]  # fmt: skip
    assert all(r["outcome"].startswith("failed: ") for r in records), records
    ours = [r for r in caplog.records if r.name == "memgate.sinks.opensearch"]
    assert len(ours) == 2 and not any(r.exc_info for r in ours)
    assert all("_forcemerge?only_expunge_deletes=true" in r.getMessage() for r in ours)
    store.close()


def test_a_hung_server_is_waited_for_at_most_the_timeout_per_index(tmp_path: Path) -> None:
    with Silent() as hung:
        store = _store(tmp_path, f"http://127.0.0.1:{hung.port}")
        store.expunge_timeout_s = 0.5
        t0 = time.monotonic()
        records = store.expunge_deleted()
        took = time.monotonic() - t0
        store.close()
    assert [r["outcome"] for r in records] == [
        "timed out after 0.5 s; OpenSearch goes on merging on its own"
    ] * 2
    assert took < 4.0 and hung.held


def test_the_embedded_index_needs_no_merge_in_the_receipt(tmp_path: Path) -> None:
    index = EmbeddedIndex(tmp_path / "retrieval.sqlite3", dim=4)
    assert not isinstance(index, ExpungingRetrieval) and expunge(index) == []
    index.close()
