"""What the user withdraws: retractions, and deletion requests, retractions and stops
that point at facts by topic (for :class:`memgate.stages.dedupe.Resolver`).

* :func:`retract`: "I no longer like hiking" closes the fact of its key (or the
  sentence naming it): validity ends, no successor, history kept.
* :func:`by_reference`: "please forget that I like jazz", "scratch that", "we
  stopped using Jenkins" close the facts their topic points at; a deletion
  request also erases their content, leaving a tombstone (ids and times only).

Both are pure, like the stage: what is stored is read through a
:class:`~memgate.core.stores.FactView`, and the verdict is made by the
resolver's ``out`` (a :class:`Resolution` and its :class:`DecisionRecord`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

import numpy as np

from memgate.core.embedding import Embedder
from memgate.core.embedding_unseen import Unseen, no_unseen, unseen_apart
from memgate.core.embedding_use import Meaning
from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    FactStatus,
    Resolution,
    ResolutionAction,
    StoredFact,
    content_hmac,
    normalise,
    stable_id,
)
from memgate.core.stores import FactView
from memgate.stages.fact_keys import DELETED_VALUE, fact_key
from memgate.stages.reference_categories import by_category, other_category
from memgate.stages.reference_kinds import named_by_kind
from memgate.stages.references import is_previous, is_retracted_deletion, reference_op
from memgate.stages.resolve_residual import no_topic, residual_fact, residual_value
from memgate.stages.resolve_semantic import (
    DELETED_PREDICATE,
    cosine,
    referenced_facts,
    topic_namer,
)

__all__ = [
    "Out",
    "by_reference",
    "candidate_marks",
    "erased_key",
    "erased_tombstone",
    "erasure_mark",
    "reference_texts",
    "retract",
    "retraction_targets_in_sentences",
    "tombstone_mark",
    "turn_mark",
    "turn_tombstones",
]

#: The resolver's verdict maker: (action, reason, writes, details) -> resolution, decision.
Out = Callable[..., list[Resolution | DecisionRecord]]


def erased_key(c: CandidateFact, mark: str) -> str:
    """The key of a tombstone of ``c``'s owner: ``mark`` is the erased fact's
    :func:`erasure_mark` (or, for a tombstone left without a key, its fact id)."""
    return fact_key(c.tenant_id, c.user_id, "user", DELETED_PREDICATE, mark)


def erasure_mark(key: bytes, tenant_id: str, user_id: str, fact_key_: str, value: str) -> str:
    """What names the tombstone of an erased fact: a keyed digest (HMAC-SHA256 under the
    deployment's key, :mod:`memgate.keys`, as the journal's) of its owner, key and
    normalised value, which every candidate that would make that fact again computes
    (the turn it came from is no part of it, and no digest anyone can compute without
    the key: an unkeyed one would let a guess of the erased value be confirmed).

    >>> a = erasure_mark(b"k" * 32, "acme", "u1", "acme/u1/user/likes/jazz", "Jazz!")
    >>> a == erasure_mark(b"k" * 32, "acme", "u1", "acme/u1/user/likes/jazz", "jazz")
    True
    >>> a == erasure_mark(b"j" * 32, "acme", "u1", "acme/u1/user/likes/jazz", "jazz")
    False
    """
    text = "\x1f".join(("erased", tenant_id, user_id, fact_key_, normalise(value)))
    return content_hmac(key, text)[:32]


def turn_mark(key: bytes, tenant_id: str, user_id: str, turn_id: str) -> str:
    """What names the tombstone an erased fact leaves for one of the turns it held
    (:func:`turn_tombstones`): a keyed digest of the owner and the turn id, which every
    candidate of that turn computes, whatever its key and value (the turn id is named in
    no tombstone in clear).

    >>> a = turn_mark(b"k" * 32, "acme", "u1", "t7")
    >>> a == turn_mark(b"k" * 32, "acme", "u1", "t7"), a == turn_mark(b"j" * 32, "acme", "u1", "t7")
    (True, False)
    """
    return content_hmac(key, "\x1f".join(("erased-turn", tenant_id, user_id, turn_id)))[:32]


def turn_tombstones(
    c: CandidateFact, f: StoredFact, gone: StoredFact, erasure_key: bytes
) -> list[StoredFact]:
    """The tombstones an erased fact ``f`` (its tombstone ``gone``) leaves for the turns it
    held besides the one that made it, each named by its :func:`turn_mark`.

    A turn folded into ``f`` under another key or value (a near-duplicate, a paraphrase)
    makes another :func:`erasure_mark` than ``f``'s, so its redelivery would not find
    ``gone``; it finds the tombstone of its turn (:func:`erased_tombstone`). Each is a copy
    of ``gone`` (no content, the same times, sessions and links), one occurrence, with an
    id that is a keyed digest of ``gone``'s and the turn's. None without a key (the turns
    could only be named in clear)."""
    if not erasure_key:
        return []
    return [
        gone.model_copy(
            update={
                "fact_id": content_hmac(
                    erasure_key, "\x1f".join(("erased-turn-row", gone.fact_id, turn))
                )[: len(gone.fact_id)],
                "key": erased_key(c, turn_mark(erasure_key, f.tenant_id, f.user_id, turn)),
                "occurrences": 1,
            }
        )
        for turn in dict.fromkeys(f.source_turn_ids[1:])
        if turn != f.source_turn_ids[0]
    ]


def tombstone_mark(f: StoredFact, key: bytes) -> str:
    """The mark of the tombstone a deletion request leaves for ``f``: its
    :func:`erasure_mark`, or its id when the resolver has no key."""
    if not key:
        return f.fact_id
    return erasure_mark(key, f.tenant_id, f.user_id, f.key, f.value)


def candidate_marks(c: CandidateFact, key: str, made: str, erasure_key: bytes) -> list[str]:
    """The tombstone marks a candidate looks under (:func:`erased_tombstone`): ``made``, the
    unkeyed id a fact it made had (:func:`~memgate.stages.fact_keys.legacy_fact_id`: a
    tombstone left without a key, or before tombstones were named by a keyed digest, is
    named by it) and, with a key, the :func:`turn_mark` of its turn, then the mark of a
    fact of its key and value."""
    if not erasure_key:
        return [made]
    t, u = c.tenant_id, c.user_id
    return [
        made,
        turn_mark(erasure_key, t, u, c.source_turn_ids[0]),
        erasure_mark(erasure_key, t, u, key, c.object),
    ]


def erased_tombstone(
    c: CandidateFact, key: str, made: str, view: FactView, erasure_key: bytes
) -> StoredFact | None:
    """The tombstone of a fact erased at the user's request that held ``c``'s turn.

    Found by the unkeyed id of the fact ``c`` made (``made``: a tombstone left without a
    key, from the turn that made the fact; keyed fact ids never name a tombstone), by the
    :func:`turn_mark` of ``c``'s turn (a turn the fact held besides the one that made it,
    folded in under any key or value: :func:`turn_tombstones`), or by the mark of ``c``'s
    key and value, then told from a
    later statement of the same thing by what the tombstone keeps of its turns: ``c``'s
    turn was said no later than the last one the fact held (``last_seen``), in one of its
    sessions. A statement of the same fact in one of those sessions before that time,
    arriving for the first time after the deletion, is taken as erased too: it is what
    the request asked to forget.
    """
    marks = candidate_marks(c, key, made, erasure_key)
    for mark in marks[:2]:  # the fact's unkeyed id, the turn's mark: this turn's own
        found = view.by_key(c.tenant_id, c.user_id, erased_key(c, mark))
        if found:
            return found[0]
    for mark in marks[2:]:
        for f in view.by_key(c.tenant_id, c.user_id, erased_key(c, mark)):
            if c.turn_ts <= f.last_seen and c.session_id in f.session_ids:
                return f
    return None


def reference_texts(c: CandidateFact) -> list[str]:
    """What resolving a reference (a retraction, a deletion request, a stop) embeds: its
    topic, compared with the stored facts (:func:`referenced_facts`)."""
    return [c.object]


def retraction_targets_in_sentences(
    c: CandidateFact,
    value_n: str,
    view: FactView,
    statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
) -> list[StoredFact]:
    """Facts (current ones by default) of the retraction's subject and predicate whose
    value is a sentence naming every word of the retracted value ("forget that I like
    jazz" withdraws ``likes: I like jazz, especially Coltrane``), checked on whole words."""
    words = set(value_n.split())
    predicate = normalise(c.predicate)
    return [
        f
        for f in view.by_subject(
            c.tenant_id,
            c.user_id,
            c.subject,
            statuses=statuses,
            qualified=normalise(c.subject) == "user",
        )
        if normalise(f.predicate) == predicate
        and normalise(f.value) != value_n
        and words <= set(normalise(f.value).split())
    ]


def retract(
    c: CandidateFact,
    existing: list[StoredFact],
    current: list[StoredFact],
    value_n: str,
    vec: np.ndarray,
    now: datetime,
    out: Out,
    near_duplicate: float,
    view: FactView,
    unseen: Unseen = no_unseen,
) -> list[Resolution | DecisionRecord]:
    """Close the fact the user withdraws: validity ends, no successor, history kept. A fact
    reached by its cosine alone must not differ from ``c`` in what the encoder could not
    read (``unseen``, :mod:`memgate.core.embedding_unseen`)."""
    marker = stable_id("retraction", c.candidate_id)
    if any(f.superseded_by == marker for f in existing):
        return out(ResolutionAction.DUPLICATE, "redelivered", [])
    # only what was last said before the retraction: a later statement stands, and
    # one of the same instant too (their order cannot be told, nor can a redelivered
    # retraction's: the outcome must not depend on the order they arrive in)
    targets = [
        f
        for f in current
        if f.last_seen < c.turn_ts
        and (
            normalise(f.value) == value_n
            or (
                cosine(f.embedding, vec) >= near_duplicate
                and not unseen_apart(unseen, f.text, c.text())
            )
            or not value_n
            or set(value_n.split()) <= set(normalise(f.value).split())  # named in a sentence
        )
    ]
    if not targets:
        if _erased_since(c, marker, view):
            return out(ResolutionAction.DUPLICATE, "redelivered", [])
        return out(ResolutionAction.REJECT, "nothing_to_retract", [])
    ends = c.valid_from or c.turn_ts
    closed = [
        f.model_copy(
            update={
                "status": FactStatus.SUPERSEDED,
                "valid_to": max(ends, f.valid_from),
                "superseded_by": marker,
                "superseded_at": now,
            }
        )
        for f in targets
    ]
    return out(ResolutionAction.SUPERSEDE, "retracted", closed, {"retracted": len(closed)})


def _erased_since(c: CandidateFact, marker: str, view: FactView) -> bool:
    """Whether a fact this retraction (``marker``) closed was erased since by a deletion
    request (said with it: "please forget that I like jazz" is both): the tombstone keeps
    the ids of what closed the fact (:func:`by_reference`), so a redelivered retraction
    finds it and does not decide again that there was nothing to retract."""
    return any(
        f.predicate == DELETED_PREDICATE and marker in f.source_turn_ids
        for f in view.by_subject(
            c.tenant_id, c.user_id, "user", statuses=(FactStatus.SUPERSEDED,), qualified=True
        )
    )


def by_reference(
    c: CandidateFact,
    view: FactView,
    now: datetime,
    out: Out,
    embedder: Embedder,
    erasure_key: bytes = b"",
    meaning: Meaning | None = None,
) -> list[Resolution | DecisionRecord]:
    """Close the facts a retraction, deletion request or stop points at by topic
    (``meaning``: usem, asked as :func:`referenced_facts` says)."""
    marker = stable_id("retraction", c.candidate_id)
    op = reference_op(c)
    retracted = is_retracted_deletion(c)
    for subject in ("user", "team"):
        closed_by = view.by_subject(
            c.tenant_id, c.user_id, subject, statuses=(FactStatus.SUPERSEDED,), qualified=True
        )
        if any(f.superseded_by == marker or marker in f.source_turn_ids for f in closed_by):
            return out(ResolutionAction.DUPLICATE, "redelivered", [])
    found = referenced_facts(c, view, embedder.embed(reference_texts(c))[0], meaning=meaning)
    if op == "delete" and not is_previous(c):
        found = _by_category(c, view, meaning, found)
    if not found and op != "stop" and not is_previous(c):
        found = named_by_kind(c, view, meaning)  # "seafood" for shellfish (reference_kinds)
        if op == "delete":  # a kind's word near a fact of another category names none
            found = [(f, why) for f, why in found if not other_category(c, f, meaning)]
    if not found:
        return out(ResolutionAction.REJECT, "nothing_referenced", [], {"op": op})
    ends = c.valid_from or c.turn_ts
    closed: list[StoredFact] = []
    left: list[StoredFact] = []
    named = topic_namer(c, no_topic())
    for f, why in found:
        # a fact the topic names only in part keeps the rest ("forget what I said about
        # Canal+" after "j'ai Netflix et Canal+"): memgate.stages.resolve_residual
        rest = (
            residual_value(f.value, named)
            if why == "topic_words" and f.status is not FactStatus.SUPERSEDED
            else None
        )
        if rest is not None:
            left.append(residual_fact(f, rest, marker, now, embedder))
        update: dict[str, object] = {
            "status": FactStatus.SUPERSEDED,
            "valid_to": max(ends, f.valid_from),
            "superseded_by": marker,
            "superseded_at": now,
        }
        if op == "delete":
            before = [f.superseded_by] if f.superseded_by and f.superseded_by != marker else []
            # a deletion request erases the content, key and subject included; the
            # closed row keeps ids and times only: the audit of the erasure
            update.update(
                {
                    "key": erased_key(c, tombstone_mark(f, erasure_key)),
                    "subject": "user",
                    "predicate": DELETED_PREDICATE,
                    # an explicit request: no link to the turn it was said in (the
                    # erasure's id stands for it, then the id of what closed the fact
                    # before, if anything: a retraction said with the request finds it
                    # when delivered again); a retraction still names that turn
                    "source_turn_ids": f.source_turn_ids if retracted else [marker, *before],
                    "supersedes": None,
                    "value": DELETED_VALUE,
                    "text": DELETED_VALUE,
                    "context": "",
                    "rationale": "",
                    "embedding": None,
                    "search_embedding": None,
                }
            )
        gone = f.model_copy(update=update)
        closed.append(gone)
        if op == "delete":
            closed += turn_tombstones(c, f, gone, erasure_key)
    reason = {"delete": "deletion_requested", "stop": "stopped_by_reference"}.get(
        op, "retracted_by_reference"
    )
    whys = sorted({why for _f, why in found})
    details: dict[str, str | int | float] = {
        "op": op, "closed": len(found), "matched_by": ",".join(whys)
    }
    if left:
        details["residuals"] = len(left)
    return out(ResolutionAction.SUPERSEDE, reason, closed + left, details)


def _by_category(
    c: CandidateFact,
    view: FactView,
    meaning: Meaning | None,
    found: list[tuple[StoredFact, str]],
) -> list[tuple[StoredFact, str]]:
    """What a deletion naming a category reaches (:mod:`memgate.stages.reference_categories`)
    when no word of its topic named a fact (nothing found, or one fact by bare similarity):
    the speaker's facts of that category; failing those, the fact found by similarity, only
    when it is not clearly of another category ("mon boulot" is not the climbing)."""
    if any(why != "similarity" for _f, why in found):
        return found
    named = by_category(c, view, meaning)
    if named is None:
        return found
    if named:
        return named
    return [(f, why) for f, why in found if not other_category(c, f, meaning)]
