"""Replay the journal through another policy or extractor: ``memgate replay``.

The journal keeps every turn, **redacted**: the raw text is never stored, so a
replay reads what the redact step left (placeholders such as ``[EMAIL]`` in
place of the masked spans) and can never bring back what was masked. Each
placeholder is replaced by a made-up value of its kind
(``memgate/data/replay_surrogates.json``) that the detectors recognise, so the
extractor reads a value where the user wrote one and the redact step masks it
again, rejecting a credential or a regulated value as the replay's policy says
(:func:`with_surrogates`). The journal row does not hold a turn's ``outcome``
or ``confirmed`` flags: the turn's triage decision does (``details.outcome``,
``details.confirmed``); for turns triaged before it did, they are recovered from
the decisions the turn got (``task_failed``: a failed task;
``promoted_confirmed``: a confirmation), and a success is then unknown. A
turn's metadata (a claimed source) is not kept, so a trusted source counts as
untrusted in a replay.

``--shadow`` (:func:`replay` with ``apply=False``) runs the turns, in the order
they were ingested, through the gate the current settings build (``--policy``,
``--extractor``, ``tenant_policies``) on a scratch index in a temporary folder,
and compares each user's current facts with what the replay stores, by key and
value: a fact only the replay has is **added**, one only the store has is
**dropped**, a key whose value differs is **superseded**; each with the reason
the replay's gate gave (its resolution, or why the source turn stored nothing),
counted by tenant and reason. Nothing is written.

``--apply`` then writes the difference: added facts are stored (with the new
policy and extractor versions), superseded facts are closed by their
replacement, dropped facts are closed (status superseded, kept for ``as_of``
searches and provenance); each change is a ``replay`` decision recording the old
and the new version (``details.old_version``, ``details.new_version``) and a
history row. Facts the replay leaves alone are not touched, so a second apply
changes nothing. The facts ``memgate consolidate`` made (semantic facts folded
from episodes, retention digests) are left out of the comparison, and so are
the replay's episodes whose every source turn such a fact already stands for: a
replay does not bring back what retention retired or consolidation folded.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memgate.core.embedding import Embedder
from memgate.core.events import (
    AuditEvent,
    DecisionRecord,
    FactHistoryRecord,
    FactStatus,
    FactType,
    Outcome,
    Role,
    Stage,
    StoredFact,
    TurnEvent,
    normalise,
    stable_id,
    utcnow,
)
from memgate.core.settings import Settings
from memgate.core.stores import AuditStore, RetrievalStore
from memgate.receipts import ERASED_PREFIX
from memgate.stages.consolidate import LIFECYCLE
from memgate.stages.detectors import Detector
from memgate.stages.redact import mask_all

#: The extractors a replay can run (``--extractor``; ``anthropic`` is Claude).
ExtractorChoice = Literal["rules", "statements", "hybrid", "anthropic"]

_PLACEHOLDER = re.compile(r"\[([A-Z][A-Z_]{1,30})\]")
#: Journal reasons that name a turn's lost flags.
_FAILED, _CONFIRMED = "task_failed", "promoted_confirmed"


class ReplayChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: str
    user_id: str
    change: str = Field(description="added, dropped or superseded")
    key: str
    reason: str
    old_fact_id: str | None = None
    new_fact_id: str | None = None
    old_version: str | None = None
    new_version: str | None = None


class ReplayReport(BaseModel):
    """What a replay would change (shadow) or changed (apply)."""

    model_config = ConfigDict(frozen=True)

    applied: bool
    turns: int
    users: int
    journal: str = "redacted text only (the raw turns are never stored)"
    counts: dict[str, int] = Field(description="Changes by kind: added, dropped, superseded.")
    by_tenant: dict[str, dict[str, int]]
    by_reason: dict[str, int] = Field(description="'<kind>: <reason>' -> changes.")
    changes: list[ReplayChange]


@dataclass
class CollectingAudit:
    """The scratch audit store of a shadow run: the records, in memory, for their reasons."""

    records: list[AuditEvent] = field(default_factory=list)

    def write(self, records: Sequence[AuditEvent]) -> None:
        self.records.extend(records)

    def query(
        self, sql: str, parameters: dict[str, Any] | None = None
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        raise NotImplementedError("the scratch audit store of a replay answers no SQL")

    def report(
        self, name: str, tenant_id: str | None = None
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        raise NotImplementedError("the scratch audit store of a replay has no reports")

    def forget(self, tenant_id: str, user_id: str) -> int:
        return 0

    def close(self) -> None:
        return None


@cache
def _surrogates() -> dict[str, str]:
    raw = (resources.files("memgate") / "data" / "replay_surrogates.json").read_text("utf-8")
    data: dict[str, str] = json.loads(raw)["surrogates"]
    return data


@cache
def _detector() -> Detector:
    return Detector()


def with_surrogates(text: str) -> str:
    """``text`` with each placeholder (``[EMAIL]``) replaced by its kind's surrogate when the
    detectors find the surrogate there (else the placeholder stays)."""
    found = _PLACEHOLDER.findall(text)
    if not found:
        return text
    out = text
    for kind in dict.fromkeys(found):
        value = _surrogates().get(kind.lower())
        if value is None:
            continue
        trial = out.replace(f"[{kind}]", value)
        if value not in mask_all(_detector(), trial).text:  # masked again: safe to use
            out = trial
    return out


def journal_turns(
    audit: AuditStore, tenant: str | None = None, user: str | None = None
) -> list[TurnEvent]:
    """The journal's turns (redacted text), in ingestion order, with the flags recovered."""
    scope = (
        "({t:String} = '' OR tenant_id = {t:String}) AND ({u:String} = '' OR user_id = {u:String}) "
        "AND NOT startsWith(user_id, {erased:String})"
    )
    params = {"t": tenant or "", "u": user or "", "erased": ERASED_PREFIX}
    _, rows = audit.query(
        "SELECT tenant_id, user_id, session_id, turn_id, role, ts, redacted_text FROM journal "
        f"FINAL WHERE {scope} ORDER BY ingested_at, ts, turn_id",
        params,
    )
    _, flags = audit.query(
        "SELECT tenant_id, turn_id, groupUniqArray(reason), "
        "anyIf(details['outcome'], stage = 'triage'), "
        "anyIf(details['confirmed'], stage = 'triage') "
        f"FROM decisions FINAL WHERE {scope} AND (stage = 'triage' OR reason IN "
        "({f:String}, {c:String})) GROUP BY tenant_id, turn_id",
        {**params, "f": _FAILED, "c": _CONFIRMED},
    )
    got = {(str(t), str(turn)): _flags(set(r), str(o), str(c)) for t, turn, r, o, c in flags}
    out = []
    for t, u, s, turn, role, ts, text in rows:
        outcome, confirmed = got.get((str(t), str(turn)), (None, None))
        out.append(
            TurnEvent(
                tenant_id=t, user_id=u, session_id=s, turn_id=turn, role=Role(role),
                content=with_surrogates(str(text)),
                ts=ts if ts.tzinfo else ts.replace(tzinfo=UTC),
                outcome=outcome, confirmed=confirmed,
            )
        )  # fmt: skip
    return out


