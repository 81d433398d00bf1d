"""Labelled turns: does the gate store what a careful person would keep?

Each line of the corpus is one turn with a label::

    {"id": "code-001", "domain": "coding", "lang": "en", "kind": "preference",
     "keep": true, "turn": {...TurnEvent...}}

``keep`` is true for a turn that holds a durable, reusable fact about the user
(or their team) that a future session should know; false for everything else,
including the hard negatives that look like facts (hypotheticals, session-only
requests, questions, the assistant's opinions, uncertain or reported speech).
A keep line may carry ``expect_value``: a short substring of the turn (a
name with its surname, a whole URL, the last item of a list) that a correctly
stored fact must contain.

All turns go through one fresh gate in file order. A turn counts as *stored*
when at least one fact row in the retrieval store lists it among its
``source_turn_ids``, whatever the row's status: ACTIVE, PENDING (admitted,
awaiting confirmation or repeated evidence: it is in memory, just not served
yet) or SUPERSEDED (stored, then replaced by a later labelled turn of the same
user). A turn folded into an existing fact as a duplicate is credited too,
since the resolver appends its id to that fact. Precision, recall and F1 of
stored versus ``keep`` are reported overall and per kind, language and
domain, with every misclassified turn and the gate's decisions for it.

**Value correct on stored keep turns.** A keep turn with ``expect_value``
that was stored (as above) has its *value correct* when, after both are
normalised (:func:`value_form`: case-folded, every run of whitespace made one
space, ends stripped), ``expect_value`` is a substring of the statement text
(:attr:`StoredFact.text`: subject, predicate and value) of at least one fact
that cites the turn, among the same statuses. The share reported is
value-correct turns / stored keep turns with ``expect_value``; keep turns
without ``expect_value``, and keep turns not stored (already counted by the
recall), are not in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memgate.core.embedding import Embedder
from memgate.core.events import FactStatus, Ident, TurnEvent
from memgate.core.settings import Settings
from memgate.evaluation.common import (
    Confusion,
    CorpusError,
    PipelineFactory,
    Workspace,
    embedder_name,
    read_jsonl,
)

__all__ = [
    "DEFAULT_STORED_STATUSES",
    "LabelledReport",
    "LabelledTurn",
    "Misclassified",
    "evaluate",
    "load",
    "value_form",
]

#: Fact statuses that make a turn count as stored (see the module docstring).
DEFAULT_STORED_STATUSES: tuple[FactStatus, ...] = (
    FactStatus.ACTIVE,
    FactStatus.PENDING,
    FactStatus.SUPERSEDED,
)


class LabelledTurn(BaseModel):
    """One labelled line of ``labelled_turns.jsonl``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Ident
    domain: Literal["coding", "support", "personal"]
    lang: str = Field(pattern=r"^[a-z]{2}$", description="ISO 639-1 code of the turn's language.")
    kind: str = Field(pattern=r"^[a-z_]+$")
    keep: bool
    expect_value: str | None = Field(
        default=None,
        min_length=1,
        description="A keep turn's value: a substring that a correctly stored fact must contain.",
    )
    note: str = ""
    turn: TurnEvent

    @model_validator(mode="after")
    def _expect_value_in_turn(self) -> LabelledTurn:
        if self.expect_value is None:
            return self
        if not self.keep:
            raise ValueError("expect_value is only on keep turns")
        if self.expect_value not in self.turn.content:
            raise ValueError("expect_value must occur verbatim in turn.content")
        return self


def value_form(text: str) -> str:
    """The form in which an expected value is looked for in a fact's text.

    >>> value_form("  Dana \t KOWALSKI ") in value_form("user manager is Dana Kowalski")
    True
    """
    return " ".join(text.split()).casefold()


def load(path: Path | Sequence[Path]) -> list[LabelledTurn]:
    """The labelled turns of one file, or of several read as one corpus in order (a turn
    id may not repeat within a tenant across them)."""
    paths = [path] if isinstance(path, Path) else list(path)
    items: list[LabelledTurn] = []
    seen: dict[tuple[str, str], str] = {}
    for p in paths:
        for item in read_jsonl(p, LabelledTurn):
            key = (item.turn.tenant_id, item.turn.turn_id)
            if key in seen:
                raise CorpusError(
                    f"{p}: {item.id} reuses turn id {key[1]} of {seen[key]} in tenant {key[0]}"
                )
            seen[key] = item.id
            items.append(item)
    return items


