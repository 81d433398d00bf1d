"""The user's tentative statements, held outside the fact store until confirmed.

A tentative statement ("I think I might be lactose intolerant", "我在考虑搬到上海") is no
fact: it is not stored as one (:mod:`memgate.stages.tentative`). The triage step holds its
plain form here, per tenant and user: the journal's masked and sealed text only (nothing
raw is held), its turn id, session and time. A later turn of the same user that confirms
it is read as the user stating it (:class:`memgate.streams.pipeline.TriageStep`); one that
withdraws it lets it go. Each is answered once (the same turn read twice gets the same
answer). Bounded: at most ``per_user`` statements of a user (the oldest let go first),
``total`` in all, and none older than ``max_age_s`` (event time) answers anything.

A user's erasure clears what is held of them in every holder of the process
(:func:`forget_user`, called by :func:`memgate.receipts.erase_user`), as it clears the
held assistant turns (:mod:`memgate.streams.proposals`).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass

from memgate.core.events import TurnEvent
from memgate.stages.tentative import HeldStatement, data

__all__ = ["HeldTentatives", "forget_user"]

_User = tuple[str, str]


@dataclass
class _Held:
    statement: HeldStatement
    answered_by: str | None = None


class HeldTentatives:
    """The latest tentative statements of each tenant's user, bounded.

    >>> from memgate.core.events import TurnEvent
    >>> def t(i, ts="2025-01-01T10:00:00Z"):
    ...     return TurnEvent(tenant_id="t", user_id="u", session_id="s1", turn_id=i,
    ...                      role="user", content="x", ts=ts)
    >>> h = HeldTentatives()
    >>> h.hold(t("u1"), "I'm lactose intolerant.")
    >>> [s.plain for s in h.open(t("u2", "2025-01-01T12:00:00Z"))]
    ["I'm lactose intolerant."]
    >>> h.answer(t("u2"), "u1"), h.open(t("u3", "2025-01-01T12:00:00Z"))
    (True, [])
    """

    def __init__(
        self,
        max_age_s: float | None = None,
        per_user: int | None = None,
        total: int | None = None,
    ) -> None:
        d = data()
        self.max_age_s = d.max_age_days * 86400.0 if max_age_s is None else max_age_s
        self.per_user = d.per_user if per_user is None else per_user
        self.total = d.total if total is None else total
        self._held: OrderedDict[_User, list[_Held]] = OrderedDict()
        self._lock = threading.Lock()
        with _ALL_LOCK:
            _ALL.add(self)

    def __len__(self) -> int:
        return sum(len(v) for v in self._held.values())

    def hold(self, turn: TurnEvent, plain: str) -> None:
        """Hold the plain form (masked) of ``turn``'s tentative statement."""
        key = (turn.tenant_id, turn.user_id)
        with self._lock:
            mine = self._held.pop(key, [])
            if any(h.statement.turn_id == turn.turn_id for h in mine):
                self._held[key] = mine  # the same turn again (read ahead, then applied)
                return
            mine.append(_Held(HeldStatement(turn.turn_id, turn.session_id, turn.ts, plain)))
            self._held[key] = mine[-self.per_user :]
            while len(self) > self.total:
                oldest = next(iter(self._held))
                self._held[oldest].pop(0)
                if not self._held[oldest]:
                    del self._held[oldest]

    def open(self, turn: TurnEvent) -> list[HeldStatement]:
        """The user's statements ``turn`` may answer, oldest first: said before it, at most
        ``max_age_s`` before, not answered by another turn."""
        with self._lock:
            mine = self._held.get((turn.tenant_id, turn.user_id), [])
            return [
                h.statement
                for h in mine
                if h.answered_by in (None, turn.turn_id)
                and h.statement.turn_id != turn.turn_id
                and 0 <= (turn.ts - h.statement.ts).total_seconds() <= self.max_age_s
            ]

    def answer(self, turn: TurnEvent, held_turn_id: str) -> bool:
        """Mark the statement of ``held_turn_id`` answered by ``turn``; False when it is no
        longer held or another turn answered it."""
        with self._lock:
            for h in self._held.get((turn.tenant_id, turn.user_id), []):
                if h.statement.turn_id == held_turn_id:
                    if h.answered_by not in (None, turn.turn_id):
                        return False
                    h.answered_by = turn.turn_id
                    return True
            return False

    def forget(self, tenant_id: str, user_id: str) -> int:
        """Let go of every statement held of the user; how many."""
        with self._lock:
            return len(self._held.pop((tenant_id, user_id), []))


_ALL: weakref.WeakSet[HeldTentatives] = weakref.WeakSet()
_ALL_LOCK = threading.Lock()


def forget_user(tenant_id: str, user_id: str) -> int:
    """Clear the user's held statements in every holder of the process (an erasure calls
    it)."""
    with _ALL_LOCK:
        holders = list(_ALL)
    return sum(h.forget(tenant_id, user_id) for h in holders)
