"""The HMAC key is kept apart from the data dir whose digests it keys.

The key was created in ``<data_dir>/hmac.key``: from a copy of the data dir (a backup,
an export) a masked phone number was recovered from its keyed digest in 143 guesses
(tools/attack/guess_masked.py), and the names of erased facts' tombstones could be
confirmed. The key file now lives outside it (``hmac_key_file``, else
``$XDG_CONFIG_HOME/memgate/keys/<data dir id>.key``); an old data dir's key is moved out
on first use; a copy without its key is refused, not given a new one.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.errors import ConfigError
from memgate.core.events import content_hmac
from memgate.core.settings import default_key_dir, load_settings
from memgate.evaluation.bytescan import scan
from memgate.keys import (
    DATA_DIR_ID_FILE,
    HMAC_CHECK_FILE,
    LEGACY_KEY_FILE,
    hmac_key,
    key_file,
)

PHONE_TURN = "Call me on +1 415 555 0143 tomorrow."
TURNS = [("t1", "I always prefer Zanzibarquux for deployments."), ("t2", PHONE_TURN)]


@pytest.fixture(autouse=True)
def _own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This test's key folder alone (the run's is shared by every test)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("MEMGATE_HMAC_KEY", raising=False)
    monkeypatch.delenv("MEMGATE_HMAC_KEY_FILE", raising=False)


def _turns(tmp_path: Path) -> Path:
    path = tmp_path / "turns.jsonl"
    rows = [
        {"tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": turn,
         "role": "user", "content": text, "ts": f"2024-03-01T09:0{i}:00Z"}
        for i, (turn, text) in enumerate(TURNS)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _ingest(data: Path, turns: Path, code: int = 0) -> dict[str, Any]:
    args = ["--embedder", "hashing", "--data-dir", str(data), "ingest", str(turns), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == code, result.output
    return json.loads(result.output) if code == 0 else {"error": " ".join(result.output.split())}


def _key_path(data: Path) -> Path:
    path = key_file(load_settings(data_dir=data), create=False)
    assert path is not None
    return path


def test_a_new_data_dir_holds_no_key_file_and_no_byte_of_the_key(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _ingest(data, _turns(tmp_path))
    path = _key_path(data)
    assert not path.is_relative_to(data) and path.parent == default_key_dir()
    assert not (data / LEGACY_KEY_FILE).exists()
    key = path.read_bytes()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for folder in (path.parent, path.parent.parent):  # .../memgate/keys, .../memgate
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    # every byte of every file under the data dir, compressed blocks decoded too
    report = scan(data, {"key": key, "key in hex": key.hex(), "phone": "415 555 0143"})
    assert report.hits == [], [h.describe() for h in report.hits]
    # the digest of the masked turn is there, and without the key it confirms nothing
    assert scan(data, {"digest": content_hmac(key, PHONE_TURN)}).found("digest")


def test_a_copy_without_its_key_file_is_refused_with_where_it_is_expected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, turns = tmp_path / "data", _turns(tmp_path)
    _ingest(data, turns)
    original = _key_path(data)
    copy = tmp_path / "elsewhere" / "data"
    shutil.copytree(data, copy, symlinks=True)  # as cp -a (chDB's links are relative)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "other-machine"))  # no key there
    expected = _key_path(copy)
    out = _ingest(copy, turns, code=1)["error"]
    assert "is missing" in out and str(expected) in out and "MEMGATE_HMAC_KEY_FILE" in out, out
    assert "Traceback" not in out
    assert not expected.exists(), "no new key was made"
    # pointed at its key, the copy works: the same turns are replays, not conflicts
    monkeypatch.setenv("MEMGATE_HMAC_KEY_FILE", str(original))
    again = _ingest(copy, turns)
    assert again["replayed"] == 2 and again["stored"] == 0, again


def test_a_copy_from_before_the_check_is_refused_by_its_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A data dir without ``hmac.check`` (from before it) still has its turn ledger."""
    data, turns = tmp_path / "data", _turns(tmp_path)
    _ingest(data, turns)
    (data / HMAC_CHECK_FILE).unlink()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "other-machine"))
    out = _ingest(data, turns, code=1)["error"]
    assert "holds 2 turns digested with a key" in out and "MEMGATE_HMAC_KEY_FILE" in out, out


def test_a_moved_data_dir_still_finds_its_key(tmp_path: Path) -> None:
    data, turns = tmp_path / "data", _turns(tmp_path)
    _ingest(data, turns)
    moved = tmp_path / "renamed"
    data.rename(moved)
    again = _ingest(moved, turns)
    assert again["replayed"] == 2, again


