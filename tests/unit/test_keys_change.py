"""A data dir written under one HMAC key, opened under another, is refused in one line.

Every keyed digest under the data dir (the journal's and the turn ledger's content
digests, fact ids, the names of deletion tombstones) is made with the deployment's key.
Under another key, the same input file replayed was refused turn by turn as
``turn_id_conflict`` (a misleading reason: the turns are the same, the key is not),
while new turns were stored with ids and tombstone names of the new key, so an erased
fact's tombstone no longer matched. The data dir now keeps a check value of its key
(``hmac.check``: a keyed digest of a constant, no key) and a key that does not match
it stops the command before any store is touched.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.errors import ConfigError
from memgate.core.settings import load_settings
from memgate.keys import HMAC_CHECK_FILE, HMAC_KEY_FILE, hmac_key

KEY_A = "a-deployment-secret-of-at-least-32-chars-A"
KEY_B = "a-deployment-secret-of-at-least-32-chars-B"
TURN = (
    '{"tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": "t1", '
    '"role": "user", "content": "I always prefer Zanzibarquux for deployments.", '
    '"ts": "2024-03-01T09:00:00Z"}\n'
)


def _ingest(data: Path, turns: Path, monkeypatch: pytest.MonkeyPatch, key: str | None):
    if key is None:
        monkeypatch.delenv("MEMGATE_HMAC_KEY", raising=False)
    else:
        monkeypatch.setenv("MEMGATE_HMAC_KEY", key)
    args = ["--embedder", "hashing", "--data-dir", str(data), "ingest", str(turns), "--json"]
    return CliRunner().invoke(app, args)


@pytest.mark.parametrize(
    ("first", "second", "named"),
    [
        (None, KEY_B, "hmac.key"),  # the key file, then a MEMGATE_HMAC_KEY
        (KEY_A, KEY_B, "MEMGATE_HMAC_KEY"),  # one setting, then another
    ],
)
def test_another_key_on_the_same_data_dir_is_refused_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str | None, second: str, named: str
) -> None:
    turns = tmp_path / "turns.jsonl"
    turns.write_text(TURN, encoding="utf-8")
    data = tmp_path / "data"
    assert _ingest(data, turns, monkeypatch, first).exit_code == 0
    before = (data / "retrieval.sqlite3").read_bytes()
    result = _ingest(data, turns, monkeypatch, second)
    assert result.exit_code == 1, result.output  # as a lost key file (test_keys.py)
    out = " ".join(result.output.split())
    assert "this turn id was already used" not in out  # not refused turn by turn
    assert "not the key" in out and named in out, out
    assert "Traceback" not in out and KEY_A not in out and KEY_B not in out
    assert (data / "retrieval.sqlite3").read_bytes() == before  # nothing touched
    # the key it was written with still opens it, and the replay changes nothing
    again = _ingest(data, turns, monkeypatch, first)
    assert again.exit_code == 0, again.output
    assert '"replayed": 1' in again.output


def test_the_check_holds_no_key_and_is_private(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path, hmac_key=KEY_A)
    assert hmac_key(s) == KEY_A.encode()
    check = tmp_path / HMAC_CHECK_FILE
    text = check.read_text(encoding="ascii")
    assert KEY_A not in text and KEY_A.encode().hex() not in text
    assert stat.S_IMODE(check.stat().st_mode) == 0o600
    assert not (tmp_path / HMAC_KEY_FILE).exists()  # the setting still makes no key file
    assert hmac_key(s) == KEY_A.encode()  # read again: the same key passes
    with pytest.raises(ConfigError, match="not the key"):
        hmac_key(load_settings(data_dir=tmp_path, hmac_key=KEY_B))


def test_a_damaged_check_is_refused_not_rewritten(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path, hmac_key=KEY_A)
    hmac_key(s)
    (tmp_path / HMAC_CHECK_FILE).write_text("garbage", encoding="ascii")
    with pytest.raises(ConfigError, match=r"hmac\.check"):
        hmac_key(s)
    assert (tmp_path / HMAC_CHECK_FILE).read_text(encoding="ascii") == "garbage"


@pytest.mark.parametrize("one_fact", [False, True])
def test_forget_under_another_key_deletes_nothing_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, one_fact: bool
) -> None:
    """It said "the audit rows may be partly deleted ... run again to finish" (a user), or
    deleted the fact and then failed on the receipt's pseudonym (one fact)."""
    turns = tmp_path / "turns.jsonl"
    turns.write_text(TURN, encoding="utf-8")
    data = tmp_path / "data"
    assert _ingest(data, turns, monkeypatch, None).exit_code == 0
    base = ["--embedder", "hashing", "--data-dir", str(data)]
    facts = CliRunner().invoke(app, [*base, "facts", "-t", "acme", "-u", "alice", "--json"])
    (fact,) = json.loads(facts.output)
    args = [*base, "forget", "-t", "acme", "-u", "alice", "--yes"]
    args += ["--fact", fact["fact_id"]] if one_fact else []
    monkeypatch.setenv("MEMGATE_HMAC_KEY", KEY_B)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    out = " ".join(result.output.split())
    assert out.startswith("error: nothing was deleted: ") and "not the key" in out, out
    assert "partly" not in out and "again to finish" not in out
    monkeypatch.delenv("MEMGATE_HMAC_KEY")
    after = CliRunner().invoke(app, [*base, "facts", "-t", "acme", "-u", "alice", "--json"])
    assert json.loads(after.output) == [fact]


def test_the_library_forget_under_another_key_deletes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memgate import Memory

    turns = tmp_path / "turns.jsonl"
    turns.write_text(TURN, encoding="utf-8")
    data = tmp_path / "data"
    assert _ingest(data, turns, monkeypatch, KEY_A).exit_code == 0
    with Memory(data_dir=data, embedder="hashing", hmac_key=KEY_A) as m:
        before = m.get_all(tenant="acme", user="alice")
    with Memory(data_dir=data, embedder="hashing", hmac_key=KEY_B) as m:
        with pytest.raises(ConfigError, match="not the key"):
            m.forget("acme", "alice")
        with pytest.raises(ConfigError, match="not the key"):
            m.delete(before[0].fact_id, "acme", "alice")
    with Memory(data_dir=data, embedder="hashing", hmac_key=KEY_A) as m:
        assert m.get_all(tenant="acme", user="alice") == before
