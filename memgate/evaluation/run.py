"""``memgate eval``: the development and the frozen test split, scored side by side.

Two splits, each holding the three suites (labelled turns, leak check,
scenarios):

* **development** (``dev``): the corpus in ``memgate/data/eval/*.jsonl`` (or
  the files given with ``--labelled``/``--leaks``/``--scenarios``), used to
  write rules and read as often as needed. Its full reports are kept: every
  misclassified turn, leaked case and failing scenario is printed.
* **frozen test** (``test``): ``memgate/data/eval/test/`` (its files'
  sha256 are in its ``MANIFEST.json``; the leak suite reads ``leaks.jsonl``
  and ``leaks_extra.jsonl`` as one corpus). It is scored only through
  :mod:`memgate.evaluation.aggregate`: the full reports never leave
  :func:`score_frozen`, and what it returns is checked to name none of the
  split's cases before anything is printed.

The exit status is decided by the development split alone (a leaked secret,
an erasure residue, a failing scenario), plus an erasure residue on the
frozen split (that is a broken ``forget``, not a judgment to improve). The
issue 9 targets (:data:`FROZEN_TARGETS`) are reported as met or missed on
both splits and never fail the command.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from memgate.core.embedding import Embedder
from memgate.core.errors import MemgateError
from memgate.core.settings import Settings
from memgate.evaluation import TARGETS
from memgate.evaluation import labelled as labelled_eval
from memgate.evaluation import leaks as leaks_eval
from memgate.evaluation import scenarios as scenarios_eval
from memgate.evaluation.aggregate import (
    LabelledSummary,
    LeakSummary,
    ScenarioSummary,
    assert_aggregate_only,
    case_strings,
    summarise_labelled,
    summarise_leaks,
    summarise_scenarios,
)
from memgate.evaluation.common import (
    BUNDLED_FILES,
    DEV_EXTRA_FILES,
    CorpusError,
    PipelineFactory,
)

__all__ = [
    "FROZEN_TARGETS",
    "SPLIT_CHOICES",
    "SUITES",
    "TEST_FILES",
    "EvalRun",
    "SplitFigures",
    "Target",
    "bundled_dev_files",
    "frozen_files",
    "frozen_targets",
    "run_eval",
    "score_frozen",
    "verify_manifest",
]

Suite = Literal["labelled", "leaks", "scenarios"]
SUITES: tuple[Suite, ...] = ("labelled", "leaks", "scenarios")
SPLIT_CHOICES = ("dev", "test", "both")

#: The frozen split's files per suite (a missing optional file is skipped).
TEST_FILES: dict[str, tuple[str, ...]] = {
    "labelled": ("labelled_turns.jsonl",),
    "leaks": ("leaks.jsonl", "leaks_extra.jsonl"),
    "scenarios": ("scenarios.jsonl",),
}
_OPTIONAL = frozenset({"leaks_extra.jsonl"})

#: Issue 9's "done when", on the frozen split with the offline extractor and ``balanced``.
FROZEN_TARGETS: dict[str, float] = {
    "labelled_f1": 0.90,
    "keep_recall_every_language": 0.80,
    "value_correct_share": 0.85,
    "scenarios_pass_share": 0.90,  # 36 of 40
    "leaks": 0,
    "benign_share": 0.95,
}

Status = Callable[[str], None]
EVAL = "data/eval"
SuiteFiles = dict[str, list[Path]]


# ------------------------------------------------------------------ files


@contextmanager
def bundled_dev_files(suites: Sequence[str]) -> Iterator[SuiteFiles]:
    """The bundled development corpus, as real paths while the context is open."""
    with ExitStack() as stack:
        out: SuiteFiles = {}
        for suite in suites:
            names = (BUNDLED_FILES[suite], *DEV_EXTRA_FILES.get(suite, ()))
            out[suite] = [
                Path(stack.enter_context(resources.as_file(resources.files("memgate") / EVAL / n)))
                for n in names
            ]
        yield out


@contextmanager
def bundled_test_dir() -> Iterator[Path]:
    with resources.as_file(resources.files("memgate") / "data" / "eval" / "test") as p:
        yield Path(p)


def frozen_files(test_dir: Path, suites: Sequence[str]) -> SuiteFiles:
    """The frozen split's files for the suites, each checked to exist."""
    if not test_dir.is_dir():
        raise CorpusError(f"frozen split folder {test_dir} does not exist; pass --test-dir DIR")
    out: SuiteFiles = {}
    for suite in suites:
        paths = []
        for name in TEST_FILES[suite]:
            p = test_dir / name
            if p.is_file():
                paths.append(p)
            elif name not in _OPTIONAL:
                raise CorpusError(f"frozen split: {p} does not exist or is not a file")
        out[suite] = paths
    return out


