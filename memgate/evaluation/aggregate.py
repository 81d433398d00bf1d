"""What ``memgate eval`` may say about a split: aggregates and per-class counts only.

The frozen test split is scored but never read case by case (the README,
"Measuring the write policy", and ``../shared/guide/evaluation.md``): its
figures leave the harness only as the summaries built here, which hold
counts keyed by class labels (a turn's ``kind``, ``lang`` and ``domain``, a
scenario's class, a leak's kind, a look-alike's kind, a store's name), never
a turn's id, text, value or the gate's output for it.
:func:`summarise_labelled`, :func:`summarise_leaks` and
:func:`summarise_scenarios` turn a full report into one; :func:`case_strings`
lists every string of a corpus that must not appear in what is printed about
it, and :func:`assert_aggregate_only` refuses an output that holds one.

The same summaries are built for the development split, so the two print
side by side.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memgate.core.errors import MemgateError
from memgate.evaluation.common import Confusion, safe_ratio
from memgate.evaluation.labelled import LabelledReport, LabelledTurn
from memgate.evaluation.leaks import LeakCase, LeakReport
from memgate.evaluation.scenarios import Scenario, ScenarioReport
from memgate.evaluation.trace import cause

__all__ = [
    "Count",
    "LabelledSummary",
    "LeakSummary",
    "ScenarioSummary",
    "assert_aggregate_only",
    "case_strings",
    "summarise_labelled",
    "summarise_leaks",
    "summarise_scenarios",
]


@dataclass(frozen=True)
class Count:
    """``ok`` of ``n`` (kept, intact, passed, correct...)."""

    ok: int = 0
    n: int = 0

    @property
    def share(self) -> float | None:
        return safe_ratio(self.ok, self.n)

    def plus(self, ok: bool) -> Count:
        return Count(self.ok + ok, self.n + 1)

    def as_dict(self) -> dict[str, Any]:
        share = self.share
        return {"ok": self.ok, "n": self.n, "share": None if share is None else round(share, 4)}


def _counts(table: Mapping[str, Mapping[str, int]], ok: str) -> dict[str, Count]:
    return {k: Count(int(v[ok]), int(v["cases"])) for k, v in sorted(table.items())}


def _dicts(table: Mapping[str, Count]) -> dict[str, dict[str, Any]]:
    return {k: v.as_dict() for k, v in table.items()}


@dataclass(frozen=True)
class LabelledSummary:
    overall: Confusion
    by_kind: dict[str, Confusion]
    by_lang: dict[str, Confusion]
    by_domain: dict[str, Confusion]
    value: Count
    """Stored keep turns with ``expect_value`` whose facts contain it."""
    value_by_lang: dict[str, Count]
    pending_only: int
    """Turns counted as stored whose every fact is still pending."""

    @property
    def keep_recall_by_lang(self) -> dict[str, Count]:
        """Language -> keep turns stored of keep turns."""
        return {k: Count(c.tp, c.tp + c.fn) for k, c in self.by_lang.items()}

    def as_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.as_dict(),
            "keep_recall_by_lang": _dicts(self.keep_recall_by_lang),
            "value_correct": self.value.as_dict(),
            "value_correct_by_lang": _dicts(self.value_by_lang),
            "by_kind": {k: v.as_dict() for k, v in self.by_kind.items()},
            "by_lang": {k: v.as_dict() for k, v in self.by_lang.items()},
            "by_domain": {k: v.as_dict() for k, v in self.by_domain.items()},
            "stored_pending_only": self.pending_only,
        }


def summarise_labelled(rep: LabelledReport) -> LabelledSummary:
    langs = sorted(rep.value_checked)
    return LabelledSummary(
        overall=rep.overall,
        by_kind=dict(sorted(rep.by_kind.items())),
        by_lang=dict(sorted(rep.by_lang.items())),
        by_domain=dict(sorted(rep.by_domain.items())),
        value=Count(sum(rep.value_correct.values()), sum(rep.value_checked.values())),
        value_by_lang={k: Count(rep.value_correct.get(k, 0), rep.value_checked[k]) for k in langs},
        pending_only=len(rep.stored_pending_only),
    )


@dataclass(frozen=True)
class LeakSummary:
    secrets: Count
    """Secret cases that did *not* leak, of all secret cases."""
    by_kind: dict[str, Count]
    """Secret kind -> leaked cases of cases (``ok`` = leaked)."""
    by_lang: dict[str, Count]
    """Language -> leaked cases of cases (``ok`` = leaked)."""
    by_store: dict[str, int]
    """Store -> secret cases found in it."""
    fact_path: dict[str, int]
    benign: Count
    benign_by_kind: dict[str, Count]
    benign_by_lang: dict[str, Count]
    erasure: dict[str, int | bool]
    undecoded: int

    @property
    def leaks(self) -> int:
        return self.secrets.n - self.secrets.ok

    def as_dict(self) -> dict[str, Any]:
        share = self.benign.share
        return {
            "secrets": self.secrets.n,
            "leaks": self.leaks,
            "by_kind": {k: {"cases": v.n, "leaked": v.ok} for k, v in self.by_kind.items()},
            "by_lang": {k: {"cases": v.n, "leaked": v.ok} for k, v in self.by_lang.items()},
            "by_store": self.by_store,
            "fact_path": self.fact_path,
            "benign": self.benign.n,
            "benign_intact": self.benign.ok,
            "benign_share": None if share is None else round(share, 4),
            "benign_by_kind": _dicts(self.benign_by_kind),
            "benign_by_lang": _dicts(self.benign_by_lang),
            "erasure": self.erasure,
            "undecoded_files": self.undecoded,
        }


def summarise_leaks(rep: LeakReport) -> LeakSummary:
    e = rep.erasure
    erasure: dict[str, int | bool] = (
        {}
        if e is None
        else {
            "ok": e.ok,
            "users": len(e.users),
            "strings": e.strings,
            "found_before": e.found_before,
            "residues": len(e.residues),
            "blind": len(e.blind),
            "undecoded": len(e.undecoded),
        }
    )
    return LeakSummary(
        secrets=Count(rep.secrets - rep.leaks, rep.secrets),
        by_kind=_counts(rep.by_kind, "leaked"),
        by_lang=_counts(rep.by_lang, "leaked"),
        by_store=dict(sorted(rep.by_store.items())),
        fact_path=dict(sorted(rep.fact_path.items())),
        benign=Count(rep.benign_intact, rep.benign),
        benign_by_kind=_counts(rep.benign_by_kind, "intact"),
        benign_by_lang=_counts(rep.benign_by_lang, "intact"),
        erasure=erasure,
        undecoded=len(rep.undecoded),
    )


@dataclass(frozen=True)
class ScenarioSummary:
    passed: Count
    by_class: dict[str, Count]
    """Scenario class (the first ``covers`` entry, ``-`` when none) -> passed of run."""
    by_tag: dict[str, Count] = field(default_factory=dict)
    """Every ``covers`` entry -> passed of run (a scenario counts under each of its tags)."""
    errors: int = 0
    """Scenarios that crashed the gate."""
    first_failing: dict[str, dict[str, int]] = field(default_factory=dict)
    """Scenario class -> the check type (a label of the harness: ``fact_count``,
    ``search``, ...) that failed first -> how many scenarios; never a case's text."""
    first_failing_cause: dict[str, dict[str, int]] = field(default_factory=dict)
    """Scenario class -> the cause of that first failing check, in the category words of
    :func:`memgate.evaluation.trace.cause` (a turn dropped by triage and why, a restatement
    not folded, a stale hit served, ...) -> how many scenarios; never a case's text."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "total": self.passed.n,
            "passed": self.passed.ok,
            "by_class": _dicts(self.by_class),
            "by_tag": _dicts(self.by_tag),
            "errors": self.errors,
            "first_failing": self.first_failing,
            "first_failing_cause": self.first_failing_cause,
        }


def summarise_scenarios(rep: ScenarioReport) -> ScenarioSummary:
    total = Count()
    by_class: dict[str, Count] = {}
    by_tag: dict[str, Count] = {}
    first_failing: dict[str, dict[str, int]] = {}
    first_cause: dict[str, dict[str, int]] = {}
    for r in rep.results:
        total = total.plus(r.passed)
        cls = r.covers[0] if r.covers else "-"
        if not r.passed:
            check = next((c for c in r.checks if not c.passed), None)
            failed = "error" if check is None else check.label or check.type
            by_type = first_failing.setdefault(cls, {})
            by_type[failed] = by_type.get(failed, 0) + 1
            why = "error" if check is None else f"{failed}: {cause(check)}"
            by_cause = first_cause.setdefault(cls, {})
            by_cause[why] = by_cause.get(why, 0) + 1
        by_class[cls] = by_class.get(cls, Count()).plus(r.passed)
        for tag in dict.fromkeys(r.covers):
            by_tag[tag] = by_tag.get(tag, Count()).plus(r.passed)
    return ScenarioSummary(
        passed=total,
        by_class=dict(sorted(by_class.items())),
        by_tag=dict(sorted(by_tag.items())),
        errors=sum(r.error is not None for r in rep.results),
        first_failing={k: dict(sorted(v.items())) for k, v in sorted(first_failing.items())},
        first_failing_cause={k: dict(sorted(v.items())) for k, v in sorted(first_cause.items())},
    )


# ------------------------------------------------------------------ the guard

#: Strings shorter than this are not searched (a two-letter language code, "ok").
MIN_GUARDED = 4
#: Strings shorter than this are searched as whole tokens only (an id "ad-0" is
#: found as a token, not inside a longer word).
MIN_SUBSTRING = 8


def case_strings(
    labelled: Iterable[LabelledTurn] = (),
    leaks: Iterable[LeakCase] = (),
    scenarios: Iterable[Scenario] = (),
) -> set[str]:
    """Every case-level string of a corpus: ids, turn ids, texts, values, descriptions."""
    out: set[str] = set()
    labels: set[str] = set()
    for t in labelled:
        out |= {t.id, t.turn.turn_id, t.turn.content, t.expect_value or "", t.note}
        labels |= {t.kind, t.lang, t.domain}
    for c in leaks:
        out |= {c.id, c.turn.turn_id, c.turn.content, c.lookalike or "", c.note, *c.needles}
        labels |= {c.kind, c.lang, c.lookalike_kind or ""}
    for s in scenarios:
        out |= {s.id, s.description, *(t.turn_id for t in s.turns), *(t.content for t in s.turns)}
        labels |= set(s.covers)
    return {x for x in out if len(x) >= MIN_GUARDED and x not in labels}


class CaseLeakError(MemgateError):
    """A frozen split's output would name one of its cases."""


def assert_aggregate_only(output: object, forbidden: set[str]) -> None:
    """Raise :class:`CaseLeakError` if the JSON form of ``output`` holds a forbidden string.

    The strings are searched in the JSON text both as they are and as JSON
    escapes them, so a value with quotes or non-ASCII letters is found too.
    """
    raw = json.dumps(output, ensure_ascii=False, default=str)
    escaped = json.dumps(output, ensure_ascii=True, default=str)
    for s in forbidden:
        enc = json.dumps(s)[1:-1]
        if len(s) < MIN_SUBSTRING:
            token = rf"(?<![\w-]){re.escape(s)}(?![\w-])"
            found = re.search(token, raw) is not None
        else:
            found = s in raw or enc in escaped
        if found:
            raise CaseLeakError(
                "the frozen split's output would name one of its cases; nothing was printed "
                "(a bug in memgate.evaluation.aggregate: report it)"
            )