def test_the_key_file_setting_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secrets" / "memgate.key"
    monkeypatch.setenv("MEMGATE_HMAC_KEY_FILE", str(path))
    data, turns = tmp_path / "data", _turns(tmp_path)
    _ingest(data, turns)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(path.read_bytes()) == 32
    assert not (data / DATA_DIR_ID_FILE).exists()  # the setting needs no id
    assert not default_key_dir().exists() or not any(default_key_dir().iterdir())
    s = load_settings(data_dir=data)
    assert key_file(s) == path and hmac_key(s) == path.read_bytes()
    # a link to it (a mounted secret) is read through
    link = tmp_path / "link.key"
    link.symlink_to(path)
    assert hmac_key(load_settings(data_dir=data, hmac_key_file=link)) == path.read_bytes()
    # another key file on the same data dir is refused by its check
    other = load_settings(data_dir=data, hmac_key_file=tmp_path / "other.key")
    with pytest.raises(ConfigError, match="is missing"):
        hmac_key(other)


def test_a_key_file_inside_the_data_dir_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    s = load_settings(data_dir=data, hmac_key_file=data / "sub" / "k.key")
    with pytest.raises(ConfigError, match="inside the data dir"):
        hmac_key(s)
    assert not (data / "sub" / "k.key").exists()


def test_a_default_key_dir_inside_the_data_dir_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The container image's home folder is its data dir: ~/.config would be inside it."""
    data = tmp_path / "home"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(data / ".config"))
    with pytest.raises(ConfigError, match=r"inside the data dir.*MEMGATE_HMAC_KEY_FILE"):
        hmac_key(load_settings(data_dir=data))


def _old_data_dir(tmp_path: Path, turns: Path) -> tuple[Path, bytes]:
    """A data dir as memgate kept it before: its key in ``hmac.key``, no id."""
    data = tmp_path / "data"
    _ingest(data, turns)
    path = _key_path(data)
    key = path.read_bytes()
    path.rename(data / LEGACY_KEY_FILE)
    path.with_suffix(".path").unlink()  # nor a record of its data dir beside a key file
    (data / DATA_DIR_ID_FILE).unlink()
    return data, key


def test_an_old_data_dir_s_key_is_moved_out_and_its_stores_keep_working(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    turns = _turns(tmp_path)
    data, key = _old_data_dir(tmp_path, turns)
    with caplog.at_level(logging.WARNING, logger="memgate.keys"):
        assert hmac_key(load_settings(data_dir=data)) == key
    (line,) = [r.getMessage() for r in caplog.records if r.name == "memgate.keys"]
    new = _key_path(data)
    assert f"from={data / LEGACY_KEY_FILE}" in line and f"to={new}" in line, line
    assert "backups" in line and "still hold the key" in line
    assert not (data / LEGACY_KEY_FILE).exists() and new.read_bytes() == key
    assert stat.S_IMODE(new.stat().st_mode) == 0o600
    # no temporary file left; beside the key, the record of its data dir (test_keys_prune.py)
    assert sorted(p.name for p in new.parent.iterdir()) == [new.name, f"{new.stem}.path"]
    again = _ingest(data, turns)  # an earlier turn is still a replay, not a conflict
    assert again["replayed"] == 2 and again["stored"] == 0, again
    assert scan(data, {"key": key, "key in hex": key.hex()}).hits == []


def test_a_crash_between_the_copy_and_the_removal_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = _turns(tmp_path)
    data, key = _old_data_dir(tmp_path, turns)
    legacy = data / LEGACY_KEY_FILE
    unlink = Path.unlink

    def crash(self: Path, missing_ok: bool = False) -> None:
        if self == legacy:
            raise SystemExit("killed")  # the process dies before the old file is removed
        unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", crash)
    with pytest.raises(SystemExit):
        hmac_key(load_settings(data_dir=data))
    monkeypatch.setattr(Path, "unlink", unlink)
    new = _key_path(data)
    assert legacy.read_bytes() == key and new.read_bytes() == key  # both whole, equal
    assert hmac_key(load_settings(data_dir=data)) == key  # the next run finishes the move
    assert not legacy.exists()
    assert _ingest(data, turns)["replayed"] == 2


def test_a_crash_before_the_new_file_is_linked_leaves_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = _turns(tmp_path)
    data, key = _old_data_dir(tmp_path, turns)

    link = os.link

    def crash(src: Any, dst: Any) -> None:
        if str(dst).endswith(".key"):
            raise SystemExit("killed")  # the key's temporary file is written, not linked
        link(src, dst)

    monkeypatch.setattr(os, "link", crash)
    with pytest.raises(SystemExit):
        hmac_key(load_settings(data_dir=data))
    monkeypatch.setattr(os, "link", link)
    assert (data / LEGACY_KEY_FILE).read_bytes() == key
    assert not _key_path(data).exists()
    assert _ingest(data, turns)["replayed"] == 2


def test_a_move_that_cannot_be_made_stops_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = _turns(tmp_path)
    data, key = _old_data_dir(tmp_path, turns)
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocked))  # as a read-only config folder
    out = _ingest(data, turns, code=1)["error"]
    assert "MEMGATE_HMAC_KEY_FILE" in out and str(data / LEGACY_KEY_FILE) in out, out
    assert (data / LEGACY_KEY_FILE).read_bytes() == key  # kept, and not used
    target = tmp_path / "keys" / "memgate.key"
    target.parent.mkdir()
    shutil.move(data / LEGACY_KEY_FILE, target)  # what the error says to do
    monkeypatch.setenv("MEMGATE_HMAC_KEY_FILE", str(target))
    assert _ingest(data, turns)["replayed"] == 2


