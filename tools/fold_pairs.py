"""Measure the fold decision on must-fold and must-not-fold episode pairs (issue 12).

Each pair (``memgate/data/eval/fold_pairs.json``, the measurement set; ``--file NAME``
another file of ``memgate/data/eval``, such as the development pairs
``fold_pairs_dev2.json``) is said by its own user through the default gate (hybrid
extractor, MiniLM). Printed per pair: the cosine of the two stored facts' vectors, the
pair's label, the fold decision of ``memgate consolidate`` for the two (both episodes of one
subject and predicate, :func:`memgate.stages.consolidate.episodes_alike`: one activity and
a cosine of at least ``fold_similarity``), the facts' types and the activities read; then
the lowest must-fold and highest must-not-fold cosine and the two counts: must-fold pairs
folded, must-not-fold pairs kept apart. A pair whose turns stored other than two facts is
counted as not folded. Run: ``.venv/bin/python tools/fold_pairs.py [--file NAME]``
"""

from __future__ import annotations

import json
import sys
import tempfile
from importlib import resources
from pathlib import Path

import numpy as np

from memgate.core.embedding import load_embedder
from memgate.core.events import FactType, StoredFact, TurnEvent, normalise
from memgate.core.settings import load_settings
from memgate.evaluation.common import Workspace
from memgate.stages.activity import read_activity
from memgate.stages.consolidate import LifecycleConfig, episodes_alike


def folds(a: StoredFact, b: StoredFact, cfg: LifecycleConfig) -> bool:
    """Whether ``memgate consolidate`` would put the two facts in one fold group."""
    return (
        a.type is FactType.EVENT
        and b.type is FactType.EVENT
        and (normalise(a.subject), a.predicate) == (normalise(b.subject), b.predicate)
        and episodes_alike(a, b, cfg.fold_similarity)
    )


def main(argv: list[str]) -> int:
    name = argv[argv.index("--file") + 1] if "--file" in argv else "fold_pairs.json"
    raw = (resources.files("memgate") / "data" / "eval" / name).read_text("utf-8")
    pairs = json.loads(raw)["pairs"]
    cfg = LifecycleConfig.load()
    emb = load_embedder("minilm")
    out: dict[bool, list[float]] = {True: [], False: []}
    right: dict[bool, int] = {True: 0, False: 0}
    total: dict[bool, int] = {True: 0, False: 0}
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(data_dir=Path(tmp) / "d", embedder="minilm")
        with Workspace(settings, emb) as ws:
            for i, p in enumerate(pairs):
                for j, text in enumerate((p["a"], p["b"])):
                    turn = {
                        "tenant_id": "t", "user_id": f"p{i}", "session_id": f"s{j}",
                        "turn_id": f"p{i}-{j}", "role": "user", "content": text,
                        "ts": f"2024-03-0{j + 1}T09:00:00Z",
                    }  # fmt: skip
                    ws.process(TurnEvent.model_validate(turn))
                facts = ws.store.list_facts("t", f"p{i}")
                total[p["fold"]] += 1
                if len(facts) != 2:
                    right[p["fold"]] += not p["fold"]
                    print(
                        f"{p['lang']} fold={p['fold']}: {len(facts)} facts stored",
                        p["a"],
                        "|",
                        p["b"],
                    )
                    continue
                a, b = (np.asarray(f.embedding) for f in facts)
                cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
                out[p["fold"]].append(cos)
                fa, fb = facts
                decided = folds(fa, fb, cfg)
                right[p["fold"]] += decided == p["fold"]
                kinds = ",".join(f"{f.type.value}/{f.predicate}" for f in facts)
                acts = " / ".join(str(read_activity(f.value)) for f in facts)
                print(
                    f"{cos:.3f} {p['lang']} fold={p['fold']!s:5} decided={decided!s:5} [{kinds}]"
                    f" {p['a']} | {p['b']}  <{acts}>"
                )
    print(f"must fold: min {min(out[True]):.3f} max {max(out[True]):.3f} (n={len(out[True])})")
    print(f"must not:  min {min(out[False]):.3f} max {max(out[False]):.3f} (n={len(out[False])})")
    print(f"fold_similarity {cfg.fold_similarity}: must-fold folded {right[True]}/{total[True]},"
          f" must-not-fold kept apart {right[False]}/{total[False]}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
