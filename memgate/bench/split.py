"""LoCoMo by split: development conversations and held-back ones, side by side.

``memgate/data/eval/locomo_split.json`` names LoCoMo's conversations by
``sample_id``: ``development`` (rules may be tuned on them) and ``test``
(held back: reported, never tuned on; called ``heldout`` here). Each split
runs :func:`memgate.bench.locomo.run_locomo` on its own conversations (its
own work folder, the same settings), so each figure is measured exactly as a
run of the whole file measures it, only over fewer conversations.

The side-by-side figures (:meth:`SplitBench.figures`) are those of the
headline policy against the store-every-turn baseline: writes per turn,
evidence recall@k with its ratio to the baseline, answer-token recall@k (the
share of the gold answer's content tokens found in the top-k retrieved fact
texts, see :mod:`memgate.bench.locomo`) with its ratio to the baseline,
coverage and extraction calls per 1,000 turns. Issue 9's targets
(:data:`ISSUE9_TARGETS`) are reported on each split, met or missed by how
much; they never fail the command.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from memgate.bench.figures import BenchResult
from memgate.core.errors import ConfigError

__all__ = [
    "ISSUE9_TARGETS",
    "SPLITS",
    "SPLIT_CHOICES",
    "LocomoSplit",
    "SplitBench",
    "load_split",
    "run_split",
]

SPLITS: tuple[str, ...] = ("dev", "heldout")
SPLIT_CHOICES: tuple[str, ...] = (*SPLITS, "all")
_FILE_KEYS = {"dev": "development", "heldout": "test"}

#: Issue 9's LoCoMo targets, for the conversations not used for tuning.
ISSUE9_TARGETS: dict[str, float] = {
    "recall_ratio_min": 0.95,
    "writes_per_turn_max": 0.35,
    "answer_token_ratio_min": 0.80,
}


@dataclass(frozen=True)
class LocomoSplit:
    path: str
    source: str
    source_sha256: str
    conversations: dict[str, list[str]]
    """``dev`` and ``heldout`` -> sample ids."""


def load_split(path: Path | None = None) -> LocomoSplit:
    """The split file (default: the bundled ``locomo_split.json``)."""
    if path is None:
        res = resources.files("memgate") / "data" / "eval" / "locomo_split.json"
        with resources.as_file(res) as p:
            return load_split(Path(p))
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"LoCoMo split file {path}: {exc}") from None
    convs: dict[str, list[str]] = {}
    for name, key in _FILE_KEYS.items():
        ids = raw.get(key) if isinstance(raw, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
            raise ConfigError(f"LoCoMo split file {path}: {key!r} must be a list of sample ids")
        convs[name] = list(ids)
    both = set(convs["dev"]) & set(convs["heldout"])
    if both:
        raise ConfigError(f"LoCoMo split file {path}: in both splits: {', '.join(sorted(both))}")
    return LocomoSplit(
        path=str(path),
        source=str(raw.get("source", "")),
        source_sha256=str(raw.get("source_sha256", "")),
        conversations=convs,
    )


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


@dataclass
class SplitBench:
    """One LoCoMo run per split (``results``: split -> its run)."""

    split: LocomoSplit
    data: str
    data_matches_source: bool
    results: dict[str, BenchResult] = field(default_factory=dict)
    command: str | None = None

    @property
    def names(self) -> list[str]:
        return [n for n in SPLITS if n in self.results]

    def figures(self, name: str) -> dict[str, Any]:
        """The headline policy against the baseline on one split's conversations."""
        r = self.results[name]
        g, b = r.headline.clean, r.baseline.clean
        kk = 10 if 10 in r.ks else max(r.ks)
        out: dict[str, Any] = {
            "policy": r.headline.name,
            "conversations": list(r.conversations),
            "turns": r.turns,
            "questions": r.questions,
            "writes_per_turn": round(g.write_amplification, 4),
        }
        for k in r.ks:
            out[f"recall@{k}"] = round(g.recall(k), 4)
            out[f"baseline_recall@{k}"] = round(b.recall(k), 4)
            out[f"recall@{k}_ratio"] = _r(_ratio(g.recall(k), b.recall(k)))
        gat, bat = g.answer_token_recall(kk), b.answer_token_recall(kk)
        out[f"answer_token_recall@{kk}"] = round(gat, 4)
        out[f"baseline_answer_token_recall@{kk}"] = round(bat, 4)
        out[f"answer_token_recall@{kk}_ratio"] = _r(_ratio(gat, bat))
        out["coverage"] = round(g.coverage, 4)
        out["extraction_calls_per_1k_turns"] = round(g.extraction_calls_per_1k_turns, 1)
        for ratio in r.ratios:
            out[f"rot_cost_{ratio}x"] = round(r.headline.rot_cost(ratio, kk), 4)
            out[f"baseline_rot_cost_{ratio}x"] = round(r.baseline.rot_cost(ratio, kk), 4)
        return out

    def targets(self, name: str) -> list[dict[str, Any]]:
        """Issue 9's LoCoMo targets on one split: measured, met, and the gap when missed."""
        f = self.figures(name)
        kk = 10 if 10 in self.results[name].ks else max(self.results[name].ks)
        t = ISSUE9_TARGETS

        def target(what: str, threshold: str, value: float | None, floor: float, up: bool) -> Any:
            met = value is not None and (value >= floor if up else value <= floor)
            gap = "" if met else "not measured" if value is None else f"by {abs(value - floor):.3f}"
            shown = "n/a" if value is None else f"{value:.3f}"
            return {"name": what, "threshold": threshold, "measured": shown, "met": met, "gap": gap}

        return [
            target(
                f"recall@{kk} / baseline",
                f">= {t['recall_ratio_min']:.2f}x",
                f[f"recall@{kk}_ratio"],
                t["recall_ratio_min"],
                True,
            ),
            target(
                "writes per turn",
                f"<= {t['writes_per_turn_max']:.2f}",
                f["writes_per_turn"],
                t["writes_per_turn_max"],
                False,
            ),
            target(
                f"answer-token recall@{kk} / baseline",
                f">= {t['answer_token_ratio_min']:.2f}x",
                f[f"answer_token_recall@{kk}_ratio"],
                t["answer_token_ratio_min"],
                True,
            ),
        ]

    def as_json(self) -> dict[str, Any]:
        return {
            "split_file": self.split.path,
            "data": self.data,
            "data_matches_split_source": self.data_matches_source,
            "splits": self.names,
            "side_by_side": {n: self.figures(n) for n in self.names},
            "targets": {n: self.targets(n) for n in self.names},
            "runs": {n: self.results[n].as_json() for n in self.names},
            "command": self.command,
        }


