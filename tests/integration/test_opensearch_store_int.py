"""OpenSearchStore against a real OpenSearch node (k-NN plugin, Lucene engine).

Start it with ``bash deploy/local/services.sh up opensearch``; the URL comes
from ``MEMGATE_OPENSEARCH_URL`` (default http://127.0.0.1:19200). When the
node is unreachable every test here fails (never skips) and says so.

The retry tests put a real HTTP server on 127.0.0.1 between the store and
OpenSearch: it answers some ``_bulk`` requests (or some of their items) with
429 and forwards everything else.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import pytest
from opensearchpy import OpenSearch  # type: ignore[import-untyped,unused-ignore]
from pydantic import SecretStr

from memgate.core.errors import ConfigError, PermanentError, StoreError, TransientError
from memgate.core.events import FactStatus, StoredFact
from memgate.core.settings import Settings
from memgate.core.stores import SearchQuery
from memgate.sinks.opensearch import (
    RETRIEVAL_VECTOR_FIELD,
    SEARCH_TEXT_FIELD,
    BulkItemError,
    OpenSearchStore,
)
from tests.contracts.lifecycle import LifecycleContract
from tests.contracts.retrieval import DIM, RetrievalStoreContract

pytestmark = pytest.mark.integration

URL = os.environ.get("MEMGATE_OPENSEARCH_URL", "http://127.0.0.1:19200")

helper = RetrievalStoreContract()


def _new_client(url: str = URL) -> OpenSearch:
    return OpenSearch(hosts=[url], max_retries=0, retry_on_timeout=False, timeout=30)


@pytest.fixture(scope="module")
def os_client() -> Iterator[OpenSearch]:
    client = _new_client()
    try:
        info = client.info()
        plugins = client.cat.plugins(format="json")
    except Exception as exc:
        client.close()
        pytest.fail(
            f"OpenSearch is not reachable at {URL} ({type(exc).__name__}: {exc}). "
            "Start it with `bash deploy/local/services.sh up opensearch` or point "
            "MEMGATE_OPENSEARCH_URL at a running node.",
            pytrace=False,
        )
    if not any("knn" in str(p.get("component", "")).lower() for p in plugins):
        client.close()
        pytest.fail(f"OpenSearch at {URL} has no k-NN plugin: {plugins}", pytrace=False)
    assert info["version"]["number"]
    yield client
    client.close()


def _drop(client: OpenSearch, index: str) -> None:
    client.indices.delete(index=f"{index}*", params={"ignore_unavailable": "true"})
    client.indices.delete_index_template(name=f"{index}-template", params={"ignore": 404})


@pytest.fixture
def index_name(os_client: OpenSearch) -> Iterator[str]:
    name = f"memgate-test-{uuid.uuid4().hex[:12]}"
    yield name
    _drop(os_client, name)


@pytest.fixture
def store(os_client: OpenSearch, index_name: str) -> Iterator[OpenSearchStore]:
    s = OpenSearchStore(os_client, index_name, DIM, backoff_s=0.01)
    s.ensure_index()
    yield s
    s.close()


class TestOpenSearchStore(LifecycleContract):
    """The retrieval contract, and usage (its own index ``usage.<index>``) and delete_fact."""

    def refresh(self, store: OpenSearchStore) -> None:  # type: ignore[override]
        store.client.indices.refresh(index=store.index)

    @pytest.fixture
    def store(self, os_client: OpenSearch, index_name: str) -> Iterator[OpenSearchStore]:
        s = OpenSearchStore(os_client, index_name, dim=self.DIM, backoff_s=0.01)
        s.ensure_index()
        yield s
        s.close()
        os_client.indices.delete(index=s.usage_index, params={"ignore_unavailable": "true"})


# -- the index ---------------------------------------------------------------------------


def test_template_and_index_have_the_lucene_knn_mapping(
    store: OpenSearchStore, os_client: OpenSearch, index_name: str
) -> None:
    got = os_client.indices.get_index_template(name=f"{index_name}-template")
    (tpl,) = got["index_templates"]
    body = tpl["index_template"]
    assert body["index_patterns"] == [f"{index_name}*"]
    settings = body["template"]["settings"]["index"]
    assert str(settings["knn"]).lower() == "true"
    assert str(settings["number_of_shards"]) == "1"
    assert str(settings["number_of_replicas"]) == "0"
    mappings = body["template"]["mappings"]
    assert mappings["dynamic"] == "strict"
    emb = mappings["properties"]["embedding"]
    assert emb["type"] == "knn_vector"
    assert emb["dimension"] == DIM
    assert emb["method"]["name"] == "hnsw"
    assert emb["method"]["engine"] == "lucene"
    assert emb["method"]["space_type"] == "cosinesimil"
    assert emb["method"]["parameters"] == {"m": 16, "ef_construction": 128}
    extra = {SEARCH_TEXT_FIELD, RETRIEVAL_VECTOR_FIELD, "embedding_f32", "search_embedding_f32"}
    assert (
        set(mappings["properties"]) == set(StoredFact.model_fields) - {"search_embedding"} | extra
    )
    assert mappings["properties"][RETRIEVAL_VECTOR_FIELD] == emb
    assert mappings["_source"] == {
        "excludes": ["embedding", "search_embedding", RETRIEVAL_VECTOR_FIELD]}  # fmt: skip
    assert mappings["_meta"] == {"memgate_mapping_version": 3}

    live = os_client.indices.get_mapping(index=index_name)[index_name]["mappings"]
    assert live["properties"]["embedding"]["method"]["engine"] == "lucene"
    props = live["properties"]
    for f in ("text", "context"):
        assert props[f] == {
            "type": "text",
            "analyzer": "memgate_text",
            "copy_to": [SEARCH_TEXT_FIELD],
        }, f
    assert props[SEARCH_TEXT_FIELD] == {"type": "text", "analyzer": "memgate_text"}
    for f in ("tenant_id", "user_id", "key", "status", "fact_id", "source_turn_ids"):
        assert props[f]["type"] == "keyword", f
    for f in ("valid_from", "valid_to", "recorded_at", "superseded_at", "first_seen"):
        assert props[f]["type"] == "date", f
    live_settings = os_client.indices.get_settings(index=index_name)[index_name]["settings"]
    assert live_settings["index"]["knn"] == "true"


def test_the_template_shapes_any_index_of_the_pattern(
    store: OpenSearchStore, os_client: OpenSearch, index_name: str
) -> None:
    other = f"{index_name}-v2"
    os_client.indices.create(index=other)  # no body: the template gives the mapping
    props = os_client.indices.get_mapping(index=other)[other]["mappings"]["properties"]
    assert props["embedding"]["type"] == "knn_vector"
    assert props["embedding"]["method"]["engine"] == "lucene"
    assert props["embedding"]["dimension"] == DIM


def test_the_first_write_creates_a_missing_index_with_its_mapping(
    os_client: OpenSearch, index_name: str
) -> None:
    s = OpenSearchStore(os_client, index_name, DIM)
    s.upsert([helper.make_fact("vim")], wait=True)
    props = os_client.indices.get_mapping(index=index_name)[index_name]["mappings"]["properties"]
    assert props["embedding"]["method"]["engine"] == "lucene"
    assert s.stats()[FactStatus.ACTIVE.value] == 1


def test_ensure_index_is_idempotent_and_checks_the_dimension(
    store: OpenSearchStore, os_client: OpenSearch, index_name: str
) -> None:
    store.ensure_index()
    store.upsert([helper.make_fact("vim")], wait=True)
    store.ensure_index()
    assert len(store.list_facts("acme", "u1")) == 1
    with pytest.raises(ConfigError, match=f"{DIM}-dimensional"):
        OpenSearchStore(os_client, index_name, DIM * 2).ensure_index()


def test_the_retrieval_vector_is_indexed_but_not_returned(
    store: OpenSearchStore, os_client: OpenSearch, index_name: str
) -> None:
    fact = helper.make_fact(
        "vim", context="we took the canoe out", search_embedding=helper.embed("canoe trip")
    )
    store.upsert([fact], wait=True)
    raw = os_client.get(index=index_name, id=fact.fact_id)["_source"]
    assert RETRIEVAL_VECTOR_FIELD not in raw
    assert raw["context"] == "we took the canoe out"
    hits = store.search(
        SearchQuery(tenant_id="acme", user_id="u1", text="canoe"), helper.vector("canoe trip")
    )
    assert (hits[0].bm25_rank, hits[0].vector_rank) == (1, 1)


def test_a_subject_read_without_vectors_leaves_them_out_and_finds_the_same_facts(
    store: OpenSearchStore,
) -> None:
    facts = [helper.make_fact(v, search_embedding=helper.embed(f"{v} x")) for v in ("vim", "emacs")]
    store.upsert(facts, wait=True)
    full = store.by_subject("acme", "u1", "user")
    light = store.by_subject("acme", "u1", "user", vectors=False)
    assert [f.fact_id for f in light] == [f.fact_id for f in full] and len(full) == 2
    assert all(f.embedding is not None and f.search_embedding is not None for f in full)
    assert all(f.embedding is None and f.search_embedding is None for f in light)
    assert [f.value for f in light] == [f.value for f in full]


def test_an_index_with_the_older_mapping_is_refused_with_advice(
    os_client: OpenSearch, index_name: str
) -> None:
    old = f"{index_name}-old"
    # what mapping version 1 created: no context, search_text or retrieval vector
    os_client.indices.create(
        index=old,
        body={
            "settings": {"index": {"knn": True, "number_of_replicas": 0}},
            "mappings": {
                "properties": {
                    "text": {"type": "text"},
                    "embedding": {
                        "type": "knn_vector",
                        "dimension": DIM,
                        "method": {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"},
                    },
                }
            },
        },
    )
    with pytest.raises(ConfigError, match=r"older memgate mapping.*re-ingest"):
        OpenSearchStore(os_client, old, DIM).ensure_index()


def test_a_missing_index_is_a_clear_store_error(os_client: OpenSearch, index_name: str) -> None:
    s = OpenSearchStore(os_client, index_name, DIM)
    with pytest.raises(StoreError, match="ensure_index"):
        s.list_facts("acme", "u1")
    with pytest.raises(StoreError, match="ensure_index"):
        s.search(SearchQuery(tenant_id="acme", user_id="u1", text="vim"), helper.vector("vim"))


def test_bad_arguments_are_config_errors(os_client: OpenSearch) -> None:
    with pytest.raises(ConfigError):
        OpenSearchStore(os_client, "memgate-x", 0)
    with pytest.raises(ConfigError, match="index name"):
        OpenSearchStore(os_client, "Memgate*", DIM)


def test_from_settings(index_name: str) -> None:
    settings = Settings(opensearch_url=URL, opensearch_index=index_name)
    with OpenSearchStore.from_settings(settings, DIM) as s:
        assert s.max_retries == settings.retry_max_attempts - 1
        s.ensure_index()
        fact = helper.make_fact("vim")
        s.upsert([fact], wait=True)
        helper.assert_same(s.get("acme", "u1", fact.fact_id), fact)
    with pytest.raises(StoreError, match="closed"):
        s.stats()
    with pytest.raises(ConfigError, match="opensearch_password"):
        OpenSearchStore.from_settings(
            Settings(opensearch_url=URL, opensearch_username="memgate"), DIM
        )
    authed = OpenSearchStore.from_settings(
        Settings(
            opensearch_url=URL,
            opensearch_username="memgate",
            opensearch_password=SecretStr("s3cret"),
        ),
        DIM,
    )
    conn = authed._client.transport.connection_pool.connections[0]
    assert conn.headers["authorization"].startswith("Basic ")
    authed.close()


# -- writes ------------------------------------------------------------------------------


def test_a_fact_id_of_another_tenant_is_not_overwritten_and_the_batch_is_refused(
    store: OpenSearchStore,
) -> None:
    theirs = helper.make_fact("vim", tenant_id="globex", fact_id="shared-id")
    store.upsert([theirs], wait=True)
    innocent = helper.make_fact("python", predicate="language")
    hostile = helper.make_fact("emacs", fact_id="shared-id")
    with pytest.raises(PermanentError, match="shared-id"):
        store.upsert([innocent, hostile], wait=True)
    assert store.get("acme", "u1", innocent.fact_id) is None  # nothing of the batch
    helper.assert_same(store.get("globex", "u1", "shared-id"), theirs)
    assert store.get("acme", "u1", "shared-id") is None


class _Extended(StoredFact):
    """A fact of a newer schema: one field the index does not map."""

    mood: str = "curious"


def test_a_mapping_error_is_permanent_and_names_the_fact(store: OpenSearchStore) -> None:
    good = helper.make_fact("vim")
    bad = _Extended.model_validate(helper.make_fact("tabs", predicate="indent").model_dump())
    with pytest.raises(PermanentError, match=bad.fact_id) as info:
        store.upsert([good, bad], wait=True)
    assert isinstance(info.value, BulkItemError)
    assert list(info.value.failures) == [bad.fact_id]
    assert "strict_dynamic_mapping_exception" in info.value.failures[bad.fact_id]
    assert "mood" in str(info.value)
    # the valid fact of the batch is written (bulk is per item; a rewrite is idempotent)
    helper.assert_same(store.get("acme", "u1", good.fact_id), good)
    assert store.get("acme", "u1", bad.fact_id) is None


def test_a_dimension_mismatch_in_the_index_is_permanent(
    store: OpenSearchStore, os_client: OpenSearch, index_name: str
) -> None:
    # a store opened with another dimension, without ensure_index: the server refuses
    small = OpenSearchStore(os_client, index_name, 8)
    fact = helper.make_fact("vim", embedding=[0.5] * 4 + [0.0] * 4)
    with pytest.raises(PermanentError, match=fact.fact_id) as info:
        small.upsert([fact])
    assert "dimension" in str(info.value).lower()


def test_invalid_embeddings_are_refused_before_writing(store: OpenSearchStore) -> None:
    ok = helper.make_fact("python", predicate="language")
    with pytest.raises(PermanentError, match="dim=64"):
        store.upsert([ok, helper.make_fact("vim", embedding=[0.1] * 3)], wait=True)
    with pytest.raises(PermanentError, match="zero embedding"):
        store.upsert([ok, helper.make_fact("vim", embedding=[0.0] * DIM)], wait=True)
    assert store.list_facts("acme", "u1") == []
    with pytest.raises(ValueError, match="dim=64"):
        store.nearest("acme", "u1", np.ones(3))


def test_a_fact_without_embedding_is_found_by_bm25_only(store: OpenSearchStore) -> None:
    fact = helper.make_fact("vim").model_copy(update={"embedding": None})
    store.upsert([fact], wait=True)
    hits = store.search(
        SearchQuery(tenant_id="acme", user_id="u1", text="vim"), helper.vector("vim")
    )
    assert [(h.bm25_rank, h.vector_rank) for h in hits] == [(1, None)]
    assert store.get("acme", "u1", fact.fact_id) == fact


def test_a_zero_query_vector_uses_bm25_only(store: OpenSearchStore) -> None:
    store.upsert([helper.make_fact("vim")], wait=True)
    hits = store.search(SearchQuery(tenant_id="acme", user_id="u1", text="vim"), np.zeros(DIM))
    assert [(h.bm25_rank, h.vector_rank) for h in hits] == [(1, None)]
    assert store.nearest("acme", "u1", np.zeros(DIM)) == []


def test_many_facts_across_chunks_and_pages(store: OpenSearchStore) -> None:
    facts = [helper.make_fact(f"v{i}", predicate=f"p{i}") for i in range(1200)]
    store.upsert(facts, wait=True)
    got = store.list_facts("acme", "u1")
    assert len(got) == 1200
    assert [f.recorded_at for f in got] == sorted(f.recorded_at for f in got)
    assert store.stats()[FactStatus.ACTIVE.value] == 1200
    assert store.forget("acme", "u1") == 1200
    assert store.stats()[FactStatus.ACTIVE.value] == 0


# -- retries through a real HTTP server ----------------------------------------------------


class _FlakyProxy:
    """An HTTP server on 127.0.0.1 that forwards to OpenSearch, misbehaving on ``_bulk``.

    * ``reject_bulks``: answer this many ``_bulk`` requests with 429 (nothing forwarded);
    * ``reject_items``: in the next forwarded ``_bulk``, forward only every other item
      and answer the others with a per-item 429;
    * ``lose_responses``: forward this many ``_bulk`` requests but answer 502 (the
      writes happened, the client does not know).
    """

    def __init__(self, upstream: str) -> None:
        self.upstream = urlsplit(upstream)
        self.reject_bulks = 0
        self.reject_items = False
        self.lose_responses = 0
        self.bulk_requests = 0
        self.bulk_paths: list[str] = []
        self.forwarded_bulk_ids: list[list[str]] = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status, headers, payload = proxy.handle(
                    self.command, self.path, dict(self.headers.items()), body
                )
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(
            self.upstream.hostname or "127.0.0.1", self.upstream.port or 9200, timeout=60
        )
        try:
            fwd = {k: v for k, v in headers.items() if k.lower() in ("content-type", "accept")}
            conn.request(method, path, body=body or None, headers=fwd)
            resp = conn.getresponse()
            payload = resp.read()
            ctype = resp.getheader("Content-Type", "application/json")
            return resp.status, {"Content-Type": ctype}, payload
        finally:
            conn.close()

    def handle(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        if "/_bulk" not in path:
            return self.forward(method, path, headers, body)
        with self.lock:
            self.bulk_requests += 1
            self.bulk_paths.append(path)
            if self.reject_bulks > 0:
                self.reject_bulks -= 1
                error = {
                    "error": {
                        "type": "rejected_execution_exception",
                        "reason": "rejected execution of bulk (test proxy)",
                    },
                    "status": 429,
                }
                return 429, {"Content-Type": "application/json"}, json.dumps(error).encode()
            reject_items, self.reject_items = self.reject_items, False
            lose = self.lose_responses > 0
            if lose:
                self.lose_responses -= 1
        lines = body.decode().splitlines()
        pairs = [(lines[i], lines[i + 1]) for i in range(0, len(lines), 2)]
        ids = [next(iter(json.loads(a).values()))["_id"] for a, _ in pairs]
        keep = [i for i in range(len(pairs)) if not reject_items or i % 2 == 0]
        fwd_body = "".join(f"{pairs[i][0]}\n{pairs[i][1]}\n" for i in keep).encode()
        status, rheaders, payload = self.forward(method, path, headers, fwd_body)
        with self.lock:
            self.forwarded_bulk_ids.append([ids[i] for i in keep])
        if lose:
            return 502, {"Content-Type": "text/plain"}, b"bad gateway (test proxy)"
        if not reject_items or status != 200:
            return status, rheaders, payload
        real = iter(json.loads(payload)["items"])
        items = []
        for i, (action, _) in enumerate(pairs):
            if i in keep:
                items.append(next(real))
            else:
                op = next(iter(json.loads(action)))
                items.append(
                    {
                        op: {
                            "_id": ids[i],
                            "status": 429,
                            "error": {
                                "type": "es_rejected_execution_exception",
                                "reason": "rejected execution (test proxy)",
                            },
                        }
                    }
                )
        out = {"took": 1, "errors": True, "items": items}
        return 200, {"Content-Type": "application/json"}, json.dumps(out).encode()


@pytest.fixture
def proxy(os_client: OpenSearch) -> Iterator[_FlakyProxy]:
    p = _FlakyProxy(URL)
    yield p
    p.close()


@pytest.fixture
def proxied(
    proxy: _FlakyProxy, index_name: str, store: OpenSearchStore
) -> Iterator[OpenSearchStore]:
    """A second store on the same index, talking through the proxy."""
    client = _new_client(proxy.url)
    s = OpenSearchStore(client, index_name, DIM, max_retries=4, backoff_s=0.05, close_client=True)
    yield s
    s.close()


def _facts(n: int) -> list[StoredFact]:
    return [helper.make_fact(f"value {i}", predicate=f"p{i}") for i in range(n)]


def test_a_throttled_bulk_request_is_retried_and_nothing_is_dropped(
    proxy: _FlakyProxy, proxied: OpenSearchStore, store: OpenSearchStore
) -> None:
    proxy.reject_bulks = 2
    facts = _facts(20)
    started = time.monotonic()
    proxied.upsert(facts, wait=True)
    assert proxy.bulk_requests == 3  # 429, 429, then forwarded
    assert proxy.forwarded_bulk_ids == [[f.fact_id for f in facts]]
    assert time.monotonic() - started >= 0.05 * 0.5 * 3  # backed off (0.05, then 0.1, jittered)
    assert {f.fact_id for f in store.list_facts("acme", "u1")} == {f.fact_id for f in facts}
    for f in facts:
        helper.assert_same(store.get("acme", "u1", f.fact_id), f)


def test_only_the_items_rejected_with_429_are_retried(
    proxy: _FlakyProxy, proxied: OpenSearchStore, store: OpenSearchStore
) -> None:
    proxy.reject_items = True
    facts = _facts(10)
    proxied.upsert(facts, wait=True)
    assert proxy.bulk_requests == 2
    first, second = proxy.forwarded_bulk_ids
    assert first == [f.fact_id for f in facts[::2]]
    assert second == [f.fact_id for f in facts[1::2]]  # only the rejected ones
    assert len(store.list_facts("acme", "u1")) == 10


def test_a_lost_response_is_retried_idempotently(
    proxy: _FlakyProxy, proxied: OpenSearchStore, store: OpenSearchStore
) -> None:
    facts = _facts(6)
    store.upsert(facts[:3], wait=True)  # some exist already, some are new
    proxy.lose_responses = 1
    rewritten = [f.model_copy(update={"occurrences": 2}) for f in facts]
    proxied.upsert(rewritten, wait=True)
    # forwarded (response lost), re-sent (409: they changed), re-read and written again
    assert proxy.bulk_requests == 3
    got = {f.fact_id: f for f in store.list_facts("acme", "u1")}
    assert set(got) == {f.fact_id for f in facts}
    assert all(f.occurrences == 2 for f in got.values())


def test_retries_run_out_with_a_transient_error(
    proxy: _FlakyProxy, proxied: OpenSearchStore, store: OpenSearchStore
) -> None:
    proxy.reject_bulks = 1000
    with pytest.raises(TransientError, match="5 attempts") as info:
        proxied.upsert(_facts(3), wait=True)
    assert "429" in str(info.value)
    assert info.value.retry_after is not None
    assert proxy.bulk_requests == 5  # max_retries=4 after the first
    assert store.list_facts("acme", "u1") == []


def test_an_unreachable_node_is_a_transient_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again at once: nothing listens there
    s = OpenSearchStore(
        _new_client(f"http://127.0.0.1:{port}"),
        "memgate-test-nowhere",
        DIM,
        max_retries=2,
        backoff_s=0.01,
        close_client=True,
    )
    with pytest.raises(TransientError, match="connection error"):
        s.upsert([helper.make_fact("vim")])
    with pytest.raises(TransientError, match="3 attempts"):
        s.search(SearchQuery(tenant_id="acme", user_id="u1", text="vim"), helper.vector("vim"))
    s.close()


def test_wait_and_refresh_on_write_make_the_write_wait_for_a_refresh(
    proxy: _FlakyProxy, index_name: str, store: OpenSearchStore
) -> None:
    plain = OpenSearchStore(_new_client(proxy.url), index_name, DIM, close_client=True)
    eager = OpenSearchStore(
        _new_client(proxy.url), index_name, DIM, refresh_on_write=True, close_client=True
    )
    facts = _facts(3)
    plain.upsert(facts[:1])
    plain.upsert(facts[1:2], wait=True)
    eager.upsert(facts[2:])
    assert ["refresh=wait_for" in p for p in proxy.bulk_paths] == [False, True, True]
    # wait_for: searchable on return, without an explicit refresh
    helper.assert_same(store.get("acme", "u1", facts[2].fact_id), facts[2])
    plain.close()
    eager.close()


def test_bm25_stems_and_folds_accents_like_the_embedded_index(store: OpenSearchStore) -> None:
    helper = RetrievalStoreContract()
    fact = helper.make_fact("café near the station", predicate="prefers")
    store.upsert([fact], wait=True)
    for text in ("cafe", "CAFÉ", "preferring", "stations"):
        hits = store.search(
            SearchQuery(tenant_id="acme", user_id="u1", text=text), helper.vector("unrelated")
        )
        assert hits and hits[0].bm25_rank == 1, text
