"""The bars of the same-fact fold (stages/resolve_same.py), read on the pair corpus.

    python tools/same_sweep.py          # tables for both modes
    python tools/same_sweep.py --cv 5   # folds of the cross-validation (default 5)

Only memgate/data/train/relations*.jsonl is read (with its unrelated cross pairs, labelled
``other``, as tools/train_relations.py makes them), never an evaluation file. For each pair
that the fold's structural guard lets through (:func:`memgate.stages.resolve_same.guarded`):

* ``model``: the pair classifier's probability of ``same`` when the pair is held out
  (k-fold cross-validation, fold = index mod k, each fold trained as the shipped model is),
  and the precision and recall of ``same`` at each bar;
* ``usem``: the multilingual cosine of the two texts (MiniLM's for two English sides) and
  how many pairs of each label pass each bar.

The shipped bars (``memgate/data/same.json``), for both modes: the lowest bar at which the
precision of ``same`` inside the guard, held out, is at least 0.9 (the model: 0.55, 0.913;
usem: 0.55, 0.933; fold31, README).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memgate.core.embedding_use import shared_usem  # noqa: E402
from memgate.core.settings import Settings  # noqa: E402
from memgate.runtime import Runtime  # noqa: E402
from memgate.stages.relation_model import RELATIONS, _softmax, fit_softmax  # noqa: E402
from memgate.stages.resolve_meaning import usem_similarity  # noqa: E402
from memgate.stages.resolve_same import guarded  # noqa: E402
from tools.train_relations import cross_pairs, dataset, load_rows, pair_texts  # noqa: E402

BARS = (0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cv", type=int, default=5)
    k = ap.parse_args().cv
    with tempfile.TemporaryDirectory() as d:
        embedder = Runtime(Settings(data_dir=Path(d))).embedder
    rows = load_rows()
    x, y = dataset(rows, embedder)
    same = RELATIONS.index("same")
    probs, labels, pairs = [], [], []
    for fold in range(k):
        test = np.asarray([i % k == fold for i in range(len(rows))])
        xc, yc = dataset(cross_pairs([r for i, r in enumerate(rows) if not test[i]]), embedder)
        w, b = fit_softmax(np.vstack([x[~test], xc]), np.concatenate([y[~test], yc]))
        held = [r for i, r in enumerate(rows) if test[i]]
        held += cross_pairs(held)
        xt, yt = dataset(held, embedder)
        probs.append(_softmax(xt @ w + b))
        labels.append(yt)
        pairs += held
    p, lab = np.vstack(probs), np.concatenate(labels)
    usem = shared_usem()
    keep, sims = [], []
    for r in pairs:
        s = r["stored"]
        a, b_ = pair_texts(r)
        cos = float(np.dot(*embedder.embed([a, b_])))
        keep.append(guarded(s["predicate"], s["value"], r["new"], cos))
        u = usem_similarity(usem, s["value"], r["new"])
        sims.append(cos if u is None else u)
    g = np.asarray(keep)
    sim = np.asarray(sims)
    n_same = int((lab == same).sum())
    print(f"{len(pairs)} held-out pairs ({n_same} same), {int(g.sum())} inside the guard "
          f"({int((g & (lab == same)).sum())} same)")  # fmt: skip
    print("model: held-out P(same) as the most probable relation, inside the guard")
    top = p.argmax(1) == same
    for bar in BARS:
        said = g & top & (p[:, same] >= bar)
        tp = int((said & (lab == same)).sum())
        wrong = {RELATIONS[c]: int((said & (lab == c)).sum()) for c in range(len(RELATIONS))}
        del wrong["same"]
        print(f"  bar {bar:.2f}: folds {int(said.sum()):3d}, precision "
              f"{tp / max(int(said.sum()), 1):.3f}, recall {tp / max(n_same, 1):.3f}, "
              f"wrong {wrong}")  # fmt: skip
    print("usem (MiniLM for two English sides), inside the guard")
    for bar in BARS:
        said = g & (sim >= bar)
        tp = int((said & (lab == same)).sum())
        print(f"  bar {bar:.2f}: folds {int(said.sum()):3d}, precision "
              f"{tp / max(int(said.sum()), 1):.3f}, recall {tp / max(n_same, 1):.3f}, "
              f"other labels {int(said.sum()) - tp}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
