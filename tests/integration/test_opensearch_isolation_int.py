"""The hostile-tenant contract (tests/contracts/isolation.py) on a real OpenSearch node.

Every owner's facts share one index; each read names one owner and must see
only that owner's documents (``term`` filters on the keyword ids are
case-sensitive, a prefix of an id is another id). Uses the fixtures of
test_opensearch_store_int.py (the node at ``MEMGATE_OPENSEARCH_URL``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from opensearchpy import OpenSearch  # type: ignore[import-untyped,unused-ignore]

from memgate.sinks.opensearch import OpenSearchStore
from tests.contracts.isolation import IsolationContract
from tests.integration.test_opensearch_store_int import _drop, os_client  # noqa: F401

pytestmark = pytest.mark.integration


class TestOpenSearchIsolation(IsolationContract):
    def refresh(self, store: OpenSearchStore) -> None:  # type: ignore[override]
        store.client.indices.refresh(index=store.index)
        store.client.indices.refresh(index=store.usage_index, params={"ignore_unavailable": "true"})

    @pytest.fixture
    def store(self, os_client: OpenSearch) -> Iterator[OpenSearchStore]:  # noqa: F811
        name = f"memgate-iso-{uuid.uuid4().hex[:12]}"
        s = OpenSearchStore(os_client, name, dim=self.DIM, backoff_s=0.01)
        s.ensure_index()
        yield s
        s.close()
        os_client.indices.delete(index=s.usage_index, params={"ignore_unavailable": "true"})
        _drop(os_client, name)
