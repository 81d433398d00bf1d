"""Turn ids: a replay changes nothing, a turn id reused for another turn is refused.

``turn_id`` is the idempotency key of a turn within its tenant. The same turn
delivered again (same user, same content) is a *replay*; a turn that comes
with an id already used for a different turn (other content, or another
user) is a *conflict*: processing it would overwrite the first turn's journal
row and leave facts citing a journal row that does not hold their text, so it
is refused (``turn_id_conflict``): the in-process runner reports it like a
malformed line, a worker sends it to the dead-letter topic.

Turns are compared by the keyed digest of their content
(:func:`memgate.core.events.content_hmac`) and their user, looked up in a
:class:`TurnLedger`:

* the embedded retrieval store's ``turns`` table (:class:`memgate.sinks.embedded.EmbeddedIndex`),
  written in the same transaction as the turn's facts: an indexed lookup in
  the file the runner writes anyway, and exact after a crash (a turn is in
  the ledger if and only if its facts and audit rows are stored);
* otherwise the audit journal (:class:`JournalLedger`), which holds the same
  digest for every turn journaled.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol, runtime_checkable

from memgate.core.errors import PermanentError
from memgate.core.events import ERASED_TURN_DIGEST, TurnEvent
from memgate.core.stores import AuditStore
from memgate.sinks.audit_ledger import LEDGER_SQL, ledger_answer

__all__ = [
    "BatchStore",
    "JournalLedger",
    "TurnIdConflict",
    "TurnLedger",
    "TurnState",
    "check_turn",
    "check_turns",
    "classify_turn",
]

#: What a ledger knows of an applied turn: (user id, keyed content digest).
Seen = tuple[str, str]


class TurnIdConflict(PermanentError):
    """A turn id already used by the tenant for a different turn."""

    #: the dead-letter reason and the runner's error reason
    reason = "turn_id_conflict"

    def __init__(self, turn: TurnEvent) -> None:
        super().__init__(
            f"turn {turn.tenant_id}/{turn.turn_id}: turn_id conflict: this turn id was already "
            "used for a different turn (other content or user); refused. A new turn needs a "
            "new turn_id"
        )
        self.tenant_id = turn.tenant_id
        self.turn_id = turn.turn_id


class TurnState(StrEnum):
    NEW = "new"
    REPLAY = "replay"
    CONFLICT = "conflict"


def classify_turn(turn: TurnEvent, digest: str, seen: Seen | None) -> TurnState:
    """New, replay or conflict, from what the ledger holds for the turn's id.

    A ledger entry without a digest (a journal row migrated from a store that
    kept an unkeyed hash) cannot tell: the turn is treated as new, and the
    dedupe stage's redelivery check applies as before. An entry whose digest was erased
    with a fact the turn made (:data:`~memgate.core.events.ERASED_TURN_DIGEST`) is a
    replay for its user: the turn was applied, and must not make the erased fact again.

    >>> from datetime import UTC, datetime
    >>> t = TurnEvent(tenant_id="a", user_id="u", session_id="s", turn_id="t1",
    ...               role="user", content="hi", ts=datetime(2024, 5, 1, tzinfo=UTC))
    >>> [classify_turn(t, "d1", s).value for s in (None, ("u", "d1"), ("u", "d2"), ("v", "d1"))]
    ['new', 'replay', 'conflict', 'conflict']
    >>> [classify_turn(t, "d1", s).value for s in (("u", "erased"), ("v", "erased"))]
    ['replay', 'conflict']
    """
    if seen is None or not seen[1]:
        return TurnState.NEW
    user_id, prior = seen
    if user_id == turn.user_id and prior in (digest, ERASED_TURN_DIGEST):
        return TurnState.REPLAY  # the same turn, or one whose fact was erased since
    return TurnState.CONFLICT


def check_turn(ledger: TurnLedger, turn: TurnEvent, digest: str) -> TurnState:
    """Look the turn's id up in ``ledger``; raise :class:`TurnIdConflict` on a conflict."""
    seen = ledger.seen_turns(turn.tenant_id, [turn.turn_id]).get(turn.turn_id)
    state = classify_turn(turn, digest, seen)
    if state is TurnState.CONFLICT:
        raise TurnIdConflict(turn)
    return state


def check_turns(
    ledger: TurnLedger, turns: Sequence[TurnEvent], digests: Sequence[str]
) -> list[TurnState | TurnIdConflict]:
    """:func:`check_turn` of several turns with one ledger query per tenant: each turn's
    state, or its :class:`TurnIdConflict` (not raised: it is that turn's alone)."""
    ids: dict[str, list[str]] = {}
    for t in turns:
        ids.setdefault(t.tenant_id, []).append(t.turn_id)
    seen = {tenant: ledger.seen_turns(tenant, these) for tenant, these in ids.items()}
    out: list[TurnState | TurnIdConflict] = []
    for t, digest in zip(turns, digests, strict=True):
        state = classify_turn(t, digest, seen[t.tenant_id].get(t.turn_id))
        out.append(TurnIdConflict(t) if state is TurnState.CONFLICT else state)
    return out


class TurnLedger(Protocol):
    def seen_turns(self, tenant_id: str, turn_ids: Sequence[str]) -> dict[str, Seen]:
        """turn id -> (user id, content digest), for the given turns that are known."""
        ...


@runtime_checkable
class BatchStore(Protocol):
    """A retrieval store with batches (transactions) and a ledger of applied turns.

    :class:`memgate.sinks.embedded.EmbeddedIndex` is one; with such a store the
    in-process runner commits facts only after the audit rows that explain them
    were written, and skips replays.
    """

    @property
    def in_batch(self) -> bool: ...

    def begin(self) -> None: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def savepoint(self, name: str) -> None: ...

    def release(self, name: str) -> None: ...

    def rollback_to(self, name: str) -> None: ...

    def seen_turns(self, tenant_id: str, turn_ids: Sequence[str]) -> dict[str, Seen]: ...

    def record_turns(self, turns: Sequence[tuple[str, str, str, str]]) -> None: ...


@runtime_checkable
class JournalReader(Protocol):
    """An audit store that reads the journal's turns itself (one query, its own statement)."""

    def journal_turns(self, tenant_id: str, turn_ids: Sequence[str]) -> dict[str, Seen]: ...


class JournalLedger:
    """The audit journal as a :class:`TurnLedger` (one row per tenant and turn id)."""

    def __init__(self, audit: AuditStore) -> None:
        self.audit = audit

    def seen_turns(self, tenant_id: str, turn_ids: Sequence[str]) -> dict[str, Seen]:
        ids = list(dict.fromkeys(turn_ids))
        if not ids:
            return {}
        if isinstance(self.audit, JournalReader):  # one engine query, no statement check
            return self.audit.journal_turns(tenant_id, ids)
        # the same statement and the same pick where a turn id has several rows (the most
        # recently ingested: memgate.sinks.audit_ledger), through the store's checked SQL
        _, rows = self.audit.query(LEDGER_SQL, {"tenant": tenant_id, "turns": ids})
        return ledger_answer(rows)
