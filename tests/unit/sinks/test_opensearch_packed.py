"""Mapping version 3 of the OpenSearch store (packed vectors) beside version 2, against a
client that keeps documents as OpenSearch does (``_source`` filtered by the index's
``_source.excludes``), no server: tests/integration/test_opensearch_packed_int.py runs both
on one.

Version 3 keeps the vectors out of the stored ``_source`` (``embedding`` still sent as an
array, for k-NN) and packs them as base64 float32 in ``binary`` fields that the store decodes
bit-identical; a version-2 index gets the very documents it got before; the mapping check
takes 2 and 3 and refuses 1 and anything newer.
"""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

import numpy as np
import pytest
from opensearchpy.exceptions import AuthorizationException, NotFoundError

from memgate.core.errors import ConfigError
from memgate.core.events import StoredFact
from memgate.sinks.opensearch import OpenSearchStore
from memgate.sinks.opensearch_mapping import (
    MAPPING_VERSION,
    PACKED_FIELDS,
    RETRIEVAL_VECTOR_FIELD,
    index_body,
    mapping_version,
    pack_vector,
    unpack_vector,
)
from memgate.sinks.opensearch_template import template_body
from tests.contracts.retrieval import DIM, RetrievalStoreContract

Json = dict[str, Any]
INDEX = "memgate-packed"
_C = RetrievalStoreContract()


def _fact(context: str = "said over coffee", value: str = "vim") -> StoredFact:
    search = _C.embed(f"user editor {value} {context}") if context else None
    return _C.make_fact(value, context=context, search_embedding=search)


class Indices:
    def __init__(self, owner: Node) -> None:
        self.owner = owner

    def exists(self, *, index: str) -> bool:
        return index in self.owner.mappings

    def create(self, *, index: str, body: Json) -> Json:
        self.owner.mappings[index] = body["mappings"]
        return {"acknowledged": True}

    def put_index_template(self, *, name: str, body: Json) -> Json:
        if not self.owner.may_put:
            info = {"error": {"type": "security_exception", "reason": "no permissions"}}
            raise AuthorizationException(403, "security_exception", info)
        self.owner.templates[name] = body
        return {"acknowledged": True}

    def get_index_template(self, *, name: str) -> Json:
        if name not in self.owner.templates:
            raise NotFoundError(404, "resource_not_found_exception", {})
        return {"index_templates": [{"name": name, "index_template": self.owner.templates[name]}]}

    def get_mapping(self, *, index: str) -> Json:
        return {index: {"mappings": self.owner.mappings[index]}}


class Node:
    """One OpenSearch node's facts index, as far as the store's writes and reads go: bulk
    documents are kept as their stored ``_source`` (the mapping's excludes left out)."""

    def __init__(self, *, may_put: bool = True) -> None:
        self.may_put = may_put
        self.mappings: dict[str, Json] = {}
        self.templates: dict[str, Json] = {}
        self.sent: dict[str, Json] = {}  # the documents as sent
        self.stored: dict[str, Json] = {}  # their _source as stored
        self.indices = Indices(self)

    def mget(self, *, index: str, body: Json, params: Json) -> Json:
        if index not in self.mappings:
            reason = {"type": "index_not_found_exception", "reason": "no such index"}
            return {"docs": [{"_id": i, "error": reason} for i in body["ids"]]}
        return {"docs": [{"_id": i, "found": False} for i in body["ids"]]}

    def bulk(self, *, body: str, index: str, params: Json) -> Json:
        lines = body.splitlines()
        excludes = self.mappings[index].get("_source", {}).get("excludes", [])
        props = self.mappings[index]["properties"]
        items = []
        for action, doc in zip(lines[0::2], lines[1::2], strict=True):
            (op,) = json.loads(action).values()
            src = json.loads(doc)
            assert set(src) <= set(props), f"dynamic: strict refuses {set(src) - set(props)}"
            self.sent[op["_id"]] = src
            self.stored[op["_id"]] = {k: v for k, v in src.items() if k not in excludes}
            items.append({"index": {"_id": op["_id"], "status": 201}})
        return {"items": items, "errors": False}

    def search(self, index: str, body: Json) -> Json:
        excludes = set(body.get("_source", {}).get("excludes", []))
        hits = [{"_id": i, "_source": {k: v for k, v in json.loads(json.dumps(s)).items()
                                       if k not in excludes}}
                for i, s in self.stored.items()]  # fmt: skip
        return {"took": 1, "_shards": {"failed": 0}, "hits": {"hits": hits}}

    def close(self) -> None:
        pass


def _store(node: Node) -> OpenSearchStore:
    return OpenSearchStore(node, INDEX, DIM, max_retries=0)  # type: ignore[arg-type]


def test_a_new_index_is_version_3_with_the_vectors_out_of_source_and_packed() -> None:
    body = index_body(DIM)
    mappings = body["mappings"]
    assert MAPPING_VERSION == 3 and mappings["_meta"] == {"memgate_mapping_version": 3}
    assert mappings["_source"]["excludes"] == [
        "embedding", "search_embedding", RETRIEVAL_VECTOR_FIELD]  # fmt: skip
    props = mappings["properties"]
    assert props["embedding"]["type"] == props[RETRIEVAL_VECTOR_FIELD]["type"] == "knn_vector"
    assert "search_embedding" not in props
    for field in ("embedding_f32", "search_embedding_f32"):
        assert props[field] == {"type": "binary", "doc_values": False}
    assert template_body(INDEX, DIM, body)["_meta"]["memgate_mapping_version"] == 3
    assert template_body(INDEX, DIM, index_body(DIM, version=2))["_meta"][
        "memgate_mapping_version"] == 2  # fmt: skip


