"""ONNX Runtime intra-op threads of the int8 embedder (``embedder_threads``, issue 14): the
read-ahead's background thread runs the forward passes; a second intra-op thread takes
the part of a pass the other core has free. The vectors are bit-identical to one thread
(the int8 products are exact, the float32 ones split by output blocks, never along the
sum), and the pool's threads sleep when idle rather than spin beside the main thread."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from memgate.backends import make_embedder
from memgate.core.embedding import MiniLMEmbedder, _default_model_dir
from memgate.core.embedding_onnx import OnnxEncoder
from memgate.core.settings import load_settings

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

TEXTS = [
    "Caroline went to the support group yesterday and felt very welcomed by everyone.",
    "I switched from Vim to VS Code for Python work, mostly for the debugger.",
    "My daughter's birthday is on the 14th of March and she turns seven.",
] * 6


def _model() -> tuple[Path, dict[str, object]]:
    d = _default_model_dir()
    return d / "model.safetensors", json.loads((d / "config.json").read_text())


def test_two_intra_op_threads_give_bit_identical_vectors_without_spinning() -> None:
    weights, config = _model()
    one = OnnxEncoder(weights, config, int8=True, threads=1)
    two = OnnxEncoder(weights, config, int8=True, threads=2)
    opts = two._session.get_session_options()
    assert opts.intra_op_num_threads == 2
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    emb = MiniLMEmbedder(cache_size=0)
    plan = emb.plan_encoding([f"{t} {i}" for i, t in enumerate(TEXTS)])
    for _chunk, ids, mask, _int8 in plan.passes:
        assert np.array_equal(one.encode(ids, mask), two.encode(ids, mask))


def test_the_setting_reaches_the_embedder() -> None:
    s = load_settings(embedder_runtime="onnx-int8", embedder_threads=2)
    emb = make_embedder(s)
    assert isinstance(emb, MiniLMEmbedder) and emb.threads == 2
    assert load_settings().embedder_threads == 1  # the default: see the README, Performance
    with pytest.raises(ValueError, match="threads"):
        MiniLMEmbedder(threads=0)
