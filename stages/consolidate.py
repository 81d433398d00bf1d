"""Consolidation and retention: one user's facts tidied off the request path.

Pure, like the other stages: it reads one user's facts (every status), the
write policy, the tenant's retention and an injected ``now``, and returns a
:class:`LifecyclePlan` (facts to upsert, facts to delete, decision records and
history rows); ``memgate consolidate`` (:mod:`memgate.lifecycle`) executes it.
Four jobs, in this order:

1. **settle** pending facts once evidence arrived: a pending fact with an
   active near-duplicate (cosine >= ``near_duplicate``, same type) is
   absorbed by it (``settled_by_active``); a pending fact whose near-duplicate
   pending facts together span ``min_sessions`` sessions is promoted, absorbing
   them (``settled_repeated_evidence``), and supersedes the active fact of its
   key if there is one;
2. **merge** active near-duplicates under different keys that slipped through
   dedupe (not episodes: those fold): the later one is superseded by the
   earlier, which takes its occurrences, sessions and turns
   (``near_duplicate``);
3. **fold** episodes (type ``event``) about one subject under one predicate that
   are of one activity (:mod:`memgate.stages.activity`: the same content verb, or the
   same light verb with the same object, "went to the library") and alike
   (``fold_similarity``) into one semantic fact (``fold_predicate``)
   once there are ``fold_min_episodes``; the episodes are superseded by it and
   are its provenance (its source turns and sessions); a later alike episode
   is folded into the existing semantic fact. Before folding, each existing fold
   is read again under the current rule (a former rule folded by cosine alone):
   an episode of another activity than the fold's is released (``unfold``), and
   a fold left with fewer than ``fold_min_episodes`` is closed, its episodes free
   to fold anew;
4. **retain**: episodes last used more than ``episodic_ttl_days`` before
   ``now``, or beyond the ``episodic_max`` most recently used, are deleted from
   the retrieval store and folded into the user's digest fact, which keeps
   their values and every source turn id (their history rows keep the rest).
   An episode's last use is the later of when it was last seen (written) and
   when it was last served (``last_served``, the read path's usage records): an
   episode served recently is not evicted, however old its last mention.

Nothing is deleted except by retention; what is merged, settled or folded is
superseded (kept for ``as_of`` searches and provenance). Running the plan's
result through :func:`plan_lifecycle` again yields an empty plan: the jobs
only pick facts that are active (or pending) and not yet absorbed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from typing import Any, Final

import numpy as np

from memgate.core.embedding_unseen import Unseen, no_unseen
from memgate.core.events import (
    DecisionRecord,
    FactHistoryRecord,
    FactStatus,
    FactType,
    Stage,
    StoredFact,
    normalise,
    render_fact_text,
    stable_id,
)
from memgate.core.tenant_policy import RetentionPolicy
from memgate.stages.activity import read_activity
from memgate.stages.fact_keys import fact_id_for
from memgate.stages.policy import WritePolicy

#: The extractor name of the facts the lifecycle jobs make (folded and digest facts).
LIFECYCLE = "lifecycle"
LIFECYCLE_VERSION = "1"

#: What a fact the lifecycle writes (a fold, a digest) does not inherit from the facts it
#: was made from: no validity end, no supersession links, no context, no search vector;
#: the lifecycle is its extractor.
_LIFECYCLE_FACT: Final[dict[str, object]] = {
    "valid_to": None,
    "superseded_at": None,
    "superseded_by": None,
    "supersedes": None,
    "extractor": LIFECYCLE,
    "extractor_version": LIFECYCLE_VERSION,
    "context": "",
    "search_embedding": None,
}


@dataclass(frozen=True)
class LifecycleConfig:
    """The data of the jobs (``memgate/data/lifecycle.json``)."""

    fold_min_episodes: int
    fold_similarity: float
    fold_predicate: str
    digest_subject: str
    digest_predicate: str
    digest_max_chars: int

    @classmethod
    def load(cls) -> LifecycleConfig:
        raw = (resources.files("memgate") / "data" / "lifecycle.json").read_text("utf-8")
        data: dict[str, Any] = json.loads(raw)
        data.pop("about", None)
        return cls(**data)


@dataclass
class LifecyclePlan:
    """What one run does for one user: nothing when every list is empty."""

    writes: list[StoredFact] = field(default_factory=list)
    deletes: list[StoredFact] = field(default_factory=list)
    decisions: list[DecisionRecord] = field(default_factory=list)
    history: list[FactHistoryRecord] = field(default_factory=list)
    embed: set[str] = field(default_factory=set)
    """Ids of written facts whose text is new: to be embedded before they are stored."""

    @property
    def empty(self) -> bool:
        return not (self.writes or self.deletes)

    def counts(self) -> dict[str, int]:
        """Decisions by verdict (``merge``, ``settle``, ``unfold``, ``fold``, ``retire``)."""
        out: dict[str, int] = {}
        for d in self.decisions:
            out[d.verdict] = out.get(d.verdict, 0) + 1
        return out


def _cos(a: Sequence[float] | None, b: Sequence[float] | None) -> float:
    if a is None or b is None:
        return 0.0
    va, vb = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
    den = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / den if den > 0 else 0.0


def episodes_alike(a: StoredFact, b: StoredFact, similarity: float) -> bool:
    """Whether two episodes (or an episode and the semantic fact folded from its like) are
    of one activity (:func:`memgate.stages.activity.read_activity` of their values) and
    alike (cosine of their vectors at least ``similarity``). Two activities never fold,
    however alike their vectors ("played tennis with Marco" / "played chess with Marco"),
    and an episode whose activity the word lists do not know folds with none."""
    activity = read_activity(a.value)
    if activity is None or activity != read_activity(b.value):
        return False
    return _cos(a.embedding, b.embedding) >= similarity


def _union(*lists: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(x for lst in lists for x in lst))


class _Run:
    """The state of one user's run: the current version of every fact, by id."""

    def __init__(
        self,
        facts: Sequence[StoredFact],
        policy: WritePolicy,
        retention: RetentionPolicy,
        cfg: LifecycleConfig,
        now: datetime,
        policy_version: str,
        last_served: Mapping[str, datetime] | None = None,
        id_key: bytes = b"",
        unseen: Unseen = no_unseen,
    ) -> None:
        self.facts = {f.fact_id: f for f in facts}
        self._unseen, self._unread = unseen, dict[str, str]()  # by text, for this run
        self.id_key = id_key
        self.last_served = dict(last_served or {})
        self.order = sorted(self.facts, key=lambda i: (self.facts[i].first_seen, i))
        self.policy, self.retention, self.cfg = policy, retention, cfg
        self.now, self.version = now, policy_version
        self.plan = LifecyclePlan()
        self.changed: dict[str, str] = {}  # fact id -> history action
        self.deleted: list[StoredFact] = []

    def near(self, a: StoredFact, b: StoredFact) -> bool:
        """Near duplicates by their cosine, which read all that differs between them
        (:mod:`memgate.core.embedding_unseen`)."""
        if _cos(a.embedding, b.embedding) < self.policy.near_duplicate:
            return False
        for t in (a.text, b.text):
            if t not in self._unread:
                self._unread[t] = self._unseen(t)
        return self._unread[a.text] == self._unread[b.text]

    def current(self, *statuses: FactStatus, type_: FactType | None = None) -> list[StoredFact]:
        out = [self.facts[i] for i in self.order if self.facts[i].status in statuses]
        return [f for f in out if type_ is None or f.type is type_]

    def put(self, fact: StoredFact, action: str) -> None:
        if fact.fact_id not in self.facts:
            self.order.append(fact.fact_id)
        self.facts[fact.fact_id] = fact
        self.changed[fact.fact_id] = action

    def decide(
        self,
        stage: Stage,
        verdict: str,
        reason: str,
        fact: StoredFact,
        **details: str | int | float,
    ) -> None:
        parts = [verdict, reason, fact.fact_id, *(f"{k}={v}" for k, v in sorted(details.items()))]
        self.plan.decisions.append(
            DecisionRecord(
                event_id=stable_id(LIFECYCLE, *parts),
                stage=stage,
                tenant_id=fact.tenant_id,
                user_id=fact.user_id,
                turn_id=fact.source_turn_ids[-1],
                verdict=verdict,
                reason=reason,
                key=fact.key,
                fact_id=fact.fact_id,
                policy_version=self.version,
                decided_at=self.now,
                details=dict(details),
            )
        )

    def absorb(self, into: StoredFact, others: Sequence[StoredFact]) -> StoredFact:
        """``into`` with the occurrences, sessions, turns and times of ``others``."""
        return into.model_copy(
            update={
                "occurrences": into.occurrences + sum(o.occurrences for o in others),
                "session_ids": _union(into.session_ids, *(o.session_ids for o in others)),
                "source_turn_ids": _union(
                    into.source_turn_ids, *(o.source_turn_ids for o in others)
                ),
                "first_seen": min([into.first_seen, *(o.first_seen for o in others)]),
                "last_seen": max([into.last_seen, *(o.last_seen for o in others)]),
                "confidence": max([into.confidence, *(o.confidence for o in others)]),
            }
        )

    def close(self, old: StoredFact, by: StoredFact) -> None:
        self.put(
            old.model_copy(
                update={
                    "status": FactStatus.SUPERSEDED,
                    "superseded_by": by.fact_id,
                    "superseded_at": self.now,
                    "valid_to": old.valid_to or max(old.valid_from, by.valid_from),
                }
            ),
            "superseded",
        )

    # -- 1. settle ----------------------------------------------------------------------

    def settle(self) -> None:
        p = self.policy
        for pend in self.current(FactStatus.PENDING):
            if self.facts[pend.fact_id].status is not FactStatus.PENDING:
                continue  # absorbed by an earlier one this run
            alike = [
                f for f in self.current(FactStatus.ACTIVE, FactStatus.PENDING, type_=pend.type)
                if f.fact_id != pend.fact_id
                and (
                    (f.key == pend.key and normalise(f.value) == normalise(pend.value))
                    or self.near(f, pend)
                )
            ]  # fmt: skip
            active = [f for f in alike if f.status is FactStatus.ACTIVE]
            if active:
                into = self.facts[active[0].fact_id]
                self.put(self.absorb(into, [pend]), "settle")
                self.close(pend, into)
                self.decide(
                    Stage.CONSOLIDATE, "settle", "settled_by_active", pend, into=into.fact_id
                )
                continue
            sessions = _union(pend.session_ids, *(f.session_ids for f in alike))
            if len(sessions) < p.min_sessions:
                continue
            promoted = self.absorb(pend, alike).model_copy(
                update={"status": FactStatus.ACTIVE, "recorded_at": self.now}
            )
            rival = next((f for f in self.current(FactStatus.ACTIVE) if f.key == pend.key), None)
            if rival is not None:
                promoted = promoted.model_copy(update={"supersedes": rival.fact_id})
                self.close(rival, promoted)
            self.put(promoted, "promote")
            for f in alike:
                self.close(f, promoted)
            self.decide(
                Stage.CONSOLIDATE, "settle", "settled_repeated_evidence", promoted,
                sessions=len(sessions), absorbed=len(alike),
            )  # fmt: skip

    # -- 2. merge -----------------------------------------------------------------------

    def merge(self) -> None:
        active = [f for f in self.current(FactStatus.ACTIVE) if f.type is not FactType.EVENT]
        for i, keep in enumerate(active):
            if self.facts[keep.fact_id].status is not FactStatus.ACTIVE:
                continue
            dups = [
                f for f in active[i + 1 :]
                if self.facts[f.fact_id].status is FactStatus.ACTIVE
                and f.type is keep.type and f.key != keep.key
                and self.near(f, keep)
            ]  # fmt: skip
            if not dups:
                continue
            self.put(self.absorb(self.facts[keep.fact_id], dups), "consolidate")
            for d in dups:
                sim = round(_cos(d.embedding, keep.embedding), 4)
                self.close(d, keep)
                self.decide(
                    Stage.CONSOLIDATE, "merge", "near_duplicate", d,
                    into=keep.fact_id, similarity=sim,
                )  # fmt: skip

    # -- 3. fold ------------------------------------------------------------------------

    def recheck(self) -> None:
        """Each fold made before the current rule, read again: an episode of another
        activity than the fold's first one (the rule of a former version folded by
        cosine alone: "played tennis" with "played chess") leaves it and is an episode
        again (``unfold``, ``other_activity``); the fold keeps the rest if they are still
        ``fold_min_episodes``, or is closed (``too_few_episodes``) and every episode is
        free to fold again (``fold_closed``): the fold job that follows folds them anew.
        A fold the current rule made passes unchanged: its episodes were folded by the
        same activity test, so a second run changes nothing."""
        cfg = self.cfg
        by_fold: dict[str, list[StoredFact]] = {}
        for f in self.current(FactStatus.SUPERSEDED, type_=FactType.EVENT):
            if f.superseded_by:
                by_fold.setdefault(f.superseded_by, []).append(f)
        for habit in self.current(FactStatus.ACTIVE):
            if habit.extractor != LIFECYCLE or habit.predicate != cfg.fold_predicate:
                continue
            members = by_fold.get(habit.fact_id, [])
            if not members:
                continue
            activity = read_activity(habit.value)
            out = [m for m in members if activity is None or read_activity(m.value) != activity]
            if not out:
                continue
            keep = [m for m in members if m not in out]
            other = {m.fact_id for m in out}
            if len(keep) < cfg.fold_min_episodes:
                out = members
                self.put(
                    habit.model_copy(
                        update={"status": FactStatus.SUPERSEDED, "superseded_at": self.now,
                                "valid_to": habit.valid_to or self.now}
                    ),
                    "unfold",
                )  # fmt: skip
                self.decide(
                    Stage.CONSOLIDATE, "unfold", "too_few_episodes", habit, episodes=len(keep)
                )
            else:
                self.put(self._provenance(habit, keep), "unfold")
            for m in out:
                self._release(m, habit, "other_activity" if m.fact_id in other else "fold_closed")

    def _provenance(self, habit: StoredFact, keep: list[StoredFact]) -> StoredFact:
        """``habit`` with the occurrences, sessions, turns and times of ``keep`` only."""
        return habit.model_copy(
            update={
                "occurrences": sum(k.occurrences for k in keep),
                "session_ids": _union(*(k.session_ids for k in keep)),
                "source_turn_ids": _union(*(k.source_turn_ids for k in keep)),
                "first_seen": min(k.first_seen for k in keep),
                "last_seen": max(k.last_seen for k in keep),
                "valid_from": min(k.valid_from for k in keep),
                "rationale": f"folded from {len(keep)} episodes",
            }
        )

    def _release(self, episode: StoredFact, habit: StoredFact, reason: str) -> None:
        """``episode`` out of ``habit``: active again, as it was before the fold."""
        closed_at = max(episode.valid_from, habit.valid_from)
        self.put(
            episode.model_copy(
                update={
                    "status": FactStatus.ACTIVE, "superseded_by": None, "superseded_at": None,
                    "valid_to": None if episode.valid_to == closed_at else episode.valid_to,
                }
            ),
            "unfold",
        )  # fmt: skip
        self.decide(Stage.CONSOLIDATE, "unfold", reason, episode, out_of=habit.fact_id)

    def fold(self) -> None:
        cfg = self.cfg
        folded = [
            f for f in self.current(FactStatus.ACTIVE)
            if f.extractor == LIFECYCLE and f.predicate == cfg.fold_predicate
        ]  # fmt: skip
        episodes = self.current(FactStatus.ACTIVE, type_=FactType.EVENT)
        groups: list[list[StoredFact]] = []
        for e in episodes:
            target = next(
                (
                    f for f in folded
                    if normalise(f.subject) == normalise(e.subject)
                    and episodes_alike(f, e, cfg.fold_similarity)
                ),
                None,
            )  # fmt: skip
            if target is not None:  # an alike episode after the fold: into the semantic fact
                into = self.facts[target.fact_id]
                self.put(self.absorb(into, [e]), "fold")
                self.close(e, into)
                self.decide(Stage.CONSOLIDATE, "fold", "folded_episode", e, into=into.fact_id)
                continue
            for g in groups:
                head = g[0]
                if (normalise(head.subject), head.predicate) == (
                    normalise(e.subject),
                    e.predicate,
                ) and episodes_alike(head, e, cfg.fold_similarity):
                    g.append(e)
                    break
            else:
                groups.append([e])
        for g in groups:
            if len(g) >= cfg.fold_min_episodes:
                self._fold_group(g)

    def _fold_group(self, group: list[StoredFact]) -> None:
        head = group[0]
        pred = self.cfg.fold_predicate
        key = f"{head.tenant_id}/{head.user_id}/{normalise(head.subject)}/{pred}/" + normalise(
            head.value
        )
        fid = fact_id_for(key, head.value, head.source_turn_ids[0], self.id_key)
        semantic = self.absorb(
            head.model_copy(
                update={
                    "fact_id": fid,
                    "key": key,
                    "type": FactType.FACT,
                    "predicate": pred,
                    "text": render_fact_text(head.subject, pred, head.value),
                    "status": FactStatus.ACTIVE,
                    "recorded_at": self.now,
                    "valid_from": min(e.valid_from for e in group),
                    "policy_version": self.version,
                    "rationale": f"folded from {len(group)} episodes",
                    **_LIFECYCLE_FACT,
                }
            ),
            group[1:],
        )
        self.put(semantic, "fold")
        self.plan.embed.add(fid)
        for e in group:
            self.close(e, semantic)
            self.decide(Stage.CONSOLIDATE, "fold", "folded_episode", e, into=fid)

    # -- 4. retain ----------------------------------------------------------------------

    def last_used(self, fact: StoredFact) -> datetime:
        """The later of when ``fact`` was last seen and when it was last served."""
        served = self.last_served.get(fact.fact_id)
        return fact.last_seen if served is None or served <= fact.last_seen else served

    def retain(self) -> None:
        r = self.retention
        if not r.bounded:
            return
        episodes = sorted(
            self.current(FactStatus.ACTIVE, type_=FactType.EVENT),
            key=lambda f: (self.last_used(f), f.fact_id),
            reverse=True,
        )
        out: list[tuple[StoredFact, str]] = []
        for rank, e in enumerate(episodes):
            if r.episodic_ttl_days is not None and self.last_used(e) < self.now - timedelta(
                days=r.episodic_ttl_days
            ):
                out.append((e, "ttl_expired"))
            elif r.episodic_max is not None and rank >= r.episodic_max:
                out.append((e, "over_cap"))
        if not out:
            return
        out.reverse()  # oldest first: the digest lists them in time order
        digest = self._digest([e for e, _ in out])
        for e, reason in out:
            self.deleted.append(e)
            self.facts.pop(e.fact_id)
            served = self.last_served.get(e.fact_id)
            self.decide(
                Stage.RETENTION, "retire", reason, e, into=digest.fact_id,
                last_seen=e.last_seen.isoformat(),
                **({} if served is None else {"last_served": served.isoformat()}),
            )  # fmt: skip

    def _digest(self, gone: list[StoredFact]) -> StoredFact:
        cfg, first = self.cfg, gone[0]
        key = f"{first.tenant_id}/{first.user_id}/{normalise(cfg.digest_subject)}/" + (
            cfg.digest_predicate
        )
        old = next((f for f in self.current(FactStatus.ACTIVE) if f.key == key), None)
        values = [] if old is None else [old.value.split(": ", 1)[-1]]
        values += [e.value for e in gone]
        n = (0 if old is None else int(old.rationale.split()[0])) + len(gone)
        listed = "; ".join(v for v in values if v)
        if len(listed) > cfg.digest_max_chars:
            listed = "\u2026" + listed[-cfg.digest_max_chars :]
        value = f"{n} earlier episodes: {listed}"
        base = old or first.model_copy(
            update={
                "fact_id": stable_id("digest", key),
                "key": key,
                "type": FactType.FACT,
                "subject": cfg.digest_subject,
                "predicate": cfg.digest_predicate,
                "occurrences": 1,
                "session_ids": [],
                "source_turn_ids": [],
                "first_seen": first.first_seen,
                "valid_from": first.valid_from,
                **_LIFECYCLE_FACT,
            }
        )
        digest = base.model_copy(
            update={
                "value": value,
                "text": render_fact_text(cfg.digest_subject, cfg.digest_predicate, value),
                "status": FactStatus.ACTIVE,
                "recorded_at": self.now,
                "policy_version": self.version,
                "rationale": f"{n} episodes folded by retention",
                "occurrences": base.occurrences + (len(gone) if old is not None else len(gone) - 1),
                "session_ids": _union(base.session_ids, *(e.session_ids for e in gone)),
                "source_turn_ids": _union(base.source_turn_ids, *(e.source_turn_ids for e in gone)),
                "last_seen": max([base.last_seen, *(e.last_seen for e in gone)]),
            }
        )
        self.put(digest, "digest")
        self.plan.embed.add(digest.fact_id)
        return digest

    # -- the plan -----------------------------------------------------------------------

    def finish(self) -> LifecyclePlan:
        plan = self.plan
        plan.writes = [self.facts[i] for i in self.order if i in self.changed and i in self.facts]
        plan.deletes = list(self.deleted)
        for f, action in [
            *((w, self.changed[w.fact_id]) for w in plan.writes),
            *((d, "retire") for d in plan.deletes),
        ]:
            plan.history.append(
                FactHistoryRecord(
                    event_id=stable_id(LIFECYCLE, action, f.fact_id, str(f.occurrences), f.value),
                    tenant_id=f.tenant_id,
                    user_id=f.user_id,
                    fact_id=f.fact_id,
                    key=f.key,
                    action=action,
                    value=f.value,
                    confidence=f.confidence,
                    occurrences=f.occurrences,
                    superseded_by=f.superseded_by or "",
                    supersedes=f.supersedes or "",
                    source_turn_id=f.source_turn_ids[-1] if f.source_turn_ids else "",
                    policy_version=self.version,
                    at=self.now,
                )
            )
        return plan


def plan_lifecycle(
    facts: Sequence[StoredFact],
    policy: WritePolicy,
    retention: RetentionPolicy,
    *,
    now: datetime,
    policy_version: str,
    config: LifecycleConfig | None = None,
    last_served: Mapping[str, datetime] | None = None,
    id_key: bytes = b"",
    unseen: Unseen = no_unseen,
) -> LifecyclePlan:
    """The consolidation and retention of one user's facts (every status) at ``now``;
    ``last_served``: when each fact (by id) was last served, from the usage records
    (retention counts an episode's age from the later of that and its last sighting);
    ``id_key``: the deployment's key, of which a folded fact's id is a keyed digest
    (:func:`~memgate.stages.fact_keys.fact_id_for`; unkeyed without one); ``unseen``: what
    the embedder could not read of a text (a merge needs it equal on both sides)."""
    cfg = config or LifecycleConfig.load()
    run = _Run(facts, policy, retention, cfg, now, policy_version, last_served, id_key, unseen)
    run.settle()
    run.merge()
    run.recheck()
    run.fold()
    run.retain()
    return run.finish()
