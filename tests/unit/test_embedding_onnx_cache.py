"""The int8 model is built once and kept (issue 14): a later start loads the kept file and
gives bit-identical vectors; a damaged file is built anew, a cache that cannot be written
is skipped."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from memgate.core.embedding import _default_model_dir
from memgate.core.embedding_onnx import OnnxEncoder, cache_dir, int8_model_path

IDS = np.array([[101, 1045, 2066, 2146, 17607, 1999, 1996, 4020, 102, 0]], dtype=np.int64)
MASK = np.array([[1, 1, 1, 1, 1, 1, 1, 1, 1, 0]], dtype=np.float32)


def _model() -> tuple[Path, dict[str, object]]:
    d = _default_model_dir()
    return d / "model.safetensors", json.loads((d / "config.json").read_text())


def test_a_second_start_loads_the_kept_model_and_a_damaged_one_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMGATE_CACHE_DIR", str(tmp_path))
    weights, config = _model()
    assert cache_dir() == tmp_path
    first = OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    kept = int8_model_path(weights, config)
    assert kept.parent == tmp_path and kept.is_file()
    stamp = kept.stat().st_mtime_ns
    again = OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    assert kept.stat().st_mtime_ns == stamp  # loaded, not rebuilt
    assert np.array_equal(first, again)
    assert list(tmp_path.iterdir()) == [kept]  # no partial file left
    kept.write_bytes(b"not a model")  # damaged: built anew and replaced
    rebuilt = OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    assert np.array_equal(first, rebuilt)
    assert kept.stat().st_size > 1_000_000


def test_a_cache_that_cannot_be_written_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("MEMGATE_CACHE_DIR", str(blocked / "cache"))  # under a file
    weights, config = _model()
    out = OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    assert out.shape == (1, int(config["hidden_size"]))  # type: ignore[call-overload]


def test_the_kept_model_is_named_by_what_it_is_built_from() -> None:
    weights, config = _model()
    other = {**config, "layer_norm_eps": 1e-6}
    assert int8_model_path(weights, config) == int8_model_path(weights, dict(config))
    assert int8_model_path(weights, config) != int8_model_path(weights, other)


# -- session 19 (attack19): the kept file is trusted only when whole and our own ---------


def _built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, np.ndarray]:
    monkeypatch.setenv("MEMGATE_CACHE_DIR", str(tmp_path / "cache"))
    weights, config = _model()
    first = OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    return int8_model_path(weights, config), first


def test_a_kept_model_changed_on_disk_is_rebuilt_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A byte flipped inside the kept model (a weight, not the framing) still parses: it
    was loaded and its vectors used. Now the file carries its checksum."""
    kept, first = _built(tmp_path, monkeypatch)
    data = bytearray(kept.read_bytes())
    for i in range(len(data) // 2, len(data) // 2 + 4096):
        data[i] ^= 0x5A
    kept.write_bytes(bytes(data))
    stamp = kept.stat().st_mtime_ns
    weights, config = _model()
    with caplog.at_level("WARNING", logger="memgate.embedding"):
        again = OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    assert kept.stat().st_mtime_ns != stamp  # rebuilt and replaced
    assert np.array_equal(first, again)
    assert "event=int8_model_cache_rejected" in caplog.text and "checksum" in caplog.text


@pytest.mark.parametrize("size", [0, 1000])
def test_a_kept_model_cut_short_is_rebuilt_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, size: int
) -> None:
    kept, first = _built(tmp_path, monkeypatch)
    kept.write_bytes(kept.read_bytes()[:size])
    weights, config = _model()
    with caplog.at_level("WARNING", logger="memgate.embedding"):
        again = OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    assert np.array_equal(first, again)
    assert "event=int8_model_cache_rejected" in caplog.text
    assert kept.stat().st_size > 1_000_000


