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
