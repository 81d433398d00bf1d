"""A change to a slot no family names: the stored fact it replaces found by its old value
or by its frame, with a margin.

A family of ``memgate/data/resolution.json`` (tracker, employer, ...) finds the fact a
change replaces when the slot is one of its words; slotmask
(:mod:`memgate.stages.resolve_slotmask`) finds it when the masked frames and the values
both clear fixed bars. A change to any other slot ("Die Logs schicken wir jetzt nach X",
"vendi o X e comprei um Y") was left beside the fact it replaces. This module is asked
after slotmask (the resolver asks :func:`change_target`, which asks slotmask first), with
the words of ``memgate/data/change.json``:

- **a replacement structure** ("sold X and bought Y", "moved from X to Y", "replaced X
  with Y", "X → Y", in en de fr es pt zh): its old value X pins the target, the owner's one
  active fact whose value names every word of X and not every word of Y. No change cue is
  needed: the structure says it;
- else **a change cue and no family**: among the owner's active facts, the one whose
  statement with its named values masked (frame) is nearest to the new statement's, the
  frame and value usem cosines summed (:func:`~memgate.stages.resolve_slotmask.fact_slot`),
  at or above ``frame_floor`` and ahead of the next fact by ``margin``: the nearest of
  several only when it is clearly the nearest. As wherever usem is asked, two English
  frames are not (``english_pairs`` of ``memgate/data/meaning.json``: asked, they cost
  LoCoMo dev recall@10, 0.909x to 0.896x); an English replacement structure is read.

Never: a statement that says it adds a value ("also", "auch", "aussi", "también", "也":
``additive``), a family that holds several values, another person's fact (the guards of
slotmask), and two things told apart by a qualifier of the same noun ("our staging
database" / "our analytics database": two databases, :func:`qualifier_clash`). The
owner's facts are read as slotmask reads them, plus the nearest facts whose subject is a
thing of no one ("logs": "Los logs se guardan en X").
"""

from __future__ import annotations

import re
from typing import Final

import numpy as np

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, FactStatus, FactType, StoredFact, normalise
from memgate.core.stores import FactView
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_meaning import usem_similarity
from memgate.stages.resolve_paraphrase import FOLD, other_persons
from memgate.stages.resolve_recurring import recurring_target
from memgate.stages.resolve_replaced import CHANGE, ChangeRules, names, replaced_value
from memgate.stages.resolve_semantic import SemanticMatch
from memgate.stages.resolve_slotmask import (
    PLACEHOLDER,
    fact_slot,
    person_clash,
    slot_mask_target,
)

__all__ = ["CHANGE", "ChangeRules", "change_target", "qualifier_clash", "replaced_value"]

_OWNER_RE: Final = re.compile(r"^(user|team)(?:'s|s)?\b\s*")
_WORD_RE: Final = re.compile(r"[^\W_]+")
#: How many of the nearest facts are read for a subject that is a thing of no one.
_THING_PROBE: Final = 3


def _function_word(word: str, lex: Lexicon) -> bool:
    return (
        len(word) <= 2
        or word == PLACEHOLDER.lower()
        or word in lex.clause_stopwords
        or word in lex.determiners
        or word in lex.stopwords
        or lex.has_change_cue(word)
    )


def _beside(words: list[str], word: str, step: int) -> set[str]:
    """The words ``step`` places from each occurrence of ``word``."""
    return {
        words[i + step] for i, w in enumerate(words) if w == word and 0 <= i + step < len(words)
    }


def qualifier_clash(a: str, b: str, lex: Lexicon = LEXICON) -> bool:
    """The two frames name one noun qualified by two different words next to it ("our
    staging database is X" / "our analytics database is now X"; "base de données de
    staging" / "... d'analytics"): two things, not one thing changed.

    >>> qualifier_clash("Our staging database is X.", "Our analytics database is now X.")
    True
    >>> qualifier_clash("Estoy en el equipo de X.", "Me pasaron al equipo de X.")
    False
    """
    wa, wb = _WORD_RE.findall(normalise(a)), _WORD_RE.findall(normalise(b))
    for word in set(wa) & set(wb):
        if _function_word(word, lex):
            continue
        for step in (-1, 1):
            qa = {w for w in _beside(wa, word, step) if not _function_word(w, lex)}
            qb = {w for w in _beside(wb, word, step) if not _function_word(w, lex)}
            if qa and qb and not qa & qb:
                return True
    return False


def _owner(subject: str) -> tuple[str, str]:
    m = _OWNER_RE.match(normalise(subject))
    return ("", normalise(subject)) if m is None else (m.group(1), normalise(subject)[m.end() :])


def _pool(
    c: CandidateFact, key: str, view: FactView, vec: np.ndarray | None, owner: str
) -> list[StoredFact]:
    """The owner's active facts (and its things'), with the nearest facts about a thing of
    no one; never ``c``'s key, never one first seen after ``c``."""
    facts = view.by_subject(
        c.tenant_id, c.user_id, owner, statuses=(FactStatus.ACTIVE,), qualified=True,
        vectors=False,
    )  # fmt: skip
    seen = {f.fact_id for f in facts}
    if vec is not None:
        near = view.nearest(
            c.tenant_id, c.user_id, vec, k=_THING_PROBE, statuses=(FactStatus.ACTIVE,)
        )
        for f, _ in near:
            own, rest = _owner(f.subject)
            if f.fact_id not in seen and not own and rest and not FOLD.is_person(rest):
                facts.append(f)
                seen.add(f.fact_id)
    return [f for f in facts if f.key != key and f.first_seen <= c.turn_ts]


