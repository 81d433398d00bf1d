"""Key files left behind by data dirs that are gone: ``memgate hmac-keys list`` and ``prune``.

A key file is named by a random id that only its data dir holds, so the key folder
alone could not tell a key still in use from one whose data dir was deleted: every
throwaway data dir left a key file behind for good. Beside each key file memgate now
records the places its data dir was opened from (``<id>.path``); ``list`` shows each key
file with them, ``prune`` removes (with ``--yes``; a dry run without) those whose data
dir is gone, and never one without a record.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.settings import default_key_dir, load_settings
from memgate.key_folder import CANNOT_TELL, GONE, IN_USE, UNKNOWN, key_files
from memgate.keys import DATA_DIR_ID_FILE, hmac_key, key_file


@pytest.fixture(autouse=True)
def _own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("MEMGATE_HMAC_KEY", raising=False)
    monkeypatch.delenv("MEMGATE_HMAC_KEY_FILE", raising=False)


def _data_dir(folder: Path) -> tuple[Path, bytes]:
    """A data dir keyed by its own key file: the key file and the key."""
    s = load_settings(data_dir=folder)
    key = hmac_key(s)
    path = key_file(s, create=False)
    assert path is not None
    return path, key


def _cli(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(app, ["hmac-keys", *args])
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def _states() -> dict[str, str]:
    return {e["id"]: e["state"] for e in json.loads(_cli("list", "--json").stdout)}


def test_the_key_file_s_record_names_its_data_dir_and_holds_no_key(tmp_path: Path) -> None:
    path, key = _data_dir(tmp_path / "data")
    record = path.with_suffix(".path")
    assert record.read_bytes() == os.fsencode(tmp_path.resolve() / "data") + b"\n"
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert key not in record.read_bytes() and key.hex().encode() not in record.read_bytes()
    hmac_key(load_settings(data_dir=tmp_path / "data"))  # opened again: recorded once
    assert record.read_bytes().count(b"\n") == 1


def test_list_tells_a_key_in_use_from_one_gone_and_one_unknown(tmp_path: Path) -> None:
    kept, _ = _data_dir(tmp_path / "kept")
    gone, _ = _data_dir(tmp_path / "gone")
    old, _ = _data_dir(tmp_path / "old")
    old.with_suffix(".path").unlink()  # a key file made before the record
    shutil.rmtree(tmp_path / "gone")
    assert _states() == {kept.stem: IN_USE, gone.stem: GONE, old.stem: UNKNOWN}
    out = _cli("list")
    assert f"{gone.stem}  gone  {tmp_path.resolve() / 'gone'} (missing)" in out.stdout
    assert "3 key files" in out.stderr and "1 gone" in out.stderr


def test_prune_is_a_dry_run_without_yes_and_removes_only_the_gone_with_it(
    tmp_path: Path,
) -> None:
    kept, _ = _data_dir(tmp_path / "kept")
    gone, _ = _data_dir(tmp_path / "gone")
    old, _ = _data_dir(tmp_path / "old")
    old.with_suffix(".path").unlink()
    shutil.rmtree(tmp_path / "gone")
    shutil.rmtree(tmp_path / "old")  # its data dir gone too, but nothing says it was its

    dry = _cli("prune")
    assert f"would remove {gone}" in dry.stdout and "dry run: nothing removed" in dry.stderr
    assert gone.exists() and gone.with_suffix(".path").exists()

    done = _cli("prune", "--yes")
    assert f"removed {gone}" in done.stdout and "1 key file removed" in done.stderr
    assert not gone.exists() and not gone.with_suffix(".path").exists()
    assert kept.exists() and old.exists()
    assert hmac_key(load_settings(data_dir=tmp_path / "kept"))  # still opens
    again = _cli("prune", "--yes")
    assert "no key file" in again.stderr and "removed" not in again.stdout


def test_a_moved_data_dir_once_opened_keeps_its_key(tmp_path: Path) -> None:
    path, key = _data_dir(tmp_path / "before")
    (tmp_path / "before").rename(tmp_path / "after")
    assert _states() == {path.stem: GONE}  # not opened since the move: looks gone
    assert hmac_key(load_settings(data_dir=tmp_path / "after")) == key
    assert _states() == {path.stem: IN_USE}
    _cli("prune", "--yes")
    assert path.read_bytes() == key


def test_a_data_dir_made_anew_in_the_same_place_leaves_the_old_key_gone(tmp_path: Path) -> None:
    first, _ = _data_dir(tmp_path / "data")
    shutil.rmtree(tmp_path / "data")
    second, _ = _data_dir(tmp_path / "data")
    assert first != second
    assert _states() == {first.stem: GONE, second.stem: IN_USE}


def test_a_data_dir_whose_id_cannot_be_read_keeps_its_key(tmp_path: Path) -> None:
    no_id, _ = _data_dir(tmp_path / "no-id")
    odd, _ = _data_dir(tmp_path / "odd")
    (tmp_path / "no-id" / DATA_DIR_ID_FILE).unlink()  # lost: restore it, the key is needed
    (tmp_path / "odd" / DATA_DIR_ID_FILE).unlink()
    (tmp_path / "odd" / DATA_DIR_ID_FILE).mkdir()
    assert _states() == {no_id.stem: CANNOT_TELL, odd.stem: CANNOT_TELL}
    _cli("prune", "--yes")
    assert no_id.exists() and odd.exists()


def test_keys_named_or_set_leave_no_record(tmp_path: Path) -> None:
    hmac_key(load_settings(data_dir=tmp_path / "a", hmac_key="s" * 32))
    named = tmp_path / "vault" / "k.key"
    hmac_key(load_settings(data_dir=tmp_path / "b", hmac_key_file=named))
    assert not default_key_dir().exists() and named.exists()
    assert sorted(p.name for p in named.parent.iterdir()) == ["k.key"]


def test_no_key_folder_is_an_empty_list(tmp_path: Path) -> None:
    assert key_files() == []
    assert "no key files in" in _cli("list").stderr
    assert json.loads(_cli("list", "--json").stdout) == []
    assert "no key file" in _cli("prune", "--yes").stderr


def test_a_data_dir_whose_folder_is_missing_too_is_kept_as_cannot_tell(tmp_path: Path) -> None:
    # a data dir on a drive that is not mounted now: its folder is missing, not only itself
    mount = tmp_path / "mnt" / "backup"
    kept, _ = _data_dir(mount / "data")
    gone, _ = _data_dir(tmp_path / "gone")
    shutil.rmtree(tmp_path / "mnt")
    shutil.rmtree(tmp_path / "gone")
    assert _states() == {kept.stem: CANNOT_TELL, gone.stem: GONE}
    _cli("prune", "--yes")
    assert kept.exists() and not gone.exists()


def test_a_record_whose_key_file_is_gone_is_listed_and_pruned(tmp_path: Path) -> None:
    path, _ = _data_dir(tmp_path / "data")
    record = path.with_suffix(".path")
    path.unlink()  # the key file removed by hand: its record is left alone
    assert _states() == {path.stem: "record only"}
    assert "record only" in _cli("list").stderr
    dry = json.loads(_cli("prune", "--json").stdout)
    assert dry["dry_run"] and [r["id"] for r in dry["key_files"]] == [path.stem]
    assert record.exists()
    assert "a record whose key file is gone" in _cli("prune", "--yes").stdout
    assert not record.exists()
    assert _states() == {}


def test_a_record_whose_key_file_comes_back_is_not_pruned(tmp_path: Path) -> None:
    path, key = _data_dir(tmp_path / "data")
    path.unlink()
    [entry] = key_files(default_key_dir())
    path.write_bytes(key)  # restored from a backup before the prune
    from memgate.key_folder import prune

    assert prune([entry]) == ([], [])
    assert path.with_suffix(".path").exists()


def test_damaged_record_lines_are_no_places_and_keep_the_key(tmp_path: Path) -> None:
    path, _ = _data_dir(tmp_path / "data")
    record = path.with_suffix(".path")
    shutil.rmtree(tmp_path / "data")
    noise = bytes(range(256)).replace(b"/", b"").replace(b"\n", b"")
    record.write_bytes(record.read_bytes() + noise * 20 + b"\nrelative/place\n")
    [entry] = json.loads(_cli("list", "--json").stdout)
    assert entry["state"] == CANNOT_TELL  # a damaged line may have been its place
    holds = [d["holds"] for d in entry["data_dirs"]]
    assert holds == ["missing", "not a path: the record is damaged"]
    assert entry["data_dirs"][1]["path"] == "2 lines of the record"
    out = _cli("list").stdout
    assert "\\x" not in out and len(out) < 1000
    _cli("prune", "--yes")
    assert path.exists()


def test_a_record_of_valid_places_only_is_gone_as_before(tmp_path: Path) -> None:
    path, _ = _data_dir(tmp_path / "data")
    shutil.rmtree(tmp_path / "data")
    assert _states() == {path.stem: GONE}
