"""Train the pair classifier of resolution from the development corpus of written pairs.

    python tools/train_relations.py            # writes memgate/data/relation_model.json
    python tools/train_relations.py --check    # exit 1 if the committed file differs
    python tools/train_relations.py --cv 5     # cross-validation on the corpus, per class

Deterministic: the same corpus gives the same bytes (:meth:`RelationModel.file_text`).
The cosine feature is computed with the shipped MiniLM embedder on the texts the resolver
embeds (``subject predicate value`` of the stored fact; ``subject statement <new text>``).
Only the corpora under memgate/data/train/ (relations*.jsonl) are read: never the frozen
split.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memgate.core.embedding import Embedder, load_embedder  # noqa: E402
from memgate.core.events import render_fact_text  # noqa: E402
from memgate.stages.relation_model import (  # noqa: E402
    RELATIONS,
    THRESHOLD,
    RelationModel,
    fit_softmax,
    pair_features,
)
from memgate.stages.resolution_lexicon import LEXICON  # noqa: E402
from tools.model_script import write_or_check  # noqa: E402

#: the written pairs: the first corpus, then the hard negatives added by class
CORPORA = (
    ROOT / "memgate" / "data" / "train" / "relations.jsonl",
    ROOT / "memgate" / "data" / "train" / "relations_hard.jsonl",
)
# relations_34.jsonl (432 fresh pairs, six languages, three domains, every label, many hard
# 'other' sharing words with the stored fact) is NOT trained on: with it the 5-fold figures
# fell (accuracy 0.727 -> 0.676) and, held out, the shipped model read its pairs inside the
# fold guard as well as a model trained on it (rel34, README); it stays a fresh measure
MODEL = ROOT / "memgate" / "data" / "relation_model.json"


def load_rows(paths: tuple[Path, ...] = CORPORA) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in paths
        for line in path.read_text("utf-8").splitlines()
        if line.strip()
    ]


def corpus_bytes(paths: tuple[Path, ...] = CORPORA) -> bytes:
    """What the model file's digest is of: the corpora, concatenated in order."""
    return b"".join(p.read_bytes() for p in paths)


def pair_texts(row: dict[str, Any]) -> tuple[str, str]:
    """What the resolver has embedded for the pair: the stored fact's text, the new one's."""
    s = row["stored"]
    return (
        render_fact_text(s["subject"], s["predicate"], s["value"]),
        render_fact_text(s["subject"], "statement", row["new"]),
    )


def _families(row: dict[str, Any]) -> set[str]:
    s = row["stored"]
    return {f.name for f in LEXICON.families_of(s["predicate"], s["value"])} | {
        f.name for f in LEXICON.families_of("statement", row["new"])
    }


