"""The lifecycle jobs, run off the request path: ``memgate consolidate``.

For every user (of one tenant, or one user) that the audit store's fact
history names, the user's facts (every status) are read from the retrieval
store, planned by :func:`memgate.stages.consolidate.plan_lifecycle` (settle
pending facts, merge near-duplicates, fold episodes, apply retention, whose
clock runs from when an episode was last seen or last served, the later) under
the tenant's policy (``tenant_policies``), and the plan is applied: the
decision records and history rows first (so that a run stopped half-way
leaves the reasons of what it changed, and the rerun writes the same rows
again, deduplicated by event id), then the facts, then the retired episodes
deleted. A dry run plans and reports without writing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from memgate.core.embedding import Embedder
from memgate.core.embedding_unseen import unseen_of
from memgate.core.errors import ConfigError
from memgate.core.events import FactStatus, FactType, StoredFact, utcnow
from memgate.core.settings import Settings
from memgate.core.stores import AuditStore, RetrievalStore, UsageStore
from memgate.keys import hmac_key
from memgate.receipts import ERASED_PREFIX
from memgate.stages.consolidate import (
    LIFECYCLE,
    LIFECYCLE_VERSION,
    LifecycleConfig,
    LifecyclePlan,
    plan_lifecycle,
)
from memgate.stages.policy import WritePolicy, preset


class ConsolidateResult(BaseModel):
    """What one run of the lifecycle jobs did (or, in a dry run, would do)."""

    model_config = ConfigDict(frozen=True)

    now: datetime
    dry_run: bool
    users: int = Field(description="Users whose facts were read.")
    changed_users: int
    facts_written: int
    facts_deleted: int
    decisions: dict[str, int] = Field(description="Decisions by verdict.")
    by_reason: dict[str, int]
    by_tenant: dict[str, dict[str, int]] = Field(description="Decisions by verdict, per tenant.")


def tenant_write_policy(settings: Settings, tenant_id: str) -> WritePolicy:
    """The write policy of a tenant: its preset (else the deployment's) with the trusted
    sources; a tenant named in ``tenant_policies`` gets ``+tenant.<digest>`` in its version,
    which every decision under it records."""
    own = settings.tenant_policies.get(tenant_id)
    name = (own.preset if own is not None else None) or settings.policy
    policy = preset(name).with_trusted_sources(settings.trusted_sources)
    if own is None:
        return policy
    return replace(policy, version=f"{policy.version}+{own.version()}")


def lifecycle_version(settings: Settings, tenant_id: str) -> str:
    """``lifecycle-1+<write policy version>``: recorded on every lifecycle row."""
    return f"{LIFECYCLE}-{LIFECYCLE_VERSION}+{tenant_write_policy(settings, tenant_id).version}"


def owners(
    audit: AuditStore, tenant: str | None = None, user: str | None = None
) -> list[tuple[str, str]]:
    """The (tenant, user) pairs with fact history, sorted; erased users' skeletons excluded."""
    if tenant is not None and user is not None:
        return [(tenant, user)]
    _, rows = audit.query(
        "SELECT DISTINCT tenant_id, user_id FROM fact_history "
        "WHERE ({t:String} = '' OR tenant_id = {t:String}) "
        "AND NOT startsWith(user_id, {erased:String}) ORDER BY tenant_id, user_id",
        {"t": tenant or "", "erased": ERASED_PREFIX},
    )
    return [(str(t), str(u)) for t, u in rows if user is None or u == user]


def _embed(plan: LifecyclePlan, embedder: Embedder) -> list[StoredFact]:
    todo = [f for f in plan.writes if f.fact_id in plan.embed]
    if not todo:
        return list(plan.writes)
    vectors = embedder.embed([f.text for f in todo])
    new = {
        f.fact_id: f.model_copy(update={"embedding": [float(x) for x in v]})
        for f, v in zip(todo, vectors, strict=True)
    }
    return [new.get(f.fact_id, f) for f in plan.writes]


def _apply(
    plan: LifecyclePlan,
    retrieval: RetrievalStore,
    audit: AuditStore | None,
    embedder: Embedder,
    settings: Settings,
) -> None:
    if plan.deletes and not isinstance(retrieval, UsageStore):
        raise ConfigError(
            f"the {settings.retrieval_backend} store cannot delete a fact (retention)"
        )
    if audit is not None:
        audit.write([*plan.decisions, *plan.history])
    retrieval.upsert(_embed(plan, embedder), wait=True)
    if isinstance(retrieval, UsageStore):
        for f in plan.deletes:
            retrieval.delete_fact(f.tenant_id, f.user_id, f.fact_id)


def last_served(
    retrieval: RetrievalStore, tenant: str, user: str, facts: Sequence[StoredFact]
) -> dict[str, datetime]:
    """When each active episode of the user was last served (the read path's usage
    records; none on a store that keeps no usage): retention counts from it."""
    if not isinstance(retrieval, UsageStore):
        return {}
    ids = [f.fact_id for f in facts if f.type is FactType.EVENT and f.status is FactStatus.ACTIVE]
    if not ids:
        return {}
    return {fid: u.last_served for fid, u in retrieval.usage(tenant, user, ids).items()}


def consolidate_user(
    retrieval: RetrievalStore,
    embedder: Embedder,
    settings: Settings,
    tenant: str,
    user: str,
    *,
    now: datetime,
    audit: AuditStore | None,
    dry_run: bool = False,
    config: LifecycleConfig | None = None,
    id_key: bytes = b"",
) -> LifecyclePlan:
    """Plan one user's lifecycle jobs and (unless ``dry_run``) apply them; ``audit``
    ``None`` applies the store writes alone (the store contract tests). ``id_key``: the
    deployment's key (:func:`memgate.keys.hmac_key`), of which the id of a fact folded
    from episodes is a keyed digest, like the gate's (empty: unkeyed)."""
    facts = retrieval.list_facts(tenant, user, include_inactive=True)
    retention = settings.retention_for(tenant)
    plan = plan_lifecycle(
        facts,
        tenant_write_policy(settings, tenant),
        retention,
        now=now,
        policy_version=lifecycle_version(settings, tenant),
        config=config or LifecycleConfig.load(),
        last_served=last_served(retrieval, tenant, user, facts) if retention.bounded else None,
        id_key=id_key,
        unseen=unseen_of(embedder),
    )
    if not plan.empty and not dry_run:
        _apply(plan, retrieval, audit, embedder, settings)
    return plan


def consolidate(
    retrieval: RetrievalStore,
    audit: AuditStore,
    embedder: Embedder,
    settings: Settings,
    *,
    tenant: str | None = None,
    user: str | None = None,
    now: datetime | None = None,
    dry_run: bool = False,
    config: LifecycleConfig | None = None,
) -> ConsolidateResult:
    """Run the lifecycle jobs for every user (of ``tenant``, or ``tenant``/``user``)."""
    at = now or utcnow()
    cfg = config or LifecycleConfig.load()
    key = hmac_key(settings)
    pairs: Sequence[tuple[str, str]] = owners(audit, tenant, user)
    decisions: dict[str, int] = {}
    reasons: dict[str, int] = {}
    per_tenant: dict[str, dict[str, int]] = {}
    written = deleted = changed = 0
    for t, u in pairs:
        plan = consolidate_user(
            retrieval, embedder, settings, t, u, now=at, audit=audit, dry_run=dry_run, config=cfg,
            id_key=key,
        )  # fmt: skip
        if plan.empty:
            continue
        changed += 1
        for d in plan.decisions:
            decisions[d.verdict] = decisions.get(d.verdict, 0) + 1
            reasons[d.reason] = reasons.get(d.reason, 0) + 1
            bucket = per_tenant.setdefault(t, {})
            bucket[d.verdict] = bucket.get(d.verdict, 0) + 1
        written += len(plan.writes)
        deleted += len(plan.deletes)
    return ConsolidateResult(
        now=at,
        dry_run=dry_run,
        users=len(pairs),
        changed_users=changed,
        facts_written=written,
        facts_deleted=deleted,
        decisions=decisions,
        by_reason=reasons,
        by_tenant=per_tenant,
    )
