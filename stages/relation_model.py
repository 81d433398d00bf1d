"""A learned pair classifier for resolution: how does a new statement relate to a stored fact?

Classes (:data:`RELATIONS`): ``same`` (the new statement restates the stored fact in other
words: fold it in), ``update`` (a new value for the same thing: supersede), ``other`` (a
related but different fact: both stand) and ``retract`` (the new statement withdraws the
stored fact by reference).

Features of a pair (:func:`pair_features`, :data:`FEATURE_NAMES`), all read with what the
resolver already has (no new model, no store read): the cosine of the two embeddings, the
overlap of character trigrams, of content words and of anchors (names and numbers,
:func:`memgate.stages.resolve_slots.anchors`), whether both name the same predicate family
(:mod:`memgate.stages.resolution_lexicon`), the change cues, negations and references
(retraction, deletion, stop: :func:`memgate.stages.references.find_references`) of the new
text, the clause substitution of :func:`memgate.stages.resolve_slots.substitution`, two people
named (:func:`memgate.stages.resolve_paraphrase.other_persons`), the alignment of the two
word sequences, the
length ratio and whether the text is Chinese. No phrase is listed here: every word list is
the lexicon's.

The model is a class-balanced multinomial logistic regression (:func:`fit_softmax`,
deterministic: zero start, fixed step count) trained by ``tools/train_relations.py`` from
``memgate/data/train/relations*.jsonl``; its weights are ``memgate/data/relation_model.json``.
The resolver asks it only when the setting ``resolution_model`` is ``assist``
(:meth:`memgate.stages.dedupe.Resolver.resolve`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from memgate.core.events import normalise
from memgate.core.memo import reading_cache
from memgate.stages.references import find_references
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_paraphrase import other_persons
from memgate.stages.resolve_slots import anchors, substitution
from memgate.stages.sentence_classifier import read_data_file

__all__ = [
    "FEATURE_NAMES",
    "RELATIONS",
    "RelationModel",
    "fit_softmax",
    "pair_features",
]

FloatArray = npt.NDArray[np.float64]

RELATIONS: Final = ("same", "update", "other", "retract")
MODEL_FILE: Final = "relation_model.json"
#: The probability of ``same`` or ``update`` at which the resolver acts on it. Chosen on the
#: corpus's 5-fold cross-validation (``tools/train_relations.py --cv 5``): at 0.7 the
#: held-out unrelated pairs read as same or update fall from 23 of 228 (at 0.5) to 5, and
#: the precision of ``update`` is 0.99 (recall 0.62).
THRESHOLD: Final = 0.7

FEATURE_NAMES: Final = (
    "cosine",
    "cosine_sq",
    "trigram_jaccard",
    "word_jaccard",
    "word_containment",
    "words_new_only",
    "words_stored_only",
    "sequence_ratio",
    "head_swapped",
    "other_persons",
    "anchor_shared",
    "anchor_new_only",
    "anchor_stored_only",
    "number_differs",
    "same_family",
    "same_single_family",
    "additive_family",
    "no_family",
    "change_cue",
    "change_cue_x_cosine",
    "change_cue_x_family",
    "negation",
    "reference_retract",
    "reference_stop",
    "substitution",
    "length_ratio",
    "chinese",
)

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_WORD_RE: Final = re.compile(r"[\u3400-\u9fff]+|[^\W_]+", re.UNICODE)
_NUM_RE: Final = re.compile(r"\d+")
#: A stored value of more words than this is read as a sentence (its anchors: its names).
_VALUE_MAX_WORDS: Final = 3


def _words(text: str, lex: Lexicon) -> set[str]:
    """Content words (Chinese: character bigrams), without the lexicon's function words."""
    out: set[str] = set()
    for w in _WORD_RE.findall(normalise(lex.unelide(text))):
        if _CJK_RE.match(w):
            out.update(w[i : i + 2] for i in range(max(len(w) - 1, 1)))
        elif len(w) > 1 and w not in lex.stopwords and w not in lex.clause_stopwords:
            out.add(w)
    return out


