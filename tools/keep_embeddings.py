"""The keep classifier over sentence embeddings, compared (keepemb, issue 9 item 2).

    python tools/keep_embeddings.py --cv 5    # k-fold cross-validation on the training corpus
    python tools/keep_embeddings.py --dev     # the development labelled turns through the gate
    python tools/keep_embeddings.py --cost    # the embedder's CPU time per sentence

Three designs of the keep classifier, each a class-balanced logistic regression
(:func:`memgate.stages.keep_model.train`) on the same sentences of the same corpus
(``memgate/data/train/statements.jsonl`` and ``statements_prodrop.jsonl``):

* ``ngrams+cues``: the shipped model (hashed character n-grams and the structural cues);
* ``emb+cues``: the MiniLM sentence embedding (384 dimensions, unit length, the shipped
  embedder of :mod:`memgate.core.embedding`, nothing downloaded) and the cues;
* ``ngrams+cues+emb``: both.

``--cv`` folds by turn (index mod k) and reports the sentence keep figures and the turn keep
recall per language. ``--dev`` trains each design on the whole corpus, puts it in the keep
classifier's place and runs the development labelled turns through a fresh gate (the figures
of ``memgate eval --split dev``). ``--cost`` times the embedder on the corpus's sentences
(process CPU seconds). Only development data is read, never the frozen split.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memgate.stages.keep_model import DIM, KeepModel, featurise, sentence_labels, train  # noqa: E402
from memgate.stages.sentence_classifier import sigmoid  # noqa: E402
from tools.model_script import prf  # noqa: E402
from tools.train_keep import THRESHOLD, load_rows  # noqa: E402

DESIGNS = ("ngrams+cues", "emb+cues", "ngrams+cues+emb")
LANGS = ("en", "de", "fr", "es", "pt", "zh")


def _embedder(runtime: str) -> Any:
    from memgate.core.embedding import load_embedder

    return load_embedder("minilm", runtime)  # type: ignore[arg-type]


def design_matrix(design: str, feats: np.ndarray, embs: np.ndarray) -> np.ndarray:
    """The rows of one design: n-grams and cues (``feats``), embeddings (``embs``)."""
    if design == "ngrams+cues":
        return feats
    if design == "emb+cues":
        return np.hstack([embs, feats[:, DIM:]])
    return np.hstack([feats, embs])


def corpus(runtime: str) -> tuple[list[dict[str, Any]], list[list[tuple[str, int]]], Any]:
    rows = load_rows()
    labels = [sentence_labels(r) for r in rows]
    return rows, labels, _embedder(runtime)


def cross_validate(k: int, runtime: str) -> None:
    rows, labels, emb = corpus(runtime)
    sents = [s for lab in labels for s, _ in lab]
    vecs = dict(zip(sents, emb.embed(sents), strict=True))
    print(f"corpus: {len(rows)} turns, {len(sents)} sentences, {k}-fold by turn (index mod {k})")
    for design in DESIGNS:
        sent = [0, 0, 0]
        turn: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for fold in range(k):
            tr = [lab for i, lab in enumerate(labels) if i % k != fold]
            x = design_matrix(
                design,
                np.vstack([featurise(s) for lab in tr for s, _ in lab]),
                np.vstack([vecs[s] for lab in tr for s, _ in lab]),
            )
            y = np.asarray([v for lab in tr for _, v in lab], dtype=np.int64)
            w, b = train(x, y)
            for i, lab in enumerate(labels):
                if i % k != fold or not lab:
                    continue
                xs = design_matrix(
                    design,
                    np.vstack([featurise(s) for s, _ in lab]),
                    np.vstack([vecs[s] for s, _ in lab]),
                )
                probs = sigmoid(xs @ w + b)
                for (_, v), p in zip(lab, probs, strict=True):
                    pred = int(p >= THRESHOLD)
                    sent[0] += pred and v
                    sent[1] += pred and not v
                    sent[2] += (not pred) and v
                kept, truth = bool((probs >= THRESHOLD).any()), bool(rows[i]["keep"])
                for key in ("all", rows[i]["lang"]):
                    turn[key][0] += kept and truth
                    turn[key][1] += kept and not truth
                    turn[key][2] += (not kept) and truth
        p, r, f = prf(*sent)
        tp, tr_, tf = prf(*turn["all"])
        langs = " ".join(f"{lang} {prf(*turn[lang])[1]:.2f}" for lang in LANGS)
        print(
            f"{design:16s} sentence P {p:.3f} R {r:.3f} F1 {f:.3f} | turn P {tp:.3f} "
            f"R {tr_:.3f} F1 {tf:.3f} | keep recall {langs}"
        )


def fitted(design: str, runtime: str) -> Callable[[str], float]:
    """The probability function of one design trained on the whole corpus."""
    _, labels, emb = corpus(runtime)
    sents = [s for lab in labels for s, _ in lab]
    x = design_matrix(
        design, np.vstack([featurise(s) for s in sents]), np.asarray(emb.embed(sents))
    )
    y = np.asarray([v for lab in labels for _, v in lab], dtype=np.int64)
    w, b = train(x, y)

    def probability(sentence: str) -> float:
        row = design_matrix(design, featurise(sentence)[None, :], emb.embed([sentence]))
        return float(sigmoid(row @ w + b)[0])

    return probability


def dev(runtime: str, designs: list[str]) -> None:
    import tempfile

    from memgate.core.settings import load_settings
    from memgate.evaluation import labelled
    from memgate.evaluation.common import BUNDLED_FILES, DEV_EXTRA_FILES

    eval_dir = ROOT / "memgate" / "data" / "eval"
    files = [eval_dir / BUNDLED_FILES["labelled"]]
    files += [eval_dir / f for f in DEV_EXTRA_FILES["labelled"]]
    original = KeepModel.probability
    for design in designs:
        prob = fitted(design, runtime) if design != "ngrams+cues" else None
        if prob is not None:

            def probability(self: KeepModel, sentence: str, _p: Any = prob) -> float:
                return float(_p(sentence))

            KeepModel.probability = probability  # type: ignore[method-assign,assignment]
        try:
            with tempfile.TemporaryDirectory() as tmp:
                settings = load_settings(data_dir=tmp, embedder_runtime=runtime)
                t0 = time.process_time()
                rep = labelled.evaluate(files, settings, _embedder(runtime))
                cpu = time.process_time() - t0
        finally:
            KeepModel.probability = original  # type: ignore[method-assign]
        o = rep.overall
        langs = " ".join(f"{lang} {c.tp}/{c.tp + c.fn}" for lang, c in sorted(rep.by_lang.items()))
        print(
            f"{design:16s} dev labelled: F1 {o.f1:.3f} P {o.precision:.3f} R {o.recall:.3f} "
            f"(tp {o.tp} fp {o.fp} fn {o.fn}) | keep recall {langs} | CPU {cpu:.1f} s"
        )


def cost(runtime: str) -> None:
    _, labels, emb = corpus(runtime)
    sents = list(dict.fromkeys(s for lab in labels for s, _ in lab))
    emb.embed(sents[:4])  # load the model
    t0 = time.process_time()
    for s in sents:
        emb.embed([s + " "])  # one sentence at a time, past the cache, as the gate would
    cpu = time.process_time() - t0
    t1 = time.process_time()
    for s in sents:
        featurise(s + " ")
    base = time.process_time() - t1
    print(
        f"{len(sents)} sentences, runtime {runtime}: embedding {1000 * cpu / len(sents):.2f} "
        f"CPU ms per sentence; n-grams and cues {1000 * base / len(sents):.3f} CPU ms"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cv", type=int, default=0, help="k-fold cross-validation report")
    ap.add_argument("--dev", action="store_true", help="development labelled turns, per design")
    ap.add_argument("--design", action="append", choices=DESIGNS, help="designs of --dev")
    ap.add_argument("--cost", action="store_true", help="the embedder's CPU time per sentence")
    ap.add_argument("--runtime", default="onnx-int8", choices=("numpy", "onnx-int8"))
    args = ap.parse_args()
    if args.cv:
        cross_validate(args.cv, args.runtime)
    if args.dev:
        dev(args.runtime, args.design or list(DESIGNS))
    if args.cost:
        cost(args.runtime)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
