"""A deletion request said in a conversation leaves nothing of the fact a reader could
guess back from the retrieval store, and no unkeyed digest of it anywhere.

A fact said in two turns ("I like jazz, especially Coltrane") is deleted at the user's
request, through the CLI (the in-process runner). Then every byte under the data dir is
scanned (:mod:`memgate.evaluation.bytescan`): the retrieval store must hold neither the
value nor its key in clear (the audit journal keeps the redacted turns until ``forget``,
README "A deletion request said in a conversation"), and no file may hold an unkeyed
digest of the value (md5, sha1, sha256, sha512 of its spellings, whole or cut as ids
are, nor an id made of it by ``stable_id``, with or without the turns the audit names: the
fact ids of before, tests/unit/stages/test_fact_ids.py): the tombstone is named by a keyed
digest, and keeps a keyed fact id, both of which another deployment key changes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.embedding import HashingEmbedder
from memgate.core.events import normalise, stable_id
from memgate.evaluation.bytescan import scan
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import DELETED_VALUE, fact_key

VALUE = "I like jazz, especially Coltrane"
SAID = [f"{VALUE}.", "I like long hikes in the mountains near the lake.", f"{VALUE}."]
REQUEST = "Please forget that I like jazz."


def _cli(data: Path, *args: str) -> Any:
    result = CliRunner().invoke(app, ["--embedder", "hashing", "--data-dir", str(data), *args])
    assert result.exit_code == 0, result.output
    return result


def _ingest(data: Path, texts: list[str], first: int) -> None:
    rows = [
        {
            "tenant_id": "acme", "user_id": "alice", "session_id": "s1",
            "turn_id": f"t{first + i}", "role": "user", "content": text,
            "ts": f"2024-03-01T09:0{first + i}:00Z",
        }
        for i, text in enumerate(texts)
    ]  # fmt: skip
    data.parent.mkdir(parents=True, exist_ok=True)
    path = data.parent / f"turns{first}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _cli(data, "ingest", str(path))


def _unkeyed_digests() -> dict[str, str]:
    key = fact_key("acme", "alice", "user", "likes", VALUE)
    spellings = {
        "value": VALUE, "value said": f"{VALUE}.", "lower": VALUE.lower(),
        "normalised": normalise(VALUE), "key": key,
    }  # fmt: skip
    out: dict[str, str] = {}
    for name, text in spellings.items():
        for algo in ("md5", "sha1", "sha256", "sha512"):
            h = hashlib.new(algo, text.encode("utf-8")).hexdigest()
            out[f"{algo} of {name}"] = h
            out[f"{algo} of {name}, cut to 24"] = h[:24]
    ids = {
        "stable_id of key, value": (key, normalise(VALUE)),
        "stable_id of fact, key, value": ("fact", key, normalise(VALUE)),
        "stable_id of erased, owner, key": ("erased", "acme", "alice", key, normalise(VALUE)),
        # the id a fact had before ids were keyed, from each turn (the audit names them)
        **{f"fact id before keyed ids, from t{i}": ("fact", key, normalise(VALUE), f"t{i}")
           for i in range(len(SAID) + 1)},
    }  # fmt: skip
    for name, parts in ids.items():
        out[name] = stable_id(*parts)
    return out


def _tombstones(data: Path) -> tuple[set[str], set[str]]:
    """The ids and keys of what the request left: the fact's tombstone, and one for each
    of its turns besides the first (the value was said twice)."""
    index = EmbeddedIndex(data / "retrieval.sqlite3", dim=HashingEmbedder().dim)
    try:
        gone = [f for f in index.list_facts("acme", "alice", include_inactive=True)
                if f.value == DELETED_VALUE]  # fmt: skip
        assert len(gone) == 2, gone
        return {f.fact_id for f in gone}, {f.key for f in gone}
    finally:
        index.close()


def _deleted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str) -> Path:
    monkeypatch.setenv("MEMGATE_HMAC_KEY", key)
    data = tmp_path / "data"
    _ingest(data, SAID, 0)
    before = scan(data, {"word": "Coltrane", "normalised": normalise(VALUE)})
    # the scan sees the value in the retrieval store before the request (so this can fail)
    assert any(h.path.startswith("retrieval.sqlite3") for h in before.found("word"))
    _ingest(data, [REQUEST], len(SAID))
    return data


def test_a_deletion_request_leaves_nothing_guessable_of_the_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _deleted(tmp_path, monkeypatch, "0123456789abcdef0123456789abcdef0123")
    clear = {"word": "Coltrane", "lower word": "coltrane", "normalised": normalise(VALUE),
             "key": fact_key("acme", "alice", "user", "likes", VALUE)}  # fmt: skip
    after = scan(data, {**clear, **_unkeyed_digests()})
    assert after.undecoded == []
    in_retrieval = [h.describe() for h in after.hits if h.path.startswith("retrieval.sqlite3")]
    assert in_retrieval == [], in_retrieval
    digests = [h.describe() for h in after.hits if h.label not in clear]
    assert digests == [], digests
    # the audit journal still holds the redacted turns (erased by forget): the scan sees it
    assert after.found("word")


def test_the_tombstone_name_depends_on_the_deployment_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _tombstones(_deleted(tmp_path / "one", monkeypatch, "a" * 40))
    other = _tombstones(_deleted(tmp_path / "other", monkeypatch, "b" * 40))
    assert not one[0] & other[0]  # the same fact, its id keyed (test_fact_ids.py)
    assert not one[1] & other[1]  # its tombstones named otherwise under another key
    assert not any(i in k for i in one[0] for k in one[1])
