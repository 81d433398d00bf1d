"""Train triage's durable-sentence classifier (stages/triage_model.py).

    python tools/train_triage.py            # writes memgate/data/triage_model.json
    python tools/train_triage.py --check    # exit 1 if the committed file differs from a fresh run
    python tools/train_triage.py --cv       # cross-validated figures, threshold by threshold

Training data, development only (never the frozen split, never a held-back conversation):

* the written corpora ``memgate/data/train/statements.jsonl`` and ``triage.jsonl`` (en de fr
  es pt zh): in a keep turn the sentence holding ``value`` is durable, its other sentences
  are not; every sentence of a drop turn is not;
* the development conversations of ``memgate/data/eval/locomo_split.json``: a turn cited as
  evidence by a question is a real label "holds an answerable fact"; its sentences that are
  not a question, a social formula or filler are durable, every sentence of a turn no
  question cites is not.

The LoCoMo sentences weigh :data:`LOCOMO_WEIGHT` times the corpus in total, and within a
source both classes weigh the same.
Deterministic: the same data give the same bytes. The cross-validation holds out one
development conversation and a quarter of the corpus rows at a time (4 folds) and reports,
out of fold, what triage would keep: extraction calls per 1,000 LoCoMo turns, the share of
evidence turns still kept, and keep precision / recall per language on the corpus.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memgate.core.events import TurnEvent  # noqa: E402
from memgate.stages.statement_text import cues  # noqa: E402
from memgate.stages.triage import TriagePolicy, content_sentences, triage  # noqa: E402
from memgate.stages.triage_model import features, to_json, train  # noqa: E402
from tools.model_script import prf, write_or_check  # noqa: E402

TRAIN = ROOT / "memgate" / "data" / "train"
CORPORA = (TRAIN / "statements.jsonl", TRAIN / "triage.jsonl")
MODEL = ROOT / "memgate" / "data" / "triage_model.json"
SPLIT = ROOT / "memgate" / "data" / "eval" / "locomo_split.json"
#: The keep threshold written into the model file (chosen with --cv, see the README).
THRESHOLD = 0.55
#: The LoCoMo sentences weigh this many times the written corpus in total (the chat the
#: extraction-call figure is measured on; the corpus keeps the six languages).
LOCOMO_WEIGHT = 3.0
L2 = 1e-4
STEPS = 800
FOLDS = 4
LANGS = ("en", "de", "fr", "es", "pt", "zh")


@dataclass
class Turn:
    """One training turn: its content sentences with labels, and what it is."""

    source: str  # "corpus" or "locomo"
    group: int  # the cross-validation fold
    lang: str
    keep: bool
    sentences: list[tuple[str, int]]
    rule_keep: bool  # triage without the classifier keeps it
    rule_reason: str


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t",
        user_id="u",
        session_id="s",
        turn_id="x",
        role="user",
        content=text,
        ts="2024-05-01T10:00:00Z",
    )


_RULES_ONLY = TriagePolicy(durable_model=False)


def _rules(event: TurnEvent) -> tuple[bool, str]:
    verdict, reason = triage(event, _RULES_ONLY)
    return verdict.value == "keep", str(reason)


def _corpus_turns() -> Iterator[Turn]:
    i = 0
    for path in CORPORA:
        for line in path.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            row: dict[str, Any] = json.loads(line)
            event = _turn(row["text"])
            sentences = [
                (s, int(bool(row["keep"]) and row["value"] in s))
                for s in content_sentences(row["text"])
            ]
            keep, reason = _rules(event)
            yield Turn("corpus", i % FOLDS, row["lang"], bool(row["keep"]), sentences, keep, reason)
            i += 1


def _locomo_turns() -> Iterator[Turn]:
    from memgate.bench.datasets import find_locomo
    from memgate.bench.locomo import canonical_id, questions_of
    from memgate.inputs import load_locomo

    split = json.loads(SPLIT.read_text("utf-8"))
    data = find_locomo(Path(split["source"]).name)  # DatasetMissing names where it looked
    convs = {c.sample_id: c for c in load_locomo(data)}
    for fold, sample_id in enumerate(split["development"]):
        conv = convs[sample_id]
        questions, _ = questions_of(conv)
        evidence: set[str] = set().union(*(q.evidence for q in questions))
        for event in conv.turns:
            is_ev = canonical_id(event.turn_id) in evidence
            sentences = [
                (s, int(is_ev and not _aside(s))) for s in content_sentences(event.content)
            ]
            keep, reason = _rules(event)
            yield Turn("locomo", fold % FOLDS, "en", is_ev, sentences, keep, reason)


def _aside(sentence: str) -> bool:
    c = cues(sentence)
    return c["question"] or c["social"] or c["second_person"]


def load_turns() -> list[Turn]:
    return [*_corpus_turns(), *_locomo_turns()]


def _matrix(
    turns: list[Turn], feats: list[np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sentence features, labels and weights; ``feats``: the turns' feature rows if
    already computed (one array per turn)."""
    ys, ws = [], []
    by_source: dict[str, list[int]] = {}
    for t in turns:
        for _, label in t.sentences:
            by_source.setdefault(t.source, [0, 0])[label] += 1
    for t in turns:
        for _, label in t.sentences:
            ys.append(label)
            # each source its total weight, each class half of it
            share = LOCOMO_WEIGHT if t.source == "locomo" else 1.0
            ws.append(share / (2 * by_source[t.source][label]))
    if feats is None:
        feats = [_features(t) for t in turns]
    x = np.vstack([f for f in feats if len(f)])
    return x, np.asarray(ys, dtype=np.int64), np.asarray(ws, dtype=np.float64)