def run_split(
    data: Path,
    *,
    split: LocomoSplit,
    which: str,
    workdir: Path,
    limit_conversations: int | None = None,
    **run_kwargs: Any,
) -> SplitBench:
    """Run each chosen split (``dev``, ``heldout`` or ``all``) in ``workdir/<split>``.

    ``limit_conversations`` keeps the first N conversations of each split;
    ``run_kwargs`` go to :func:`memgate.bench.locomo.run_locomo` unchanged.
    """
    from memgate.bench.locomo import run_locomo

    if which not in SPLIT_CHOICES:
        raise ConfigError(f"unknown LoCoMo split {which!r}; choose {', '.join(SPLIT_CHOICES)}")
    if workdir.exists() and any(workdir.iterdir()):
        raise ConfigError(f"work directory {workdir} is not empty; give an empty or new one")
    if not data.is_file():
        raise ConfigError(f"LoCoMo data file not found: {data}")
    names: Sequence[str] = SPLITS if which == "all" else (which,)
    bench = SplitBench(
        split=split,
        data=str(data),
        data_matches_source=bool(split.source_sha256) and _sha256(data) == split.source_sha256,
    )
    for name in names:
        ids = split.conversations[name]
        if not ids:
            continue
        bench.results[name] = run_locomo(
            data,
            workdir=workdir / name,
            conversations=ids,
            limit_conversations=limit_conversations,
            **run_kwargs,
        )
    if not bench.results:
        raise ConfigError(f"{split.path} names no conversation for the split {which!r}")
    return bench
