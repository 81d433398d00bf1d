"""A change said in words no rule reads: a change cue, and the one fact clearly nearest in
meaning.

Every rule of the resolver before this one names the fact a change replaces by a structure:
a key, a family's slot words, a replacement structure's old value, a masked frame with
named values on both sides. A change said in other words ("Pour les logs, on est passés à
Loki" after "Nos logs partent dans Splunk"; "王磊调走了，现在带我的是陈静" after
"我的上司是王磊"; "Ya estamos instalados en Bilbao" after "Vivo en Sevilla") names none of
them, and was stored beside the fact it replaces: two current values of one thing.

This step is asked last (with ``resolution_slotmask`` on), when no rule found a target and
a short statement of the speaker's own says that something changed (a change cue of
``memgate/data/resolution.json``: "now", "switched", "ya no", "换到", ...) and adds no
value. Among the speaker's 6 nearest active facts it reads each eligible one against the
statement twice: usem, the multilingual sentence encoder, for the topic (a cosine at or
above ``floor``), and the shipped relation model (:mod:`memgate.stages.relation_model`) for
an update (a probability at or above ``update``). The one fact that passes both is
superseded; none when two or more do. The bars are data, in ``memgate/data/change.json``
under ``cued``.

Never: a statement that says it adds a value ("also", "auch", "也"); a narration (more than
``max_words`` words, or sentences joined into one memory); a fact of no speaker's, or of a
family or predicate that holds several values at once (a second language is no new
language); two facts whose words name families with none in common (a new job is no
move); another person's fact, or a statement about a person the fact is not about ("my
husband's dentist"); two things told apart by a qualifier ("our staging database" / "our
analytics database"); a fact the statement says again (its named values and no other);
outside Chinese, a statement that names no name or number the fact does not (a change
names its new value); a fact said at the same instant or later.

>>> from memgate.core.events import StoredFact
>>> f = StoredFact.model_construct(subject="user", predicate="statement",
...     value="Nos logs partent dans Splunk", type=FactType.FACT)
>>> _restates(f, "Pour les logs, on est passés à Loki")
False
>>> _restates(f, "On envoie toujours les logs dans Splunk")
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Final

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, FactStatus, FactType, StoredFact
from memgate.stages.relation_model import RelationModel, pair_features
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_change import qualifier_clash
from memgate.stages.resolve_learned import candidate_text
from memgate.stages.resolve_meaning import meaning_text
from memgate.stages.resolve_paraphrase import FOLD, other_persons
from memgate.stages.resolve_replaced import CHANGE, ChangeRules, names
from memgate.stages.resolve_semantic import SemanticMatch
from memgate.stages.resolve_slots import anchors
from memgate.stages.vocabulary import is_multi_valued

__all__ = ["CUED", "CuedBars", "cued_target", "says_change"]


@dataclass(frozen=True)
class CuedBars:
    floor: float
    update: float
    max_words: int
    max_cjk_chars: int

    def short(self, text: str) -> bool:
        """One statement of a slot, not a narration: at most ``max_words`` words (Chinese:
        ``max_cjk_chars`` characters) and no sentences joined into one memory ("; ")."""
        if "; " in text:
            return False
        if _CJK_RE.search(text):
            return len(text) <= self.max_cjk_chars
        return len(text.split()) <= self.max_words


def _load() -> CuedBars:
    text = resources.files("memgate.data").joinpath("change.json").read_text("utf-8")
    raw = json.loads(text)["cued"]
    return CuedBars(
        floor=float(raw["floor"]),
        update=float(raw["update"]),
        max_words=int(raw["max_words"]),
        max_cjk_chars=int(raw["max_cjk_chars"]),
    )


CUED: Final = _load()
_OWNER_RE: Final = re.compile(r"^(?:user|team)(?:'s\b|$)")
_POSSESSIVE_RE: Final = re.compile(r"['’]s\b")
_CJK_RE: Final = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def _names(f: StoredFact) -> frozenset[str]:
    """The names and numbers of a fact's value."""
    return frozenset(
        anchors(f.value, sentence=f.predicate == "statement" or len(f.value.split()) > 3)
    )


