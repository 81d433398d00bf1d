"""The keys and ids of facts, and of the tombstones a deletion request leaves.

A fact's key (:func:`fact_key`) is what the dedupe stage
(:mod:`memgate.stages.dedupe`) resolves on: tenant + user + normalised
subject + predicate (plus the normalised value for multi-valued predicates).
Its id (:func:`fact_id_for`) is deterministic, so a candidate replayed on
any worker makes the same one.
"""

from __future__ import annotations

from memgate.core.events import normalise, stable_id

__all__ = ["DELETED_VALUE", "fact_id_for", "fact_key"]

#: What a fact's value becomes when the user asks for it to be deleted.
DELETED_VALUE = "[deleted at the user's request]"


def fact_key(
    tenant_id: str, user_id: str, subject: str, predicate: str, value: str | None = None
) -> str:
    """The stable key of a fact.

    >>> fact_key("acme", "u1", " The User ", "Prefers:Editor")
    'acme/u1/the user/prefers:editor'
    >>> fact_key("acme", "u1", "user", "likes", "Hiking!")
    'acme/u1/user/likes/hiking'
    """
    key = f"{tenant_id}/{user_id}/{normalise(subject)}/{normalise(predicate)}"
    if value is not None:
        key += "/" + normalise(value)
    return key


def fact_id_for(key: str, value: str, first_turn_id: str) -> str:
    """Deterministic: the same candidate replayed gets the same id on every worker."""
    return stable_id("fact", key, normalise(value), first_turn_id)
