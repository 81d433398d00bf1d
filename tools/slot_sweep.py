"""The sweep that chose the slotmask bars (memgate/data/slotmask.json) on development pairs.

    python tools/slot_sweep.py              # the table of the README's slotmask section
    python tools/slot_sweep.py --json FILE  # every pair's frame and value cosines

Reads only the written pairs of memgate/data/train/relations*.jsonl (labels ``same``,
``update``, ``other``, in en de fr es pt zh) and the unrelated pairs
``tools/train_relations.py`` builds from them. Never the frozen split, never a scenario
file.

Positives: ``update`` pairs. Negatives: ``other``, unrelated and ``same`` (a restatement
reaches this test when no fold took it). Each side is read as the resolver reads it
(:func:`memgate.stages.resolve_slotmask.fact_slot`: the stored fact as stored, the new
text as a statement); a pair passes when both sides have a value, the values differ
(neither holds the other's names), the frame cosine is at or above ``frame`` and the value
cosine at or above ``value``.

The rule, fixed before the sweep and before any scenario was scored: on a 0.01 grid of
(frame, value), the pair of bars that passes the most positives while at most 5 % of the
negatives pass; among equals, the highest frame bar, then the highest value bar (the
most cautious). usem's own change bar (the whole sentences, 0.63) is shown beside it.
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

from memgate.core.embedding_use import UsemSimilarity  # noqa: E402
from memgate.core.events import CandidateFact, StoredFact  # noqa: E402
from memgate.stages.resolution_lexicon import LEXICON  # noqa: E402
from memgate.stages.resolve_meaning import BARS, meaning_text  # noqa: E402
from memgate.stages.resolve_paraphrase import FOLD, other_persons  # noqa: E402
from memgate.stages.resolve_slotmask import (  # noqa: E402
    Slot,
    fact_slot,
    person_clash,
    statement_slot,
)
from memgate.stages.resolve_slotmask import _differ as differ  # noqa: E402
from tools.train_relations import cross_pairs, load_rows  # noqa: E402

NEGATIVE_SHARE = 0.05
GRID = np.round(np.arange(0.0, 1.0001, 0.01), 2)


def _stored(s: dict[str, Any]) -> StoredFact:
    return StoredFact.model_construct(
        subject=s["subject"], predicate=s["predicate"], value=s["value"]
    )


def _slots(r: dict[str, Any]) -> tuple[Slot | None, Slot | None]:
    return fact_slot(_stored(r["stored"])), statement_slot(r["new"])


def persons_apart(r: dict[str, Any]) -> bool:
    """The gate's person checks (not used to choose the bars): another person's fact."""
    f = _stored(r["stored"])
    c = CandidateFact.model_construct(subject="user", predicate="statement", object=r["new"])
    return other_persons(f.value, c.object, FOLD, LEXICON) or person_clash(f, c, LEXICON)


def choose(pos: np.ndarray, neg: np.ndarray, share: float = NEGATIVE_SHARE) -> tuple[float, float]:
    """The rule: ``pos``/``neg`` are (n, 2) arrays of (frame, value) cosines (NaN: the
    pair cannot pass); the (frame, value) bars that pass the most positives with at most
    ``share`` of the negatives passing, the highest bars among equals."""
    best: tuple[int, float, float] = (-1, 0.0, 0.0)
    pos = np.nan_to_num(pos, nan=-9.0)
    neg = np.nan_to_num(neg, nan=-9.0)
    for fb in GRID:
        for vb in GRID:
            if np.mean((neg[:, 0] >= fb) & (neg[:, 1] >= vb)) > share:
                continue
            n = int(np.sum((pos[:, 0] >= fb) & (pos[:, 1] >= vb)))
            if (n, fb, vb) > best:
                best = (n, float(fb), float(vb))
    return best[1], best[2]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = load_rows()
    usem = UsemSimilarity()
    groups = {
        "update": [r for r in rows if r["label"] == "update"],
        "other": [r for r in rows if r["label"] == "other"],
        "unrelated": cross_pairs(rows),
        "same": [r for r in rows if r["label"] == "same"],
    }
    cos: dict[str, np.ndarray] = {}
    whole: dict[str, np.ndarray] = {}
    report: dict[str, Any] = {}
    for name, rs in groups.items():
        out = []
        for r in rs:
            a, b = _slots(r)
            if a is None or b is None or not differ(a, b):
                out.append((np.nan, np.nan))
                continue
            out.append((usem.similarity(a.frame, b.frame), usem.similarity(a.value, b.value)))
        cos[name] = np.asarray(out, dtype=float).reshape(-1, 2)
        whole[name] = np.asarray(
            [usem.similarity(meaning_text(_stored(r["stored"])), r["new"]) for r in rs]
        )
        report[name] = [
            {"id": r["id"], "frame": x[0], "value": x[1], "whole": float(w)}
            for r, x, w in zip(rs, cos[name].tolist(), whole[name].tolist(), strict=True)
        ]
    pos = cos["update"]
    neg = np.concatenate([cos["other"], cos["unrelated"], cos["same"]])
    fb, vb = choose(pos, neg)

    def passing(x: np.ndarray) -> float:
        x = np.nan_to_num(x, nan=-9.0)
        return float(np.mean((x[:, 0] >= fb) & (x[:, 1] >= vb))) if len(x) else 0.0

    print(f"bars: frame {fb:.2f}, value {vb:.2f} (at most {NEGATIVE_SHARE:.0%} of negatives)")
    for name, x in cos.items():
        read = int(np.sum(~np.isnan(x[:, 0])))
        print(
            f"  {name:10} {len(x):4} pairs, {read:4} with two differing values;"
            f" slotmask passes {passing(x):6.1%}; usem change bar {BARS.change:.2f} passes"
            f" {float(np.mean(whole[name] >= BARS.change)):6.1%}"
        )
    wn = np.concatenate([whole["other"], whole["unrelated"], whole["same"]])
    print(
        f"  positives {passing(pos):.1%} / negatives {passing(neg):.1%} (slotmask); "
        f"{float(np.mean(whole['update'] >= BARS.change)):.1%} / "
        f"{float(np.mean(wn >= BARS.change)):.1%} (usem change bar, same negatives)"
    )
    apart = {n: np.asarray([persons_apart(r) for r in rs], dtype=bool) for n, rs in groups.items()}
    print("  with the gate's person checks too (after the bars were chosen):")
    for name, x in cos.items():
        kept = np.where(apart[name][:, None], np.nan, x) if len(x) else x
        print(f"    {name:10} slotmask passes {passing(kept):6.1%}")
    kept_neg = np.concatenate(
        [np.where(apart[n][:, None], np.nan, cos[n]) for n in ("other", "unrelated", "same")]
    )
    print(f"    negatives  slotmask passes {passing(kept_neg):6.1%}")
    both = np.nan_to_num(pos, nan=-9.0)
    either = (both[:, 0] >= fb) & (both[:, 1] >= vb) | (whole["update"] >= BARS.change)
    print(f"  positives passing slotmask or the change bar: {float(np.mean(either)):.1%}")
    if args.json:
        report["bars"] = {"frame": fb, "value": vb}
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
