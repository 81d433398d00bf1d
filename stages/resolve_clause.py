"""clausefold: a stored fact said again as one clause of a longer sentence.

A user restates what they said before inside a sentence that also holds a preface, an
aside or a consequence: "Pour rappel, j'ai une allergie aux arachides, donc jamais de
cacahuètes dans les recettes", "Mi editor de siempre es Neovim, no pienso cambiarlo",
"A Beatriz é minha esposa, estamos casados desde 2019". The paraphrase fold
(:func:`memgate.stages.resolve_paraphrase.fold_target`) reads the whole sentence: its
cosine is diluted by the other clauses, a negation in the aside reads as the opposite
polarity, a number in the aside as another value, and a long sentence is chat. Here the
sentence is cut into clauses at punctuation (``memgate/data/clausefold.json``; no word of
any language) and each clause is read against the speaker's active facts as a statement of
its own:

- the same owner (the user's or the team's own thing), or the stored fact's person named
  in the clause by a word of its reference topic ("wife" / "esposa"); never another
  person's fact, never two things of the speaker;
- the same polarity as the stored fact, in that clause, and no change cue in it; a cue in
  another clause ("casados desde 2019") only when the clause shares a name with the fact
  (without a name, the cue may be the change itself: a change is a supersede, not a fold);
- the same names: a name of the clause shared with the fact and every name of the clause
  in the fact; or no name on either side and a content word in common; no value swapped in
  one frame (:func:`~memgate.stages.resolve_slots.substitution`);
- near in meaning by usem at the bars already chosen for the fold (``fold`` with a name,
  ``fold_unanchored`` without: ``memgate/data/meaning.json``);
- the other clauses name no thing the stored fact does not (a new name is new information,
  not an aside; a number, a duration or a year may be).

Only usem is asked (:func:`~memgate.stages.resolve_meaning.near_in_meaning`), so two English
texts are not (``english_pairs: false``), and without usem nothing is folded here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, FactStatus, FactType
from memgate.core.stores import FactView
from memgate.stages.fact_keys import cites_turn
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_meaning import BARS, MeaningBars, meaning_text, near_in_meaning
from memgate.stages.resolve_paraphrase import (
    FOLD,
    Fold,
    _names_within,
    _shared_terms,
    _terms,
    other_persons,
)
from memgate.stages.resolve_slots import (
    SlotMatch,
    _is_sentence,
    _owner_and_rest,
    anchors,
    slot_terms,
    substitution,
)

__all__ = ["CLAUSES", "ClauseFold", "clause_fold_target", "clauses"]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_HABITS: Final = frozenset({FactType.FACT, FactType.PREFERENCE, FactType.INSTRUCTION})


@dataclass(frozen=True)
class ClauseFold:
    """The data of clausefold (``memgate/data/clausefold.json``)."""

    version: str
    separators: tuple[str, ...]
    min_clause_words: int
    max_clauses: int

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> ClauseFold:
        return cls(
            version=str(data["version"]),
            separators=tuple(str(s) for s in data["separators"]),
            min_clause_words=int(data["min_clause_words"]),
            max_clauses=int(data["max_clauses"]),
        )

    def pattern(self) -> re.Pattern[str]:
        return re.compile("|".join(re.escape(s) for s in self.separators))


def _load() -> ClauseFold:
    text = resources.files("memgate.data").joinpath("clausefold.json").read_text("utf-8")
    return ClauseFold.from_data(json.loads(text))


CLAUSES: Final = _load()
_SPLIT: Final = CLAUSES.pattern()


def _long_enough(part: str, cf: ClauseFold) -> bool:
    if _CJK_RE.search(part):
        return len(_CJK_RE.findall(part)) >= 2 * cf.min_clause_words
    return len(part.split()) >= cf.min_clause_words


def clauses(text: str, cf: ClauseFold = CLAUSES) -> list[str]:
    """The clauses of a sentence, cut at ``cf``'s separators, each stripped of its end
    punctuation; pieces too short to hold a statement are left out.

    >>> clauses("Mi editor de siempre es Neovim, no pienso cambiarlo.")
    ['Mi editor de siempre es Neovim', 'no pienso cambiarlo']
    """
    split = _SPLIT if cf is CLAUSES else cf.pattern()
    parts = (p.strip().strip(".!?。！？ ") for p in split.split(text))
    return [p for p in parts if p and _long_enough(p, cf)]


def _names(text: str, fold: Fold = FOLD) -> set[str]:
    """The names of a clause (read as a sentence's: capitalised and not first, dotted,
    Latin in Chinese), numbers left out, and so a noun after a determiner of a language
    that capitalises every noun ("seit der Kindheit")."""
    named = anchors(text, sentence=True) - fold.common_nouns(text)
    return {a for a in named if not any(ch.isdigit() for ch in a)}


def _same_person(rest_f: str, part: str, lex: Lexicon, fold: Fold) -> bool:
    """The stored fact is about a person of the speaker ("user's wife") and the clause
    names that person by a word of the same reference topic ("minha esposa")."""
    if not fold.is_person(rest_f) or not fold.is_person(part.casefold()):
        return False
    low = part.casefold()
    return any(t.words.search(rest_f) and t.words.search(low) for t in lex.topics)


def _owner_fits(rest_f: str, rest_c: str, part: str, lex: Lexicon, fold: Fold) -> bool:
    """The clause speaks of the stored fact's thing: the same owner's thing, or the stored
    fact's person named in the clause; never another person's fact, nor two things."""
    if rest_f == rest_c:
        return True
    if fold.is_person(rest_c):
        return False  # the candidate is about a person the stored fact is not
    if fold.is_person(rest_f):
        return not rest_c and _same_person(rest_f, part, lex, fold)
    return not (rest_f and rest_c)


def clause_fold_target(
    c: CandidateFact,
    key: str,
    view: FactView,
    meaning: Meaning | None,
    lex: Lexicon = LEXICON,
    fold: Fold = FOLD,
    cf: ClauseFold = CLAUSES,
    bars: MeaningBars = BARS,
) -> SlotMatch | None:
    """The active fact of ``c``'s owner that one clause of ``c``'s sentence says again,
    the nearest in usem; None when there is none (or usem is off)."""
    if meaning is None or c.retracts or c.type not in _HABITS:
        return None
    # a change cue in an aside ("casados desde 2019") changes no name the clause restates;
    # without a name, a cue anywhere may be the change itself ("now I drink tea")
    cue = lex.has_change_cue(c.object) or lex.has_change_cue(c.context)
    parts = clauses(c.object, cf)
    if not 2 <= len(parts) <= cf.max_clauses:
        return None  # one clause: the paraphrase fold read it whole
    owner_c, rest_c = _owner_and_rest(lex.canonical_subject(c.subject))
    if not owner_c:
        return None
    names = [_names(p, fold) for p in parts]
    best: SlotMatch | None = None
    for root in ("user", "team"):
        for f in view.by_subject(
            c.tenant_id, c.user_id, root, statuses=(FactStatus.ACTIVE,), qualified=True,
            vectors=False,
        ):  # fmt: skip
            later = f.last_seen > c.turn_ts and not cites_turn(f, c)
            if f.key == key or later or f.type not in _HABITS or lex.has_change_cue(f.value):
                continue
            _, rest_f = _owner_and_rest(f.subject)
            slot = set(slot_terms(f, lex))
            names_f = anchors(f.value, sentence=_is_sentence(f)) - slot
            negated_f = lex.has_negation(f.value)
            for i, part in enumerate(parts):
                if lex.has_negation(part) != negated_f or lex.has_change_cue(part):
                    continue
                if other_persons(f.value, part, fold, lex):
                    continue
                if not _owner_fits(rest_f, rest_c, part, lex, fold):
                    continue
                names_p = names[i] - slot
                if names_p or names_f:
                    if not names_p & names_f or not _names_within(names_p, f):
                        continue  # another name: another value
                    bar = bars.fold
                else:
                    ta, tb = fold.content(_terms(f.value, lex)), fold.content(_terms(part, lex))
                    if cue or _shared_terms(ta, tb, fold) < 1:
                        continue
                    bar = bars.fold_unanchored
                aside = set().union(*(n for j, n in enumerate(names) if j != i))
                if aside and not _names_within(aside, f):
                    continue  # an aside naming another thing is new information
                if substitution(f.value, part, lex):
                    continue  # one value swapped for another in the same frame
                sim = near_in_meaning(meaning, meaning_text(f, bars), part, bar, bars)
                if sim is not None and (best is None or sim > best.similarity):
                    best = SlotMatch(f, sim, "clause:usem")
    return best
