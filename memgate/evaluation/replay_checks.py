"""The replay class of the scenarios: ``memgate replay`` run on a scenario's journal.

Two actions of :mod:`memgate.evaluation.scenarios`, each run on the whole
journal of the scenario's gate (``tenant`` and ``user`` narrow it) through the
gate a changed configuration builds (``policy``, ``extractor``, ``regulated``,
``tenant_policies`` merged over the scenario's own), at ``now`` (default: the latest
time a stored fact was last seen; never the real clock, so a check is deterministic):

``replay_shadow``
    the replay in shadow mode: passes when it wrote nothing (every fact, every
    replay decision and history row as before) and its diff has the expected
    counts (``expect``: changes by kind, ``{}``: none), ``expect_by_tenant``
    and ``expect_by_reason`` (``"<kind>: <stage>:<reason>"``) when given.
``replay_apply``
    the replay applied: passes when what the stores show changed is what the
    report says changed, by tenant, user, kind and key (a fact closed and
    replaced is *superseded*, one closed alone *dropped*, one made current
    alone *added*, nothing else touched); when a ``replay_shadow`` of the same
    configuration ran since the last apply, the applied diff is the shadow's,
    reasons included; every affected fact has a ``replay`` decision recording
    its old and new versions (the versions the facts carry before and after)
    and a history row; and the expectations above hold. An apply whose report
    is empty must write nothing: a second apply of the same configuration
    (``expect: {}``) is the idempotence check.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from memgate.core.embedding import Embedder
from memgate.core.events import FactStatus, Ident, StoredFact
from memgate.core.settings import Settings
from memgate.core.tenant_policy import PolicyName, TenantPolicy
from memgate.evaluation.common import Workspace
from memgate.replay import ExtractorChoice, ReplayReport, replay

__all__ = ["ReplayApply", "ReplayShadow", "ReplayState", "run_replay_check"]

_KINDS = ("added", "dropped", "superseded")
#: The replay's clock when a scenario stores no fact at all.
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


class _ReplayCheck(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    after: Ident | None = Field(
        default=None, description="Run after this turn id (default: after the last turn)."
    )
    tenant: Ident | None = Field(default=None, description="Replay this tenant only.")
    user: Ident | None = Field(default=None, description="Replay this user only.")
    policy: PolicyName | None = None
    extractor: ExtractorChoice | None = Field(
        default=None, description="Replay through this extractor (default: the scenario's)."
    )
    now: AwareDatetime | None = Field(
        default=None,
        description="The replay's clock (default: the latest time a stored fact was last "
        "seen, so that a replay never reads the real clock).",
    )
    regulated: Literal["reject", "redact"] | None = None
    tenant_policies: dict[Ident, TenantPolicy] = Field(default_factory=dict)
    expect: dict[str, int] | None = Field(
        default=None, description="Changes by kind (added, dropped, superseded); {}: none."
    )
    expect_by_tenant: dict[str, dict[str, int]] | None = None
    expect_by_reason: dict[str, int] | None = None

    def configuration(self) -> tuple[Any, ...]:
        return (
            self.tenant,
            self.user,
            self.policy,
            self.extractor,
            self.now,
            self.regulated,
            tuple(sorted((k, v.version()) for k, v in self.tenant_policies.items())),
        )

    def settings(self, base: Settings) -> Settings:
        update: dict[str, Any] = {
            "tenant_policies": {**base.tenant_policies, **self.tenant_policies}
        }
        if self.policy is not None:
            update["policy"] = self.policy
        if self.extractor is not None:
            update["extractor"] = self.extractor
        if self.regulated is not None:
            update["regulated"] = self.regulated
        return base.model_copy(update=update)


class ReplayShadow(_ReplayCheck):
    """An action: the replay in shadow mode; it must write nothing."""

    type: Literal["replay_shadow"]


class ReplayApply(_ReplayCheck):
    """An action: the replay applied; the stores must change as its report says."""

    type: Literal["replay_apply"]


@dataclass
class ReplayState:
    """What a scenario's replay actions remember between them."""

    shadow: tuple[tuple[Any, ...], ReplayReport] | None = None
    applied: list[str] = field(default_factory=list)


Snapshot = dict[str, StoredFact]


def _snapshot(ws: Workspace) -> Snapshot:
    return {
        f.fact_id: f
        for tenant, user in ws.scopes
        for f in ws.store.list_facts(tenant, user, include_inactive=True)
    }


def _version(f: StoredFact) -> str:
    return f"{f.policy_version}/{f.extractor}-{f.extractor_version}"


def _replay_records(ws: Workspace) -> tuple[set[tuple[str, ...]], set[tuple[str, ...]]]:
    """The replay decisions (verdict, fact, old version, new version) and history rows
    (action, fact, version) in the audit store."""
    _, dec = ws.audit_store.query(
        "SELECT verdict, fact_id, details['old_version'], details['new_version'] "
        "FROM decisions FINAL WHERE stage = 'replay'"
    )
    _, hist = ws.audit_store.query(
        "SELECT action, fact_id, policy_version FROM fact_history FINAL "
        "WHERE action IN ('replay_add', 'replay_close')"
    )
    return {tuple(map(str, r)) for r in dec}, {tuple(map(str, r)) for r in hist}


Change = tuple[str, str, str, str]  # tenant, user, kind, key


