"""A confirmation settles the guess it answers, whatever words the guess was said in.

A hedged statement ("我好像是用安卓手机的", "I think my dentist is Dr. Patel") is stored
pending: an inference, never served. When the user then confirms ("对，我用的是安卓手机",
a turn with ``confirmed``), the extractor may type the confirmed statement under another
key than the guess, and the guess would wait forever beside the confirmed fact. The
confirmed candidate closes the pending guess of its owner said in the latest turn before
it that speaks of the same thing: near in meaning (cosine at or above the paraphrase
fold band), sharing content terms (``min_shared_terms``; Chinese read in character
pairs), or naming the same single-valued family; the new value (the same or a
correction: "my dentist is actually Dr. Okafor") replaces it.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from memgate.core.events import CandidateFact, FactStatus, StoredFact
from memgate.core.stores import FactView
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_paraphrase import FOLD
from memgate.stages.resolve_semantic import said_before
from memgate.stages.resolve_slots import SlotMatch, clause_terms

__all__ = ["confirmed_guess"]

#: Content terms a guess and its confirmation share at least, to be of one thing.
MIN_SHARED_TERMS: Final = 2


def _cos(a: list[float] | None, b: np.ndarray) -> float:
    return 0.0 if a is None else float(np.dot(np.asarray(a, dtype=np.float32), b))


def _single_families(f: StoredFact | CandidateFact, lex: Lexicon) -> set[str]:
    return {fam.name for fam in lex.families_of(f.predicate, f.object if isinstance(
        f, CandidateFact) else f.value) if fam.single}  # fmt: skip


def confirmed_guess(
    c: CandidateFact, key: str, view: FactView, vec: np.ndarray, lex: Lexicon = LEXICON
) -> SlotMatch | None:
    """The pending guess of ``c``'s owner that ``c``, a confirmed candidate, answers."""
    if not c.confirmed or c.retracts:
        return None
    pool: list[StoredFact] = []
    for root in ("user", "team"):
        pool += view.by_subject(
            c.tenant_id, c.user_id, root, statuses=(FactStatus.PENDING,), qualified=True
        )
    before = [f for f in pool if f.key != key and said_before(f, c)]
    if not before:
        return None
    latest = max(f.last_seen for f in before)
    terms_c = clause_terms(c, lex)
    fams_c = _single_families(c, lex)
    best: SlotMatch | None = None
    for f in before:
        if f.last_seen != latest:
            continue  # a confirmation answers what was just guessed
        sim = _cos(f.embedding, vec)
        shared = len(clause_terms(f, lex) & terms_c)
        if sim >= FOLD.fold_similarity:
            why = "confirmed:meaning"
        elif shared >= MIN_SHARED_TERMS:
            why = "confirmed:terms"
        elif fams_c & _single_families(f, lex):
            why = "confirmed:family"
        else:
            continue
        if best is None or sim > best.similarity:
            best = SlotMatch(f, sim, why)
    return best
