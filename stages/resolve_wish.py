"""Standing wishes: an instruction, a preference or a liking of the same thing is one slot.

"I prefer invoices on paper" and, later, "from now on mail me the invoices as PDF"
share no key and no family, and they are of two kinds (a preference, an
instruction), yet the second replaces the first: both are what the speaker wants
done about one thing, the invoices. The structure read here:

- both facts are **wishes** of the same owner (their type or predicate is one of
  ``wishes.types`` / ``wishes.predicates`` / ``wishes.predicate_prefixes``);
- the candidate carries a **change cue** ("from now on", "ab sofort", "以后请"), or it
  is a want (not a liking: those hold many values) that swaps one value of the old
  one's clause frame ("I'd like my invoices emailed monthly" -> "... quarterly");
- they **name the same thing**: a content term in common (crude stems; Chinese
  character pairs) once the words of wishing itself (``wishes.wish_words``: prefer,
  please, möchte, 喜欢) are left out, and each has a term the other lacks (a
  different value, not the same wish again);
- they are not values of two different families (a reply language and an answer
  length both speak of "answers").

Word lists: ``wishes`` in ``memgate/data/resolution.json``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Final

import numpy as np

from memgate.core.events import CandidateFact, FactStatus, StoredFact, normalise
from memgate.core.stores import FactView
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_semantic import SemanticMatch, cosine
from memgate.stages.resolve_slots import clause_terms, substitution

__all__ = ["WISHES", "Wishes", "wish_update_target"]

_ACTIVE: Final = (FactStatus.ACTIVE,)
_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Wishes:
    types: frozenset[str]
    predicates: frozenset[str]
    prefixes: tuple[str, ...]
    words: frozenset[str]
    max_words: int = 12

    def is_wish(self, f: StoredFact | CandidateFact) -> bool:
        """A wish: of a wish type, or a liking / preference predicate.

        >>> from memgate.core.events import FactType
        >>> WISHES.types >= {FactType.PREFERENCE.value, FactType.INSTRUCTION.value}
        True
        """
        if f.type.value in self.types:
            return True
        return f.predicate in self.predicates - {"statement"} or f.predicate.startswith(
            self.prefixes
        )


@lru_cache(maxsize=1)
def _load() -> Wishes:
    raw = (resources.files("memgate") / "data" / "resolution.json").read_text("utf-8")
    w = json.loads(raw)["wishes"]
    return Wishes(
        types=frozenset(w["types"]),
        predicates=frozenset(w["predicates"]),
        prefixes=tuple(w["predicate_prefixes"]),
        words=frozenset(normalise(x) for x in w["wish_words"]),
        max_words=int(w["max_words"]),
    )


WISHES: Final[Wishes] = _load()


def _value(f: StoredFact | CandidateFact) -> str:
    return f.value if isinstance(f, StoredFact) else f.object


def _terms(f: StoredFact | CandidateFact, lex: Lexicon, wishes: Wishes) -> set[str]:
    """The content terms of a wish without the words of wishing ("prefer", "请", "喜欢")."""
    cjk = [w for w in wishes.words if _CJK_RE.search(w)]
    out: set[str] = set()
    for t in clause_terms(f, lex):
        if t in wishes.words or lex.has_change_cue(t):
            continue
        if _CJK_RE.search(t) and any(w in t or t in w for w in cjk):
            continue  # a Chinese pair holding a word of wishing ("请发"): not the thing
        out.add(t)
    return out


def wish_update_target(
    c: CandidateFact,
    key: str,
    view: FactView,
    vec: np.ndarray,
    lex: Lexicon = LEXICON,
    wishes: Wishes = WISHES,
) -> SemanticMatch | None:
    """The active wish of the same owner that ``c``, a wish said with a change cue,
    replaces because it names the same thing with another value; None otherwise."""
    if not wishes.is_wish(c) or len(c.object.split()) > wishes.max_words:
        return None
    cue = lex.has_change_cue(c.object) or lex.has_change_cue(c.context)
    cfam = lex.family(c.predicate, c.object)
    # without a cue, only a want of one value per frame ("I'd like X monthly" ->
    # "... quarterly"), never a liking (many at once), changes by a swapped value
    swap_ok = not (cfam is not None and cfam.additive)
    if not cue and not swap_ok:
        return None
    owner = normalise(lex.canonical_subject(c.subject))
    if owner not in ("user", "team"):
        return None
    mine = _terms(c, lex, wishes)
    if not mine:
        return None
    cfams = {x.name for x in lex.families_of(c.predicate, c.object)}
    value_n = normalise(c.object)
    best: tuple[int, float, str, SemanticMatch] | None = None
    for f in view.by_subject(c.tenant_id, c.user_id, owner, statuses=_ACTIVE, qualified=False):
        if f.key == key or normalise(f.value) == value_n or f.last_seen >= c.turn_ts:
            continue
        if not wishes.is_wish(f) or len(f.value.split()) > wishes.max_words:
            continue  # a sentence of chat is no wish of one thing
        ffams = {x.name for x in lex.families_of(f.predicate, f.value)}
        if cfams and ffams and not cfams & ffams:
            continue  # two slots that happen to share a word
        if not cue:
            ffam = lex.family(f.predicate, f.value)
            if (ffam is not None and ffam.additive) or not substitution(f.value, c.object, lex):
                continue
        theirs = _terms(f, lex, wishes)
        shared = mine & theirs
        if not shared or not (mine - shared) or not (theirs - shared):
            continue
        sim = cosine(f.embedding, vec)
        cand = (len(shared), sim, f.fact_id, SemanticMatch(f, sim, "wish"))
        if best is None or cand[:3] > best[:3]:
            best = cand
    return None if best is None else best[3]
