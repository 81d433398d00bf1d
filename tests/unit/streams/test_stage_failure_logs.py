"""A stage that fails on a turn logs no raw text of it (attack20).

The worker dead-letters a turn a stage fails on unexpectedly (a bug, a poison input).
The dead letter on its topic is sealed (secrets masked), but the two log lines were
not: ``event=stage_failed error=<repr of the exception>`` with its traceback, and
``event=dead_letter reason='unexpected failure: <repr>'``. An exception's text often
carries its input (``UnicodeEncodeError`` and pydantic's ``ValidationError`` repeat the
string they failed on; a ``KeyError`` its key), so a card number or a key in a turn went
raw into the worker's log. The in-process runner masked the same text already.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from memgate.core.events import DeadLetter, Stage
from memgate.streams.app import Origin, Worker
from memgate.streams.metrics import Metrics
from memgate.streams.topology import DLQ_TOPIC, route_of
from tests.unit.streams.conftest import Gate
from tests.unit.streams.replay_harness import Topics

CARD = "4111 1111 1111 1111"
TOKEN = "ghp_R8x2kQ9vLm4TzP7wYc3NbF6hJd1sGa5eKu0o"
TEXT = f"my card is {CARD} and my token {TOKEN} \ud800"


@pytest.mark.parametrize("kind", ["unicode", "value"])
def test_a_failing_stage_logs_no_raw_text(
    gate: Gate, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    worker = Worker(gate.settings, gate.pipeline(), gate.retrieval, gate.audit, Metrics())

    async def failing(route: Any, item: Any) -> list[object]:
        if kind == "unicode":
            TEXT.encode("utf-8")  # UnicodeEncodeError: its repr holds the whole text
        raise ValueError(f"cannot read {TEXT!r}")

    monkeypatch.setattr(worker, "step", failing)
    raw = json.dumps({"tenant_id": "acme", "user_id": "alice", "session_id": "s1",
                      "turn_id": "t1", "role": "user", "content": "I use Vim.",
                      "ts": "2024-03-01T00:00:00Z"}).encode()  # fmt: skip
    topics = Topics("memgate")
    with caplog.at_level(logging.DEBUG):
        asyncio.run(worker.handle(route_of(Stage.TRIAGE), raw, Origin("t", 0, 7, b"k"),
                                  topics.send))  # fmt: skip
    ((_, payload, _),) = topics.queues[DLQ_TOPIC]
    dl = DeadLetter.model_validate_json(payload)
    assert dl.reason.startswith("unexpected failure: ")
    logged = "\n".join(
        r.getMessage() + (logging.Formatter().formatException(r.exc_info) if r.exc_info else "")
        for r in caplog.records
    )
    assert "event=stage_failed" in logged and "event=dead_letter" in logged
    for secret in (CARD, TOKEN, TOKEN[-12:], "4111111111111111"):
        assert secret not in logged, logged
        assert secret not in dl.reason
    # what is still said: the stage, the type and where it was raised
    assert f"error={'UnicodeEncodeError' if kind == 'unicode' else 'ValueError'}" in logged
    assert "test_stage_failure_logs.py:" in logged
