"""A guess said again in other words is the same guess: its evidence, not a second guess.

A hedged fact is stored pending ("Acho que usamos Jest para os testes", "Ich glaube, meine
Nachbarin heißt Frau Lindqvist": :mod:`memgate.stages.durable_frame`) until the user
confirms it or says it again in another session. Said again under the same key, the
resolver counts the occurrence and promotes the guess (``promoted_repeated_evidence``,
``promoted_confirmed``). But a restatement is rarely in the same words: another pronoun
form ("a gente usa" for "usamos"), a clause added ("..., so steht es jedenfalls am
Briefkasten"), and the extractor types it under another key. The fold paths that read a
restatement of an active fact (:func:`~memgate.stages.resolve_paraphrase.fold_target`:
the same slot and value in other words; :func:`~memgate.stages.resolve_clause.
clause_fold_target`: the fact said again as one clause of a longer sentence) read active
facts only, so the restated guess was stored as a second pending guess beside the first,
and neither was ever promoted.

:func:`restated_guess` runs the same fold paths over the owner's pending guesses said
before the candidate (read as a :class:`~memgate.stages.resolve_paraphrase.CitedFacts`
view, which answers whatever status is asked), with the same bars: the same owner, the
same polarity, the same names and numbers, no value swapped in one frame, near in meaning.
The resolver then treats the guess found as it treats a pending fact under the
candidate's own key: one more occurrence, promoted when the policy's evidence is met
(another session, or a confirmed turn). Two different values ("usamos Jest" / "usamos
Vitest") never fold, as for active facts; nor does a candidate that says something
changed. Only the candidate's own tenant and user are read.
"""

from __future__ import annotations

import numpy as np

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, FactStatus, StoredFact, normalise
from memgate.core.stores import FactView
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_clause import clause_fold_target
from memgate.stages.resolve_confirm import still_holds
from memgate.stages.resolve_paraphrase import CitedFacts, fold_target, restated_value
from memgate.stages.resolve_restate import shortened_value
from memgate.stages.resolve_semantic import said_before

__all__ = ["restated_guess", "said_again"]

_OWNERS = ("user", "team")


def restated_guess(
    c: CandidateFact,
    key: str,
    view: FactView,
    vec: np.ndarray,
    meaning: Meaning | None,
    lex: Lexicon = LEXICON,
) -> StoredFact | None:
    """The pending guess of ``c``'s owner, under another key, that ``c`` says again in
    other words; None when there is none or ``c`` says something changed. A confirmed
    ``c`` is read by :func:`~memgate.stages.resolve_confirm.confirmed_guess` (its value, in
    its words, replaces the guess)."""
    if c.confirmed or c.retracts or lex.has_change_cue(c.object):
        return None
    if lex.has_change_cue(c.context):
        return None
    seen: set[str] = set()
    pool: list[StoredFact] = []
    for root in _OWNERS:
        for f in view.by_subject(
            c.tenant_id, c.user_id, root, statuses=(FactStatus.PENDING,), qualified=True
        ):
            if (
                f.fact_id in seen
                or f.key == key
                or (f.tenant_id, f.user_id)
                != (
                    c.tenant_id,
                    c.user_id,
                )
            ):
                continue
            seen.add(f.fact_id)
            if said_before(f, c):
                pool.append(f)
    if not pool:
        return None
    guesses = CitedFacts(pool)
    hit = fold_target(c, key, guesses, vec, meaning=meaning, lex=lex)
    if hit is None:
        hit = clause_fold_target(c, key, guesses, meaning, lex=lex)
    return None if hit is None else hit.fact


def said_again(f: StoredFact, c: CandidateFact, guess: StoredFact | None = None) -> bool:
    """``c`` says ``f``'s value again: ``f`` is the guess it restates (:func:`restated_guess`),
    or, under ``f``'s key, the same value, the value restated, or said to still hold."""
    if f is guess or normalise(f.value) == normalise(c.object):
        return True
    return restated_value(f, c) or still_holds(f, c) or shortened_value(f, c)
