"""The figures of a LoCoMo run: counts per store variant, and the run's result.

:class:`Figures` holds counts (turns, facts, hits, answer-token sums...) and
derives the rates from them, so the figures of several conversations add up
(:meth:`Figures.add`) to the figures of their union: a split's figures are the
sum of its conversations'. :class:`VariantResult` is one store variant (a write
policy, or the store-every-turn baseline), clean and polluted;
:class:`BenchResult` one run of :func:`memgate.bench.locomo.run_locomo`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BenchResult", "Figures", "VariantResult"]


@dataclass
class Figures:
    """Counts for one store variant over some conversations; the rates are properties."""

    turns: int = 0
    stored: int = 0
    rows: int = 0
    kept: int = 0
    questions: int = 0
    hits: Counter[int] = field(default_factory=Counter)
    answer_token_sum: dict[int, float] = field(default_factory=dict)
    answer_questions: int = 0
    observed: int = 0
    covered: int = 0
    cat_questions: Counter[int] = field(default_factory=Counter)
    cat_hits: Counter[tuple[int, int]] = field(default_factory=Counter)

    def add(self, other: Figures) -> None:
        self.turns += other.turns
        self.stored += other.stored
        self.rows += other.rows
        self.kept += other.kept
        self.questions += other.questions
        self.hits.update(other.hits)
        for k, v in other.answer_token_sum.items():
            self.answer_token_sum[k] = self.answer_token_sum.get(k, 0.0) + v
        self.answer_questions += other.answer_questions
        self.observed += other.observed
        self.covered += other.covered
        self.cat_questions.update(other.cat_questions)
        self.cat_hits.update(other.cat_hits)

    @property
    def write_amplification(self) -> float:
        return self.stored / self.turns if self.turns else 0.0

    @property
    def rows_per_turn(self) -> float:
        return self.rows / self.turns if self.turns else 0.0

    @property
    def coverage(self) -> float:
        return self.covered / self.observed if self.observed else 0.0

    @property
    def extraction_calls_per_1k_turns(self) -> float:
        return 1000.0 * self.kept / self.turns if self.turns else 0.0

    def recall(self, k: int) -> float:
        return self.hits[k] / self.questions if self.questions else 0.0

    def answer_token_recall(self, k: int) -> float:
        if not self.answer_questions:
            return 0.0
        return self.answer_token_sum.get(k, 0.0) / self.answer_questions

    def category_recall(self, cat: int, k: int) -> float:
        n = self.cat_questions[cat]
        return self.cat_hits[(cat, k)] / n if n else 0.0

    def as_dict(self, ks: Sequence[int]) -> dict[str, Any]:
        d: dict[str, Any] = {
            "write_amplification": round(self.write_amplification, 4),
            **{f"recall@{k}": round(self.recall(k), 4) for k in ks},
            "coverage": round(self.coverage, 4),
            **{f"answer_token_recall@{k}": round(self.answer_token_recall(k), 4) for k in ks},
            "rows_per_turn": round(self.rows_per_turn, 4),
            "extraction_calls_per_1k_turns": round(self.extraction_calls_per_1k_turns, 1),
            "turns": self.turns,
            "facts": self.stored,
            "rows": self.rows,
            "questions": self.questions,
        }
        return d


@dataclass
class VariantResult:
    """One store variant (a write policy, or the baseline): clean and polluted runs."""

    name: str
    clean: Figures = field(default_factory=Figures)
    pollution: dict[int, Figures] = field(default_factory=dict)
    per_conversation: dict[str, Figures] = field(default_factory=dict)
    drops: Counter[str] = field(default_factory=Counter)
    redactions: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)
    ingest_s: dict[int, float] = field(default_factory=dict)
    eval_s: dict[int, float] = field(default_factory=dict)

    def rot_cost(self, ratio: int, k: int = 10) -> float:
        f = self.pollution.get(ratio)
        return self.clean.recall(k) - f.recall(k) if f is not None else 0.0

    def as_dict(self, ks: Sequence[int], *, detail: bool = False) -> dict[str, Any]:
        kk = max(ks)
        d = self.clean.as_dict(ks)
        d["by_category"] = {
            str(c): {
                "questions": self.clean.cat_questions[c],
                **{f"recall@{k}": round(self.clean.category_recall(c, k), 4) for k in ks},
            }
            for c in sorted(self.clean.cat_questions)
        }
        d["pollution"] = {
            str(r): {
                **{f"recall@{k}": round(f.recall(k), 4) for k in ks},
                "write_amplification": round(f.write_amplification, 4),
                "coverage": round(f.coverage, 4),
                "turns": f.turns,
                "facts": f.stored,
            }
            for r, f in sorted(self.pollution.items())
        }
        d["rot_cost"] = {str(r): round(self.rot_cost(r, kk), 4) for r in sorted(self.pollution)}
        if 5 in self.pollution:
            d["rot_cost_5x"] = round(self.rot_cost(5, kk), 4)
        d["ingest_s"] = {str(r): round(s, 2) for r, s in sorted(self.ingest_s.items())}
        d["score_s"] = {str(r): round(s, 2) for r, s in sorted(self.eval_s.items())}
        if detail:
            d["drops"] = dict(self.drops.most_common())
            d["redactions"] = dict(self.redactions.most_common())
            d["actions"] = dict(self.actions.most_common())
        return d


@dataclass
class BenchResult:
    data: str
    policies: list[str]
    ks: list[int]
    ratios: list[int]
    seed: int
    gated: dict[str, VariantResult]
    baseline: VariantResult
    conversations: list[str]
    turns: int
    questions: int
    skipped_questions: int
    elapsed_s: float
    embedder: str
    extractor: str
    embed_s: float = 0.0
    extractor_source_sha256: str = ""
    """First 12 hex digits of the extractor's module source: the version string alone
    does not change while rules are tuned."""
    extractor_source_changed: bool = False
    """The extractor's source file changed on disk during the run (figures suspect)."""
    command: str | None = None
    headline_policy: str | None = None
    """The policy of the headline figures and targets (default: ``balanced`` if it ran,
    else the first policy)."""

    @property
    def headline(self) -> VariantResult:
        name = self.headline_policy
        if name not in self.gated:
            name = "balanced" if "balanced" in self.gated else self.policies[0]
        return self.gated[name]

    def targets(self) -> dict[str, Any]:
        """The issue's targets, measured on the headline policy (``balanced`` by default)."""
        g, b = self.headline, self.baseline
        kk = 10 if 10 in self.ks else max(self.ks)
        out: dict[str, Any] = {
            "policy": g.name,
            "write_amplification_max": 0.35,
            "write_amplification": round(g.clean.write_amplification, 4),
            "write_amplification_met": g.clean.write_amplification <= 0.35,
            f"recall@{kk}_min": round(0.9 * b.clean.recall(kk), 4),
            f"recall@{kk}": round(g.clean.recall(kk), 4),
            f"recall@{kk}_ratio_to_baseline": round(g.clean.recall(kk) / b.clean.recall(kk), 4)
            if b.clean.recall(kk)
            else None,
            f"recall@{kk}_met": g.clean.recall(kk) >= 0.9 * b.clean.recall(kk),
        }
        worst = max(self.ratios) if self.ratios else None
        if worst is not None:
            out[f"rot_cost_{worst}x"] = round(g.rot_cost(worst, kk), 4)
            out[f"baseline_rot_cost_{worst}x"] = round(b.rot_cost(worst, kk), 4)
            out[f"rot_cost_{worst}x_met"] = g.rot_cost(worst, kk) < b.rot_cost(worst, kk)
        return out

    def as_json(self) -> dict[str, Any]:
        ks = self.ks
        kk = max(ks)
        h = self.headline
        out: dict[str, Any] = {"policy": h.name, **h.as_dict(ks, detail=False)}
        out["baseline"] = self.baseline.as_dict(ks)
        out["answers"] = {
            "metric": f"answer_token_recall@{kk}",
            "with_memory": round(h.clean.answer_token_recall(kk), 4),
            "baseline_with_memory": round(self.baseline.clean.answer_token_recall(kk), 4),
            "without_memory": 0.0,
            "questions": h.clean.answer_questions,
            "note": "retrieval-side proxy: share of the gold answer's content tokens found in "
            "the top-k retrieved facts; without memory the context is empty. Not an LLM judge.",
        }
        out["drops"] = dict(h.drops.most_common())
        out["redactions"] = dict(h.redactions.most_common())
        out["actions"] = dict(h.actions.most_common())
        out["targets"] = self.targets()
        out["per_conversation"] = [
            {
                "sample_id": sid,
                "gated": _short(h.per_conversation[sid], ks),
                "baseline": _short(self.baseline.per_conversation[sid], ks),
            }
            for sid in self.conversations
        ]
        if len(self.policies) > 1:
            out["presets"] = {p: self.gated[p].as_dict(ks, detail=True) for p in self.policies}
        out.update(
            {
                "turns": self.turns,
                "questions": self.questions,
                "skipped_questions": self.skipped_questions,
                "conversations": len(self.conversations),
                "ks": ks,
                "pollution_ratios": self.ratios,
                "seed": self.seed,
                "embedder": self.embedder,
                "extractor": self.extractor,
                "extractor_source_sha256": self.extractor_source_sha256,
                "extractor_source_changed": self.extractor_source_changed,
                "data": self.data,
                "embed_s": round(self.embed_s, 1),
                "elapsed_s": round(self.elapsed_s, 1),
            }
        )
        return out


def _short(f: Figures, ks: Sequence[int]) -> dict[str, Any]:
    return {
        "turns": f.turns,
        "facts": f.stored,
        "questions": f.questions,
        "write_amplification": round(f.write_amplification, 4),
        **{f"recall@{k}": round(f.recall(k), 4) for k in ks},
        "coverage": round(f.coverage, 4),
    }
