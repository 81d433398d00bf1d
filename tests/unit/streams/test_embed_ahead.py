"""The worker computes a candidate's dedupe embeddings ahead, when the redact stage
forwards it: the dedupe call takes them, and every vector stored is the one computed
without reading ahead; at most ``limit`` encodings wait."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import numpy as np
import pytest

from memgate.core.embedding import MiniLMEmbedder
from memgate.core.events import Stage
from memgate.sinks.embedded import EmbeddedIndex
from memgate.streams.app import Worker
from memgate.streams.embed_ahead import EmbedAhead
from memgate.streams.metrics import Metrics
from memgate.streams.topology import ROUTES, route_of
from tests.unit.streams.conftest import Gate, turn
from tests.unit.streams.replay_harness import Topics

TURNS = [
    "I like long hikes in the mountains near the lake.",
    "My manager is Karen and I work on the payments team.",
    "I prefer green tea over coffee in the morning.",
]


def _worker(gate: Gate, embedder: MiniLMEmbedder, window: int, index: EmbeddedIndex) -> Worker:
    p = gate.pipeline()
    p = dataclasses.replace(p, resolve=dataclasses.replace(p.resolve, embedder=embedder))
    settings = gate.settings.model_copy(update={"ingest_window": window})
    return Worker(settings, p, index, gate.audit, Metrics())


def _run(worker: Worker, topics: Topics, taken: list[int]) -> None:
    """Every turn through the stages, each stage topic read to the end in turn."""

    async def run() -> None:
        for route in ROUTES:
            while topics.queues[route.source]:
                if route.source == "redacted":
                    emb = worker.pipeline.resolve.embedder
                    taken.append(len(emb._ahead))  # type: ignore[attr-defined]
                ((raw, origin),) = topics.take(route.source, 1)
                await worker.handle(route, raw, origin, topics.send)

    asyncio.run(run())


def _vectors(
    gate: Gate, window: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, Any], int, list[int]]:
    emb = MiniLMEmbedder()
    index = EmbeddedIndex(gate.settings.data_dir / f"minilm-{window}.db", dim=emb.dim)
    worker = _worker(gate, emb, window, index)
    computed: list[int] = []
    real = emb._encode

    def encode(texts: list[str]) -> Any:
        computed.append(len(texts))  # encoded in the call: not ahead
        return real(texts)

    monkeypatch.setattr(emb, "_encode", encode)
    topics = Topics(gate.settings.topic_prefix)
    for i, text in enumerate(TURNS):
        t = turn(f"t{i}", text, minutes=i)
        asyncio.run(topics.send("turns", t.partition_key, t.model_dump_json().encode()))
    taken: list[int] = []
    _run(worker, topics, taken)
    if worker.ahead is not None:
        worker.ahead.close()
    facts = index.list_facts("acme", "alice", include_inactive=True)
    index.close()
    return {f.fact_id: (f.embedding, f.search_embedding) for f in facts}, len(computed), taken


def test_embeddings_computed_ahead_are_taken_and_identical(
    gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead, in_call, waiting = _vectors(gate, 64, monkeypatch)
    assert ahead and in_call == 0  # every dedupe call took its vectors computed ahead
    assert waiting[0] >= 1  # registered when redact forwarded, before dedupe ran
    plain, in_call1, _ = _vectors(gate, 1, monkeypatch)  # ingest_window 1: none ahead
    assert in_call1 >= 1
    assert set(plain) == set(ahead)
    for fid, (vec, search) in plain.items():
        assert np.array_equal(np.asarray(vec), np.asarray(ahead[fid][0]))
        assert np.array_equal(np.asarray(search), np.asarray(ahead[fid][1]))


def test_at_most_limit_encodings_wait(gate: Gate) -> None:
    emb = MiniLMEmbedder()
    p = gate.pipeline()
    resolver = dataclasses.replace(p.resolve, embedder=emb)
    ahead = EmbedAhead(resolver, limit=2)
    index = EmbeddedIndex(gate.settings.data_dir / "minilm.db", dim=emb.dim)
    worker = _worker(gate, emb, 64, index)
    topics = Topics(gate.settings.topic_prefix)
    for i, text in enumerate(TURNS):
        t = turn(f"t{i}", text, minutes=i)
        asyncio.run(topics.send("turns", t.partition_key, t.model_dump_json().encode()))

    async def front() -> None:
        for route in ROUTES[:3]:
            while topics.queues[route.source]:
                ((raw, origin),) = topics.take(route.source, 1)
                await worker.handle(route, raw, origin, topics.send)

    asyncio.run(front())
    items = [route_of(Stage.DEDUPE).parse(raw) for _, raw, _ in topics.queues["redacted"]]
    assert len(items) >= 3
    emb._ahead.clear()
    ahead.candidates(items)
    assert len(emb._ahead) == 2  # the oldest dropped
    ahead.close()
    index.close()
    assert not emb._ahead
    with pytest.raises(ValueError):
        EmbedAhead(resolver, limit=0)
