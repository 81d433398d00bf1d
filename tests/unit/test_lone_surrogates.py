"""Text with a lone surrogate (JSON ``"\\ud800"``) is refused as invalid, never a 500.

A JSONL line with one was refused by ``memgate ingest`` (pydantic reading JSON), but the
same text handed over as Python strings (``Memory.add``, the HTTP service, whose JSON
parser lets it through) reached the keyed digest of the turn, which encodes it as UTF-8:
``UnicodeEncodeError``, a 500 with an incident id over HTTP. A lone surrogate is no
Unicode character and has no UTF-8 form, so no store could hold it either.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from memgate import Memory
from memgate.apikeys import KeyStore
from memgate.core.errors import InvalidRequest
from memgate.service import BackgroundServer, create_app

LONE = "I use \ud800 Vim as my editor."


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    with Memory(data_dir=tmp_path_factory.mktemp("surr") / "data", embedder="hashing") as m:
        yield m


@pytest.mark.parametrize("form", ["message", "turn"])
def test_the_library_refuses_a_lone_surrogate_in_one_line(memory: Memory, form: str) -> None:
    if form == "message":
        items: list[dict[str, object]] = [{"role": "user", "content": LONE}]
    else:
        ts = datetime(2024, 3, 1, tzinfo=UTC)
        items = [{"tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": "t1",
                  "role": "user", "content": LONE, "ts": ts}]  # fmt: skip
    with pytest.raises(InvalidRequest, match=r"lone surrogate U\+D800 at position 7"):
        memory.add(items, tenant="acme", user="alice")
    assert memory.get_all(tenant="acme", user="alice") == []


def test_the_http_service_answers_422_not_500(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "api_keys.json")
    key, _ = keys.create("acme", "tests")
    with (
        Memory(data_dir=tmp_path / "data", embedder="hashing") as memory,
        BackgroundServer(create_app(memory, keys)) as server,
    ):
        r = httpx.post(
            f"{server.url}/v1/tenants/acme/users/alice/memories",
            content=b'{"messages": [{"role": "user", "content": "I use \\ud800 Vim"}]}',
            headers={"Authorization": f"Bearer {key}", "content-type": "application/json"},
            timeout=60,
        )
    assert r.status_code == 422, r.text
    assert "lone surrogate" in r.json()["detail"]


def test_a_lone_surrogate_in_metadata_is_refused_too(memory: Memory) -> None:
    """Metadata is not stored, but it travels with the turn (the input topic's JSON)."""
    turn = {"tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": "t9",
            "role": "user", "content": "I use Vim.", "ts": datetime(2024, 3, 1, tzinfo=UTC),
            "metadata": {"source": "crm\udc80"}}  # fmt: skip
    with pytest.raises(InvalidRequest, match=r"'source': has a lone surrogate U\+DC80"):
        memory.add([turn], tenant="acme", user="alice")


# -- session 19 (attack19): the read and erase paths too ------------------------------------


@pytest.mark.parametrize("call", ["search", "get", "history", "delete", "erase"])
def test_a_lone_surrogate_in_a_query_or_fact_id_is_one_invalid_request(
    memory: Memory, call: str
) -> None:
    """A query or fact id with a lone surrogate raised pydantic's ValidationError (search)
    or UnicodeEncodeError (get, delete: the SQLite lookup) instead of InvalidRequest."""
    with pytest.raises(InvalidRequest, match="lone surrogate U\\+D800") as info:
        if call == "search":
            memory.search("which \ud800 editor?", tenant="acme", user="alice")
        else:
            getattr(memory, call)("ab\ud800", tenant="acme", user="alice")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "args", [["search", "ed\udcffitor", "-t", "acme", "-u", "alice"],
             ["forget", "-t", "acme", "-u", "alice", "--fact", "\udcff", "--yes"]],
)  # fmt: skip
def test_a_byte_that_is_not_utf8_in_an_argument_is_a_usage_error(
    tmp_path: Path, args: list[str]
) -> None:
    """``memgate search $'\\xff'`` (a non-UTF-8 byte in argv reaches Python as a lone
    surrogate) and ``memgate forget --fact $'\\xff'`` printed a traceback."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "MEMGATE_EMBEDDER": "hashing"}
    code = "import sys; from memgate.cli import run; sys.argv[0] = 'memgate'; run()"
    argv = [a.encode("utf-8", "surrogateescape") for a in args]
    done = subprocess.run(
        [sys.executable.encode(), b"-c", code.encode(), b"--data-dir", str(tmp_path).encode(),
         *argv],
        capture_output=True, timeout=120, env=env,
    )  # fmt: skip
    assert done.returncode == 2
    assert b"Traceback" not in done.stderr
    assert b"lone surrogate U+DCFF" in done.stderr