def _thing(subject: str, lex: Lexicon) -> str:
    """The owner's thing a subject names, its change cues left out ("team's neues
    admin-tool": "admin-tool"); empty for the owner itself."""
    own, rest = _owner(subject)
    return normalise(lex.without_change_cues(rest)).strip() if own else ""


def _eligible(f: StoredFact, c: CandidateFact, lex: Lexicon) -> bool:
    """Slotmask's guards (a state, not another person's fact, no person clash) and one
    thing: two things of the owner ("team's kundenportal" / "team's admin-tool") are two
    slots, whatever their frames."""
    if f.type is not FactType.FACT:
        return False
    _, rest = _owner(f.subject)
    if rest and FOLD.is_person(rest) and f.predicate != "name_is":
        return False  # another person's fact ("user's sister lives_in Oslo")
    mine, theirs = _thing(c.subject, lex), _thing(f.subject, lex)
    if mine and theirs and mine != theirs:
        return False
    return not (other_persons(f.value, c.object, FOLD, lex) or person_clash(f, c, lex))


def _pinned(c: CandidateFact, pool: list[StoredFact], old: str, new: str) -> SemanticMatch | None:
    """The one fact of ``pool`` naming the replaced value and not the new one."""
    hits = [f for f in pool if names(old, f.value) and not names(new, f.value)]
    if len(hits) != 1:
        return None
    return SemanticMatch(hits[0], 1.0, f"change:replaced={normalise(old)}")


def _by_frame(
    c: CandidateFact, pool: list[StoredFact], meaning: Meaning, lex: Lexicon, rules: ChangeRules
) -> SemanticMatch | None:
    """The fact of ``pool`` whose frame and value are clearly the nearest to ``c``'s; a
    fact of no family ("Minha gestora é a Carla" is the manager's slot: a change of it
    names the family, "entrei no Nubank" does not). ``c`` may name a family whose fact
    resolve_semantic did not find: the old fact was said without the family's words
    ("Tengo un Seat Ibiza" -> "ahora conduzco un Kia Niro")."""
    new = fact_slot(c)
    if new is None:
        return None
    scored: list[tuple[float, StoredFact, float, float]] = []
    for f in pool:
        if lex.families_of(f.predicate, f.value):
            continue  # a family's slot: its change names the family (resolve_semantic)
        old = fact_slot(f)
        if old is None or not old.names or not new.names:
            continue
        if old.names <= new.names or new.names <= old.names:
            continue  # the same value said again, or one value holding the other
        if qualifier_clash(old.frame, new.frame, lex):
            continue
        frame = usem_similarity(meaning, old.frame, new.frame)
        if frame is None:
            continue  # two English texts: not asked (``english_pairs`` of meaning.json)
        value = meaning.similarity(old.value, new.value)
        scored.append((frame + value, f, frame, value))
    if not scored:
        return None
    scored.sort(key=lambda s: (s[0], s[1].fact_id), reverse=True)
    best, f, frame, value = scored[0]
    runner = scored[1][0] if len(scored) > 1 else 0.0
    if best < rules.frame_floor or best - runner < rules.margin:
        return None
    return SemanticMatch(f, best, f"change:frame={frame:.3f}:value={value:.3f}")


def change_target(
    c: CandidateFact,
    key: str,
    view: FactView,
    vec: np.ndarray | None,
    meaning: Meaning | None,
    lex: Lexicon = LEXICON,
    rules: ChangeRules = CHANGE,
) -> SemanticMatch | None:
    """The active fact ``c`` replaces: slotmask's, else one pinned by a replacement
    structure's old value, else (a change cue) the clearly nearest frame, else the one fact
    of the recurring time slot ``c`` names (:mod:`~memgate.stages.resolve_recurring`). None
    without a :class:`Meaning` (usem off)."""
    hit = slot_mask_target(c, key, view, meaning, lex)
    if hit is not None or meaning is None:
        return hit
    # a replacement structure says what is left: "entrei pra outra banda … e larguei a
    # antiga" adds nothing beside the old one, whatever its word of another
    pair = replaced_value(c.object, rules)
    if c.type not in (FactType.FACT, FactType.EVENT) or (pair is None and rules.adds(c.object)):
        return None
    if pair is None and not (lex.has_change_cue(c.object) or lex.has_change_cue(c.context)):
        return None
    owner, rest = _owner(c.subject)
    if not owner or (rest and FOLD.is_person(rest) and not lex.families_of("statement", rest)):
        return None  # no owner, or another person's change ("ma sœur a quitté X pour Y")
    pool = [f for f in _pool(c, key, view, vec, owner) if _eligible(f, c, lex)]
    if pair is not None:
        return _pinned(c, pool, *pair)
    hit = _by_frame(c, pool, meaning, lex, rules)
    if hit is not None:
        return hit
    slot = recurring_target(c.object, [f for f in pool if f.type is FactType.FACT], lex)
    return None if slot is None else SemanticMatch(slot, 1.0, "change:recurring")
