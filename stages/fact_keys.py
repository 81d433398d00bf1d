"""The keys and ids of facts, and of the tombstones a deletion request leaves.

A fact's key (:func:`fact_key`) is what the dedupe stage
(:mod:`memgate.stages.dedupe`) resolves on: tenant + user + normalised
subject + predicate (plus the normalised value for multi-valued predicates).
Its id (:func:`fact_id_for`) is deterministic, so a candidate replayed on
any worker makes the same one, and keyed: a digest (HMAC-SHA256) under the
deployment's key (:mod:`memgate.keys`, the key that names the tombstones deletion
requests leave), so that no one holding the retrieval store and a turn id (the
audit's decisions name turns) can confirm a guess of a fact's value, an erased
one included, by recomputing its id. Without a key (a stage built in code without
one, the unit tests), ids are the unkeyed digest of :func:`legacy_fact_id`, as
before: every pipeline memgate builds (:func:`memgate.backends.build_pipeline`)
passes the key. Facts stored with legacy ids keep them: they are found by key
and turn, never by recomputing their id.
"""

from __future__ import annotations

from memgate.core.events import CandidateFact, StoredFact, content_hmac, normalise, stable_id

__all__ = [
    "DELETED_VALUE",
    "FACT_ID_CHARS",
    "cites_turn",
    "fact_id_for",
    "fact_key",
    "legacy_fact_id",
]

#: What a fact's value becomes when the user asks for it to be deleted.
DELETED_VALUE = "[deleted at the user's request]"

#: How many hex characters of its digest a fact id keeps (96 bits).
FACT_ID_CHARS = 24


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


def fact_id_for(key: str, value: str, first_turn_id: str, id_key: bytes = b"") -> str:
    """The id of the fact a candidate of ``key`` and ``value`` from ``first_turn_id``
    makes: the same on every worker and in every replay under one deployment key.

    Keyed (HMAC-SHA256 under ``id_key``, the deployment's key) when there is one, so
    that the id confirms no guess of the value to whoever lacks the key; without one,
    the unkeyed :func:`legacy_fact_id` (which does).

    >>> a = fact_id_for("acme/u1/user/likes/jazz", "Jazz!", "t1", b"k" * 32)
    >>> a == fact_id_for("acme/u1/user/likes/jazz", "jazz", "t1", b"k" * 32)
    True
    >>> a == fact_id_for("acme/u1/user/likes/jazz", "jazz", "t1", b"j" * 32)
    False
    >>> a == legacy_fact_id("acme/u1/user/likes/jazz", "jazz", "t1"), len(a)
    (False, 24)
    """
    if not id_key:
        return legacy_fact_id(key, value, first_turn_id)
    text = "\x1f".join(("fact", key, normalise(value), first_turn_id))
    return content_hmac(id_key, text)[:FACT_ID_CHARS]


def legacy_fact_id(key: str, value: str, first_turn_id: str) -> str:
    """The unkeyed id facts had before ids were keyed (and have without a key): a
    SHA-256 of the key, the normalised value and the first turn id, which anyone can
    recompute from a guess. Still made for the tombstones named by it (left without a
    key, or before tombstone names were keyed:
    :func:`memgate.stages.resolve_forget.erased_tombstone`)."""
    return stable_id("fact", key, normalise(value), first_turn_id, length=FACT_ID_CHARS)


def cites_turn(f: StoredFact, c: CandidateFact) -> bool:
    """``f`` already names ``c``'s turn among its sources: the turn was applied to it
    (``f`` was made from it, or it was folded into ``f``), so a turn counts at most once
    towards a fact and a redelivery of it is a replay."""
    return c.source_turn_ids[0] in f.source_turn_ids
