"""What the keep classifier (:mod:`memgate.stages.keep_model`) and triage's
durable-sentence classifier (:mod:`memgate.stages.triage_model`) share: the sentence
features, the logistic regression that both train, and the model file they read and write.

Features of one sentence, all language-independent: character n-grams of the case-folded
sentence (3- and 4-grams inside Latin words, 1- and 2-grams inside runs of Chinese
characters, the first word and whole words), hashed into :data:`DIM` buckets and
L2-normalised, then the structural cues of :func:`memgate.stages.statement_text.cues`.
Training is plain numpy gradient descent (deterministic: zero start, fixed step count, no
shuffling); a model file holds the weights rounded to 5 decimals, so the same corpus gives
the same bytes. Nothing is downloaded at run time.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from dataclasses import dataclass
from importlib import resources
from typing import Any, ClassVar, Final, Self

import numpy as np
import numpy.typing as npt

from memgate.core.memo import TextMemo
from memgate.stages.statement_text import CUE_NAMES, cues, normalise_text

__all__ = [
    "DIM",
    "FloatArray",
    "SentenceClassifier",
    "featurise",
    "fit_logistic",
    "read_data_file",
    "sigmoid",
]

FloatArray = npt.NDArray[np.float64]

#: Hash buckets of the n-gram features.
DIM: Final = 4096
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
            out.extend(f"c2:{tok[j : j + 2]}" for j in range(len(tok) - 1))
            if i == 0:
                out.append(f"first:{tok[:2]}")
            continue
        out.append(f"w:{tok}")
        if i == 0:
            out.append(f"first:{tok}")
        padded = f" {tok} "
        for n in (3, 4):
            out.extend(f"g{n}:{padded[j : j + n]}" for j in range(len(padded) - n + 1))
    return out


#: The feature vectors of the sentences read last (read-only): triage's durable-sentence
#: classifier and the keep classifier read the same sentences of a turn (issue 14).
FEATURES_MEMO: Final[TextMemo[FloatArray]] = TextMemo(256)


def featurise(sentence: str) -> FloatArray:
    """The feature vector of one sentence: hashed n-grams (unit length), then the cues."""
    return FEATURES_MEMO.get(sentence, _featurise).copy()


def _featurise(sentence: str) -> FloatArray:
    vec = np.zeros(DIM + len(CUE_NAMES), dtype=np.float64)
    # each n-gram's bucket counted once per occurrence (whole counts: exact in float64)
    buckets = [zlib.crc32(g.encode("utf-8")) % DIM for g in _grams(sentence)]
    if buckets:
        vec[:DIM] = np.bincount(buckets, minlength=DIM)
    norm = float(np.linalg.norm(vec[:DIM]))
    if norm > 0:
        vec[:DIM] /= norm
    c = cues(sentence)
    for i, name in enumerate(CUE_NAMES):
        vec[DIM + i] = 1.0 if c[name] else 0.0
    vec.setflags(write=False)
    return vec


def sigmoid(z: FloatArray) -> FloatArray:
    out: FloatArray = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
    return out


def fit_logistic(
    x: FloatArray,
    y: npt.NDArray[np.int64],
    sample_weights: FloatArray,
    *,
    l2: float,
    steps: int,
    lr: float,
) -> tuple[FloatArray, float]:
    """L2-regularised logistic regression by full-batch gradient descent, each row weighted
    by ``sample_weights`` (deterministic: zero start, fixed step count)."""
    n, d = x.shape
    w = np.zeros(d, dtype=np.float64)
    b = 0.0
    yf = y.astype(np.float64)
    for _ in range(steps):
        g = (sigmoid(x @ w + b) - yf) * sample_weights
        w -= lr * (x.T @ g / n + l2 * w)
        b -= lr * float(g.mean())
    return w, b


def read_data_file(name: str) -> dict[str, Any]:
    """A JSON file of the package's data folder (a model file, a word list), parsed."""
    raw = (resources.files("memgate") / "data" / name).read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


@dataclass(frozen=True)
class SentenceClassifier:
    """A logistic regression over the features of one sentence; a subclass names its
    features (:meth:`features`, :meth:`feature_spec`) and its training script."""

    #: the model's name (the prefix of its version), the script that writes its file and
    #: the file's provenance line
    NAME: ClassVar[str] = ""
    SCRIPT: ClassVar[str] = ""
    ABOUT: ClassVar[str] = ""

    weights: FloatArray
    bias: float
    threshold: float
    version: str

    @classmethod
    def feature_spec(cls) -> dict[str, Any]:
        """What the model file must say about the features (checked when it is read)."""
        return {"dim": DIM, "cues": list(CUE_NAMES)}

    @staticmethod
    def features(sentence: str) -> FloatArray:
        return featurise(sentence)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        if any(data.get(key) != value for key, value in cls.feature_spec().items()):
            raise ValueError(
                f"the {cls.NAME} model was trained with other features: run {cls.SCRIPT}"
            )
        return cls(
            weights=np.asarray(data["weights"], dtype=np.float64),
            bias=float(data["bias"]),
            threshold=float(data["threshold"]),
            version=str(data["version"]),
        )

    def probability(self, sentence: str) -> float:
        z = float(self.features(sentence) @ self.weights + self.bias)
        return float(sigmoid(np.asarray([z]))[0])

    @classmethod
    def file_text(cls, weights: FloatArray, bias: float, threshold: float, corpus: bytes) -> str:
        """The model file: its provenance, the features it was trained with, then the
        weights rounded to 5 decimals, so that it is small, diffable and the same bytes on
        every run of the training script."""
        digest = hashlib.sha256(corpus).hexdigest()
        data = {
            "about": cls.ABOUT,
            "version": f"{cls.NAME}-{digest[:8]}",
            "corpus_sha256": digest,
            **cls.feature_spec(),
            "threshold": threshold,
            "bias": round(bias, 5),
            "weights": [round(float(v), 5) + 0.0 for v in weights],
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
