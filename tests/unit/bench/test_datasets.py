"""Where the LoCoMo file is looked for, and the error when it is nowhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate.bench import datasets
from memgate.bench.datasets import ENV_DIR, DatasetMissing, find_locomo


def _place(root: Path) -> Path:
    d = root / datasets._RELATIVE
    d.mkdir(parents=True)
    (d / "locomo-dev.json").write_text("[]", encoding="utf-8")
    return d / "locomo-dev.json"


@pytest.fixture
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No setting, a working directory and a source root with nothing above them (the
    relative path is made unique: a real ``/tmp/shared/datasets/locomo`` is no concern)."""
    monkeypatch.delenv(ENV_DIR, raising=False)
    monkeypatch.setattr(datasets, "_RELATIVE", Path(f"shared-{tmp_path.name}") / "locomo")
    empty = tmp_path / "work" / "checkout"
    empty.mkdir(parents=True)
    monkeypatch.chdir(empty)
    monkeypatch.setattr(datasets, "SOURCE_ROOT", empty)
    return tmp_path


def test_the_setting_wins(nowhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _place(nowhere / "work")  # also present beside the checkout
    elsewhere = _place(nowhere / "elsewhere")
    monkeypatch.setenv(ENV_DIR, str(elsewhere.parent))
    assert find_locomo() == elsewhere


def test_a_wrong_setting_is_an_error_not_a_cue_to_look_elsewhere(
    nowhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _place(nowhere / "work")
    monkeypatch.setenv(ENV_DIR, str(nowhere / "typo"))
    with pytest.raises(DatasetMissing) as exc:
        find_locomo()
    assert exc.value.looked == [nowhere / "typo"]
    assert ENV_DIR in str(exc.value) and str(nowhere / "typo") in str(exc.value)


def test_found_beside_the_checkout_or_any_parent(nowhere: Path) -> None:
    found = _place(nowhere / "work")  # ../shared from work/checkout
    assert find_locomo() == found


def test_nowhere_names_every_place_looked_and_the_setting(nowhere: Path) -> None:
    with pytest.raises(DatasetMissing) as exc:
        find_locomo()
    message = str(exc.value)
    assert ENV_DIR in message and "locomo-dev.json" in message
    assert str(nowhere / "work" / datasets._RELATIVE) in message


def test_extra_roots_are_searched(nowhere: Path) -> None:
    found = _place(nowhere / "origin")
    assert find_locomo(extra_roots=[nowhere / "origin" / "repo"]) == found


@pytest.mark.parametrize("name", ["", "..", "../etc/passwd", "a/b.json"])
def test_only_a_file_name_inside_the_directory(name: str) -> None:
    with pytest.raises(ValueError, match="file name"):
        find_locomo(name)


def test_a_clone_of_a_local_checkout_looks_beside_the_checkout_it_came_from(
    nowhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    from tests import datasets as test_datasets

    found = _place(nowhere / "work")
    origin = nowhere / "work" / "repo"
    origin.mkdir()
    subprocess.run(["git", "init", "-q", str(origin)], check=True)
    clone = nowhere / "tmp" / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True,
                   capture_output=True)  # fmt: skip
    monkeypatch.setattr(test_datasets, "SOURCE_ROOT", clone)
    monkeypatch.chdir(clone)
    assert test_datasets.locomo_file() == found