def _store_diff(before: Snapshot, after: Snapshot) -> tuple[Counter[Change], list[str]]:
    """What changed between two snapshots, as replay changes, and what else changed."""
    active = FactStatus.ACTIVE

    def was(fid: str) -> bool:
        return fid in before and before[fid].status is active

    def now(fid: str) -> bool:
        return fid in after and after[fid].status is active

    out: Counter[Change] = Counter()
    replacements: set[str] = set()
    for fid, f in after.items():
        if was(fid) and not now(fid):
            by = f.superseded_by
            if by and now(by) and not was(by):
                out[(f.tenant_id, f.user_id, "superseded", f.key)] += 1
                replacements.add(by)
            else:
                out[(f.tenant_id, f.user_id, "dropped", f.key)] += 1
    for fid, f in after.items():
        if now(fid) and not was(fid) and fid not in replacements:
            out[(f.tenant_id, f.user_id, "added", f.key)] += 1
    other = [
        fid
        for fid in before.keys() | after.keys()
        if was(fid) == now(fid) and fid in after and fid in before
        and before[fid].status is not after[fid].status
    ] + [fid for fid in before if fid not in after]  # fmt: skip
    return out, sorted(other)


def _counts(rep: ReplayReport) -> Counter[Change]:
    return Counter((c.tenant_id, c.user_id, c.change, c.key) for c in rep.changes)


def _show(changes: Counter[Change]) -> str:
    if not changes:
        return "no change"
    return "; ".join(
        f"{k[2]} {k[0]}/{k[1]} {k[3]}" + (f" x{n}" if n > 1 else "")
        for k, n in sorted(changes.items())
    )


def _expectations(c: _ReplayCheck, rep: ReplayReport) -> list[str]:
    bad = []
    if c.expect is not None and rep.counts != c.expect:
        bad.append(f"counts {rep.counts or {}} != expected {c.expect}")
    if c.expect_by_tenant is not None and rep.by_tenant != c.expect_by_tenant:
        bad.append(f"by tenant {rep.by_tenant} != expected {c.expect_by_tenant}")
    if c.expect_by_reason is not None and rep.by_reason != c.expect_by_reason:
        bad.append(f"by reason {rep.by_reason} != expected {c.expect_by_reason}")
    return bad


def _versions(ws: Workspace, rep: ReplayReport, before: Snapshot, after: Snapshot) -> list[str]:
    """Every affected fact has its replay decision (old and new versions) and history row."""
    decisions, history = _replay_records(ws)
    bad = []
    for c in rep.changes:
        old = before.get(c.old_fact_id or "")
        new = after.get(c.new_fact_id or "")
        old_v = _version(old) if old is not None else ""
        new_v = _version(new) if new is not None else ""
        if (c.old_fact_id and old is None) or (c.new_fact_id and new is None):
            bad.append(f"{c.change} {c.key}: a fact of the change is not in the store")
            continue
        fid = c.new_fact_id or c.old_fact_id or ""
        if (c.change, fid, old_v, new_v) not in decisions:
            bad.append(
                f"{c.change} {c.key}: no replay decision recording old {old_v or '-'} "
                f"and new {new_v or '-'}"
            )
        if old is not None and ("replay_close", old.fact_id, old_v) not in history:
            bad.append(f"{c.change} {c.key}: no replay_close history row for the old fact")
        if new is not None and ("replay_add", new.fact_id, new_v) not in history:
            bad.append(f"{c.change} {c.key}: no replay_add history row for the new fact")
    return bad


def run_replay_check(
    c: ReplayShadow | ReplayApply, ws: Workspace, embedder: Embedder, state: ReplayState
) -> tuple[bool, str]:
    """Run one replay action of a scenario; (passed, message)."""
    settings = c.settings(ws.settings)
    before, records_before = _snapshot(ws), _replay_records(ws)
    apply = isinstance(c, ReplayApply)
    at = c.now or max((f.last_seen for f in before.values()), default=_EPOCH)
    rep = replay(
        ws.store, ws.audit_store, embedder, settings,
        tenant=c.tenant, user=c.user, apply=apply, now=at,
    )  # fmt: skip
    after = _snapshot(ws)
    changed, other = _store_diff(before, after)
    reported = _counts(rep)
    bad = _expectations(c, rep)
    what = f"{'apply' if apply else 'shadow'} ({rep.turns} turns): {_show(reported)}"
    if not apply:
        if after != before or _replay_records(ws) != records_before:
            bad.append("the shadow run wrote to the stores")
        state.shadow = (c.configuration(), rep)
        return not bad, what + ("" if not bad else " - " + "; ".join(bad))
    if changed != reported:
        bad.append(f"the stores changed otherwise: {_show(changed)}")
    if other:
        bad.append(f"{len(other)} other fact(s) changed status or vanished")
    if state.shadow is not None and state.shadow[0] == c.configuration():
        shadow = state.shadow[1]

        def keyed(r: ReplayReport) -> Counter[tuple[str, ...]]:
            return Counter((x.tenant_id, x.user_id, x.change, x.key, x.reason) for x in r.changes)

        if keyed(shadow) != keyed(rep):
            bad.append(f"the shadow reported {_show(_counts(shadow))}")
    state.shadow = None
    if rep.changes:
        bad += _versions(ws, rep, before, after)
        late = [
            c.key for c in rep.changes
            if (c.new_fact_id in after and after[c.new_fact_id].recorded_at != at)
            or (c.old_fact_id in after and after[c.old_fact_id].superseded_at != at)
        ]  # fmt: skip
        if late:
            bad.append(f"{len(late)} change(s) not stamped with the replay's time {at}")
    elif after != before or _replay_records(ws) != records_before:
        bad.append("an apply with nothing to change wrote to the stores")
    return not bad, what + ("" if not bad else " - " + "; ".join(bad))
