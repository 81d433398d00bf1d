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