def _sequence(text: str, lex: Lexicon) -> list[str]:
    """The content words of a text in their order (Chinese: its characters)."""
    out: list[str] = []
    for w in _WORD_RE.findall(normalise(lex.unelide(text))):
        if _CJK_RE.match(w):
            out.extend(w)
        elif len(w) > 1 and w not in lex.stopwords and w not in lex.clause_stopwords:
            out.append(w)
    return out


def _alignment(a: list[str], b: list[str]) -> tuple[float, float]:
    """How much of the two word sequences aligns (difflib's ratio), and whether they share
    their frame but not their head: the first words differ and a later span is the same
    ("my brother lives in Oslo" / "my sister lives in Oslo": another thing, same value)."""
    if not a or not b:
        return 0.0, 0.0
    m = SequenceMatcher(None, a, b, autojunk=False)
    ops = m.get_opcodes()
    swapped = ops[0][0] != "equal" and any(tag == "equal" for tag, *_ in ops[1:])
    return m.ratio(), float(swapped)


def _trigrams(text: str) -> set[str]:
    t = f" {normalise(text)} "
    return {t[i : i + 3] for i in range(len(t) - 2)}


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def pair_features(
    stored_predicate: str,
    stored_value: str,
    new_predicate: str,
    new_text: str,
    cosine: float,
    lex: Lexicon = LEXICON,
) -> FloatArray:
    """The features of (stored fact, new statement), in the order of :data:`FEATURE_NAMES`.

    ``cosine``: of the two embeddings (the resolver's vectors), rounded to 4 decimals so
    that the features do not depend on the last bits of a float.
    """
    cos = round(float(cosine), 4)
    if lex is LEXICON:
        return _kept(stored_predicate, stored_value, new_predicate, new_text, cos).copy()
    return _features(stored_predicate, stored_value, new_predicate, new_text, cos, lex)


@reading_cache(1024)
def _kept(sp: str, sv: str, np_: str, nt: str, cos: float) -> FloatArray:
    """:func:`_features` under the default lexicon, kept: the resolver compares one
    candidate with the same few stored facts again on a redelivery."""
    vec = _features(sp, sv, np_, nt, cos, LEXICON)
    vec.setflags(write=False)
    return vec


def _features(sp: str, sv: str, np_: str, nt: str, cos: float, lex: Lexicon) -> FloatArray:
    ws, wn = _words(sv, lex), _words(nt, lex)
    as_ = anchors(sv, sentence=sp == "statement" or len(sv.split()) > _VALUE_MAX_WORDS)
    an = anchors(nt, sentence=True)
    nums_s, nums_n = set(_NUM_RE.findall(sv)), set(_NUM_RE.findall(nt))
    fam_s = {f.name: f for f in lex.families_of(sp, sv)}
    fam_n = {f.name: f for f in lex.families_of(np_, nt)}
    if np_ != "statement":
        fam_n.update({f.name: f for f in lex.families_of("statement", nt)})
    shared = [fam_s[n] for n in fam_s if n in fam_n]
    cue = float(lex.has_change_cue(nt))
    refs = find_references(nt, lex)
    same_family = float(bool(shared))
    vec = np.asarray([
        cos,
        cos * cos,
        _jaccard(_trigrams(sv), _trigrams(nt)),
        _jaccard(ws, wn),
        len(ws & wn) / len(ws) if ws else 0.0,
        len(wn - ws) / len(wn) if wn else 0.0,
        len(ws - wn) / len(ws) if ws else 0.0,
        *_alignment(_sequence(sv, lex), _sequence(nt, lex)),
        float(other_persons(sv, nt, lex=lex)),
        float(bool(as_ & an)),
        float(bool(an - as_)),
        float(bool(as_ - an)),
        float(bool(nums_s) and bool(nums_n) and not nums_s & nums_n),
        same_family,
        float(any(f.single for f in shared)),
        float(any(f.additive for f in shared)),
        float(not fam_s and not fam_n),
        cue,
        cue * cos,
        cue * same_family,
        float(lex.has_negation(nt)),
        float(any(r.op in ("retract", "delete") for r in refs)),
        float(any(r.op == "stop" for r in refs)),
        float(substitution(sv, nt, lex)),
        min(len(sv), len(nt)) / max(len(sv), len(nt), 1),
        float(bool(_CJK_RE.search(nt))),
    ], dtype=np.float64)  # fmt: skip
    return vec