def test_a_v3_document_keeps_no_vector_array_in_source_and_reads_back_the_same_fact() -> None:
    node = Node()
    store = _store(node)
    fact, bare = _fact(), _fact(context="", value="emacs")
    store.upsert([fact, bare])
    assert node.mappings[INDEX]["_meta"]["memgate_mapping_version"] == 3
    sent, stored = node.sent[fact.fact_id], node.stored[fact.fact_id]
    assert sent["embedding"] == fact.embedding  # indexed for k-NN from the request
    assert sent[RETRIEVAL_VECTOR_FIELD] == fact.search_embedding
    assert "search_embedding" not in sent
    assert not [k for k, v in stored.items() if isinstance(v, list) and v
                and isinstance(v[0], float)]  # fmt: skip
    raw = base64.b64decode(stored["embedding_f32"])
    assert raw == np.asarray(fact.embedding, dtype="<f4").tobytes() and len(raw) == 4 * DIM
    assert "search_embedding_f32" not in node.stored[bare.fact_id]
    got = {f.fact_id: f for f in store.list_facts("acme", "u1")}
    assert got[fact.fact_id] == fact and got[bare.fact_id] == bare
    assert got[bare.fact_id].search_embedding is None
    light = store.by_subject("acme", "u1", "user", vectors=False)
    assert {f.fact_id for f in light} == {fact.fact_id, bare.fact_id}
    assert all(f.embedding is None and f.search_embedding is None for f in light)


def test_packing_round_trips_float32_values_bit_identical() -> None:
    rng = np.random.default_rng(3)
    values = rng.standard_normal(DIM).astype(np.float32)
    values[:4] = [np.float32(1e-38), -0.0, np.finfo(np.float32).max, np.float32(0.1)]
    packed = pack_vector(values.astype(np.float64).tolist())
    assert len(base64.b64decode(packed)) == 4 * DIM
    back = unpack_vector(packed, DIM)
    assert np.asarray(back, dtype=np.float32).tobytes() == values.tobytes()
    assert back == values.astype(np.float64).tolist()  # the floats the JSON path returns
    assert set(PACKED_FIELDS) == {"embedding", "search_embedding"}


def test_a_vector_that_is_not_float32_is_packed_as_float64_and_reads_back_exactly() -> None:
    values = [0.1 * (i + 1) for i in range(DIM)]
    packed = pack_vector(values)
    assert len(base64.b64decode(packed)) == 8 * DIM
    assert unpack_vector(packed, DIM) == values
    node = Node()
    store = _store(node)
    fact = _C.make_fact("vim", embedding=values)
    store.upsert([fact])
    assert store.list_facts("acme", "u1") == [fact]
    with pytest.raises(ValueError, match="not of dim"):
        unpack_vector(packed, DIM + 1)


def _v2_source(fact: StoredFact) -> str:
    """What the store sent before version 3 (main at lazyvec)."""
    doc = fact.model_dump(mode="json")
    doc[RETRIEVAL_VECTOR_FIELD] = fact.retrieval_vector
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def test_a_v2_index_gets_the_documents_it_got_before_and_reads_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    node = Node(may_put=False)
    node.mappings[INDEX] = index_body(DIM, version=2)["mappings"]
    old = index_body(DIM, version=2)
    node.templates[f"{INDEX}-template"] = template_body(INDEX, DIM, old)
    store = _store(node)
    with caplog.at_level(logging.WARNING, logger="memgate.sinks.opensearch"):
        store.ensure_index()  # an older template, the index in place: goes on, warns
    assert "mapping version 2" in caplog.text and "memgate setup opensearch" in caplog.text
    assert store.mapping_version == 2
    fact = _fact()
    assert store._doc(fact, store.mapping_version).source == _v2_source(fact)
    store.upsert([fact])
    assert node.stored[fact.fact_id]["search_embedding"] == fact.search_embedding
    assert store.get("acme", "u1", fact.fact_id) == fact


def test_an_older_template_without_the_index_still_needs_the_setup_command() -> None:
    node = Node(may_put=False)
    node.templates[f"{INDEX}-template"] = template_body(INDEX, DIM, index_body(DIM, version=2))
    with pytest.raises(ConfigError, match="memgate setup opensearch"):
        _store(node).ensure_index()
    assert node.mappings == {}


@pytest.mark.parametrize("version", [2, 3])
def test_the_mapping_check_takes_versions_2_and_3(version: int) -> None:
    assert mapping_version(INDEX, index_body(DIM, version=version)["mappings"], DIM) == version


@pytest.mark.parametrize(("version", "says"), [(1, "older memgate mapping"), (4, "newer")])
def test_the_mapping_check_refuses_version_1_and_newer(version: int, says: str) -> None:
    mappings = index_body(DIM)["mappings"]
    mappings["_meta"]["memgate_mapping_version"] = version
    if version == 1:
        del mappings["properties"][RETRIEVAL_VECTOR_FIELD]
    node = Node()
    node.mappings[INDEX] = mappings
    with pytest.raises(ConfigError, match=says):
        _store(node).ensure_index()
