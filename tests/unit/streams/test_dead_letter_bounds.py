"""A poison message of any size is dead-lettered fast, with reason, origin and a masked,
bounded payload: the partition never waits on the detectors reading a megabyte.

Before the bound, the whole payload was masked and then cut to 100,000
characters: a 200 kB message dense with credential-looking text took tens of
seconds of detector time (a 1 MB one, under Kafka's default message limit,
about two minutes), during which the partition stalled.
"""

from __future__ import annotations

import asyncio
import json
import time

from memgate.core.events import DeadLetter, Stage
from memgate.stages.detectors import Detector
from memgate.stages.seal import DEAD_LETTER_PAYLOAD_CHARS, mask_prefix
from memgate.streams.app import Origin, Worker
from memgate.streams.metrics import Metrics
from memgate.streams.topology import DLQ_TOPIC, route_of
from tests.unit.streams.conftest import Gate
from tests.unit.streams.replay_harness import Topics

TOKEN = "ghp_R8x2kQ9vLm4TzP7wYc3NbF6hJd1sGa5eKu0o"


def _dead_letter(gate: Gate, raw: bytes, offset: int) -> tuple[DeadLetter, float]:
    worker = Worker(gate.settings, gate.pipeline(), gate.retrieval, gate.audit, Metrics())
    topics = Topics("memgate")
    origin = Origin("memgate.turns", 3, offset, b"acme/alice")
    t0 = time.perf_counter()
    asyncio.run(worker.handle(route_of(Stage.TRIAGE), raw, origin, topics.send))
    took = time.perf_counter() - t0
    ((_, payload, _),) = topics.queues[DLQ_TOPIC]
    return DeadLetter.model_validate_json(payload), took


def test_a_large_dense_poison_message_is_dead_lettered_fast_and_bounded(gate: Gate) -> None:
    body = f"my key sk-{TOKEN} mail a.b@example.org " * 4_000  # ~270 kB of findings
    raw = json.dumps({"tenant_id": "acme", "content": body}).encode()
    dl, took = _dead_letter(gate, raw, 4242)
    assert took < 15, f"dead-lettering took {took:.1f} s: the partition stalls that long"
    assert (dl.source_topic, dl.partition, dl.offset) == ("memgate.turns", 3, 4242)
    assert dl.reason.startswith("invalid event:") and "user_id" in dl.reason
    assert dl.payload_bytes == len(raw) and dl.payload_truncated
    assert len(dl.payload) <= DEAD_LETTER_PAYLOAD_CHARS
    assert TOKEN not in dl.payload and "a.b@example.org" not in dl.payload
    assert "[EMAIL]" in dl.payload


def test_a_secret_cut_by_the_bound_is_masked_not_left_half_raw() -> None:
    d = Detector()
    for shift in range(0, len(TOKEN) + 2):
        text = "x " * ((DEAD_LETTER_PAYLOAD_CHARS - shift) // 2) + f"token {TOKEN} end"
        out = mask_prefix(d, text, DEAD_LETTER_PAYLOAD_CHARS)
        assert len(out) <= DEAD_LETTER_PAYLOAD_CHARS + len("[API_KEY]")
        assert "ghp_R8x" not in out and TOKEN[-12:] not in out, shift


def test_a_small_payload_is_kept_whole_and_masked(gate: Gate) -> None:
    raw = b'{"tenant_id": "acme", "content": "mail a.b@example.org", "ts": "2024-01-01T00:00:00"}'
    dl, _ = _dead_letter(gate, raw, 7)
    assert dl.payload_bytes == len(raw) and not dl.payload_truncated
    assert dl.payload == raw.decode().replace("a.b@example.org", "[EMAIL]")
    assert dl.offset == 7
