"""Triage's durable-sentence classifier: does any sentence of a turn hold something that
will still be true next month?

A turn whose every sentence is of the moment (a problem being debugged right now, a
one-off request, what a friend said, chatter, a reaction to the other person) is dropped
before extraction; a turn with one durable sentence is kept however much noise surrounds
it, because the turn's score is the best score of its sentences.

Features of one sentence: those of the keep classifier
(:func:`memgate.stages.sentence_classifier.featurise`: hashed character n-grams and the
structural cues) and the grammatical word classes of ``memgate/data/triage_cues.json``
(ongoing aspect, a problem's symptom, a reporting verb, a third party, the recent past, a
pointer into the session, a habitual or a past time), plus a final exclamation mark. A
logistic regression over them, trained by ``tools/train_triage.py`` (deterministic) from
the written corpora under ``memgate/data/train/`` and the development LoCoMo
conversations; its weights are the data file ``memgate/data/triage_model.json``, read
once. Nothing is downloaded at run time.

>>> model = TriageModel.load()
>>> model.turn_score(["The deploy is still failing with the same timeout."]) < model.threshold
True
>>> model.turn_score(["Long day.", "We deploy to production every Tuesday."]) >= model.threshold
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt

from memgate.stages.sentence_classifier import (
    FloatArray,
    SentenceClassifier,
    featurise,
    fit_logistic,
    read_data_file,
)
from memgate.stages.statement_text import normalise_text, word_pattern

__all__ = ["TRIAGE_CUES", "TriageModel", "features", "to_json", "train", "triage_cues"]

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
    return read_data_file(LEXICON_FILE)


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
    return np.concatenate([featurise(sentence), extra])


def train(
    x: FloatArray, y: npt.NDArray[np.int64], weights: FloatArray, *, l2: float = 1e-3,
    steps: int = 500, lr: float = 2.0,
) -> tuple[FloatArray, float]:
    """L2-regularised logistic regression by full-batch gradient descent, each row weighted
    (the weights are scaled to sum to the row count)."""
    sw = weights * (x.shape[0] / float(weights.sum()))
    return fit_logistic(x, y, sw, l2=l2, steps=steps, lr=lr)


@dataclass(frozen=True)
class TriageModel(SentenceClassifier):
    NAME: ClassVar[str] = "triage"
    SCRIPT: ClassVar[str] = "tools/train_triage.py"
    ABOUT: ClassVar[str] = (
        "Durable-sentence classifier of triage (stages/triage_model.py). Generated "
        "by tools/train_triage.py from memgate/data/train/*.jsonl and the development "
        "LoCoMo conversations; do not edit by hand."
    )

    @classmethod
    def load(cls) -> TriageModel:
        return _default()

    @classmethod
    def feature_spec(cls) -> dict[str, Any]:
        return {**super().feature_spec(), "triage_cues": [*TRIAGE_CUES, "exclaim"]}

    @staticmethod
    def features(sentence: str) -> FloatArray:
        return features(sentence)

    def turn_score(self, sentences: Sequence[str]) -> float:
        """The best sentence's probability (0 for no sentence): one durable sentence keeps
        the turn."""
        return max((self.probability(s) for s in sentences), default=0.0)


@cache
def _default() -> TriageModel:
    return TriageModel.from_json(read_data_file(MODEL_FILE))


#: The model file of trained weights (what the training script writes).
to_json = TriageModel.file_text