def _softmax(z: FloatArray) -> FloatArray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: FloatArray = e / e.sum(axis=1, keepdims=True)
    return out


def fit_softmax(
    x: FloatArray,
    y: npt.NDArray[np.int64],
    classes: int = len(RELATIONS),
    *,
    l2: float = 1e-3,
    steps: int = 3000,
    lr: float = 0.5,
) -> tuple[FloatArray, FloatArray]:
    """Class-balanced L2-regularised multinomial logistic regression by full-batch gradient
    descent (deterministic: zero start, fixed step count, no shuffling). Returns the weights
    (features x classes) and the biases (classes)."""
    n, d = x.shape
    onehot = np.zeros((n, classes), dtype=np.float64)
    onehot[np.arange(n), y] = 1.0
    counts = np.maximum(onehot.sum(axis=0), 1.0)
    sw = (n / (classes * counts))[y][:, None]
    w = np.zeros((d, classes), dtype=np.float64)
    b = np.zeros(classes, dtype=np.float64)
    for _ in range(steps):
        g = (_softmax(x @ w + b) - onehot) * sw
        w -= lr * (x.T @ g / n + l2 * w)
        b -= lr * g.mean(axis=0)
    return w, b


@dataclass(frozen=True, eq=False)
class RelationModel:
    """The trained pair classifier (:func:`fit_softmax` weights over :func:`pair_features`)."""

    weights: FloatArray
    bias: FloatArray
    version: str
    threshold: float = THRESHOLD
    """The probability at which the resolver acts on ``same`` or ``update``."""

    @classmethod
    def load(cls, path: Path | None = None) -> RelationModel:
        if path is None:
            return _default()
        return cls.from_json(json.loads(path.read_text("utf-8")))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RelationModel:
        if data.get("features") != list(FEATURE_NAMES) or data.get("classes") != list(RELATIONS):
            raise ValueError(
                "the relation model was trained with other features: run tools/train_relations.py"
            )
        return cls(
            weights=np.asarray(data["weights"], dtype=np.float64),
            bias=np.asarray(data["bias"], dtype=np.float64),
            version=str(data["version"]),
            threshold=float(data["threshold"]),
        )

    def probabilities(self, features: FloatArray) -> dict[str, float]:
        p = _softmax((features @ self.weights + self.bias)[None, :])[0]
        return {name: float(v) for name, v in zip(RELATIONS, p, strict=True)}

    def relation(self, features: FloatArray) -> tuple[str, float]:
        """The most probable relation and its probability."""
        probs = self.probabilities(features)
        best = max(RELATIONS, key=lambda r: (probs[r], -RELATIONS.index(r)))
        return best, probs[best]

    def action(self, features: FloatArray) -> tuple[str, float]:
        """What the resolver does with the pair: ``same`` or ``update`` when the model says
        so with at least :attr:`threshold`, else ``other`` (a retraction by reference is the
        rules' to read: :mod:`memgate.stages.references`); and the probability."""
        best, p = self.relation(features)
        return (best, p) if best in ("same", "update") and p >= self.threshold else ("other", p)

    @staticmethod
    def file_text(weights: FloatArray, bias: FloatArray, corpus: bytes) -> str:
        """The model file: provenance, features, classes, weights rounded to 5 decimals
        (the same corpus gives the same bytes)."""
        digest = hashlib.sha256(corpus).hexdigest()
        data = {
            "about": "Pair classifier of resolution (stages/relation_model.py). Generated by "
            "tools/train_relations.py from memgate/data/train/relations*.jsonl; do not edit "
            "by hand.",
            "version": f"relation-{digest[:8]}",
            "corpus_sha256": digest,
            "features": list(FEATURE_NAMES),
            "classes": list(RELATIONS),
            "threshold": THRESHOLD,
            "bias": _rounded(bias),
            "weights": [_rounded(row) for row in weights],
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def _rounded(values: Sequence[float] | FloatArray) -> list[float]:
    return [round(float(v), 5) + 0.0 for v in values]


@cache
def _default() -> RelationModel:
    return RelationModel.from_json(read_data_file(MODEL_FILE))
