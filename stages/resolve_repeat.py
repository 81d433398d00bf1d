"""Repeat by reference: the fact a sentence the speaker says is a repeat repeats.

A candidate flagged :attr:`~memgate.core.events.CandidateFact.repeats` (its sentence opened
or closed with "as I told you", "zur Erinnerung", "je te le redis", "como ya te dije", "我说
过": :mod:`memgate.stages.repeats`) points at a fact already said, as a retraction by
reference points at what it withdraws. :func:`repeat_target` finds it among the active facts
of the candidate's own owner (the user's or the team's, never another person's, never
another user's or tenant's: the view is read for the candidate's tenant and user only):

* the same polarity, no change cue, no value swapped in one frame;
* anchored: a name or number both say, and every name of one side within the other
  ("user's partner name_is Tomasz" / "Tomasz is my partner, we've been together six
  years"); then near in meaning at the anchored bars;
* unanchored (no name on either side): near in meaning at the unanchored bars;

the bars (``memgate/data/repeat_markers.json``) lower than an unmarked fold's
(:mod:`memgate.stages.resolve_paraphrase`, ``memgate/data/meaning.json``): the speaker said
it is a repeat. usem is asked where one side is not English
(:func:`~memgate.stages.resolve_meaning.usem_similarity`), MiniLM's cosine everywhere. The
resolver folds the candidate into the fact found (one more occurrence, reason ``repeat``);
with none, the candidate is stored as a first saying.

:func:`said_twice`: one turn that names two values of one single-valued key ("je ne mange
pas de viande : je suis végétarienne", "I don't eat meat, I'm vegetarian": two readings of
``diet``) says one thing twice, not a change from the first value to the second: the
second reading counts nothing more (the turn is counted once), and when the first one
replaced the fact the second names, that fact is current again, the first reading its
history. A reading with a change cue ("now", "ahora") is a change as always.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, FactStatus, StoredFact, normalise
from memgate.core.stores import FactView
from memgate.stages.fact_keys import cites_turn
from memgate.stages.repeats import REPEATS, RepeatMarkers
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_meaning import meaning_text, usem_similarity
from memgate.stages.resolve_paraphrase import FOLD, Fold, other_persons, read_candidate
from memgate.stages.resolve_slots import (
    SlotMatch,
    _clause_words,
    _is_sentence,
    _owner_and_rest,
    _val,
    anchors,
    substitution,
)
from memgate.stages.resolve_stance import same_stance

__all__ = ["repeat_target", "said_twice"]

_ROOTS = ("user", "team")


def _cos(a: list[float] | None, b: np.ndarray) -> float:
    if a is None:
        return 0.0
    return float(np.dot(np.asarray(a, dtype=np.float32), b))


def _within(names: set[str], f: StoredFact | CandidateFact) -> bool:
    """Every name of one side is said in the other's clause."""
    words, flat = _clause_words(f"{f.subject} {f.predicate} {_val(f)}")
    return all(t in words or t in flat for t in names)


def _numbers(names: set[str]) -> set[str]:
    return {n for n in names if any(ch.isdigit() for ch in n)}


def _said_in(thing: str, text: str) -> bool:
    """The owner's thing of one side ("partner") is a word of the other side's text."""
    words = thing.split()
    low = text.casefold()
    return bool(words) and all(w in low for w in words)


def _own_thing(rest_f: str, rest_c: str, f: StoredFact, c: CandidateFact, fold: Fold) -> bool:
    """The two speak of the same owner's thing: the same one, or neither names a person,
    or the person one names is said in the other ("user's partner" / "Tomasz is my
    partner"): never another person's fact."""
    if fold.same_thing(rest_f, rest_c):
        return True
    if fold.is_person(rest_f) and not _said_in(rest_f, c.object):
        return False
    return not (fold.is_person(rest_c) and not _said_in(rest_c, f.value))


