"""Tenant API keys: ``memgate keys`` as a user runs it, and the key file holding no key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memgate.apikeys import KeyStore, bearer_token

MEMGATE = str(Path(sys.executable).with_name("memgate"))


def _memgate(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMGATE_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run([MEMGATE, *args], env=env, capture_output=True, text=True, timeout=120)


def test_keys_create_prints_the_key_once_and_list_and_revoke_never_show_it(
    tmp_path: Path,
) -> None:
    made = _memgate(tmp_path, "keys", "create", "--tenant", "acme", "--label", "agent-1")
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("mgk_") and "not shown again" in made.stderr
    path = tmp_path / "data" / "api_keys.json"
    assert key not in path.read_text() and key.split("_", 2)[2] not in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o600
    rec = KeyStore(path).verify(key)
    assert rec is not None and rec.tenant == "acme"
    listed = _memgate(tmp_path, "keys", "list", "--json")
    assert key not in listed.stdout
    [row] = json.loads(listed.stdout)
    assert row["tenant"] == "acme" and row["label"] == "agent-1" and row["revoked_at"] is None
    assert _memgate(tmp_path, "keys", "revoke", row["key_id"]).returncode == 0
    assert KeyStore(path).verify(key) is None
    gone = _memgate(tmp_path, "keys", "revoke", "000000000000")
    assert gone.returncode == 1 and "no key" in gone.stderr and "Traceback" not in gone.stderr


def test_a_bad_tenant_or_a_broken_key_file_is_one_error_line(tmp_path: Path) -> None:
    bad = _memgate(tmp_path, "keys", "create", "--tenant", "a b")
    # a usage error (exit 2) since attack20, like --tenant of every other command
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--tenant" in bad.stderr
    (tmp_path / "data").mkdir(exist_ok=True)  # the usage error comes before the data dir
    (tmp_path / "data" / "api_keys.json").write_text("not json")
    broken = _memgate(tmp_path, "keys", "list")
    assert broken.returncode != 0 and "not a memgate key file" in broken.stderr
    assert "Traceback" not in broken.stderr


def test_verify_refuses_lookalikes(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "k.json")
    key, rec = store.create("acme")
    other, _ = store.create("globex")
    assert store.verify(key) == rec
    secret = key.split("_", 2)[2]
    for wrong in ("", "mgk", key + "x", key[:-1], f"mgk_{other.split('_')[1]}_{secret}",
                  key.replace("mgk_", "mgx_"), "x" * 500):  # fmt: skip
        assert store.verify(wrong) is None, wrong
    assert bearer_token("Bearer  abc ") == "abc" and bearer_token("Basic abc") is None
