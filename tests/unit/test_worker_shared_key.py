"""A worker on a shared OpenSearch index is told when its fact-id key is its own file."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate.cli.worker import SHARED_KEY_NOTE, shared_key_missing
from memgate.core.settings import load_settings


@pytest.mark.parametrize(
    ("backend", "own", "warned"),
    [
        ("opensearch", {}, True),
        ("opensearch", {"hmac_key": "k" * 32}, False),
        ("opensearch", {"hmac_key_file": "/run/secrets/memgate.key"}, False),  # one shared file
        ("embedded", {}, False),
    ],
)
def test_a_worker_on_opensearch_without_a_set_key_is_warned(
    tmp_path: Path, backend: str, own: dict[str, str], warned: bool
) -> None:
    s = load_settings(data_dir=tmp_path, retrieval_backend=backend, **own)
    assert shared_key_missing(s) is warned


def test_the_warning_says_what_to_do() -> None:
    assert "MEMGATE_HMAC_KEY" in SHARED_KEY_NOTE and "MEMGATE_HMAC_KEY_FILE" in SHARED_KEY_NOTE
    assert "every worker" in SHARED_KEY_NOTE
    assert "hmac.key" not in SHARED_KEY_NOTE  # no key is kept in the data dir
