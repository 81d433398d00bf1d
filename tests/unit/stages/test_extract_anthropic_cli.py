"""The Claude extractor through `memgate ingest` and `memgate forget`, against the stand-in.

The answer cache lives under the data dir and is erased with the user; a rejected
request (400/413) is read by the offline extractor, reported, and the run exits 0;
an error body that echoes the API key never prints it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.evaluation.bytescan import scan
from tests.unit.stages.anthropic_standin import (
    AnthropicStandIn,
    bad_request,
    error_reply,
    running_standin,
    tool_use_reply,
)

API_KEY = "test-" + "key-" + "standin-0123456789"
GONE, KEPT = "zoe.quarrington", "bob.kept"


@pytest.fixture
def api() -> Iterator[AnthropicStandIn]:
    with running_standin(api_key=API_KEY) as standin:
        yield standin


def _env(api: AnthropicStandIn) -> dict[str, str]:
    return {
        "MEMGATE_ANTHROPIC_API_KEY": API_KEY,
        "MEMGATE_ANTHROPIC_BASE_URL": api.base_url,
        "MEMGATE_HMAC_KEY": "0123456789abcdef0123456789abcdef0123",
    }


def _cli(api: AnthropicStandIn, data: Path, *args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(
        app,
        ["--embedder", "hashing", "--extractor", "anthropic", "--data-dir", str(data), *args],
        env=_env(api),
    )
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def _turns(tmp_path: Path, rows: list[tuple[str, str, str]]) -> Path:
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(
        json.dumps({"tenant_id": "acme", "user_id": u, "session_id": f"s-{u}", "turn_id": t,
                    "role": "user", "content": c, "ts": "2024-03-01T09:00:00Z"}) + "\n"
        for u, t, c in rows), encoding="utf-8")
    return path


def _fact(obj: str) -> dict[str, Any]:
    return {"type": "preference", "subject": "user", "predicate": "uses_tool:editor",
            "object": obj, "confidence": 0.9}


def test_forget_erases_the_users_cached_answers(api: AnthropicStandIn, tmp_path: Path) -> None:
    data = tmp_path / "data"
    path = _turns(tmp_path, [
        (GONE, "zq-t1", "From now on I write all my code in the Vantablorp editor."),
        (KEPT, "bk-t1", "From now on I write all my code in the Gorptastic editor."),
    ])
    api.enqueue(tool_use_reply([_fact("Vantablorp")]), tool_use_reply([_fact("Gorptastic")]))
    _cli(api, data, "ingest", str(path))
    cache = data / "extract_cache.sqlite3"
    assert b"Vantablorp" in cache.read_bytes() and b"Gorptastic" in cache.read_bytes()

    out = _cli(api, data, "forget", "-t", "acme", "-u", GONE, "--yes").output
    assert "1 cached extractor answers" in out, out
    gone = {"user id": GONE, "session id": f"s-{GONE}", "value": "Vantablorp"}
    after = scan(data, {**gone, "kept value": "Gorptastic"})
    assert [h.describe() for h in after.hits if h.label in gone] == []
    assert {h.path for h in after.found("kept value")} >= {"extract_cache.sqlite3"}


def test_a_second_ingest_of_the_same_turns_asks_nothing(
    api: AnthropicStandIn, tmp_path: Path
) -> None:
    # a new data dir for the facts but the same cache: a re-ingest after a wipe of the stores
    rows = [(KEPT, f"t{i}", f"From now on I use tool number {i} every day.") for i in range(5)]
    path = _turns(tmp_path, rows)
    data = tmp_path / "data"
    _cli(api, data, "ingest", str(path))
    assert len(api.requests) == 5
    for name in ("retrieval.sqlite3", "audit.chdb"):
        target = data / name
        if target.is_dir():
            import shutil

            shutil.rmtree(target)
        else:
            target.unlink()
    _cli(api, data, "ingest", str(path))
    assert len(api.requests) == 5
    report = _cli(api, data, "audit", "extractor-fallbacks", "--json").output
    assert [r["cache_hits"] for r in json.loads(report)] == [5]


@pytest.mark.parametrize(
    "reply",
    [bad_request(), error_reply(413, "request_too_large", "Request exceeds the maximum size")],
)
def test_a_rejected_request_is_read_offline_reported_and_exits_0(
    api: AnthropicStandIn, tmp_path: Path, reply: Any
) -> None:
    path = _turns(tmp_path, [(KEPT, "t1", "I use vim as my editor.")])
    data = tmp_path / "data"
    api.default = reply
    result = _cli(api, data, "ingest", str(path))
    assert len(api.requests) == 1  # not retried
    assert "read by the offline extractor" in result.output, result.output
    facts = json.loads(_cli(api, data, "facts", "-t", "acme", "-u", KEPT, "--json").output)
    assert [f["value"] for f in facts] == ["vim"], result.output
    report = json.loads(_cli(api, data, "audit", "extractor-fallbacks", "--json").output)
    status = reply.status
    assert [(r["reason"], r["turns"]) for r in report] == [(f"rejected:http_{status}", 1)]


def test_an_error_that_echoes_the_key_does_not_print_it(
    api: AnthropicStandIn, tmp_path: Path
) -> None:
    path = _turns(tmp_path, [(KEPT, "t1", "I use vim as my editor.")])
    api.default = error_reply(401, "authentication_error", f"invalid x-api-key: {API_KEY}")
    result = _cli(api, tmp_path / "data", "ingest", str(path), code=1)
    assert API_KEY not in result.output and "[API_KEY]" in result.output, result.output
