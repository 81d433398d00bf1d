"""The int8 ONNX Runtime path of MiniLM (built from the shipped weights) gives the same
vectors as the float32 numpy forward pass: cosine at least 0.99 on a fixed sentence set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memgate.core.embedding import MiniLMEmbedder

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

SENTENCES = [
    "I like long hikes in the mountains near the lake.",
    "My sister lives in Boston and works as a nurse.",
    "I prefer green tea in the morning.",
    "We adopted a dog named Max last year, he is a golden retriever.",
    "Caroline went to the support group yesterday and felt very welcomed by everyone.",
    "The user is allergic to peanuts.",
    "Melanie painted a sunrise over the lake last week.",
    "I switched from Vim to VS Code for Python work.",
    "ok",
    "My daughter's birthday is on the 14th of March and she turns seven.",
]


def test_int8_vectors_are_within_0_01_cosine_of_float32() -> None:
    fp32 = MiniLMEmbedder(cache_size=0).embed(SENTENCES)
    int8 = MiniLMEmbedder(cache_size=0, runtime="onnx-int8").embed(SENTENCES)
    cos = np.sum(fp32 * int8, axis=1)
    assert cos.min() >= 0.99, cos
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)


def test_an_unknown_runtime_is_refused() -> None:
    with pytest.raises(ValueError, match="runtime"):
        MiniLMEmbedder(runtime="gpu")  # type: ignore[arg-type]


def test_an_int8_vector_is_its_texts_own_whatever_it_is_embedded_with() -> None:
    """int8 activations are quantised per forward pass: the int8 runtime gives each text
    a pass of its own, so a statement's vector is the same embedded alone or beside its
    search text (and no text pays for another's padding)."""
    emb = MiniLMEmbedder(cache_size=0, runtime="onnx-int8")
    together = emb.embed(SENTENCES)
    alone = np.stack([emb.embed([s])[0] for s in SENTENCES])
    assert np.array_equal(together, alone)
    plan = emb.plan_encoding(SENTENCES[:4])
    assert [len(chunk) for chunk, *_ in plan.passes] == [1, 1, 1, 1]


def test_the_skip_layer_norm_fusion_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """ONNX Runtime's CPU SkipLayerNormalization kernel measured about 6 times the
    LayerNormalization it replaces: the session runs the residual Add and the
    LayerNormalization as built."""
    import onnxruntime as ort  # type: ignore[import-untyped]

    from memgate.core.embedding_onnx import DISABLED_FUSIONS

    made: list[dict[str, object]] = []
    real = ort.InferenceSession

    def spy(*args: object, **kwargs: object) -> object:
        made.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(ort, "InferenceSession", spy)
    MiniLMEmbedder(cache_size=0, runtime="onnx-int8").load()
    assert made and all(k["disabled_optimizers"] == DISABLED_FUSIONS for k in made)
    assert DISABLED_FUSIONS == ["SkipLayerNormFusion"]


def _weight_products(path: Path) -> dict[str, str]:
    """Each weight product of a built model: its name (``l3.out.mm``), and ``int8`` or
    ``float32``."""
    import onnx

    from memgate.core.embedding_onnx import _read_kept

    data = _read_kept(path)  # the kept file ends with its checksum (attack19)
    assert data is not None
    model = onnx.load_from_string(data)
    weights = {i.name for i in model.graph.initializer}
    out: dict[str, str] = {}
    for n in model.graph.node:
        if n.op_type == "MatMul" and n.input[1] in weights:
            out[n.name] = "float32"
        elif n.op_type == "MatMulInteger":
            out[n.name.removesuffix("_quant")] = "int8"
    return out


def test_every_weight_product_runs_in_int8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Session 17 (fastpass): the feed-forward output products (1,536 to 384) were kept in
    float32, about 30 % of a pass; they run in int8 now, as every other weight product
    (about 45 % less CPU a pass), and the vectors stay within 0.01 cosine of float32 on the
    fixed sentences (the first test)."""
    from memgate.core.embedding_onnx import INT8_FFN_OUT_LAYERS, int8_model_path

    monkeypatch.setenv("MEMGATE_CACHE_DIR", str(tmp_path))
    emb = MiniLMEmbedder(cache_size=0, runtime="onnx-int8")
    emb.load()
    kinds = _weight_products(int8_model_path(emb.model_dir / "model.safetensors", emb._config))
    expected = {f"l{i}.{part}.mm" for i in range(6) for part in ("qkv", "proj", "inter", "out")}
    assert set(kinds) == expected
    assert {n for n, kind in kinds.items() if kind != "int8"} == set()
    assert INT8_FFN_OUT_LAYERS == (0, 1, 2, 3, 4, 5)
