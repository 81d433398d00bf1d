"""The sweep that chose usem's bars (memgate/data/meaning.json) on development pairs.

    python tools/usem_sweep.py              # the table of the README's usem section
    python tools/usem_sweep.py --json FILE  # every pair's cosines, for a closer look

Reads only the written pairs of memgate/data/train/relations*.jsonl (labels ``same``,
``update``, ``other``, ``retract``, in en de fr es pt zh) and, as more negatives, the
unrelated pairs ``tools/train_relations.py`` builds from them (each stored fact with the
new text of another row of its language about another thing). Never the frozen split,
never a scenario file.

For each use, the positives and negatives:

- ``fold`` (a restatement folded): ``same`` against ``update``, ``other`` and unrelated,
  the pairs with a name or number on a side; ``fold_unanchored``: those with none;
- ``change`` (a free statement with a change cue supersedes): ``update`` against
  ``other`` and unrelated (``same`` is no change);
- ``reference`` (a reference's topic near a fact): the topic
  (:func:`memgate.stages.references.find_references`) of each ``retract`` text against
  its own stored fact, and against every other stored fact of its language.

The rule, fixed before the sweep: a bar is the lowest cosine (on a 0.01 grid) at which at
most 5 % of the negatives pass (1 % for ``reference``: its pool is every fact of the
user, not one pair). The MiniLM cosine the resolver asks today is shown beside it, at its
own bars (the fold's unanchored bar of 0.85 comes with a share of shared words, not
applied here), on the texts the resolver embeds (``subject predicate value``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memgate.core.embedding import load_embedder  # noqa: E402
from memgate.core.embedding_use import UsemSimilarity  # noqa: E402
from memgate.core.events import StoredFact  # noqa: E402
from memgate.stages.references import find_references  # noqa: E402
from memgate.stages.resolve_meaning import meaning_text  # noqa: E402
from memgate.stages.resolve_slots import anchors  # noqa: E402
from tools.train_relations import cross_pairs, load_rows  # noqa: E402

#: The MiniLM bars the resolver asks today, per use (fold: fold_similarity; change: the
#: balanced policy's consolidation band; reference: REFERENCE_MIN_SIMILARITY).
MINILM_BARS = {"fold": 0.6, "fold_unanchored": 0.85, "change": 0.8, "reference": 0.6}
NEGATIVE_SHARE = {"fold": 0.05, "fold_unanchored": 0.05, "change": 0.05, "reference": 0.01}


def _stored_text(s: dict[str, Any]) -> str:
    f = StoredFact.model_construct(subject=s["subject"], predicate=s["predicate"], value=s["value"])
    return meaning_text(f)


def _anchored(pair: tuple[str, str]) -> bool:
    """A name or number on either side (:func:`memgate.stages.resolve_slots.anchors`)."""
    return bool(anchors(pair[0], sentence=True) or anchors(pair[1], sentence=True))


def bar_for(neg: np.ndarray, share: float) -> float:
    """The lowest bar on a 0.01 grid at which at most ``share`` of ``neg`` pass."""
    for b in np.arange(0.0, 1.0001, 0.01):
        if np.mean(neg >= b) <= share:
            return round(float(b), 2)
    return 1.0


Pairs = list[tuple[str, str]]


def pairs(rows: list[dict[str, Any]]) -> dict[str, tuple[Pairs, Pairs]]:
    """Per use, (positive pairs, negative pairs) as (stored fact's text, new text)."""
    unrelated = cross_pairs(rows)

    def pr(r: dict[str, Any]) -> tuple[str, str]:
        return (_stored_text(r["stored"]), r["new"])

    by = {lab: [pr(r) for r in rows if r["label"] == lab] for lab in ("same", "update", "other")}
    cross = [pr(r) for r in unrelated]
    pos_ref: list[tuple[str, str]] = []
    neg_ref: list[tuple[str, str]] = []
    for r in rows:
        if r["label"] != "retract":
            continue
        for ref in find_references(r["new"]):
            pos_ref.append((_stored_text(r["stored"]), ref.topic))
            neg_ref += [
                (_stored_text(o["stored"]), ref.topic)
                for o in rows
                if o["lang"] == r["lang"] and o["stored"] != r["stored"]
            ]
    fold_pos, fold_neg = by["same"], by["update"] + by["other"] + cross
    return {
        # the fold's two paths: names or numbers on a side (the rules then ask the same
        # names on both), and none on either (folded on meaning alone)
        "fold": ([p for p in fold_pos if _anchored(p)], [p for p in fold_neg if _anchored(p)]),
        "fold_unanchored": (
            [p for p in fold_pos if not _anchored(p)],
            [p for p in fold_neg if not _anchored(p)],
        ),
        "change": (by["update"], by["other"] + cross),
        "reference": (pos_ref, neg_ref),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = load_rows()
    usem = UsemSimilarity()
    mini = load_embedder("minilm")
    report: dict[str, Any] = {}
    print(
        "use             pos   neg  | usem bar    pos ok    neg ok | minilm bar  pos ok    neg ok"
    )
    for use, (pos, neg) in pairs(rows).items():

        def cos(model: Any, ps: list[tuple[str, str]], minilm: bool) -> np.ndarray:
            if not ps:
                return np.zeros(0)
            a = [p[0] for p in ps]
            b = [p[1] for p in ps]
            if minilm:  # the texts the resolver embeds: subject predicate value
                a = [f"user statement {x}" if len(x.split()) > 3 else f"user {x}" for x in a]
                b = [f"user statement {x}" for x in b]
            va, vb = model.embed(a), model.embed(b)
            return np.sum(np.asarray(va) * np.asarray(vb), axis=1)

        up, un = cos(usem, pos, False), cos(usem, neg, False)
        mp, mn = cos(mini, pos, True), cos(mini, neg, True)
        bar = bar_for(un, NEGATIVE_SHARE[use])
        mb = MINILM_BARS[use]
        print(
            f"{use:15} {len(pos):5} {len(neg):5}  |   {bar:.2f}    {np.mean(up >= bar):6.1%}"
            f"    {np.mean(un >= bar):6.1%}  |    {mb:.2f}     {np.mean(mp >= mb):6.1%}"
            f"    {np.mean(mn >= mb):6.1%}"
        )
        qs = (0.1, 0.25, 0.5, 0.75, 0.9)
        print(
            f"    usem quantiles pos {np.round(np.quantile(up, qs), 2).tolist()}"
            f" neg {np.round(np.quantile(un, qs), 2).tolist()}"
        )
        report[use] = {
            "bar": bar,
            "positives": [[a, b, float(x)] for (a, b), x in zip(pos, up, strict=True)],
            "negatives": [[a, b, float(x)] for (a, b), x in zip(neg, un, strict=True)],
        }
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
