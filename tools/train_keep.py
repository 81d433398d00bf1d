"""Train the keep classifier of the statement extractor from the development corpus.

    python tools/train_keep.py            # writes memgate/data/keep_model.json
    python tools/train_keep.py --check    # exit 1 if the committed file differs from a fresh run
    python tools/train_keep.py --cv 5     # cross-validation on the corpus: designs side by side

Deterministic: the same corpus gives the same bytes (see memgate.stages.keep_model.to_json).
Only development data is read: the corpus under memgate/data/train/ and, for --cv, the
development labelled turns memgate/data/eval/labelled_turns.jsonl. Never the frozen split.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memgate.stages.keep_model import DIM, featurise, sentence_labels, to_json, train  # noqa: E402
from tools.model_script import prf, write_or_check  # noqa: E402

CORPUS = ROOT / "memgate" / "data" / "train" / "statements.jsonl"
MODEL = ROOT / "memgate" / "data" / "keep_model.json"
DEV_LABELLED = ROOT / "memgate" / "data" / "eval" / "labelled_turns.jsonl"
THRESHOLD = 0.5


def load_rows(path: Path = CORPUS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def dataset(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for row in rows:
        for sentence, label in sentence_labels(row):
            xs.append(featurise(sentence))
            ys.append(label)
    return np.vstack(xs), np.asarray(ys, dtype=np.int64)


def build(path: Path = CORPUS) -> str:
    """The model file's text, trained on the whole corpus."""
    x, y = dataset(load_rows(path))
    w, b = train(x, y)
    return to_json(w, b, THRESHOLD, path.read_bytes())


def _mask(x: np.ndarray, features: str) -> np.ndarray:
    x = x.copy()
    if features == "cues":
        x[:, :DIM] = 0.0
    elif features == "ngrams":
        x[:, DIM:] = 0.0
    return x


def cross_validate(k: int, threshold: float = THRESHOLD) -> None:
    from memgate.core.events import TurnEvent
    from memgate.stages.extract import RuleExtractor
    from memgate.stages.statement_text import split_statements
    from memgate.stages.triage import triage

    rows = load_rows()
    rules = RuleExtractor()

    def turn(text: str) -> TurnEvent:
        return TurnEvent(tenant_id="t", user_id="u", session_id="s", turn_id="x", role="user",
                         content=text, ts="2024-05-01T10:00:00Z")

    feats = {i: [featurise(s) for s in split_statements(r["text"])] for i, r in enumerate(rows)}
    triaged = {i: triage(turn(r["text"]))[0].value == "keep" for i, r in enumerate(rows)}
    ruled = {i: bool(rules.extract(turn(r["text"]))) for i, r in enumerate(rows)}
    print(f"corpus: {len(rows)} turns, {k}-fold cross-validation by turn (fold = index mod {k}), "
          f"threshold {threshold}")
    for features in ("ngrams+cues", "ngrams", "cues"):
        sent = [0, 0, 0]
        by_design: dict[str, dict[str, list[int]]] = {
            d: defaultdict(lambda: [0, 0, 0]) for d in ("rules", "A", "B")
        }
        for fold in range(k):
            tr = [r for i, r in enumerate(rows) if i % k != fold]
            x, y = dataset(tr)
            w, b = train(_mask(x, features), y)
            for i, r in enumerate(rows):
                if i % k != fold:
                    continue
                labels = sentence_labels(r)
                xs = _mask(np.vstack(feats[i]), features)
                probs = 1 / (1 + np.exp(-(xs @ w + b)))
                for (_, lab), p in zip(labels, probs, strict=True):
                    pred = int(p >= threshold)
                    sent[0] += pred and lab
                    sent[1] += pred and not lab
                    sent[2] += (not pred) and lab
                clf = bool((probs >= threshold).any())
                preds = {"rules": triaged[i] and ruled[i], "A": triaged[i] and clf,
                         "B": triaged[i] and (ruled[i] or clf)}
                for d, pred_turn in preds.items():
                    for key in ("all", r["lang"]):
                        c = by_design[d][key]
                        c[0] += pred_turn and r["keep"]
                        c[1] += pred_turn and not r["keep"]
                        c[2] += (not pred_turn) and r["keep"]
        p, rr, f = prf(*sent)
        print(f"\nfeatures {features}: sentence keep P {p:.3f} R {rr:.3f} F1 {f:.3f}")
        for d, counts in by_design.items():
            if features != "ngrams+cues" and d == "rules":
                continue
            p, rr, f = prf(*counts["all"])
            langs = " ".join(
                f"{lang} {prf(*counts[lang])[1]:.2f}"
                for lang in ("en", "de", "fr", "es", "pt", "zh")
            )
            print(f"  turn {d:5s} P {p:.3f} R {rr:.3f} F1 {f:.3f} | keep recall {langs}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed model file")
    ap.add_argument("--cv", type=int, default=0, help="k-fold cross-validation report")
    ap.add_argument("--threshold", type=float, default=THRESHOLD,
                    help="keep threshold of the cross-validation report")
    args = ap.parse_args()
    if args.cv:
        cross_validate(args.cv, args.threshold)
        return 0
    return write_or_check(MODEL, build(), root=ROOT, name="keep", script="tools/train_keep.py",
                          check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
