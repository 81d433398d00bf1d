"""Dedupe / resolve: one current fact per key.

The key is tenant + user + normalised subject + predicate (plus the
normalised value for multi-valued predicates such as ``likes``). Against
what is stored under that key a candidate is:

- a DUPLICATE: same value (or a near-duplicate wording by embedding
  similarity): the occurrence is counted and last-seen refreshed, no new row;
- a SUPERSEDE: a new value: the old fact keeps its row, gets
  ``superseded_by`` and its valid time closed;
- an ADD: nothing under the key yet;
- PENDING: an inference that still needs explicit confirmation or repeated
  evidence across sessions (stored, never served, promoted when the evidence
  arrives);
- a REJECT: the write policy refuses it (confidence, failed task).

The stage is pure: what is stored is read through a
:class:`~memgate.core.stores.FactView` passed
in, the clock is injected, and the output is events (a :class:`Resolution`
carrying the writes, and the :class:`DecisionRecord` for the audit store).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

import numpy as np

from memgate.core.embedding import Embedder
from memgate.core.embedding_unseen import unseen_apart, unseen_of
from memgate.core.embedding_use import Meaning
from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    FactStatus,
    RedactedCandidate,
    Resolution,
    ResolutionAction,
    Stage,
    StoredFact,
    normalise,
    render_search_text,
    stable_id,
    utcnow,
)
from memgate.core.read_ahead import ByKey, BySubject, Nearest, Prefetched, ReadPlan, read_ahead
from memgate.core.stores import FactView, ListsActive
from memgate.stages.fact_keys import (
    DELETED_VALUE,
    cites_turn,
    fact_id_for,
    fact_key,
    legacy_fact_id,
)
from memgate.stages.policy import WritePolicy
from memgate.stages.references import is_reference, reference_op
from memgate.stages.relation_model import RelationModel
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_change import change_target
from memgate.stages.resolve_clause import clause_fold_target
from memgate.stages.resolve_confirm import confirmed_guess
from memgate.stages.resolve_cued import cued_target, says_change
from memgate.stages.resolve_forget import (
    by_reference,
    candidate_marks,
    erased_key,
    erased_tombstone,
    reference_texts,
    retract,
    retraction_targets_in_sentences,
)
from memgate.stages.resolve_learned import learned_redelivery, learned_target, nearest_of
from memgate.stages.resolve_paraphrase import (
    CitedFacts,
    fold_target,
    other_persons,
    possessed_subject,
)
from memgate.stages.resolve_pending import restated_guess, said_again
from memgate.stages.resolve_probe import PROBE, may_restate, restated_target
from memgate.stages.resolve_qualifier import adds_another, kept_apart, other_thing
from memgate.stages.resolve_repeat import repeat_target, said_twice
from memgate.stages.resolve_restate import fold_target_of_core, persons_apart
from memgate.stages.resolve_same import SAME, same_target
from memgate.stages.resolve_semantic import (
    semantic_target,
    stale_on_arrival,
)
from memgate.stages.resolve_settled import PROMOTED_BRIEFLY, settled_guess
from memgate.stages.resolve_slots import changed_value, same_clause, slot_update_target
from memgate.stages.resolve_wish import wish_update_target
from memgate.stages.resolve_writes import (
    other_readings,
    seen_again,
    supersede,
    with_stale,
    with_writes,
)
from memgate.stages.slot_conflict import changed_slot

# the keys and the retraction helpers were here first: still importable from here
__all__ = [
    "DELETED_VALUE",
    "Resolver",
    "fact_id_for",
    "fact_key",
    "retraction_targets_in_sentences",
]

#: How many of a candidate's nearest facts (active or superseded) the redelivery check
#: reads for one under another key that already cites the candidate's turn.
_ABSORB_PROBE = 10
_ABSORB_STATUSES = (FactStatus.ACTIVE, FactStatus.SUPERSEDED)
_CLOSED = (FactStatus.SUPERSEDED,)
_OWNERS = ("user", "team")
#: What the near-duplicate check under another key (step 4) compares with.
_NEAR_PROBE = 3
_NEAR_STATUSES = (FactStatus.ACTIVE,)
_CUED_PROBE = 6


def _cos(a: Sequence[float] | None, b: np.ndarray) -> float:
    if a is None:
        return 0.0
    return float(np.dot(np.asarray(a, dtype=np.float32), b))


def _key_of(c: CandidateFact) -> str:
    return fact_key(
        c.tenant_id, c.user_id, c.subject, c.predicate, c.object if c.multi_valued else None
    )


def _paraphrase_subjects(c: CandidateFact) -> tuple[str, ...]:
    """The subjects whose active facts the paraphrase check (step 4b) reads for ``c``."""
    if c.retracts:
        return ()
    root = normalise(c.subject).split(" ", 1)[0]
    return ("user", "team") if root in ("user", "users", "team", "teams") else ()


@dataclass(frozen=True)
class Resolver:
    """Resolves redacted candidates against what is stored, under one write policy."""

    policy: WritePolicy
    embedder: Embedder
    clock: Callable[[], datetime] = field(default=utcnow)
    tenant_policies: Mapping[str, WritePolicy] = field(default_factory=dict)
    """A tenant's own write policy (settings ``tenant_policies``), in place of ``policy``."""
    erasure_key: bytes = field(default=b"", repr=False)
    """The deployment's key (:func:`memgate.keys.hmac_key`): the facts' ids are keyed
    digests under it (:func:`~memgate.stages.fact_keys.fact_id_for`: none confirms a guess
    of its value to whoever lacks the key), and it names the tombstones deletion requests
    leave, so that every turn a deleted fact held finds its tombstone
    (:func:`~memgate.stages.resolve_forget.erased_tombstone`). Empty (a resolver built in
    code without it; never in a pipeline :func:`memgate.backends.build_pipeline` builds):
    ids are the unkeyed :func:`~memgate.stages.fact_keys.legacy_fact_id`, which a guess of
    the value and the turn id confirm, and tombstones are named by fact id, found from the
    turn that made the fact only."""
    relation_model: RelationModel | None = field(default=None, repr=False, compare=False)
    """The learned pair classifier (settings ``resolution_model = "assist"``): asked about
    the nearest facts when the rules find no target (:mod:`memgate.stages.resolve_learned`).
    None: off."""
    meaning: Meaning | None = field(default=None, repr=False, compare=False)
    """usem, the multilingual similarity (settings ``resolution_meaning = "usem"``):
    asked beside MiniLM's cosine where resolution asks "near in meaning?"
    (:mod:`memgate.stages.resolve_meaning`). None: off."""
    slotmask: bool = False
    """A change found by its masked frame and value (settings ``resolution_slotmask``, needs
    ``meaning``): :mod:`memgate.stages.resolve_slotmask`, :mod:`~.resolve_change`."""

    def for_tenant(self, tenant_id: str) -> Resolver:
        """This resolver under the tenant's own policy (itself when the tenant has none)."""
        own = self.tenant_policies.get(tenant_id)
        return self if own is None else replace(self, policy=own, tenant_policies={})

    def __call__(
        self, event: RedactedCandidate, view: FactView
    ) -> list[Resolution | DecisionRecord]:
        c = event.candidate
        if c.tenant_id in self.tenant_policies:
            return self.for_tenant(c.tenant_id)(event, view)
        if c.probe:  # embedded only when it may say a stored fact again (may_restate)
            return self.resolve(event, view, None)
        return self.resolve(event, view, *self.vectors(event))

    def vectors(self, event: RedactedCandidate) -> tuple[np.ndarray, np.ndarray | None]:
        """The vectors of :meth:`dedupe_texts`, in one call: the statement's, and the
        statement with its context's (None: no context)."""
        texts = self.dedupe_texts(event)
        vecs = self.embedder.embed(texts)  # one batch: the statement, then with context
        return vecs[0], (vecs[1] if len(texts) > 1 else None)

    def dedupe_texts(self, event: RedactedCandidate) -> list[str]:
        """What :meth:`__call__` embeds, in one call: the statement, then (when its
        source context adds anything) the statement with its context."""
        text = event.candidate.text()
        search = render_search_text(text, event.candidate.context)
        return [text] if search == text else [text, search]

    def embed_calls(
        self, event: RedactedCandidate, view: FactView | None = None
    ) -> list[list[str]]:
        """The embedding calls resolving ``event`` may make, in their order: the
        :meth:`dedupe_texts` call, then a reference's topic (:func:`by_reference`, when its
        policy gates let it that far). For reading ahead (:mod:`memgate.streams.prefetch`):
        a call that does not come costs only the work done ahead. None for a probe read
        against ``view`` when the view lists a speaker's active facts: the probe is
        embedded only if one is in its reach (:func:`may_restate`), rarely (19 of 1,071
        probes of the LoCoMo dev file), when it is resolved."""
        if event.candidate.probe and isinstance(view, ListsActive):
            return []
        calls = [self.dedupe_texts(event)]
        if is_reference(event.candidate):
            calls.append(reference_texts(event.candidate))
        return calls

    # ------------------------------------------------------------------ core

    def resolve(
        self,
        event: RedactedCandidate,
        view: FactView,
        vec: np.ndarray | None,
        search_vec: np.ndarray | None = None,
    ) -> list[Resolution | DecisionRecord]:
        """Resolve with precomputed vectors: ``vec`` of the statement (compared for
        duplicates), ``search_vec`` of the statement with its context (stored for
        retrieval; None when there is no context). ``vec`` None: the resolution embeds
        ``event`` itself when it needs to (a probe, only when it may restate a fact)."""
        c = event.candidate
        if c.tenant_id in self.tenant_policies:
            return self.for_tenant(c.tenant_id).resolve(event, view, vec, search_vec)
        given = event  # the event as it came: what its vectors are of
        p = self.policy
        now = self.clock()
        event, trust = self._prepared(event)
        c = event.candidate
        key = _key_of(c)
        turn_id = c.source_turn_ids[0]

        def out(
            action: ResolutionAction,
            reason: str,
            writes: list[StoredFact],
            details: dict[str, str | int | float] | None = None,
        ) -> list[Resolution | DecisionRecord]:
            fact_id = writes[0].fact_id if writes else ""
            res = Resolution(
                event_id=stable_id("resolve", c.candidate_id, action.value),
                action=action,
                reason=reason,
                key=key,
                tenant_id=c.tenant_id,
                user_id=c.user_id,
                candidate_id=c.candidate_id,
                source_turn_ids=list(c.source_turn_ids),
                writes=writes,
                policy_version=p.version,
                decided_at=now,
            )
            # a redelivery gets its own audit row instead of overwriting the original verdict
            extra = ("redelivered",) if reason == "redelivered" else ()
            dec = DecisionRecord(
                event_id=stable_id("decision", Stage.DEDUPE.value, c.candidate_id, *extra),
                stage=Stage.DEDUPE,
                tenant_id=c.tenant_id,
                user_id=c.user_id,
                session_id=c.session_id,
                turn_id=turn_id,
                verdict=action.value,
                reason=reason,
                key=key,
                fact_id=fact_id,
                policy_version=p.version,
                decided_at=now,
                details={
                    "type": c.type.value,
                    "confidence": c.confidence,
                    **trust,
                    **(details or {}),
                },
            )
            return [res, dec]

        def fold(
            f: StoredFact, reason: str, details: dict[str, str | int | float]
        ) -> list[Resolution | DecisionRecord]:
            """``c`` said again what ``f`` says: one more occurrence, unless ``f`` already
            cites ``c``'s turn (its first delivery was folded in): a replay writes nothing."""
            if cites_turn(f, c):
                return out(ResolutionAction.DUPLICATE, "redelivered", [], {"of": f.fact_id})
            return out(ResolutionAction.DUPLICATE, reason, [seen_again(f, event, now)], details)

        if c.probe:
            # a brief confirmation settles the session's latest guess (resolve_settled)
            if settled := settled_guess(c, view):
                up = {"status": FactStatus.ACTIVE, "recorded_at": now}
                ups = [seen_again(f, event, now).model_copy(update=up) for f in settled]
                return out(ResolutionAction.ADD, PROMOTED_BRIEFLY, ups, {"of": ups[0].fact_id})
            # a turn that yielded no fact: only a restatement of a stored one, reinforced
            # (one more occurrence); nothing found leaves no row (resolve_probe)
            if not may_restate(c, view):
                return []  # no fact in its reach: neither embedded nor read by its vector
            if vec is None:
                vec = self.vectors(given)[0]
            near = nearest_of(view, c, vec, PROBE.nearest, (FactStatus.ACTIVE,))
            hit = restated_target(c, near, self.relation_model or RelationModel.load())
            if hit is None:
                return []
            return fold(hit.fact, "restatement", {
                "of": hit.fact.fact_id, "sureness": round(hit.probability, 4),
                "similarity": round(hit.similarity, 4), "probe": PROBE.version,
            })  # fmt: skip

        if vec is None:  # a caller that left the embedding to the resolution
            vec, search_vec = self.vectors(given)

        # 1. policy gates that need no state
        if c.confidence < p.min_confidence:
            return out(ResolutionAction.REJECT, "below_min_confidence", [])
        if p.save_after_success and c.outcome == "failure" and not c.confirmed:
            return out(ResolutionAction.REJECT, "task_failed", [])

        if is_reference(c):
            if (
                reference_op(c) == "stop"
                and c.type in p.confirmation_required_types
                and not c.confirmed
            ):
                # "we moved from X to Y": the stop of X is the other half of the correction
                # to Y; a policy that holds corrections for confirmation holds both, so the
                # old value stays current until the new one is confirmed (a retraction or
                # a deletion request is honoured at once under every policy)
                why = "needs_confirmation" + ("_or_evidence" if p.min_sessions > 1 else "")
                return out(ResolutionAction.REJECT, why, [], {"op": "stop"})  # as the correction
            done = by_reference(c, view, now, out, self.embedder, self.erasure_key, self.meaning)
            if reference_op(c) == "stop":
                # a stop is a change too: "I left the hospital" makes the role there stale
                return with_stale(c, done, view)
            return done

        # the reads known now, asked together where the store can (memgate.core.read_ahead);
        # a store that reads locally answers each read itself, once: the steps below ask
        # some of the same reads again (a sixth of the subject scans and a quarter of the
        # nearest reads on LoCoMo), and nothing is written while this resolution reads
        ahead = read_ahead(view, self._read_plan(c, key, vec))
        view = ahead if ahead is not view else Prefetched(view, {})
        existing = view.by_key(c.tenant_id, c.user_id, key)
        apart = kept_apart(c, existing)  # another thing of the owner by its qualifier
        if apart is not None:
            c = apart
            event = event.model_copy(update={"candidate": c})
            key = _key_of(c)
            existing = view.by_key(c.tenant_id, c.user_id, key)
        value_n = normalise(c.object)

        # 2. redelivery of a turn we already applied: idempotent no-op
        absorbed = self._absorbed_by(c, key, existing, view, value_n, vec)
        if absorbed is None and self.relation_model is not None and not c.retracts:
            probe = nearest_of(view, c, vec, _ABSORB_PROBE, _ABSORB_STATUSES)
            absorbed = learned_redelivery(self.relation_model, c, key, probe)
        if absorbed is not None:
            return out(ResolutionAction.DUPLICATE, "redelivered", [], {"of": absorbed.fact_id})
        # the fact this candidate went into the first time was erased at the user's
        # request since: its tombstone is named by the keyed digest of its key and value
        # (or, left without a key, by the unkeyed id such a fact had), and a redelivery
        # must not bring the content back
        legacy = legacy_fact_id(key, c.object, turn_id)
        erased = erased_tombstone(c, key, legacy, view, self.erasure_key)
        if erased is not None:
            return out(ResolutionAction.DUPLICATE, "redelivered", [], {"of": erased.fact_id})

        current = [f for f in existing if f.status is not FactStatus.SUPERSEDED]
        active = next((f for f in current if f.status is FactStatus.ACTIVE), None)
        pending = [f for f in current if f.status is FactStatus.PENDING]

        if c.retracts:
            if not current and value_n:
                # nothing under the key: a fact stored as a sentence (the statement
                # extractors) under the same subject and predicate may name the thing;
                # what this retraction closed the first time is among them, closed
                # (a redelivery must find its marker there)
                every = (FactStatus.ACTIVE, FactStatus.PENDING, FactStatus.SUPERSEDED)
                named = retraction_targets_in_sentences(c, value_n, view, every)
                existing = [*existing, *named]
                current = [f for f in named if f.status is not FactStatus.SUPERSEDED]
            return retract(
                c, existing, current, value_n, vec, now, out, p.near_duplicate, view,
                unseen_of(self.embedder),
            )  # fmt: skip

        # 3. same key, same value (or same meaning): count the occurrence. A candidate that
        # says something changed ("now", "ahora", "现在") and names another value is an
        # update however near in meaning: similarity cannot tell the two apart
        changed = LEXICON.has_change_cue(c.object) or LEXICON.has_change_cue(c.context)
        restated = restated_guess(c, key, view, vec, self.meaning) if active is None else None
        for f in current if restated is None else [*current, restated]:  # resolve_pending
            same = said_again(f, c, restated)
            sim = 1.0 if same else _cos(f.embedding, vec)
            if same or (
                sim >= p.near_duplicate and not changed and not changed_value(f, c)
                and not self._unread_apart(f, c)  # the cosine did not read what differs
            ):  # fmt: skip
                reason = "same_value" if same else "near_duplicate_same_key"
                if f.status is not FactStatus.PENDING or cites_turn(f, c):
                    return fold(f, reason, {
                        "similarity": round(sim, 4), "occurrences": f.occurrences + 1
                    })  # fmt: skip
                updated = seen_again(f, event, now)
                promote = self._promotion_reason(updated, c.confirmed, c.confidence > f.confidence)
                if promote is None:
                    return out(
                        ResolutionAction.PENDING,
                        "awaiting_evidence",
                        [updated],
                        {"sessions": len(updated.session_ids)},
                    )
                promoted = updated.model_copy(
                    update={"status": FactStatus.ACTIVE, "recorded_at": now}
                )
                siblings = other_readings(f, view, now) if c.confirmed else []
                if active is not None:
                    done = supersede(active, promoted, now, out, promote)
                    return with_writes(done, siblings)
                return out(ResolutionAction.ADD, promote, [promoted, *siblings])

        # 4. near-duplicate under another key (different wording, same fact)
        details: dict[str, str | int | float] = {}
        for f, sim in view.nearest(
            c.tenant_id, c.user_id, vec, k=_NEAR_PROBE, statuses=_NEAR_STATUSES
        ):
            if f.key == key:
                continue
            if (
                sim >= p.near_duplicate
                and f.type == c.type
                and not changed
                and not changed_value(f, c)  # one frame, another value: not a repeat
                and not adds_another(f.value, c.object)  # "also", another day: another fact
                and not self._unread_apart(f, c)  # differs where the encoder read nothing
                and not persons_apart(f, c)  # "我妈妈每天…" after "我每天…": her fact
            ):
                return fold(f, "near_duplicate", {"similarity": round(sim, 4), "of": f.fact_id})
            if sim >= p.ambiguous:
                # flagged for the consolidation pass, not resolved on the hot path
                details = {"consolidate_with": f.fact_id, "similarity": round(sim, 4)}
                break
        # 4b. the same clause in other words (paraphrase), read on slots, anchors and terms
        para = self._paraphrase_of(c, key, view)
        if para is not None:
            return fold(para, "same_clause", {"of": para.fact_id})
        # 4c. the same slot and value in other words under another key (resolve_paraphrase)
        folded = fold_target(c, key, view, vec, meaning=self.meaning)
        if folded is None:  # the same read without the reason said with it (resolve_restate)
            folded = fold_target_of_core(c, key, view, vec, self.meaning)
        if folded is not None and not persons_apart(folded.fact, c):  # "My husband plays ..."
            return fold(folded.fact, "paraphrase", {
                "of": folded.fact.fact_id, "match": folded.why,
                "similarity": round(folded.similarity, 4),
            })  # fmt: skip
        # 4d. a stored fact said again as one clause of a longer sentence (resolve_clause)
        clause = clause_fold_target(c, key, view, self.meaning)
        if clause is not None:
            return fold(clause.fact, "paraphrase", {
                "of": clause.fact.fact_id, "match": clause.why,
                "similarity": round(clause.similarity, 4),
            })  # fmt: skip
        # 4e. a sentence the speaker says is a repeat: the fact it repeats (resolve_repeat)
        rep = repeat_target(c, view, vec, self.meaning)
        if rep is not None:
            return fold(rep.fact, "repeat", {
                "of": rep.fact.fact_id, "match": rep.why, "similarity": round(rep.similarity, 4)
            })  # fmt: skip

        # 4f. a second value of one single-valued key in one turn: one thing said twice
        twice = said_twice(c, existing, now) if not changed else None
        if twice is not None:
            return out(ResolutionAction.DUPLICATE, "said_twice", twice, {"turn": turn_id})
        new = self._new_fact(event, key, vec, search_vec, now)

        # 5. an inference that needs confirmation or repeated evidence
        needs_evidence = (
            c.confidence < p.explicit_confidence or c.type in p.confirmation_required_types
        ) and not c.confirmed
        if c.type in p.success_required_types and c.outcome != "success" and not c.confirmed:
            needs_evidence = True
        if needs_evidence and p.min_sessions > 1:
            if pending:
                # a different pending value under the key: keep both as candidates
                details["other_pending"] = len(pending)
            pend = new.model_copy(update={"status": FactStatus.PENDING})
            return out(ResolutionAction.PENDING, "needs_confirmation_or_evidence", [pend], details)
        if needs_evidence and p.min_sessions <= 1 and c.type in p.confirmation_required_types:
            pend = new.model_copy(update={"status": FactStatus.PENDING})
            return out(ResolutionAction.PENDING, "needs_confirmation", [pend], details)

        # 5b. a confirmed value for a key that holds one pending guess and no current
        # value: the value the user confirmed closes the guess ("je crois que ... thé au
        # café", then, confirmed, "je préfère le thé")
        if c.confirmed and active is None and len(pending) == 1:
            return supersede(pending[0], new, now, out, "confirmed_value", details)
        # 5c. the same, the guess said under another key ("我好像是用安卓手机的" -> "对，我用的是…")
        guess = confirmed_guess(c, key, view, vec) if active is None else None
        if guess is not None:
            details.update({"match": guess.why, "similarity": round(guess.similarity, 4)})
            return supersede(guess.fact, new, now, out, "confirmed_value", details)
        # 6. a new value for a key that has one: supersede
        if active is not None:
            done = supersede(active, new, now, out, "new_value", details)
            return with_stale(c, done, view)
        # 7. the same thing said in other words under another key ("my new boss is Tom")
        match = semantic_target(c, key, view, vec, p.ambiguous, meaning=self.meaning)
        if match is not None and not other_thing(match.fact, c):
            details.update({"similarity": round(match.similarity, 4), "match": match.why})
            done = supersede(match.fact, new, now, out, "semantic_update", details)
            return with_stale(c, done, view)
        wish = wish_update_target(c, key, view, vec)
        if wish is not None and not other_thing(wish.fact, c):
            details.update({"similarity": round(wish.similarity, 4), "match": wish.why})
            done = supersede(wish.fact, new, now, out, "semantic_update", details)
            return with_stale(c, done, view)
        slot = slot_update_target(c, key, view, vec)
        if slot is not None and not other_thing(slot.fact, c):
            details.update({"similarity": round(slot.similarity, 4), "match": slot.why})
            done = supersede(slot.fact, new, now, out, "slot_update", details)
            return with_stale(c, done, view)
        masked = change_target(c, key, view, vec, self.meaning) if self.slotmask else None
        if masked is not None and not other_thing(masked.fact, c):
            details.update({"similarity": round(masked.similarity, 4), "match": masked.why})
            done = supersede(masked.fact, new, now, out, "semantic_update", details)
            return with_stale(c, done, view)
        late = stale_on_arrival(c, view)
        if late is not None:
            # an older statement arriving after the change that makes it stale
            details["stale_by"] = late.fact_id
            pend = new.model_copy(update={"status": FactStatus.PENDING})
            return out(ResolutionAction.PENDING, "implied_stale", [pend], details)
        # 8. no rule found a target: the same fact said again among the nearest facts
        # (resolve_same: the rules' guards, then the pair classifier or usem; a fold only)
        near = nearest_of(view, c, vec, _NEAR_PROBE, _NEAR_STATUSES)
        again = same_target(c, key, near, self.relation_model or RelationModel.load(), self.meaning)
        if again is not None and not other_thing(again.fact, c):
            return fold(again.fact, "same_fact", {
                "of": again.fact.fact_id, "match": f"same:{SAME.mode}",
                "sureness": round(again.probability, 4), "similarity": round(again.similarity, 4),
            })  # fmt: skip
        if self.relation_model is not None:
            # 9. the learned pair classifier reads the nearest facts
            hit = learned_target(self.relation_model, c, key, near)
            if hit is not None and not other_thing(hit.fact, c):
                details.update({
                    "relation": hit.relation, "probability": round(hit.probability, 4),
                    "similarity": round(hit.similarity, 4), "model": self.relation_model.version,
                })  # fmt: skip
                if hit.relation == "same":
                    details.update(
                        {"of": hit.fact.fact_id, "occurrences": hit.fact.occurrences + 1}
                    )
                    return fold(hit.fact, "relation_same", details)
                done = supersede(hit.fact, new, now, out, "relation_update", details)
                return with_stale(c, done, view)
        # 10. a plain change of one single-valued slot in words of no family (slot_conflict)
        moved = changed_slot(c, new, view)
        if moved is not None and not other_thing(moved, c):
            details.update({"of": moved.fact_id, "match": "slot_hint"})
            return with_stale(c, supersede(moved, new, now, out, "slot_changed", details), view)
        # 11. a change cue, and the one fact the relation model reads as replaced (resolve_cued)
        cued = (
            cued_target(c, key, nearest_of(view, c, vec, _CUED_PROBE, _NEAR_STATUSES),
                        self.meaning, self.relation_model or RelationModel.load())
            if self.slotmask and self.meaning is not None and says_change(c) else None
        )  # fmt: skip
        if cued is not None and not other_thing(cued.fact, c):
            details.update({"similarity": round(cued.similarity, 4), "match": cued.why})
            return with_stale(c, supersede(cued.fact, new, now, out, "cued_update", details), view)
        return out(ResolutionAction.ADD, "new_key", [new], details)

    # --------------------------------------------------------------- helpers

    def _prepared(
        self, event: RedactedCandidate
    ) -> tuple[RedactedCandidate, dict[str, str | int | float]]:
        """The candidate as :meth:`resolve` reads it (a trusted source's confidence raised,
        the subject made canonical), and the trust details of its decision."""
        c = event.candidate
        # A claimed source raises confidence only when the policy's allow-list trusts it.
        trusted = self.policy.trusted_source(c.tenant_id, c.source)
        trust: dict[str, str | int | float] = {}
        if trusted is not None:
            c = c.model_copy(update={"confidence": 1.0})
            event = event.model_copy(update={"candidate": c})
            trust = {"trusted_source": trusted}
        elif c.source:
            trust = {"source": "untrusted"}
        subject = possessed_subject(LEXICON.canonical_subject(c.subject))
        if subject != c.subject:
            # a pronoun subject an extractor left ("on", "wir") is the team or the user
            c = c.model_copy(update={"subject": subject})
            event = event.model_copy(update={"candidate": c})
        return event, trust

    def read_plan(self, event: RedactedCandidate, vec: np.ndarray) -> ReadPlan:
        """The reads :meth:`resolve` will read ahead for ``event`` with statement vector
        ``vec`` (empty: none, a policy gate or a reference decides first), for reading the
        plans of several candidates together (:mod:`memgate.streams.dedupe_batch`). Only a
        hint: a read it does not list is read on its own, as without it."""
        if event.candidate.tenant_id in self.tenant_policies:
            return self.for_tenant(event.candidate.tenant_id).read_plan(event, vec)
        c = self._prepared(event)[0].candidate
        p = self.policy
        if c.confidence < p.min_confidence or is_reference(c):
            return ReadPlan()
        if p.save_after_success and c.outcome == "failure" and not c.confirmed:
            return ReadPlan()
        return self._read_plan(c, _key_of(c), vec)

    def _read_plan(self, c: CandidateFact, key: str, vec: np.ndarray) -> ReadPlan:
        """The reads of steps 2 to 4b, as :meth:`resolve` and its helpers make them
        (answered together where the view can read ahead; a read left out, or changed
        without changing this, is only read on its own, never answered otherwise)."""
        t, u = c.tenant_id, c.user_id
        legacy = legacy_fact_id(key, c.object, c.source_turn_ids[0])
        reads: list[ByKey | BySubject | Nearest] = [ByKey(t, u, key)]
        reads += [
            ByKey(t, u, erased_key(c, m)) for m in candidate_marks(c, key, legacy, self.erasure_key)
        ]
        if not c.retracts:
            reads += [
                Nearest.of(t, u, vec, k=_ABSORB_PROBE, statuses=_ABSORB_STATUSES),
                Nearest.of(t, u, vec, k=_NEAR_PROBE, statuses=_NEAR_STATUSES),
            ]
        reads += [
            BySubject.of(t, u, s, statuses=(FactStatus.ACTIVE,), qualified=True, vectors=False)
            for s in _paraphrase_subjects(c)
        ]
        if not c.retracts:  # the closed facts that may cite the turn (_folded_when_open)
            reads += [
                BySubject.of(t, u, s, statuses=_CLOSED, qualified=True, vectors=False)
                for s in _OWNERS
            ]
        return ReadPlan(tuple(reads))

    def _paraphrase_of(self, c: CandidateFact, key: str, view: FactView) -> StoredFact | None:
        """An active fact of the same speaker saying what ``c`` says in other words."""
        for subject in _paraphrase_subjects(c):
            # read for the text alone (every active fact of the speaker, per candidate): the
            # one found is read again by key, with its vectors, before it is written back
            for f in view.by_subject(
                c.tenant_id, c.user_id, subject, statuses=(FactStatus.ACTIVE,), qualified=True,
                vectors=False,
            ):  # fmt: skip
                if (
                    f.key != key
                    # seen after c: no target, unless it cites c's turn (a redelivery)
                    and (f.last_seen <= c.turn_ts or cites_turn(f, c))
                    and same_clause(f, c)
                    and not persons_apart(f, c)  # another person's fact (resolve_restate)
                    and not other_persons(f.value, c.object)
                    and not adds_another(f.value, c.object)
                ):
                    full = [g for g in view.by_key(c.tenant_id, c.user_id, f.key)
                            if g.fact_id == f.fact_id]  # fmt: skip
                    if full:
                        return full[-1]
        return None

    def _absorbed_by(
        self,
        c: CandidateFact,
        key: str,
        existing: list[StoredFact],
        view: FactView,
        value_n: str,
        vec: np.ndarray,
    ) -> StoredFact | None:
        """The fact that already holds this candidate's turn for the same statement.

        A first delivery folds the candidate into a fact that then cites its turn:
        a new fact or one of its key with the same value (added, counted, kept as
        history), one of its key with a near-duplicate value (step 3), or a
        near-duplicate under another key (step 4), whatever that fact's status is
        now (a later turn may have superseded or retracted it). Finding it makes a
        redelivery a no-op, so a turn counts at most once towards a fact.
        Retractions are recognised by their marker instead (:func:`retract`).
        """
        near = self.policy.near_duplicate
        for f in existing:
            if cites_turn(f, c) and (
                normalise(f.value) == value_n or (not c.retracts and _cos(f.embedding, vec) >= near)
            ):
                return f
        if c.retracts:
            return None
        for f, sim in view.nearest(
            c.tenant_id, c.user_id, vec, k=_ABSORB_PROBE, statuses=_ABSORB_STATUSES
        ):
            if sim < near:
                break
            if f.key != key and f.type == c.type and cites_turn(f, c):
                return f
        return self._folded_when_open(c, key, view, vec)

    def _folded_when_open(
        self, c: CandidateFact, key: str, view: FactView, vec: np.ndarray
    ) -> StoredFact | None:
        """A fact closed since that the first delivery of ``c`` was folded into in other
        words (``same_clause``, ``paraphrase``: steps 4b and 4c read active facts only):
        among the speaker's superseded facts that cite ``c``'s turn, the one those steps
        find, read again by key with its vectors."""
        t, u = c.tenant_id, c.user_id
        cited = {
            f.fact_id: f.key
            for s in _OWNERS
            for f in view.by_subject(t, u, s, statuses=_CLOSED, qualified=True, vectors=False)
            if f.key != key and cites_turn(f, c)
        }
        if not cited:
            return None
        closed = CitedFacts([g for k in set(cited.values()) for g in view.by_key(t, u, k)
                             if g.fact_id in cited])  # fmt: skip
        para = self._paraphrase_of(c, key, closed)
        folded = fold_target(c, key, closed, vec, meaning=self.meaning) if para is None else None
        if para is None and folded is None:
            folded = fold_target_of_core(c, key, closed, vec, self.meaning)
        return para if folded is None else folded.fact

    def _unread_apart(self, f: StoredFact, c: CandidateFact) -> bool:
        """``f`` and ``c`` differ in what the embedder could not read ([UNK]: most Chinese
        characters for MiniLM): their cosine cannot make them one fact
        (:mod:`memgate.core.embedding_unseen`)."""
        return unseen_apart(unseen_of(self.embedder), f.text, c.text())

    def _promotion_reason(
        self, f: StoredFact, confirmed: bool | None, firmer: bool = False
    ) -> str | None:
        """Why the pending ``f``, said again, becomes active: the turn was confirmed, the
        fact is now seen in ``min_sessions`` sessions, or it was said again more firmly
        than before (``firmer``) and now at ``explicit_confidence`` or above ("We're moving
        to Lyon in March, the lease is signed" after "I think we're moving to Lyon in
        March": a belief, then a statement)."""
        if confirmed:
            return "promoted_confirmed"
        if firmer and f.confidence >= self.policy.explicit_confidence:
            return "promoted_stated"
        if len(f.session_ids) >= self.policy.min_sessions:
            return "promoted_repeated_evidence"
        return None

    def _new_fact(
        self,
        event: RedactedCandidate,
        key: str,
        vec: np.ndarray,
        search_vec: np.ndarray | None,
        now: datetime,
    ) -> StoredFact:
        c = event.candidate
        return StoredFact(
            fact_id=fact_id_for(key, c.object, c.source_turn_ids[0], self.erasure_key),
            tenant_id=c.tenant_id,
            user_id=c.user_id,
            key=key,
            type=c.type,
            subject=c.subject,
            predicate=c.predicate,
            value=c.object,
            text=c.text(),
            status=FactStatus.ACTIVE,
            confidence=c.confidence,
            valid_from=c.valid_from or c.turn_ts,
            valid_to=c.valid_to,
            recorded_at=now,
            occurrences=1,
            session_ids=[c.session_id],
            first_seen=c.turn_ts,
            last_seen=c.turn_ts,
            source_turn_ids=list(c.source_turn_ids),
            extractor=c.extractor,
            extractor_version=c.extractor_version,
            policy_version=self.policy.version,
            rationale=c.rationale,
            context=c.context,
            embedding=[float(x) for x in vec],
            search_embedding=None if search_vec is None else [float(x) for x in search_vec],
        )