def verify_manifest(test_dir: Path, files: SuiteFiles) -> dict[str, Any]:
    """Each file scored against the sha256 that ``MANIFEST.json`` recorded for it."""
    manifest = test_dir / "MANIFEST.json"
    recorded: dict[str, str] = {}
    if manifest.is_file():
        try:
            recorded = dict(json.loads(manifest.read_text(encoding="utf-8")).get("files", {}))
        except (ValueError, AttributeError, OSError):
            recorded = {}
    out: dict[str, Any] = {"dir": str(test_dir), "manifest": manifest.is_file(), "files": {}}
    for p in (p for paths in files.values() for p in paths):
        digest = hashlib.sha256(p.read_bytes()).hexdigest()
        out["files"][p.name] = {"sha256": digest, "recorded": recorded.get(p.name) == digest}
    out["verified"] = bool(out["files"]) and all(f["recorded"] for f in out["files"].values())
    return out


# ------------------------------------------------------------------ figures


@dataclass
class SplitFigures:
    """One split's aggregates (all a frozen split may show)."""

    labelled: LabelledSummary | None = None
    leaks: LeakSummary | None = None
    scenarios: ScenarioSummary | None = None
    extractor: str = ""
    """The extractor that produced the figures (name-version)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            name: s.as_dict()
            for name, s in (
                ("labelled", self.labelled),
                ("leaks", self.leaks),
                ("scenarios", self.scenarios),
            )
            if s is not None
        }


@dataclass(frozen=True)
class Target:
    name: str
    threshold: str
    measured: str
    met: bool
    gap: str = ""
    """How far a missed target is (empty when met)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "threshold": self.threshold,
            "measured": self.measured,
            "met": self.met,
            "gap": self.gap,
        }


def _ratio_target(name: str, value: float | None, threshold: float) -> Target:
    met = value is not None and value >= threshold
    measured = "n/a" if value is None else f"{value:.3f}"
    gap = "" if met else ("not measured" if value is None else f"by {threshold - value:.3f}")
    return Target(name, f">= {threshold:.2f}", measured, met, gap)


def frozen_targets(fig: SplitFigures) -> list[Target]:
    """Issue 9's targets on one split's figures (the suites that ran)."""
    out: list[Target] = []
    if fig.labelled is not None:
        lab = fig.labelled
        out.append(
            _ratio_target("write decision F1", lab.overall.f1, FROZEN_TARGETS["labelled_f1"])
        )
        floor = FROZEN_TARGETS["keep_recall_every_language"]
        recalls = {k: c.share for k, c in lab.keep_recall_by_lang.items() if c.n}
        low = {k: v for k, v in recalls.items() if v is None or v < floor}
        worst = min(recalls.items(), key=lambda kv: kv[1] or 0.0) if recalls else None
        out.append(
            Target(
                "keep recall, every language",
                f">= {floor:.2f}",
                "n/a" if worst is None else f"min {worst[1] or 0.0:.3f} ({worst[0]})",
                bool(recalls) and not low,
                ", ".join(f"{k} by {floor - (v or 0.0):.3f}" for k, v in sorted(low.items()))
                if recalls
                else "not measured",
            )
        )
        out.append(
            _ratio_target(
                "value correct on stored keep turns",
                lab.value.share,
                FROZEN_TARGETS["value_correct_share"],
            )
        )
    if fig.scenarios is not None:
        sc = fig.scenarios.passed
        need = math.ceil(FROZEN_TARGETS["scenarios_pass_share"] * sc.n - 1e-9)
        met = sc.n > 0 and sc.ok >= need
        out.append(
            Target(
                "scenarios passed",
                f">= {need}/{sc.n}",
                f"{sc.ok}/{sc.n}",
                met,
                "" if met else f"by {need - sc.ok} scenario(s)",
            )
        )
    if fig.leaks is not None:
        lk = fig.leaks
        out.append(
            Target(
                "secrets stored anywhere",
                "0",
                f"{lk.leaks}/{lk.secrets.n}",
                lk.leaks == 0,
                "" if lk.leaks == 0 else f"by {lk.leaks}",
            )
        )
        out.append(
            _ratio_target(
                "benign look-alikes intact", lk.benign.share, FROZEN_TARGETS["benign_share"]
            )
        )
    return out


