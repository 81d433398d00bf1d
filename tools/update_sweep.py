"""The bar of the learned change (stages/resolve_update.py), read on the pair corpus.

    python tools/update_sweep.py          # the table
    python tools/update_sweep.py --cv 5   # folds of the cross-validation (default 5)

Only memgate/data/train/relations*.jsonl is read (with its unrelated cross pairs, labelled
``other``, as tools/train_relations.py makes them), never an evaluation file. For each pair
that the change's structural guard lets through (:func:`memgate.stages.resolve_update.
guarded`): the pair classifier's probability of ``update`` when the pair is held out
(k-fold cross-validation, fold = index mod k, each fold trained as the shipped model is),
and the precision and recall of ``update`` at each bar.

The shipped bar (``memgate/data/update.json``): the lowest bar at which the precision of
``update`` inside the guard, held out, is at least 0.95 (change33, README).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memgate.core.settings import Settings  # noqa: E402
from memgate.runtime import Runtime  # noqa: E402
from memgate.stages.relation_model import RELATIONS, _softmax, fit_softmax  # noqa: E402
from memgate.stages.resolve_update import guarded  # noqa: E402
from tools.train_relations import cross_pairs, dataset, load_rows  # noqa: E402

BARS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cv", type=int, default=5)
    k = ap.parse_args().cv
    with tempfile.TemporaryDirectory() as d:
        embedder = Runtime(Settings(data_dir=Path(d))).embedder
    rows = load_rows()
    x, y = dataset(rows, embedder)
    update = RELATIONS.index("update")
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
    g = np.asarray(
        [guarded(r["stored"]["predicate"], r["stored"]["value"], r["new"]) for r in pairs]
    )
    n_up = int((lab == update).sum())
    print(f"{len(pairs)} held-out pairs ({n_up} update), {int(g.sum())} inside the guard "
          f"({int((g & (lab == update)).sum())} update)")  # fmt: skip
    print("model: held-out P(update) as the most probable relation, inside the guard")
    top = p.argmax(1) == update
    for bar in BARS:
        said = g & top & (p[:, update] >= bar)
        tp = int((said & (lab == update)).sum())
        wrong = {RELATIONS[c]: int((said & (lab == c)).sum()) for c in range(len(RELATIONS))}
        del wrong["update"]
        print(f"  bar {bar:.2f}: changes {int(said.sum()):3d}, precision "
              f"{tp / max(int(said.sum()), 1):.3f}, recall {tp / max(n_up, 1):.3f}, "
              f"wrong {wrong}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