def test_a_link_in_place_of_the_kept_model_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A symbolic link at the kept model's name (to a model somewhere else) was loaded."""
    kept, first = _built(tmp_path, monkeypatch)
    elsewhere = tmp_path / "elsewhere.onnx"
    elsewhere.write_bytes(kept.read_bytes())
    kept.unlink()
    kept.symlink_to(elsewhere)
    weights, config = _model()
    again = OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    assert np.array_equal(first, again)
    assert not kept.is_symlink() and kept.is_file()  # replaced by a file of its own


def test_a_link_planted_at_the_partial_files_name_is_not_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The partial file had a predictable name (``<name>.<pid>.part``): a link planted
    there made the build overwrite the file it pointed at with the model."""
    import os

    monkeypatch.setenv("MEMGATE_CACHE_DIR", str(tmp_path / "cache"))
    weights, config = _model()
    kept = int8_model_path(weights, config)
    kept.parent.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    kept.with_suffix(f".{os.getpid()}.part").symlink_to(victim)
    OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    assert victim.read_text() == "precious"
    assert kept.is_file() and not kept.is_symlink()


def test_a_kept_model_others_may_write_is_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    kept, first = _built(tmp_path, monkeypatch)
    kept.chmod(0o666)
    stamp = kept.stat().st_mtime_ns
    weights, config = _model()
    with caplog.at_level("WARNING", logger="memgate.embedding"):
        again = OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    assert np.array_equal(first, again)
    assert "writable by other users" in caplog.text
    assert kept.stat().st_mtime_ns != stamp and kept.stat().st_mode & 0o022 == 0


def test_an_unwritable_cache_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("MEMGATE_CACHE_DIR", str(blocked / "cache"))
    weights, config = _model()
    with caplog.at_level("WARNING", logger="memgate.embedding"):
        OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    lines = [r for r in caplog.records if "int8_model_cache_unwritable" in r.getMessage()]
    assert len(lines) == 1 and "MEMGATE_CACHE_DIR" in lines[0].getMessage()


def test_two_processes_building_at_once_keep_one_whole_model(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    code = (
        "import json, numpy as np; from memgate.core.embedding import _default_model_dir;"
        "from memgate.core.embedding_onnx import OnnxEncoder;"
        "d = _default_model_dir(); c = json.loads((d / 'config.json').read_text());"
        "ids = np.array([[101, 1045, 2066, 2146, 17607, 1999, 1996, 4020, 102, 0]]);"
        "m = np.array([[1, 1, 1, 1, 1, 1, 1, 1, 1, 0]], dtype=np.float32);"
        "print(OnnxEncoder(d / 'model.safetensors', c, int8=True).encode(ids, m).tobytes().hex())"
    )
    env = {**os.environ, "MEMGATE_CACHE_DIR": str(tmp_path / "cache")}
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs) and outs[0] == outs[1]
    files = list((tmp_path / "cache").iterdir())
    assert len(files) == 1 and not files[0].name.endswith(".part")
    from memgate.core.embedding_onnx import _read_kept

    assert _read_kept(files[0]) is not None  # whole, its checksum holds


def test_another_users_kept_model_is_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """As root the file is given to another user for real; as anyone else (who may not give
    a file away) the kept file's status reads another owner, the same for the check."""
    import os

    kept, first = _built(tmp_path, monkeypatch)
    if os.geteuid() == 0:
        os.chown(kept, 12345, 12345)
    else:
        ino, real = kept.stat().st_ino, os.lstat

        def lstat(path: object, *args: object, **kwargs: object) -> os.stat_result:
            st = real(path, *args, **kwargs)  # type: ignore[arg-type]
            if st.st_ino != ino:
                return st  # the file written in its place is ours
            fields = list(st)
            fields[4] = 12345  # st_uid
            return os.stat_result(fields)

        monkeypatch.setattr(os, "lstat", lstat)
    weights, config = _model()
    with caplog.at_level("WARNING", logger="memgate.embedding"):
        again = OnnxEncoder(weights, config, int8=True).encode(IDS, MASK)
    assert np.array_equal(first, again)
    assert "belongs to another user" in caplog.text
    assert kept.stat().st_uid == os.getuid()  # replaced by our own