def _flags(reasons: set[str], outcome: str, confirmed: str) -> tuple[Outcome | None, bool | None]:
    """A turn's outcome and confirmation: as its triage decision recorded them, else (a
    journal written before the triage decision kept them) what its decisions' reasons tell."""
    out = Outcome(outcome) if outcome in {o.value for o in Outcome} else None
    conf = {"true": True, "false": False}.get(confirmed)
    if out is None and _FAILED in reasons:
        out = Outcome.FAILURE
    if conf is None and _CONFIRMED in reasons:
        conf = True
    return out, conf


def _current(facts: Sequence[StoredFact]) -> dict[str, StoredFact]:
    """The active facts by key (the last recorded wins)."""
    return {f.key: f for f in facts if f.status is FactStatus.ACTIVE}


def _stops(r: DecisionRecord) -> bool:
    """A decision that kept its turn or candidate from becoming an active fact."""
    if r.stage is Stage.EXTRACT:
        return r.verdict != "facts"
    return r.verdict in ("drop", "rejected", "PENDING", "REJECT")


def _turn_reasons(records: Sequence[AuditEvent]) -> dict[tuple[str, str], str]:
    """Per (tenant, turn): ``stage:reason`` of the last decision of the replay that kept
    the turn (or a candidate of it) from being stored as an active fact."""
    out: dict[tuple[str, str], str] = {}
    for r in records:
        if isinstance(r, DecisionRecord) and _stops(r):
            out[(r.tenant_id, r.turn_id)] = f"{r.stage.value}:{r.reason}"
    return out


