"""Triage's durable-sentence classifier: does any sentence of a turn hold something that
will still be true next month?

A turn whose every sentence is of the moment (a problem being debugged right now, a
one-off request, what a friend said, chatter, a reaction to the other person) is dropped
before extraction; a turn with one durable sentence is kept however much noise surrounds
it, because the turn's score is the best score of its sentences.

Features of one sentence: those of the keep classifier (:func:`memgate.stages.keep_model.
featurise`: hashed character n-grams and the structural cues) and the grammatical word
classes of ``memgate/data/triage_cues.json`` (ongoing aspect, a problem's symptom, a
reporting verb, a third party, the recent past, a pointer into the session, a habitual
or a past time), plus a final exclamation mark. A logistic regression over them, trained
by ``tools/train_triage.py`` (deterministic) from the written corpora under
``memgate/data/train/`` and the development LoCoMo conversations; its weights are the data
file ``memgate/data/triage_model.json``, read once. Nothing is downloaded at run time.

>>> model = TriageModel.load()
>>> model.turn_score(["The deploy is still failing with the same timeout."]) < model.threshold
True
>>> model.turn_score(["Long day.", "We deploy to production every Tuesday."]) >= model.threshold
True
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from memgate.stages.keep_model import DIM
from memgate.stages.keep_model import featurise as keep_features
from memgate.stages.statement_text import CUE_NAMES, normalise_text, word_pattern

__all__ = ["TRIAGE_CUES", "TriageModel", "features", "to_json", "train", "triage_cues"]

FloatArray = npt.NDArray[np.float64]

MODEL_FILE: Final = "triage_model.json"
LEXICON_FILE: Final = "triage_cues.json"
#: The word classes of ``triage_cues.json``, in the order the classifier reads them,
#: then the exclamation flag.
TRIAGE_CUES: Final = (
    "ongoing", "symptom", "reporting_verb", "third_party", "recent_past", "session_deixis",
    "durable_time", "past_time",
)
_EXCLAIM_RE: Final = re.compile(r"[!！]\W*$")


@cache
def _lexicon() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / LEXICON_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


@cache
def _matcher(name: str) -> re.Pattern[str]:
    return word_pattern(list(_lexicon()[name]))


def triage_cues(sentence: str) -> dict[str, bool]:
    """Which word classes of ``triage_cues.json`` the sentence holds, and ``exclaim``."""
    norm = normalise_text(sentence)
    out = {name: _matcher(name).search(norm) is not None for name in TRIAGE_CUES}
    out["exclaim"] = _EXCLAIM_RE.search(norm) is not None
    return out


def features(sentence: str) -> FloatArray:
    """The classifier's feature vector of one sentence."""
    c = triage_cues(sentence)
    extra = np.asarray([1.0 if c[n] else 0.0 for n in (*TRIAGE_CUES, "exclaim")])
    return np.concatenate([keep_features(sentence), extra])


def _sigmoid(z: FloatArray) -> FloatArray:
    out: FloatArray = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
    return out


def train(
    x: FloatArray, y: npt.NDArray[np.int64], weights: FloatArray, *, l2: float = 1e-3,
    steps: int = 500, lr: float = 2.0,
) -> tuple[FloatArray, float]:
    """L2-regularised logistic regression by full-batch gradient descent, each row weighted
    (deterministic: zero start, fixed step count)."""
    n, d = x.shape
    w = np.zeros(d, dtype=np.float64)
    b = 0.0
    yf = y.astype(np.float64)
    sw = weights * (n / float(weights.sum()))
    for _ in range(steps):
        g = (_sigmoid(x @ w + b) - yf) * sw
        w -= lr * (x.T @ g / n + l2 * w)
        b -= lr * float(g.mean())
    return w, b


@dataclass(frozen=True)
class TriageModel:
    weights: FloatArray
    bias: float
    threshold: float
    version: str

    @classmethod
    def load(cls) -> TriageModel:
        return _default()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TriageModel:
        if (
            data.get("dim") != DIM
            or data.get("cues") != list(CUE_NAMES)
            or data.get("triage_cues") != [*TRIAGE_CUES, "exclaim"]
        ):
            raise ValueError(
                "the triage model was trained with other features: run tools/train_triage.py"
            )
        return cls(
            weights=np.asarray(data["weights"], dtype=np.float64),
            bias=float(data["bias"]),
            threshold=float(data["threshold"]),
            version=str(data["version"]),
        )

    def probability(self, sentence: str) -> float:
        z = float(features(sentence) @ self.weights + self.bias)
        return float(_sigmoid(np.asarray([z]))[0])

    def turn_score(self, sentences: Sequence[str]) -> float:
        """The best sentence's probability (0 for no sentence): one durable sentence keeps
        the turn."""
        return max((self.probability(s) for s in sentences), default=0.0)


@cache
def _default() -> TriageModel:
    raw = (resources.files("memgate") / "data" / MODEL_FILE).read_text("utf-8")
    return TriageModel.from_json(json.loads(raw))


def to_json(weights: FloatArray, bias: float, threshold: float, corpus: bytes) -> str:
    """The model file: weights rounded to 5 decimals, the same bytes on every run."""
    digest = hashlib.sha256(corpus).hexdigest()
    data = {
        "about": "Durable-sentence classifier of triage (stages/triage_model.py). Generated "
        "by tools/train_triage.py from memgate/data/train/*.jsonl and the development "
        "LoCoMo conversations; do not edit by hand.",
        "version": f"triage-{digest[:8]}",
        "corpus_sha256": digest,
        "dim": DIM,
        "cues": list(CUE_NAMES),
        "triage_cues": [*TRIAGE_CUES, "exclaim"],
        "threshold": threshold,
        "bias": round(bias, 5),
        "weights": [round(float(v), 5) + 0.0 for v in weights],
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
