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

:func:`still_holds`: a fact said again with a word of continuing ("still living in Porto,
nothing new there", "je travaille toujours chez Airbus", "sigo siendo vegana") under its
own key confirms it, the value it names said again with the words around it: one more
occurrence, not a new value that supersedes it. The words are data
(``memgate/data/continuity.json``, six languages); a phrase saying nothing changed ("rien
n'a changé") is cut before the candidate is read for a change cue or a negation.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Final

import numpy as np

from memgate.core.events import CandidateFact, FactStatus, StoredFact, normalise
from memgate.core.stores import FactView
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_paraphrase import FOLD
from memgate.stages.resolve_semantic import said_before
from memgate.stages.resolve_slots import SlotMatch, clause_terms

__all__ = ["confirmed_guess", "still_holds"]

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


_CJK: Final = re.compile(r"[\u3400-\u9fff]")


def _phrases(words: list[str]) -> re.Pattern[str]:
    """Any of ``words``, a Latin one as whole words, a Chinese one anywhere."""
    alts = [re.escape(w) if _CJK.search(w) else rf"(?<!\w){re.escape(w)}(?!\w)" for w in words]
    return re.compile("|".join(sorted(alts, key=len, reverse=True)))


def _load() -> tuple[re.Pattern[str], re.Pattern[str]]:
    data = json.loads(resources.files("memgate.data").joinpath("continuity.json").read_text())
    still = [normalise(w) for ws in data["still"].values() for w in ws]
    same = [normalise(w) for ws in data["no_change"].values() for w in ws]
    return _phrases(still), _phrases(same)


_STILL, _NO_CHANGE = _load()


def still_holds(f: StoredFact, c: CandidateFact, lex: Lexicon = LEXICON) -> bool:
    """``c``, under ``f``'s key, says ``f``'s value still holds: it names the value (its
    words in a row), with a word of continuing or a phrase of no change, and with the
    no-change phrases cut, no change cue and ``f``'s polarity.

    >>> f = StoredFact.model_construct(value="Porto")
    >>> still = CandidateFact.model_construct(object="Still living in Porto, nothing new")
    >>> moved = CandidateFact.model_construct(object="Still love Porto, but moved to Lyon")
    >>> still_holds(f, still), still_holds(f, moved)
    (True, False)
    """
    said, value = normalise(c.object), normalise(f.value)
    if not value or said == value:
        return False
    named = value in said if _CJK.search(value) else _named(f.value, c.object)
    if not named or not (_STILL.search(said) or _NO_CHANGE.search(said)):
        return False
    if lex.has_change_cue(c.object) or lex.has_negation(c.object) != lex.has_negation(f.value):
        return False  # the lexicon reads them with the phrases of no change cut
    return not lex.has_change_cue(c.context)


def _named(value: str, text: str) -> bool:
    """``value``'s words in a row in ``text``, not as a part of a longer name ("Porto" in
    "Porto Alegre", "Santos" in "Ana Santos": another value).

    >>> _named("Porto", "still in Porto."), _named("Porto", "still in Porto Alegre")
    (True, False)
    """
    for m in re.finditer(rf"(?<!\w){re.escape(value.strip())}(?!\w)", text, re.IGNORECASE):
        after = re.match(r"\s+(\w+)", text[m.end() :])
        before = re.search(r"(\w+)\s+$", text[: m.start()])
        if after is not None and after.group(1)[:1].isupper():
            continue
        if before is not None and before.group(1)[:1].isupper() and before.start() > 0:
            continue
        return True
    return False