def _fact_reasons(records: Sequence[AuditEvent]) -> dict[str, str]:
    """Per fact id: the reason of the replay's resolution that wrote it."""
    return {
        r.fact_id: f"{r.stage.value}:{r.reason}"
        for r in records
        if isinstance(r, DecisionRecord) and r.stage is Stage.DEDUPE and r.fact_id
    }


def replay(
    retrieval: RetrievalStore,
    audit: AuditStore,
    embedder: Embedder,
    settings: Settings,
    *,
    tenant: str | None = None,
    user: str | None = None,
    apply: bool = False,
    now: datetime | None = None,
    extractor: ExtractorChoice | None = None,
) -> ReplayReport:
    """Replay the journal through the gate of ``settings``; report (and ``apply``) the diff.

    ``extractor`` replaces the extractor of ``settings`` for the replay (``rules``,
    ``statements``, ``hybrid``, ``anthropic``). ``now`` (default: the current time) is the
    replay's one clock: every stage of the scratch gate stamps it on what it decides, and
    the applied changes carry it (``recorded_at``, ``superseded_at``, ``decided_at``,
    history ``at``), so a replay at a given ``now`` is deterministic."""
    from memgate.backends import build_pipeline
    from memgate.sinks.embedded import EmbeddedIndex
    from memgate.streams.runner import InProcessRunner

    turns = journal_turns(audit, tenant, user)
    scratch = CollectingAudit()
    owners = sorted({(t.tenant_id, t.user_id) for t in turns})
    changes: list[ReplayChange] = []
    writes: list[StoredFact] = []
    at = now or utcnow()
    if extractor is not None:
        settings = settings.model_copy(update={"extractor": extractor})
    with tempfile.TemporaryDirectory(prefix="memgate-replay-") as tmp:
        index = EmbeddedIndex(Path(tmp) / "replay.sqlite3", dim=embedder.dim)
        try:
            gate = build_pipeline(settings, embedder, clock=lambda: at)
            runner = InProcessRunner(gate, index, scratch, window=settings.ingest_window)
            try:
                runner.run(turns)
            finally:
                runner.close()
            turn_reason = _turn_reasons(scratch.records)
            fact_reason = _fact_reasons(scratch.records)
            for t, u in owners:
                stored = retrieval.list_facts(t, u)
                # facts the lifecycle jobs made (folded episodes, retention digests) stand
                # for turns the replay reads as episodes again: both sides leave them out
                made = [f for f in stored if f.extractor == LIFECYCLE]
                covered = {turn for f in made for turn in f.source_turn_ids}
                old = _current([f for f in stored if f.extractor != LIFECYCLE])
                new = {
                    k: f
                    for k, f in _current(index.list_facts(t, u)).items()
                    if f.type is not FactType.EVENT or not set(f.source_turn_ids) <= covered
                }
                _diff(t, u, old, new, turn_reason, fact_reason, at, changes, writes)
        finally:
            index.close()
    if apply and changes:
        _apply(retrieval, audit, changes, writes, at)
    return _report(apply, len(turns), len(owners), changes)