def _restates(f: StoredFact, said: str) -> bool:
    """``said`` names every named value of ``f`` (its names and numbers) and no other: the
    same value said again, no change of it. A statement naming the old value beside a new
    one says what it replaces ("Deixei o Strava e agora registro as corridas no Garmin")."""
    need = _names(f)
    if not need or not names(" ".join(sorted(need)), said):
        return False
    return not anchors(said, sentence=True) - need


def _persons(text: str) -> frozenset[str]:
    """The person nouns of a text, an English possessive read too ("my husband's")."""
    return FOLD.persons_in(_POSSESSIVE_RE.sub(" ", text))


def _of_another(subject: str) -> bool:
    rest = subject.split("'s ", 1)[1] if "'s " in subject else ""
    return bool(rest) and FOLD.is_person(rest)


def _eligible(f: StoredFact, c: CandidateFact, said: str, lex: Lexicon) -> bool:
    if f.type is not FactType.FACT or f.status is not FactStatus.ACTIVE:
        return False
    if f.tenant_id != c.tenant_id or f.user_id != c.user_id:
        return False
    if f.last_seen >= c.turn_ts or any(t in f.source_turn_ids for t in c.source_turn_ids):
        return False
    if not _OWNER_RE.match(f.subject) or (_of_another(f.subject) and f.predicate != "name_is"):
        return False  # a fact of no speaker's, or another person's ("user's sister ...")
    fam = lex.family(f.predicate, f.value)
    mine = {x.name for x in lex.families_of(f.predicate, f.value)}
    theirs = {x.name for x in lex.families_of(c.predicate, said)}
    if mine and theirs and not mine & theirs:
        return False  # two slots of no family in common: the home is no new employer
    if (fam is not None and fam.additive) or (
        f.predicate != "statement" and is_multi_valued(f.predicate)
    ):
        return False  # a family or predicate that holds several values at once
    if _persons(said) - _persons(meaning_text(f)):
        return False  # the statement is about a person the fact is not ("my wife's dentist")
    if other_persons(f.value, said, FOLD, lex):
        return False
    if qualifier_clash(meaning_text(f), said, lex):
        return False
    return not _restates(f, said)


def says_change(
    c: CandidateFact, lex: Lexicon = LEXICON, rules: ChangeRules = CHANGE, bars: CuedBars = CUED
) -> bool:
    """Whether ``c`` may replace a fact by this step at all: one short statement of the
    speaker's own with a change cue, adding no value (read before the store is asked)."""
    if c.type not in (FactType.FACT, FactType.EVENT) or _of_another(c.subject):
        return False  # an episode of no fact, or another person's change
    said = candidate_text(c)
    if not bars.short(said) or rules.adds(said):
        return False
    if not (lex.has_change_cue(said) or lex.has_change_cue(c.context)):
        return False
    fam = lex.family(c.predicate, said)
    return fam is None or not fam.additive


def cued_target(
    c: CandidateFact,
    key: str,
    near: Sequence[tuple[StoredFact, float]],
    meaning: Meaning | None,
    model: RelationModel,
    lex: Lexicon = LEXICON,
    rules: ChangeRules = CHANGE,
    bars: CuedBars = CUED,
) -> SemanticMatch | None:
    """The active fact among ``near`` (the candidate's nearest facts, with their cosines)
    that ``c`` replaces, or None (see the module)."""
    if meaning is None or not says_change(c, lex, rules, bars):
        return None
    said = candidate_text(c)
    # a change names its new value: a name or a number the old fact does not (Chinese marks
    # no name by its letters: there the relation model and the topic decide)
    named = None if _CJK_RE.search(said) else anchors(said, sentence=True)
    found: list[tuple[float, float, StoredFact]] = []
    for f, sim in near:
        if f.key == key or not bars.short(meaning_text(f)) or not _eligible(f, c, said, lex):
            continue
        if named is not None and not named - _names(f):
            continue
        close = meaning.similarity(meaning_text(f), said)
        if close < bars.floor:
            continue  # another topic
        x = pair_features(f.predicate, f.value, c.predicate, said, sim)
        update = model.probabilities(x)["update"]
        if update >= bars.update:
            found.append((update, close, f))
    if len(found) != 1:
        return None  # nothing, or no one fact clearly the one replaced
    update, close, f = found[0]
    return SemanticMatch(f, close, f"cued:update={update:.3f}:near={close:.3f}")