# ------------------------------------------------------------------ scoring


def score_frozen(
    files: SuiteFiles,
    settings: Settings,
    embedder: Embedder,
    *,
    dead_letters: Sequence[str] = (),
    status: Status | None = None,
    pipeline_factory: PipelineFactory | None = None,
) -> SplitFigures:
    """Score the frozen split; only its aggregates come out (checked to name no case)."""
    say = status or (lambda _msg: None)
    pf = pipeline_factory
    fig = SplitFigures()
    forbidden = case_strings(
        labelled_eval.load(files["labelled"][0]) if "labelled" in files else (),
        leaks_eval.load(files["leaks"]) if "leaks" in files else (),
        scenarios_eval.load(files["scenarios"]) if "scenarios" in files else (),
    )
    try:
        if "labelled" in files:
            say("frozen split: labelled turns")
            lrep = labelled_eval.evaluate(
                files["labelled"][0], settings, embedder, pipeline_factory=pf
            )
            fig.labelled, fig.extractor = summarise_labelled(lrep), lrep.extractor
        if "leaks" in files:
            say("frozen split: leak check")
            krep = leaks_eval.evaluate(
                files["leaks"], settings, embedder, dead_letters=dead_letters, pipeline_factory=pf
            )
            fig.leaks, fig.extractor = summarise_leaks(krep), krep.extractor
        if "scenarios" in files:
            say("frozen split: scenarios")
            srep = scenarios_eval.evaluate(
                files["scenarios"], settings, embedder, pipeline_factory=pf
            )
            fig.scenarios = summarise_scenarios(srep)
            fig.extractor = srep.extractor or fig.extractor
    except MemgateError:
        raise
    except Exception as exc:  # its message may quote a case: name the type only
        raise MemgateError(
            f"scoring the frozen split failed ({type(exc).__name__}); "
            "find the cause on the development split"
        ) from None
    assert_aggregate_only(fig.as_dict(), forbidden)
    return fig


@dataclass
class EvalRun:
    policy: str
    extractor: str = ""
    embedder: str = ""
    dev: SplitFigures | None = None
    dev_reports: dict[str, Any] = field(default_factory=dict)
    """The development split's full reports (suite -> report)."""
    test: SplitFigures | None = None
    test_files: dict[str, Any] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    @property
    def splits(self) -> list[str]:
        return [n for n, f in (("dev", self.dev), ("test", self.test)) if f is not None]

    def dev_targets(self) -> dict[str, bool]:
        """The development targets of :data:`memgate.evaluation.TARGETS`."""
        out: dict[str, bool] = {}
        lab, lk = self.dev_reports.get("labelled"), self.dev_reports.get("leaks")
        if lab is not None:
            out["labelled_f1"] = lab.f1 >= TARGETS["labelled_f1"]
        if lk is not None:
            out["leaks"] = lk.leaks == 0
            out["benign_share"] = (lk.benign_share or 0.0) >= TARGETS["benign_share"]
            out["erasure"] = lk.erasure is None or lk.erasure.ok
        if "scenarios" in self.dev_reports:
            out["scenarios"] = not self.dev_reports["scenarios"].failed
        return out

    def issue_targets(self) -> dict[str, list[Target]]:
        return {
            name: frozen_targets(fig)
            for name, fig in (("dev", self.dev), ("test", self.test))
            if fig is not None
        }

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "policy": self.policy,
            "extractor": self.extractor,
            "embedder": self.embedder,
            "splits": self.splits,
        }
        if self.dev is not None:
            out["dev"] = {
                **self.dev.as_dict(),
                "detail": {k: r.as_dict() for k, r in self.dev_reports.items()},
            }
        if self.test is not None:
            out["test"] = {**self.test.as_dict(), "files": self.test_files}
        out["targets"] = {
            "dev": self.dev_targets(),
            "issue9": {k: [t.as_dict() for t in v] for k, v in self.issue_targets().items()},
        }
        out["ok"] = not self.failures
        out["failures"] = self.failures
        return out