@dataclass(frozen=True)
class Misclassified:
    id: str
    kind: str
    lang: str
    domain: str
    keep: bool
    content: str
    facts: list[str]
    """The stored facts' texts (false positives)."""
    decisions: list[str]
    """The gate's decisions for the turn, ``stage:verdict:reason``."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "lang": self.lang,
            "domain": self.domain,
            "keep": self.keep,
            "content": self.content,
            "facts": self.facts,
            "decisions": self.decisions,
        }


@dataclass
class LabelledReport:
    path: str
    policy: str
    extractor: str
    embedder: str
    stored_statuses: list[str]
    overall: Confusion = field(default_factory=Confusion)
    by_kind: dict[str, Confusion] = field(default_factory=dict)
    by_lang: dict[str, Confusion] = field(default_factory=dict)
    by_domain: dict[str, Confusion] = field(default_factory=dict)
    false_positives: list[Misclassified] = field(default_factory=list)
    false_negatives: list[Misclassified] = field(default_factory=list)
    stored_pending_only: list[str] = field(default_factory=list)
    """Turns counted as stored whose every fact is still PENDING."""
    value_checked: dict[str, int] = field(default_factory=dict)
    """Language -> stored keep turns with ``expect_value`` (see the module docstring)."""
    value_correct: dict[str, int] = field(default_factory=dict)
    """Language -> those of them whose stored facts contain the value."""
    value_wrong: list[Misclassified] = field(default_factory=list)
    """Stored keep turns whose facts lack the expected value (``facts``: what was stored)."""
    run: dict[str, object] = field(default_factory=dict)

    @property
    def value_share(self) -> float | None:
        """Value-correct share of stored keep turns with ``expect_value``; None if none."""
        checked = sum(self.value_checked.values())
        return sum(self.value_correct.values()) / checked if checked else None

    @property
    def f1(self) -> float:
        return self.overall.f1 or 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "policy": self.policy,
            "extractor": self.extractor,
            "embedder": self.embedder,
            "stored_statuses": self.stored_statuses,
            "overall": self.overall.as_dict(),
            "by_kind": {k: v.as_dict() for k, v in sorted(self.by_kind.items())},
            "by_lang": {k: v.as_dict() for k, v in sorted(self.by_lang.items())},
            "by_domain": {k: v.as_dict() for k, v in sorted(self.by_domain.items())},
            "false_positives": [m.as_dict() for m in self.false_positives],
            "false_negatives": [m.as_dict() for m in self.false_negatives],
            "stored_pending_only": self.stored_pending_only,
            "value": {
                "checked": sum(self.value_checked.values()),
                "correct": sum(self.value_correct.values()),
                "share": None if self.value_share is None else round(self.value_share, 4),
                "wrong": [m.as_dict() for m in self.value_wrong],
            },
            "run": self.run,
        }


def evaluate(
    path: Path | Sequence[Path],
    settings: Settings,
    embedder: Embedder,
    *,
    pipeline_factory: PipelineFactory | None = None,
    stored_statuses: tuple[FactStatus, ...] = DEFAULT_STORED_STATUSES,
) -> LabelledReport:
    """Run every labelled turn (of one file or several, as one corpus) through a fresh
    gate and score stored versus ``keep``."""
    items = load(path)
    with Workspace(settings, embedder, pipeline_factory) as ws:
        summary = ws.ingest(i.turn for i in items)
        facts = ws.facts(stored_statuses)
        decisions = ws.decisions_by_turn()
        extractor = ws.pipeline.extract.extractor
        extractor_id = f"{extractor.name}-{extractor.version}"

    by_turn: dict[tuple[str, str], list[tuple[str, FactStatus]]] = {}
    for f in facts:
        for turn_id in f.source_turn_ids:
            by_turn.setdefault((f.tenant_id, turn_id), []).append((f.text, f.status))

    report = LabelledReport(
        path=str(path) if isinstance(path, Path) else ", ".join(str(p) for p in path),
        policy=settings.policy,
        extractor=extractor_id,
        embedder=embedder_name(embedder),
        stored_statuses=[s.value for s in stored_statuses],
        run=summary.as_dict(),
    )
    for item in items:
        key = (item.turn.tenant_id, item.turn.turn_id)
        stored_facts = by_turn.get(key, [])
        stored = bool(stored_facts)
        report.overall = report.overall.add(keep=item.keep, stored=stored)
        for table, name in (
            (report.by_kind, item.kind),
            (report.by_lang, item.lang),
            (report.by_domain, item.domain),
        ):
            table[name] = table.get(name, Confusion()).add(keep=item.keep, stored=stored)
        if stored and all(s is FactStatus.PENDING for _, s in stored_facts):
            report.stored_pending_only.append(item.id)
        miss = Misclassified(
            id=item.id,
            kind=item.kind,
            lang=item.lang,
            domain=item.domain,
            keep=item.keep,
            content=item.turn.content,
            facts=[f"{text} [{status.value}]" for text, status in stored_facts],
            decisions=[f"{s}:{v}:{r}" for s, v, r in decisions.get(key, [])],
        )
        if stored != item.keep:
            (report.false_negatives if item.keep else report.false_positives).append(miss)
        if stored and item.keep and item.expect_value is not None:
            want = value_form(item.expect_value)
            right = any(want in value_form(text) for text, _ in stored_facts)
            report.value_checked[item.lang] = report.value_checked.get(item.lang, 0) + 1
            report.value_correct[item.lang] = report.value_correct.get(item.lang, 0) + right
            if not right:
                report.value_wrong.append(miss)
    return report
