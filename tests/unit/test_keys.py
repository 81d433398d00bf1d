"""The journal's digest is keyed (HMAC-SHA256) with a per-deployment secret.

An unkeyed SHA-256 of the raw turn let anyone holding the journal recover a
masked value by hashing candidates; these tests pin down that no unkeyed
digest of the content is stored, and how the key is set or created.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from pathlib import Path

import pytest

from memgate.backends import build_pipeline
from memgate.core.embedding import HashingEmbedder
from memgate.core.errors import ConfigError
from memgate.core.events import JournalRecord, TurnEvent, content_hmac
from memgate.core.settings import load_settings
from memgate.keys import HMAC_KEY_BYTES, LEGACY_KEY_FILE, hmac_key, key_file, load_or_create_key

KEY_FILE = "memgate.key"

SECRET_TURN = TurnEvent(
    tenant_id="acme",
    user_id="alice",
    session_id="s1",
    turn_id="t1",
    role="user",
    content="my password is hunter2",
    ts="2024-05-01T10:00:00Z",  # type: ignore[arg-type]
)


def _journal(data_dir: Path, **settings: str) -> JournalRecord:
    s = load_settings(data_dir=data_dir, embedder="hashing", **settings)
    pipeline = build_pipeline(s, HashingEmbedder())
    (journal,) = [e for e in pipeline.triage(SECRET_TURN) if isinstance(e, JournalRecord)]
    return journal


def test_the_journal_holds_no_unkeyed_digest_of_the_raw_turn(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "data")
    raw = SECRET_TURN.content.encode()
    unkeyed = {hashlib.new(alg, raw).hexdigest() for alg in ("sha256", "sha1", "md5", "sha512")}
    fields = journal.model_dump(mode="json")
    assert not unkeyed & {str(v) for v in fields.values()}
    assert "content_sha256" not in fields
    # the masked password cannot be confirmed by hashing a guess without the key
    assert fields["redacted_text"] != SECRET_TURN.content
    key = hmac_key(load_settings(data_dir=tmp_path / "data"))  # its key file, outside
    assert journal.content_hmac == content_hmac(key, SECRET_TURN.content)


def test_two_deployments_digest_the_same_turn_differently(tmp_path: Path) -> None:
    a = _journal(tmp_path / "a").content_hmac
    b = _journal(tmp_path / "b").content_hmac
    assert a != b
    assert _journal(tmp_path / "a").content_hmac == a  # stable within one deployment


def test_the_key_file_is_created_once_with_mode_0600(tmp_path: Path) -> None:
    old = os.umask(0)  # even with a permissive umask
    try:
        key = load_or_create_key(tmp_path / "d" / KEY_FILE)
    finally:
        os.umask(old)
    path = tmp_path / "d" / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(key) == HMAC_KEY_BYTES and path.read_bytes() == key
    assert load_or_create_key(path) == key
    assert sorted(p.name for p in path.parent.iterdir()) == [KEY_FILE]  # no temp left


def test_processes_racing_to_create_the_key_all_get_the_same_one(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE
    keys: list[bytes] = []
    barrier = threading.Barrier(8)

    def create() -> None:
        barrier.wait()
        keys.append(load_or_create_key(path))

    threads = [threading.Thread(target=create) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(keys) == 8 and len(set(keys)) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [KEY_FILE]


def test_a_key_file_others_can_read_is_refused_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE
    path.write_bytes(b"k" * HMAC_KEY_BYTES)
    path.chmod(0o644)
    with pytest.raises(ConfigError, match=r"mode 0644\); run: chmod 600"):
        load_or_create_key(path)


def test_a_damaged_key_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE
    path.write_bytes(b"short")
    path.chmod(0o600)
    with pytest.raises(ConfigError, match="holds 5 bytes"):
        load_or_create_key(path)


def test_the_setting_wins_and_no_file_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMGATE_HMAC_KEY", "a-deployment-secret-of-at-least-32-chars")
    s = load_settings(data_dir=tmp_path / "data")
    assert hmac_key(s) == b"a-deployment-secret-of-at-least-32-chars"
    assert key_file(s, create=False) is None and not (tmp_path / "data" / LEGACY_KEY_FILE).exists()
    assert s.describe()["hmac_key"] == "****"
    assert "a-deployment-secret" not in repr(s)


def test_a_short_key_setting_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMGATE_HMAC_KEY", "too-short")
    with pytest.raises(ConfigError, match="hmac_key"):
        load_settings()


def test_the_pipeline_repr_does_not_show_the_key(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path, hmac_key="x" * 40)
    assert "xxxx" not in repr(build_pipeline(s, HashingEmbedder()))


def test_a_shared_clickhouse_audit_store_needs_the_key_setting(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path, audit_backend="clickhouse")
    with pytest.raises(ConfigError, match="MEMGATE_HMAC_KEY"):
        hmac_key(s)
    assert key_file(s, create=False) is None  # no key file made, no data dir id either
    keyed = load_settings(data_dir=tmp_path, audit_backend="clickhouse", hmac_key="k" * 32)
    assert hmac_key(keyed) == b"k" * 32
    shared = tmp_path / "shared.key"  # one key file every worker reads: the operator's choice
    filed = load_settings(data_dir=tmp_path / "d", audit_backend="clickhouse", hmac_key_file=shared)
    assert hmac_key(filed) == shared.read_bytes()


def test_a_lost_key_beside_ingested_turns_is_refused_not_replaced(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from memgate.cli import app

    turns = tmp_path / "turns.jsonl"
    turns.write_text(
        '{"tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": "t1", '
        '"role": "user", "content": "I use Neovim as my editor.", '
        '"ts": "2024-03-01T09:00:00Z"}\n',
        encoding="utf-8",
    )
    data = tmp_path / "data"
    args = ["--embedder", "hashing", "--data-dir", str(data), "ingest", str(turns)]
    assert CliRunner().invoke(app, args).exit_code == 0
    path = key_file(load_settings(data_dir=data))
    assert path is not None
    path.unlink()  # lost: a restore without it, a careless cleanup
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    out = " ".join(result.output.split())
    assert "is missing" in out and "restore" in out and str(path) in out, out
    assert "MEMGATE_HMAC_KEY_FILE" in out, out
    assert not path.exists(), "no new key was made"
