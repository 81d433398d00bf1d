"""The OpenSearch client parses answers with orjson (when installed): the same values as
the stdlib parser, vectors' floats bit for bit; a bad answer is the client's
SerializationError, as before."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from opensearchpy.exceptions import SerializationError

from memgate.core.settings import load_settings
from memgate.sinks.opensearch_client import FastJSON, opensearch_client

EDGE = [0.1, -0.0, 5e-324, 1e-320, 1.7976931348623157e308, 2.220446049250313e-16, 1 / 3]


def _answer() -> str:
    rnd = random.Random(7)
    hit = {
        "_id": "f1",
        "_score": 0.8731,
        "_source": {
            "text": "Ich mag Wandern — 山 ✓",
            "embedding": [rnd.uniform(-0.3, 0.3) for _ in range(384)] + EDGE,
            "search_embedding": [rnd.gauss(0, 0.1) for _ in range(384)],
            "recorded_at": "2024-05-01T10:00:00Z",
            "n": 2**62,
        },
    }
    return json.dumps({"responses": [{"hits": {"hits": [hit] * 3}}]})


def test_the_client_parses_answers_fast_and_alike(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path, opensearch_url="http://127.0.0.1:9")
    client = opensearch_client(s)  # no connection is made here
    assert isinstance(client.transport.serializer, FastJSON)
    text = _answer()
    got = client.transport.deserializer.loads(text, "application/json")
    assert got == json.loads(text)
    vec = got["responses"][0]["hits"]["hits"][0]["_source"]["embedding"]
    assert [v.hex() for v in vec[-len(EDGE) :]] == [float(v).hex() for v in EDGE]
    with pytest.raises(SerializationError):
        client.transport.deserializer.loads("{not json", "application/json")


def test_without_orjson_the_stdlib_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "orjson", None)  # import fails
    ser = FastJSON()
    text = _answer()
    assert ser.loads(text) == json.loads(text)
    with pytest.raises(SerializationError):
        ser.loads("{not json")