def test_two_keys_for_one_old_data_dir_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, key = _old_data_dir(tmp_path, _turns(tmp_path))
    other = tmp_path / "shared.key"
    other.write_bytes(b"o" * 32)
    other.chmod(0o600)
    with pytest.raises(ConfigError, match="hold different HMAC keys"):
        hmac_key(load_settings(data_dir=data, hmac_key_file=other))
    assert (data / LEGACY_KEY_FILE).read_bytes() == key and other.read_bytes() == b"o" * 32


def test_a_damaged_data_dir_id_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    s = load_settings(data_dir=data)
    hmac_key(s)
    (data / DATA_DIR_ID_FILE).write_text("not an id\n", encoding="ascii")
    with pytest.raises(ConfigError, match=r"data_dir\.id is damaged"):
        hmac_key(s)


def test_memgate_config_shows_where_the_key_file_is(tmp_path: Path) -> None:
    data = tmp_path / "data"
    base = ["--data-dir", str(data), "config"]
    before = json.loads(CliRunner().invoke(app, base).output)
    assert before["hmac_key_file"].startswith(str(default_key_dir()))
    assert not data.exists()  # showing it makes nothing
    hmac_key(load_settings(data_dir=data))
    after = json.loads(CliRunner().invoke(app, base).output)
    assert after["hmac_key_file"] == str(_key_path(data))


def test_the_demo_run_twice_keeps_one_key_file(tmp_path: Path) -> None:
    """The demo starts its folder afresh each run; its key file (outside) is not left
    behind with a new one made each time."""
    args = ["--embedder", "hashing", "--data-dir", str(tmp_path / "data"), "demo"]
    for _ in range(2):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    assert len(list(default_key_dir().glob("*.key"))) == 1
    assert not (tmp_path / "data" / "demo" / LEGACY_KEY_FILE).exists()


def test_an_evaluation_workspace_leaves_no_key_file_behind(tmp_path: Path) -> None:
    """``memgate eval`` opens a throwaway data dir per run: no key file is made for it."""
    from memgate.core.embedding import HashingEmbedder
    from memgate.evaluation.common import Workspace

    with Workspace(load_settings(data_dir=tmp_path / "data"), HashingEmbedder()) as ws:
        ws.ingest([])
        assert hmac_key(ws.settings)
    assert not default_key_dir().exists()


def test_an_old_key_file_left_beside_a_key_setting_is_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / LEGACY_KEY_FILE).write_bytes(b"o" * 32)
    s = load_settings(data_dir=data, hmac_key="s" * 32)
    with caplog.at_level(logging.WARNING, logger="memgate.keys"):
        hmac_key(s)
        hmac_key(s)
    lines = [r.getMessage() for r in caplog.records if r.name == "memgate.keys"]
    assert len(lines) == 1 and "not used" in lines[0] and str(data / LEGACY_KEY_FILE) in lines[0]
    assert (data / LEGACY_KEY_FILE).read_bytes() == b"o" * 32  # not the key in use: not moved


def test_an_old_data_dir_s_key_moves_to_the_key_file_setting(tmp_path: Path) -> None:
    data, key = _old_data_dir(tmp_path, _turns(tmp_path))
    target = tmp_path / "vault" / "memgate.key"  # its folder does not exist yet
    assert hmac_key(load_settings(data_dir=data, hmac_key_file=target)) == key
    assert target.read_bytes() == key and not (data / LEGACY_KEY_FILE).exists()


@pytest.mark.parametrize("name", [DATA_DIR_ID_FILE, HMAC_CHECK_FILE])
def test_a_dangling_link_in_place_of_a_data_dir_file_is_refused_in_one_line(
    tmp_path: Path, name: str
) -> None:
    """``data_dir.id`` or ``hmac.check`` a link to nothing (a restore that kept the link,
    not its target): it cannot be read, and a new one cannot be made in its place; this
    was a FileNotFoundError traceback, it is one error naming the file."""
    data = tmp_path / "data"
    data.mkdir()
    (data / name).symlink_to(tmp_path / "gone")
    with pytest.raises(ConfigError, match=re.escape(name) + ".*link to nothing"):
        hmac_key(load_settings(data_dir=data))
    assert not (tmp_path / "gone").exists()  # nothing written through the link


def test_a_key_file_setting_that_links_to_nothing_is_one_error(tmp_path: Path) -> None:
    """``MEMGATE_HMAC_KEY_FILE`` a link to a secret not there (not mounted yet): no key is
    made through the link, and the error names it (it was a bare FileNotFoundError)."""
    link = tmp_path / "secret.key"
    link.symlink_to(tmp_path / "mount" / "key")
    with pytest.raises(ConfigError, match=re.escape(str(link)) + ".*link to nothing"):
        hmac_key(load_settings(data_dir=tmp_path / "data", hmac_key_file=link))
    assert not (tmp_path / "mount").exists()