def repeat_target(
    c: CandidateFact,
    view: FactView,
    vec: np.ndarray,
    meaning: Meaning | None = None,
    lex: Lexicon = LEXICON,
    fold: Fold = FOLD,
    data: RepeatMarkers = REPEATS,
) -> SlotMatch | None:
    """The active fact of ``c``'s owner that ``c`` (flagged a repeat) says again, the
    nearest; None when ``c`` is no repeat or nothing stored is what it repeats."""
    if not c.repeats or c.retracts:
        return None
    reading = read_candidate(c, lex)
    if reading is None:
        return None
    rest_c, anchors_c, _ = reading
    best: SlotMatch | None = None
    seen: set[str] = set()
    for root in _ROOTS:
        for f in view.by_subject(
            c.tenant_id, c.user_id, root, statuses=(FactStatus.ACTIVE,), qualified=True
        ):
            if f.fact_id in seen or (f.tenant_id, f.user_id) != (c.tenant_id, c.user_id):
                continue
            seen.add(f.fact_id)
            if f.last_seen > c.turn_ts and not cites_turn(f, c):
                continue  # said after the candidate: not what it repeats
            _, rest_f = _owner_and_rest(f.subject)
            if not _own_thing(rest_f, rest_c, f, c, fold):
                continue
            if other_persons(f.value, c.object, fold, lex):
                continue
            if not same_stance(f.value, c.object) or lex.has_change_cue(f.value):
                continue
            names_f = anchors(f.value, sentence=_is_sentence(f))
            # the names both say: each side's names said in the other's clause ("Tomasz")
            shared = {n for n in names_f if _within({n}, c)} | {
                n for n in anchors_c if _within({n}, f)
            }
            if shared:
                if _numbers(names_f) ^ _numbers(anchors_c):
                    continue  # a number one side says and the other not: another value
                bar_m, bar_u, why = data.minilm_anchored, data.usem_anchored, "repeat:anchors"
            elif not names_f:
                # nothing stored to tell another value by: near in meaning, as a statement
                # with no name (the repeat may add a name: "..., so Saturdays are gone")
                bar_m, bar_u, why = data.minilm_unanchored, data.usem_unanchored, "repeat:meaning"
            else:
                continue  # the stored fact's names, none said again: another thing
            if substitution(f.value, c.object, lex):
                continue  # one value swapped for another in the same frame
            sim = _cos(f.embedding, vec)
            if sim < bar_m:
                u = usem_similarity(meaning, meaning_text(f), meaning_text(c))
                if u is None or u < bar_u:
                    continue
                sim, why = max(sim, u), f"{why}:usem"
            if best is None or sim > best.similarity:
                best = SlotMatch(f, sim, why)
    return best


def said_twice(
    c: CandidateFact, existing: list[StoredFact], now: datetime, lex: Lexicon = LEXICON
) -> list[StoredFact] | None:
    """The writes that fold ``c``, a second value of its single-valued key read from the
    turn that already wrote the key's active fact (``existing``: the facts under the key),
    into what that turn said: none (the turn is counted once), or, when the turn's first
    reading replaced the fact ``c`` names, that fact current again and the first reading
    closed by it. None: ``c`` is no second reading of its turn."""
    if c.multi_valued or c.retracts or lex.has_change_cue(c.object):
        return None
    active = next((f for f in existing if f.status is FactStatus.ACTIVE), None)
    if active is None or not cites_turn(active, c) or lex.has_change_cue(active.value):
        return None
    old = next((f for f in existing if f.fact_id == active.supersedes), None)
    made_here = active.source_turn_ids == list(c.source_turn_ids)
    if old is None or not made_here or normalise(old.value) != normalise(c.object):
        return []
    turns = [*old.source_turn_ids, *(t for t in c.source_turn_ids if t not in old.source_turn_ids)]
    again = old.model_copy(update={
        "status": FactStatus.ACTIVE, "valid_to": None, "superseded_by": None,
        "superseded_at": None, "occurrences": old.occurrences + 1, "source_turn_ids": turns,
        "last_seen": max(old.last_seen, c.turn_ts),
        "session_ids": list(dict.fromkeys([*old.session_ids, c.session_id])),
    })  # fmt: skip
    closed = active.model_copy(update={
        "status": FactStatus.SUPERSEDED, "valid_to": max(active.valid_from, old.valid_from),
        "superseded_by": old.fact_id, "superseded_at": now, "supersedes": None,
    })  # fmt: skip
    return [again, closed]
