"""The int8 ONNX Runtime path of MiniLM (built from the shipped weights) gives the same
vectors as the float32 numpy forward pass: cosine at least 0.99 on a fixed sentence set."""

from __future__ import annotations

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
