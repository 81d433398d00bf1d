"""The latest assistant turn of each conversation, held for the user's answer to it.

A user's brief yes adopts the proposition the assistant just put to them
(:mod:`memgate.stages.proposal`). The triage step needs the assistant turn before it,
so it keeps, per tenant, user and session, the latest assistant turn: its text REDACTED
first (the journal's masked and sealed text: nothing raw is held), its id and its time.
The next user turn of the session answers it (once: a later yes answers nothing); a
turn older than ``max_age_s`` (event time) answers nothing either. Bounded: at most
``per_user`` sessions of a user and ``total`` turns in all, the oldest let go first.

A user's erasure clears what is held of them in every holder of the process
(:func:`forget_user`, called by :func:`memgate.receipts.erase_user`), as it clears the
text memos. The in-process runner and the Faust worker both hold it in their triage step
(:class:`memgate.streams.pipeline.TriageStep`): turns of one user come to one partition,
in order.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from memgate.core.events import TurnEvent

__all__ = ["DEFAULT_MAX_AGE_S", "Held", "HeldTurns", "forget_user"]

#: An assistant turn answered later than this (seconds, event time) is answered by nothing.
DEFAULT_MAX_AGE_S: Final = 1800.0

_Key = tuple[str, str, str]


@dataclass
class Held:
    """One assistant turn held: its id, when it was said, its redacted text."""

    turn_id: str
    ts: datetime
    text: str
    answered_by: str | None = None


class HeldTurns:
    """The latest assistant turn per tenant, user and session, bounded.

    >>> from memgate.core.events import TurnEvent
    >>> def t(i, role, s="s1", ts="2025-01-01T10:00:00Z"):
    ...     return TurnEvent(tenant_id="t", user_id="u", session_id=s, turn_id=i,
    ...                      role=role, content="x", ts=ts)
    >>> h = HeldTurns()
    >>> h.hold(t("a1", "assistant"), "Are you in Lyon?")
    >>> h.answered(t("u1", "user")).text, h.answered(t("u2", "user"))
    ('Are you in Lyon?', None)
    """

    def __init__(
        self, max_age_s: float = DEFAULT_MAX_AGE_S, per_user: int = 4, total: int = 10_000
    ) -> None:
        self.max_age_s = max_age_s
        self.per_user = per_user
        self.total = total
        self._held: OrderedDict[_Key, Held] = OrderedDict()
        self._lock = threading.Lock()
        with _ALL_LOCK:
            _ALL.add(self)

    def __len__(self) -> int:
        return len(self._held)

    def hold(self, turn: TurnEvent, redacted_text: str) -> None:
        """Hold ``turn`` (an assistant turn) by its redacted text, in place of the one before."""
        key = (turn.tenant_id, turn.user_id, turn.session_id)
        with self._lock:
            old = self._held.get(key)
            if old is not None and old.turn_id == turn.turn_id:
                return  # the same turn again (read ahead, then applied)
            self._held.pop(key, None)
            self._held[key] = Held(turn.turn_id, turn.ts, redacted_text)
            mine = [k for k in self._held if k[:2] == key[:2]]
            for k in mine[: max(0, len(mine) - self.per_user)]:
                del self._held[k]
            while len(self._held) > self.total:
                self._held.popitem(last=False)

    def answered(self, turn: TurnEvent) -> Held | None:
        """The assistant turn ``turn`` (a user turn) answers: the session's latest, not yet
        answered by another turn, said at most ``max_age_s`` before it."""
        key = (turn.tenant_id, turn.user_id, turn.session_id)
        with self._lock:
            held = self._held.get(key)
            if held is None or held.answered_by not in (None, turn.turn_id):
                return None
            held.answered_by = turn.turn_id
            age = (turn.ts - held.ts).total_seconds()
            return held if 0 <= age <= self.max_age_s else None

    def forget(self, tenant_id: str, user_id: str) -> int:
        """Let go of every turn held of the user; how many."""
        with self._lock:
            gone = [k for k in self._held if k[:2] == (tenant_id, user_id)]
            for k in gone:
                del self._held[k]
            return len(gone)


_ALL: weakref.WeakSet[HeldTurns] = weakref.WeakSet()
_ALL_LOCK = threading.Lock()


def forget_user(tenant_id: str, user_id: str) -> int:
    """Clear the user's held turns in every holder of the process (an erasure calls it)."""
    with _ALL_LOCK:
        holders = list(_ALL)
    return sum(h.forget(tenant_id, user_id) for h in holders)