def _diff(
    tenant: str,
    user: str,
    old: dict[str, StoredFact],
    new: dict[str, StoredFact],
    turn_reason: dict[tuple[str, str], str],
    fact_reason: dict[str, str],
    at: datetime,
    changes: list[ReplayChange],
    writes: list[StoredFact],
) -> None:
    for key in sorted(old.keys() | new.keys()):
        o, n = old.get(key), new.get(key)
        if o is not None and n is not None and normalise(o.value) == normalise(n.value):
            continue
        stopped = (
            None
            if o is None
            else next(
                (turn_reason[(tenant, t)] for t in o.source_turn_ids if (tenant, t) in turn_reason),
                None,
            )
        )
        if n is None:
            assert o is not None
            why = stopped or "no_fact_from_its_turns"
            changes.append(
                ReplayChange(
                    tenant_id=tenant, user_id=user, change="dropped", key=key, reason=why,
                    old_fact_id=o.fact_id, old_version=_version(o),
                )
            )  # fmt: skip
            writes.append(
                o.model_copy(
                    update={"status": FactStatus.SUPERSEDED, "superseded_at": at,
                            "valid_to": o.valid_to or at}
                )
            )  # fmt: skip
            continue
        why = fact_reason.get(n.fact_id, "dedupe:new_key")
        if o is not None and stopped is not None:
            why = stopped  # the current value's turn was not adopted by the replay
        fresh = n.model_copy(update={"recorded_at": at})
        if o is None:
            changes.append(
                ReplayChange(
                    tenant_id=tenant, user_id=user, change="added", key=key, reason=why,
                    new_fact_id=n.fact_id, new_version=_version(n),
                )
            )  # fmt: skip
            writes.append(fresh)
            continue
        changes.append(
            ReplayChange(
                tenant_id=tenant, user_id=user, change="superseded", key=key, reason=why,
                old_fact_id=o.fact_id, new_fact_id=n.fact_id, old_version=_version(o),
                new_version=_version(n),
            )
        )  # fmt: skip
        writes.append(
            o.model_copy(
                update={"status": FactStatus.SUPERSEDED, "superseded_at": at,
                        "superseded_by": n.fact_id, "valid_to": o.valid_to or at}
            )
        )  # fmt: skip
        writes.append(fresh.model_copy(update={"supersedes": o.fact_id}))


def _version(f: StoredFact) -> str:
    return f"{f.policy_version}/{f.extractor}-{f.extractor_version}"


def _apply(
    retrieval: RetrievalStore,
    audit: AuditStore,
    changes: list[ReplayChange],
    writes: list[StoredFact],
    at: datetime,
) -> None:
    by_id = {f.fact_id: f for f in writes}
    records: list[AuditEvent] = []
    for c in changes:
        fid = c.new_fact_id or c.old_fact_id or ""
        details: dict[str, str | int | float] = {
            "old_version": c.old_version or "", "new_version": c.new_version or "",
            "why": c.reason,
        }  # fmt: skip
        if c.old_fact_id and c.new_fact_id:
            details["supersedes"] = c.old_fact_id
        fact = by_id[fid]
        records.append(
            DecisionRecord(
                event_id=stable_id(
                    "replay", c.change, fid, c.new_version or "", c.old_version or ""
                ),
                stage=Stage.REPLAY, tenant_id=c.tenant_id, user_id=c.user_id,
                turn_id=fact.source_turn_ids[-1], verdict=c.change, reason=c.reason.split(":")[-1],
                key=c.key, fact_id=fid, policy_version=c.new_version or c.old_version or "",
                decided_at=at, details=details,
            )
        )  # fmt: skip
    for f in writes:
        records.append(
            FactHistoryRecord(
                event_id=stable_id("replay-history", f.fact_id, f.status.value, at.isoformat()),
                tenant_id=f.tenant_id, user_id=f.user_id, fact_id=f.fact_id, key=f.key,
                action="replay_close" if f.status is FactStatus.SUPERSEDED else "replay_add",
                value=f.value, confidence=f.confidence, occurrences=f.occurrences,
                superseded_by=f.superseded_by or "", supersedes=f.supersedes or "",
                source_turn_id=f.source_turn_ids[-1], policy_version=_version(f), at=at,
            )
        )  # fmt: skip
    audit.write(records)
    retrieval.upsert(writes, wait=True)


def _report(applied: bool, turns: int, users: int, changes: list[ReplayChange]) -> ReplayReport:
    counts: dict[str, int] = {}
    by_tenant: dict[str, dict[str, int]] = {}
    by_reason: dict[str, int] = {}
    for c in changes:
        counts[c.change] = counts.get(c.change, 0) + 1
        t = by_tenant.setdefault(c.tenant_id, {})
        t[c.change] = t.get(c.change, 0) + 1
        k = f"{c.change}: {c.reason}"
        by_reason[k] = by_reason.get(k, 0) + 1
    return ReplayReport(
        applied=applied, turns=turns, users=users, counts=counts, by_tenant=by_tenant,
        by_reason=by_reason, changes=changes,
    )  # fmt: skip
