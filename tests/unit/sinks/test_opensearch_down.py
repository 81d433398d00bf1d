"""The OpenSearch store against a server that is down: the one retry policy, then a
transient error (the worker keeps the partition waiting on it). No server needed: the
client talks to a loopback port nothing listens on."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from memgate.core.errors import TransientError, is_transient
from memgate.core.settings import load_settings
from memgate.sinks.opensearch import OpenSearchStore


def test_a_server_down_is_retried_then_transient(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    s = load_settings(
        data_dir=tmp_path,
        opensearch_url="http://127.0.0.1:1",
        retry_max_attempts=3,
        retry_base_delay_s=0.01,
    )
    store = OpenSearchStore.from_settings(s, dim=4)
    with (
        caplog.at_level(logging.WARNING, logger="memgate.sinks.opensearch"),
        pytest.raises(TransientError, match="after 3 attempts") as info,
    ):
        store.get("acme", "alice", "f1")
    assert is_transient(info.value) and info.value.retry_after is not None
    attempts = [r.getMessage() for r in caplog.records if r.name == "memgate.sinks.opensearch"]
    assert [m.split("(attempt ")[1][:6] for m in attempts] == ["1 of 3", "2 of 3", "3 of 3"]
    store.close()
