"""Two active facts of one single-valued slot served for one query: the newer first.

A change said in new words ("Monday was my first day at Spotify" after "I work at
Zalando") may be left beside the fact it replaces: the resolver finds no slot in it, and
reading more changes at write time cost LoCoMo recall. At read time nothing is lost:
among the hits of one search, an older fact whose single-valued family
(``memgate/data/resolution.json``) is known and a newer fact of the same owner that says
the same family, or says a change and names no family, are in conflict. The newer is
lifted right above the older, which is served right below it (the hits between move one
place down, none leaves the list), and the older's explanation says so; nothing is
deleted or superseded. At an ``as_of`` search the facts valid then are
compared, so the latest valid at ``as_of`` is first.

Never reordered (:func:`conflict`): a multi-valued family or predicate (languages,
hobbies, children, allergies), a statement that adds a value ("also", "auch", "也"),
another person's fact (a person the older fact does not name), a hedge or plan
("maybe", "quizás") and a state of the moment ("this week I'm in Lisbon"). The words are
the data of ``memgate/data/read_conflict.json`` and the lists it names; the slot identity
is :mod:`memgate.stages.slot_conflict`'s, which the write path shares (a change plain
enough is closed at once there: ``slot_changed``).

The module is pure: :func:`conflict_order` takes the facts of a ranked list (any store's:
both the embedded index and OpenSearch pass through :meth:`memgate.recall.Recall.rank`)
and returns the new order, which positions moved and why.

>>> from datetime import UTC, datetime
>>> from memgate.core.events import FactStatus, FactType, StoredFact
>>> def fact(i, pred, value, day):
...     t = datetime(2025, 1, day, tzinfo=UTC)
...     return StoredFact.model_construct(
...         fact_id=i, subject="user", predicate=pred, value=value, text=value,
...         type=FactType.FACT, status=FactStatus.ACTIVE, valid_from=t, valid_to=None)
>>> old = fact("a", "works_at", "Zalando", 1)
>>> new = fact("b", "statement", "Desde la semana pasada estoy en Mercado Libre", 20)
>>> r = conflict_order([old, new], [0.6, 0.5], datetime(2025, 2, 1, tzinfo=UTC))
>>> r.order, r.below
([1, 0], {0: ('b', 'employer')})
>>> add = fact("c", "statement", "I also work at a bakery on weekends", 20)
>>> conflict_order([old, add], [0.6, 0.5], datetime(2025, 2, 1, tzinfo=UTC)).order
[0, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memgate.core.events import FactStatus, StoredFact
from memgate.stages.slot_conflict import (
    ConflictRules,
    anchor,
    conflict,
    newcomer,
    pair,
)

__all__ = ["ConflictRules", "Reorder", "conflict", "conflict_order"]


def _current(f: StoredFact, ref: datetime) -> bool:
    """Active and valid at ``ref``; a fact built without its times or words (a hit of a
    store double) is compared with nothing."""
    d = vars(f)
    if any(d.get(k) is None for k in ("status", "valid_from", "predicate", "value", "subject")):
        return False
    return (
        f.status is FactStatus.ACTIVE
        and f.valid_from <= ref
        and (f.valid_to is None or f.valid_to > ref)
    )


@dataclass(frozen=True)
class Reorder:
    """The new order of a ranked list (old positions, best first) and, per old position
    served below a newer fact of its slot, that fact's id and the slot's family."""

    order: list[int]
    below: dict[int, tuple[str, str]] = field(default_factory=dict)


def conflict_order(
    facts: Sequence[StoredFact],
    relevance: Sequence[float | None],
    ref: datetime,
    rules: ConflictRules | None = None,
) -> Reorder:
    """The order of ``facts`` (ranked best first) with each newer value of a slot lifted
    right above the older one it conflicts with (:func:`conflict`); the hits between move
    one place down, the others keep their places. Only facts current at ``ref`` (active,
    valid then) and at least ``min_relevance`` near the query are compared."""
    rules = rules or ConflictRules.default()
    n = len(facts)
    near = [
        _current(f, ref) and (r is None or r >= rules.min_relevance)
        for f, r in zip(facts, relevance, strict=True)
    ]
    # each fact is read once, as an older value (a family) and as a newer one; each newer
    # fact joins the best-ranked older fact it conflicts with: one group per older anchor,
    # whose positions its members fill newest first
    anchors = {i: anchor(facts[i], rules) for i in range(n) if near[i]}
    group: dict[int, int] = {}
    fams: dict[int, str] = {}
    for j in range(n):
        says = newcomer(facts[j], rules) if near[j] else None
        if says is None:
            continue
        for i in range(j):
            fam = anchors.get(i)
            if fam is None or i in group or not pair(facts[i], facts[j], fam, says):
                continue
            group[j] = i
            fams[i] = fam.name
            break
    if not group:
        return Reorder(list(range(n)))
    members: dict[int, list[int]] = {}
    for j, i in group.items():
        members.setdefault(i, [i]).append(j)
    # each group as one block at its older anchor's place, newest first: the hits between
    # move one place down per newer fact lifted, the older stays right below the newer
    order: list[int] = []
    below: dict[int, tuple[str, str]] = {}
    for p in range(n):
        if p in group:
            continue
        ms = members.get(p)
        if ms is None:
            order.append(p)
            continue
        newest_first = sorted(ms, key=lambda k: (-facts[k].valid_from.timestamp(), k))
        order.extend(newest_first)
        top = newest_first[0]
        for k in newest_first[1:]:
            below[k] = (facts[top].fact_id, fams[p])
    return Reorder(order, below)
