"""Measure the fold's similarity on must-fold and must-not-fold episode pairs (issue 12).

Each pair (``memgate/data/eval/fold_pairs.json``) is said by its own user through the
default gate (hybrid extractor, MiniLM); the cosine of the two stored episodes' vectors is
printed with the pair's label and the fold decision, then the lowest must-fold and the
highest must-not-fold cosine. Run: ``.venv/bin/python tools/fold_pairs.py``
"""

from __future__ import annotations

import json
import sys
import tempfile
from importlib import resources
from pathlib import Path

import numpy as np

from memgate.core.embedding import load_embedder
from memgate.core.events import TurnEvent
from memgate.core.settings import load_settings
from memgate.evaluation.common import Workspace


def main() -> int:
    raw = (resources.files("memgate") / "data" / "eval" / "fold_pairs.json").read_text("utf-8")
    pairs = json.loads(raw)["pairs"]
    emb = load_embedder("minilm")
    out: dict[bool, list[float]] = {True: [], False: []}
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
                if len(facts) != 2:
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
                kinds = ",".join(f"{f.type.value}/{f.predicate}" for f in facts)
                print(f"{cos:.3f} {p['lang']} fold={p['fold']!s:5} [{kinds}] {p['a']} | {p['b']}")
    print(f"must fold: min {min(out[True]):.3f} max {max(out[True]):.3f} (n={len(out[True])})")
    print(f"must not:  min {min(out[False]):.3f} max {max(out[False]):.3f} (n={len(out[False])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