def cross_pairs(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Unrelated pairs, labelled ``other``: each row's stored fact with the new text of
    another row of the same language about another thing (another predicate, no family in
    common). The resolver asks the model about the nearest stored facts, and in a small
    store the nearest are often unrelated: without these the model reads any change cue
    as an update. Deterministic: the first such row at strides 7, 20, 33, ... ahead."""
    n = len(rows)
    out: list[dict[str, Any]] = []
    for i, r in enumerate(rows):
        for step in range(7, n, 13):
            o = rows[(i + step) % n]
            if (
                o["lang"] == r["lang"]
                and o["stored"]["predicate"] != r["stored"]["predicate"]
                and o["stored"]["value"] != r["stored"]["value"]
                and not _families(r) & _families(o)
            ):
                out.append({**r, "id": f"{r['id']}x{o['id']}", "new": o["new"], "label": "other"})
                break
    return out


def dataset(rows: list[dict[str, Any]], embedder: Embedder) -> tuple[np.ndarray, np.ndarray]:
    texts = [t for r in rows for t in pair_texts(r)]
    vecs = embedder.embed(texts)
    xs = []
    for i, r in enumerate(rows):
        cos = float(np.dot(vecs[2 * i], vecs[2 * i + 1]))
        s = r["stored"]
        xs.append(pair_features(s["predicate"], s["value"], "statement", r["new"], cos))
    y = np.asarray([RELATIONS.index(r["label"]) for r in rows], dtype=np.int64)
    return np.vstack(xs), y


def build(embedder: Embedder, paths: tuple[Path, ...] = CORPORA) -> str:
    rows = load_rows(paths)
    x, y = dataset(rows + cross_pairs(rows), embedder)
    w, b = fit_softmax(x, y)
    return RelationModel.file_text(w, b, corpus_bytes(paths))


def cross_validate(k: int, embedder: Embedder) -> None:
    rows = load_rows()
    x, y = dataset(rows, embedder)
    pred = np.zeros_like(y)
    acts = np.zeros_like(y)  # what the resolver does: same or update at the threshold, else other
    unrelated = [0, 0]  # held-out unrelated pairs, of them read as same or update
    for fold in range(k):
        test = np.asarray([i % k == fold for i in range(len(rows))])
        train_rows = [r for i, r in enumerate(rows) if not test[i]]
        xc, yc = dataset(cross_pairs(train_rows), embedder)
        w, b = fit_softmax(np.vstack([x[~test], xc]), np.concatenate([y[~test], yc]))
        model = RelationModel(weights=w, bias=b, version="cv")
        pred[test] = np.argmax(x[test] @ w + b, axis=1)
        acts[test] = [RELATIONS.index(model.action(row)[0]) for row in x[test]]
        xt, _ = dataset(cross_pairs([r for i, r in enumerate(rows) if test[i]]), embedder)
        said = [model.action(row)[0] for row in xt]
        unrelated[0] += len(said)
        unrelated[1] += sum(a != "other" for a in said)
    n = len(rows)
    print(
        f"corpus: {n} pairs, {k}-fold cross-validation (fold = index mod {k}); "
        "each fold also trained on the unrelated pairs of its training rows"
    )
    th = THRESHOLD
    print(
        f"held-out unrelated pairs acted on (same or update at p >= {th}): "
        f"{unrelated[1]} of {unrelated[0]}"
    )
    for name in ("same", "update"):
        c = RELATIONS.index(name)
        tp = int(((acts == c) & (y == c)).sum())
        said, support = int((acts == c).sum()), int((y == c).sum())
        print(f"acted on as {name} at p >= {th}: {said}, precision {tp / max(said, 1):.3f}, "
              f"recall {tp / max(support, 1):.3f}")  # fmt: skip
    print(f"accuracy {float((pred == y).mean()):.3f}")
    print("class     n   recall  precision")
    for c, name in enumerate(RELATIONS):
        tp = int(((pred == c) & (y == c)).sum())
        support = int((y == c).sum())
        said = int((pred == c).sum())
        print(f"{name:8s} {support:3d}   {tp / max(support, 1):.3f}   {tp / max(said, 1):.3f}")
    print("confusion (rows: label, columns: predicted " + " ".join(RELATIONS) + ")")
    for c, name in enumerate(RELATIONS):
        print(f"  {name:8s} " + " ".join(f"{int(((y == c) & (pred == j)).sum()):4d}"
                                         for j in range(len(RELATIONS))))  # fmt: skip
    langs = Counter(r["lang"] for r in rows)
    by_lang = []
    for lang in sorted(langs):
        idx = [i for i, r in enumerate(rows) if r["lang"] == lang]
        by_lang.append(f"{lang} {float((pred[idx] == y[idx]).mean()):.2f}")
    print("accuracy by language: " + ", ".join(by_lang))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed model file")
    ap.add_argument("--cv", type=int, default=0, help="k-fold cross-validation report")
    args = ap.parse_args()
    embedder = load_embedder("minilm")
    if args.cv:
        cross_validate(args.cv, embedder)
        return 0
    return write_or_check(MODEL, build(embedder), root=ROOT, name="relation",
                          script="tools/train_relations.py", check=args.check)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
