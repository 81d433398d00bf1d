"""The writes of a resolution: a fact seen again, a supersession and the facts it makes
stale, the other readings a confirmation closes (moved from :mod:`memgate.stages.dedupe`;
pure functions of the facts, the clock's ``now`` and the decision's ``out``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    FactStatus,
    RedactedCandidate,
    Resolution,
    ResolutionAction,
    StoredFact,
)
from memgate.core.stores import FactView
from memgate.stages.resolve_semantic import changed_predicate, implied_stale

__all__ = ["other_readings", "seen_again", "supersede", "with_stale", "with_writes"]


def seen_again(f: StoredFact, event: RedactedCandidate, now: datetime) -> StoredFact:
    c = event.candidate
    sessions = list(f.session_ids)
    if c.session_id not in sessions:
        sessions.append(c.session_id)
    turns = list(f.source_turn_ids)
    for t in c.source_turn_ids:
        if t not in turns:
            turns.append(t)
    return f.model_copy(
        update={
            "occurrences": f.occurrences + 1,
            "last_seen": max(f.last_seen, c.turn_ts),
            "session_ids": sessions,
            "source_turn_ids": turns,
            "confidence": max(f.confidence, c.confidence),
        }
    )


def other_readings(f: StoredFact, view: FactView, now: datetime) -> list[StoredFact]:
    """The other pending readings of the turn a confirmed inference came from.

    One remark ("my husband says I work too late") may leave several pending
    readings; the user's confirmation of one settles the turn, so the others are
    closed (kept as history, never served) instead of waiting forever.
    """
    first = f.source_turn_ids[0]
    out: list[StoredFact] = []
    for subject in ("user", "team"):
        for g in view.by_subject(
            f.tenant_id, f.user_id, subject, statuses=(FactStatus.PENDING,), qualified=True
        ):
            if g.fact_id != f.fact_id and g.source_turn_ids == [first]:
                out.append(
                    g.model_copy(
                        update={
                            "status": FactStatus.SUPERSEDED,
                            "valid_to": max(g.valid_from, f.valid_from),
                            "superseded_by": f.fact_id,
                            "superseded_at": now,
                        }
                    )
                )
    return out


def with_writes(
    done: list[Resolution | DecisionRecord], extra: list[StoredFact]
) -> list[Resolution | DecisionRecord]:
    if not extra or not isinstance(done[0], Resolution):
        return done
    return [done[0].model_copy(update={"writes": [*done[0].writes, *extra]}), *done[1:]]


def supersede(
    old: StoredFact,
    new: StoredFact,
    now: datetime,
    out: Callable[..., list[Resolution | DecisionRecord]],
    reason: str,
    details: dict[str, str | int | float] | None = None,
) -> list[Resolution | DecisionRecord]:
    details = dict(details or {})
    details["supersedes"] = old.fact_id
    if new.last_seen < old.first_seen:
        # A statement made before the current fact was, arriving late (a replay, a
        # backfill): it becomes history, closed by the current fact.
        hist = new.model_copy(
            update={
                "status": FactStatus.SUPERSEDED,
                "valid_to": max(new.valid_from, old.valid_from),
                "superseded_by": old.fact_id,
                "superseded_at": now,
            }
        )
        details.pop("supersedes")
        details["superseded_by"] = old.fact_id
        return out(ResolutionAction.SUPERSEDE, "older_than_current", [hist], details)
    # The newer statement wins. Its valid time may be vague ("last month") and even
    # precede the old fact's start; the old interval is then closed at its own start
    # rather than inverted.
    end = max(new.valid_from, old.valid_from)
    closed = old.model_copy(
        update={
            "status": FactStatus.SUPERSEDED,
            "valid_to": old.valid_to if old.valid_to and old.valid_to < end else end,
            "superseded_by": new.fact_id,
            "superseded_at": now,
        }
    )
    current = new.model_copy(update={"supersedes": old.fact_id, "status": FactStatus.ACTIVE})
    return out(ResolutionAction.SUPERSEDE, reason, [current, closed], details)


def with_stale(
    c: CandidateFact, done: list[Resolution | DecisionRecord], view: FactView
) -> list[Resolution | DecisionRecord]:
    """Add to a supersession the facts it makes stale (pending: to be confirmed)."""
    res, dec = done[0], done[1]
    if not isinstance(res, Resolution) or not isinstance(dec, DecisionRecord):
        return done
    if res.reason == "older_than_current" or not res.writes:
        return done
    # the change is of the new fact's predicate and of each one it closed: a move
    # said as an episode ("Dejé Telefónica; ahora estoy en BBVA") replaces works_at
    changed = [res.writes[0]] + [w for w in res.writes[1:] if w.status is FactStatus.SUPERSEDED]
    written = {w.fact_id for w in res.writes}
    stale: list[StoredFact] = []
    for predicate in dict.fromkeys(changed_predicate(w) for w in changed):
        for f in implied_stale(c, predicate, view, c.turn_ts):
            if f.fact_id not in written:
                written.add(f.fact_id)
                stale.append(f.model_copy(update={"status": FactStatus.PENDING}))
    if not stale:
        return done
    details = {
        **dec.details,
        "implied_stale": len(stale),
        "stale_facts": ",".join(f.fact_id for f in stale),
    }
    return [
        res.model_copy(update={"writes": [*res.writes, *stale]}),
        dec.model_copy(update={"details": details}),
    ]
