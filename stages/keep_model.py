"""The keep classifier of the statement extractor: does this sentence hold something durable?

Features, all language-independent: character n-grams of the case-folded sentence
(3- and 4-grams inside Latin words, 1- and 2-grams inside runs of Chinese characters,
the first word and whole words), hashed into :data:`DIM` buckets and L2-normalised, and
the structural cues of :func:`memgate.stages.statement_text.cues`. The model is a logistic
regression trained with plain numpy gradient descent (deterministic: fixed start, fixed
step count, no shuffling) by ``tools/train_keep.py`` from the development corpus
``memgate/data/train/statements.jsonl``; its weights are the data file
``memgate/data/keep_model.json``. Nothing is downloaded at run time.

>>> model = KeepModel.load()
>>> model.probability("The checkout service is written in Go.") > 0.5
True
>>> model.probability("I'm swamped this week, so keep it brief.") < 0.5
True
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from memgate.stages.statement_text import CUE_NAMES, cues, normalise_text

__all__ = ["DIM", "KeepModel", "featurise", "sentence_labels", "train"]

FloatArray = npt.NDArray[np.float64]

#: Hash buckets of the n-gram features.
DIM: Final = 4096
MODEL_FILE: Final = "keep_model.json"
_TOKEN_RE: Final = re.compile(
    r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\W\d_]+(?:'[^\W\d_]+)?|\d+"
)
_CJK_RE: Final = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _bucket(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8")) % DIM


def _grams(sentence: str) -> list[str]:
    norm = normalise_text(sentence)
    out: list[str] = []
    tokens = _TOKEN_RE.findall(norm)
    for i, tok in enumerate(tokens):
        if tok.isdigit():
            out.append("w:<num>")
            continue
        if _CJK_RE.match(tok):
            out.extend(f"c1:{c}" for c in tok)
            out.extend(f"c2:{tok[j:j + 2]}" for j in range(len(tok) - 1))
            if i == 0:
                out.append(f"first:{tok[:2]}")
            continue
        out.append(f"w:{tok}")
        if i == 0:
            out.append(f"first:{tok}")
        padded = f" {tok} "
        for n in (3, 4):
            out.extend(f"g{n}:{padded[j:j + n]}" for j in range(len(padded) - n + 1))
    return out


def featurise(sentence: str) -> FloatArray:
    """The feature vector of one sentence: hashed n-grams (unit length), then the cues."""
    vec = np.zeros(DIM + len(CUE_NAMES), dtype=np.float64)
    for g in _grams(sentence):
        vec[_bucket(g)] += 1.0
    norm = float(np.linalg.norm(vec[:DIM]))
    if norm > 0:
        vec[:DIM] /= norm
    c = cues(sentence)
    for i, name in enumerate(CUE_NAMES):
        vec[DIM + i] = 1.0 if c[name] else 0.0
    return vec


def _sigmoid(z: FloatArray) -> FloatArray:
    out: FloatArray = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
    return out


def train(
    x: FloatArray, y: npt.NDArray[np.int64], *, l2: float = 1e-3, steps: int = 600, lr: float = 2.0
) -> tuple[FloatArray, float]:
    """Class-balanced L2-regularised logistic regression by full-batch gradient descent."""
    n, d = x.shape
    pos = max(int(y.sum()), 1)
    neg = max(n - pos, 1)
    sw = np.where(y == 1, n / (2.0 * pos), n / (2.0 * neg))
    w = np.zeros(d, dtype=np.float64)
    b = 0.0
    yf = y.astype(np.float64)
    for _ in range(steps):
        p = _sigmoid(x @ w + b)
        g = (p - yf) * sw
        w -= lr * (x.T @ g / n + l2 * w)
        b -= lr * float(g.mean())
    return w, b


def sentence_labels(row: dict[str, Any]) -> list[tuple[str, int]]:
    """The sentences of one corpus row with their labels: in a keep turn the sentence that
    holds the value is kept and the others (noise around it) are not; every sentence of a
    drop turn is dropped."""
    from memgate.stages.statement_text import split_statements

    sentences = split_statements(row["text"])
    if not row["keep"]:
        return [(s, 0) for s in sentences]
    return [(s, int(row["value"] in s)) for s in sentences]


@dataclass(frozen=True)
class KeepModel:
    weights: FloatArray
    bias: float
    threshold: float
    version: str

    @classmethod
    def load(cls, path: Path | None = None) -> KeepModel:
        if path is None:
            return _default()
        return cls.from_json(json.loads(path.read_text("utf-8")))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KeepModel:
        if data.get("dim") != DIM or data.get("cues") != list(CUE_NAMES):
            raise ValueError(
                "the keep model was trained with other features: run tools/train_keep.py"
            )
        return cls(
            weights=np.asarray(data["weights"], dtype=np.float64),
            bias=float(data["bias"]),
            threshold=float(data["threshold"]),
            version=str(data["version"]),
        )

    def probability(self, sentence: str) -> float:
        z = float(featurise(sentence) @ self.weights + self.bias)
        return float(_sigmoid(np.asarray([z]))[0])

    def keeps(self, sentence: str) -> bool:
        return self.probability(sentence) >= self.threshold


@cache
def _default() -> KeepModel:
    raw = (resources.files("memgate") / "data" / MODEL_FILE).read_text("utf-8")
    return KeepModel.from_json(json.loads(raw))


def to_json(weights: FloatArray, bias: float, threshold: float, corpus: bytes) -> str:
    """The model file: rounded weights (5 decimals) so that it is small, diffable and the
    same bytes on every run of the training script."""
    digest = hashlib.sha256(corpus).hexdigest()
    data = {
        "about": "Keep classifier of the statement extractor (stages/keep_model.py). "
        "Generated by tools/train_keep.py from memgate/data/train/statements.jsonl; "
        "do not edit by hand.",
        "version": f"keep-{digest[:8]}",
        "corpus_sha256": digest,
        "dim": DIM,
        "cues": list(CUE_NAMES),
        "threshold": threshold,
        "bias": round(bias, 5),
        "weights": [round(float(v), 5) + 0.0 for v in weights],
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