def run_eval(
    settings: Settings,
    embedder: Embedder,
    *,
    dev: SuiteFiles | None,
    test: SuiteFiles | None,
    test_dir: Path | None = None,
    dead_letters: Sequence[str] = (),
    status: Status | None = None,
    pipeline_factory: PipelineFactory | None = None,
) -> EvalRun:
    """Score the development split (full reports) and the frozen one (aggregates)."""
    say = status or (lambda _msg: None)
    pf = pipeline_factory
    name = getattr(embedder, "name", None) or type(embedder).__name__
    run = EvalRun(policy=settings.policy, extractor=settings.extractor, embedder=str(name))
    if dev is not None:
        run.dev = SplitFigures()
        if "labelled" in dev:
            say(f"labelled turns: {', '.join(p.name for p in dev['labelled'])}")
            lrep = labelled_eval.evaluate(dev["labelled"], settings, embedder, pipeline_factory=pf)
            run.dev_reports["labelled"] = lrep
            run.dev.labelled = summarise_labelled(lrep)
            run.extractor = lrep.extractor
        if "leaks" in dev:
            say(f"leak check: {', '.join(p.name for p in dev['leaks'])}")
            krep = leaks_eval.evaluate(
                dev["leaks"], settings, embedder, dead_letters=dead_letters, pipeline_factory=pf
            )
            run.dev_reports["leaks"] = krep
            run.dev.leaks = summarise_leaks(krep)
            run.extractor = krep.extractor
            if krep.leaks:
                run.failures.append(
                    f"{krep.leaks} secret(s) leaked: "
                    + ", ".join(f"{r.id} ({', '.join(r.where)})" for r in krep.leaked)
                )
            run.failures += krep.erasure.failures() if krep.erasure else []
        if "scenarios" in dev:
            say(f"scenarios: {', '.join(p.name for p in dev['scenarios'])}")
            srep = scenarios_eval.evaluate(
                dev["scenarios"], settings, embedder, pipeline_factory=pf
            )
            run.dev_reports["scenarios"] = srep
            run.dev.scenarios = summarise_scenarios(srep)
            run.extractor = srep.extractor or run.extractor
            run.failures += [f"scenario {r.id} failed: {r.first_failure}" for r in srep.failed]
    if test is not None:
        if test_dir is not None:
            run.test_files = verify_manifest(test_dir, test)
        run.test = score_frozen(
            test, settings, embedder, dead_letters=dead_letters, status=say, pipeline_factory=pf
        )
        run.extractor = run.test.extractor or run.extractor
        run.failures += _frozen_erasure_failure(run.test.leaks)
    return run


def _frozen_erasure_failure(lk: LeakSummary | None) -> list[str]:
    e: Mapping[str, int | bool] = lk.erasure if lk is not None else {}
    if not e or e.get("ok", True):
        return []
    return [
        f"frozen split: erasure left {e['residues']} residue(s) over {e['users']} forgotten "
        f"user(s) ({e['blind']} searched blind, {e['undecoded']} file(s) not decodable); "
        "reproduce it on the development split"
    ]