def _features(t: Turn) -> np.ndarray:
    if not t.sentences:
        return np.zeros((0, 0))
    return np.vstack([features(s) for s, _ in t.sentences])


def corpus_bytes() -> bytes:
    return b"".join(p.read_bytes() for p in CORPORA) + SPLIT.read_bytes()


def build() -> str:
    x, y, w = _matrix(load_turns())
    weights, bias = train(x, y, w, l2=L2, steps=STEPS)
    return to_json(weights, bias, THRESHOLD, corpus_bytes())


def cross_validate(thresholds: list[float]) -> None:
    turns = load_turns()
    feats = [_features(t) for t in turns]
    scores: list[float] = [0.0] * len(turns)
    for fold in range(FOLDS):
        idx = [i for i, t in enumerate(turns) if t.group != fold]
        x, y, w = _matrix([turns[i] for i in idx], [feats[i] for i in idx])
        weights, bias = train(x, y, w, l2=L2, steps=STEPS)
        for i, t in enumerate(turns):
            if t.group != fold or not t.sentences:
                continue
            scores[i] = float((1 / (1 + np.exp(-(feats[i] @ weights + bias)))).max())
    locomo = [i for i, t in enumerate(turns) if t.source == "locomo"]
    corpus = [i for i, t in enumerate(turns) if t.source == "corpus"]
    n_ev = sum(turns[i].keep for i in locomo)
    print(
        f"{FOLDS}-fold cross-validation (fold = one development LoCoMo conversation + "
        f"every {FOLDS}th corpus row): {len(corpus)} corpus turns, {len(locomo)} LoCoMo "
        f"turns ({n_ev} cited as evidence)"
    )
    print(
        "threshold | LoCoMo calls/1k  evidence kept | corpus P  R  F1 | keep recall "
        + " ".join(LANGS)
    )

    def kept(i: int, thr: float | None) -> bool:
        t = turns[i]
        if not t.rule_keep:
            return False
        if thr is None or t.rule_reason == "memory_signal":
            return True
        return scores[i] >= thr

    for thr in [None, *thresholds]:
        calls = 1000 * sum(kept(i, thr) for i in locomo) / len(locomo)
        ev = sum(kept(i, thr) for i in locomo if turns[i].keep) / max(n_ev, 1)
        c = [0, 0, 0]
        per = {lang: [0, 0, 0] for lang in LANGS}
        for i in corpus:
            k, lab = kept(i, thr), turns[i].keep
            for counts in (c, per[turns[i].lang]):
                counts[0] += k and lab
                counts[1] += k and not lab
                counts[2] += (not k) and lab
        p, r, f = prf(*c)
        langs = " ".join(f"{prf(*per[lang])[1]:.2f}" for lang in LANGS)
        name = "rules" if thr is None else f"{thr:.2f}"
        print(f"{name:>9} | {calls:6.0f}  {ev:.3f}        | {p:.3f} {r:.3f} {f:.3f} | {langs}")


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed model file")
    ap.add_argument("--cv", action="store_true", help="cross-validated figures")
    ap.add_argument(
        "--thresholds",
        default="0.2,0.25,0.3,0.35,0.4,0.45,0.5",
        help="thresholds of the --cv report",
    )
    args = ap.parse_args()
    if args.cv:
        cross_validate([float(v) for v in args.thresholds.split(",")])
        return 0
    return write_or_check(
        MODEL, build(), root=ROOT, name="triage", script="tools/train_triage.py", check=args.check
    )


if __name__ == "__main__":
    raise SystemExit(main())
