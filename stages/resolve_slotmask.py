"""The slot with its values masked: a change in new words found by its frame and its value.

A new value is far from the old one in any sentence encoder ("Unser Ticketsystem ist
Jira" / "Wir sind inzwischen komplett auf Linear umgestiegen"): what the two share is the
*frame* (what is said about the owner) and the *kind* of their values, while the values
themselves differ. Two cosines of the multilingual encoder already shipped (usem,
:class:`~memgate.core.embedding_use.Meaning`) read them, with no phrase rule and no word
list:

- **frame**: the two statements with their values replaced by one placeholder
  ("Unser X ist X" / "Wir sind inzwischen komplett auf X umgestiegen"). A value is a typed
  fact's own value (the fact then read as its slot and value, owner left out, as
  :func:`~memgate.stages.resolve_meaning.meaning_text` reads it: "boyfriend name is X"), or
  in a sentence its named things as :func:`~memgate.stages.resolve_slots.named_tokens`
  reads them (capitalised and not first, with a digit, dotted, Latin inside Chinese);
  adjacent ones are one value ("Toyota Corolla");
- **value**: the two values alone ("Azure" / "AWS", "Felipe" / "Rafael").

:func:`slot_mask_target`: a candidate with a change cue supersedes the active fact of its
owner (the owner's own facts and the names of its things) whose frame and value are at or
above the bars of ``memgate/data/slotmask.json`` while the values differ (neither holds
the other's names: the same value is a restatement). As everywhere usem is asked, two
English texts are not (``english_pairs`` of ``memgate/data/meaning.json``: asked about
English pairs too, slotmask cost LoCoMo recall). The bars were fixed by a rule on the
written pairs of ``memgate/data/train/relations*.jsonl`` (``tools/slot_sweep.py``). The
structural checks come first: a family that holds several values never, two families
named never, another person's fact never (:func:`~memgate.stages.resolve_paraphrase.other_persons`,
a person's subject unless the fact is the name of the owner's person: "user's boyfriend
name_is Felipe").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, FactStatus, FactType, StoredFact, normalise
from memgate.core.stores import FactView
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_meaning import meaning_text, usem_similarity
from memgate.stages.resolve_paraphrase import FOLD, other_persons
from memgate.stages.resolve_semantic import SemanticMatch
from memgate.stages.resolve_slots import anchors, named_tokens

__all__ = [
    "SLOT_BARS",
    "Slot",
    "SlotBars",
    "fact_slot",
    "person_clash",
    "slot_mask_target",
    "statement_slot",
]

#: What stands for a value in a frame.
PLACEHOLDER: Final = "X"
_OWNER_RE: Final = re.compile(r"^(user|team)(?:'s|s)?\b\s*")
_GAP_RE: Final = re.compile(r"^\s*$")
#: The types a stored fact and a candidate may have: a state, not a wish or a correction.
_TYPES: Final = (FactType.FACT, FactType.EVENT)


@dataclass(frozen=True)
class SlotBars:
    """The usem cosines at which two statements share a frame and a kind of value."""

    version: str
    frame: float
    value: float

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SlotBars:
        return cls(str(data["version"]), float(data["frame"]), float(data["value"]))


def _load() -> SlotBars:
    text = resources.files("memgate.data").joinpath("slotmask.json").read_text("utf-8")
    return SlotBars.from_data(json.loads(text))


SLOT_BARS: Final = _load()


@dataclass(frozen=True)
class Slot:
    """A statement read as a frame and a value."""

    frame: str
    value: str
    names: frozenset[str]


def statement_slot(text: str) -> Slot | None:
    """A sentence's frame (its named things masked, adjacent ones as one) and values;
    None when it names nothing.

    >>> s = statement_slot("Traded in the old one, my car is a Mazda 3 now.")
    >>> s.frame, s.value, sorted(s.names)
    ('Traded in the old one, my car is a X now.', 'Mazda 3', ['3', 'mazda'])
    >>> statement_slot("Mon sport, c'est la natation.") is None
    True
    """
    spaced, tokens = named_tokens(text)
    spans: list[list[int]] = []
    for a, b, named in tokens:
        if not named:
            continue
        if spans and _GAP_RE.match(spaced[spans[-1][1] : a]):
            spans[-1][1] = b  # "Toyota Corolla": one value
        else:
            spans.append([a, b])
    if not spans:
        return None
    frame, at = [], 0
    for a, b in spans:
        frame += [spaced[at:a], PLACEHOLDER]
        at = b
    frame.append(spaced[at:])
    values = [spaced[a:b] for a, b in spans]
    return Slot(
        "".join(frame), " ".join(values), frozenset(anchors(" ".join(values), sentence=False))
    )


def fact_slot(f: StoredFact | CandidateFact) -> Slot | None:
    """A fact's frame and value: a sentence's (:func:`statement_slot`), or a typed value
    with its slot, owner left out ("contact manager X", value "Priya Raman")."""
    value = f.value if isinstance(f, StoredFact) else f.object
    said = meaning_text(f)
    if f.predicate == "statement" or said == value:
        return statement_slot(value)
    rest = _OWNER_RE.sub("", normalise(f.subject))
    slot = re.sub(r"[:_]+", " ", f.predicate).strip()
    frame = " ".join(p for p in (rest, slot, PLACEHOLDER) if p)
    return Slot(frame, value, frozenset(anchors(value, sentence=False)))


def _differ(a: Slot, b: Slot) -> bool:
    """Neither value holds the other's names ("Priya Raman" holds "Priya")."""
    return bool(a.names) and bool(b.names) and not (a.names <= b.names or b.names <= a.names)


def _owner(subject: str) -> tuple[str, str]:
    m = _OWNER_RE.match(normalise(subject))
    return ("", "") if m is None else (m.group(1), normalise(subject)[m.end() :])


def _persons(text: str) -> frozenset[str]:
    """The person nouns a text names (``persons`` of ``memgate/data/paraphrase.json``)."""
    return FOLD.persons_in(text)


def person_clash(f: StoredFact, c: CandidateFact, lex: Lexicon) -> bool:
    """One side is about a person the other does not name: "My sister just moved to
    Glasgow" is no new value of "user lives_in Leeds", nor "I now live in Berlin" of "My
    sister lives in Oslo". The fact that names the owner's person ("user's boyfriend
    name_is Felipe") may change in words that name none ("Agora estou namorando o
    Rafael"); one person of one single-valued family is one ("boss" / "manager")."""
    said_f = _persons(f.value)
    about_f = said_f | _persons(_owner(f.subject)[1])
    about_c = _persons(c.object) | _persons(_owner(c.subject)[1])

    def one(a: frozenset[str], b: frozenset[str]) -> bool:
        if a & b:
            return True
        groups = lex.single_words
        return any(any(g.search(x) for x in a) and any(g.search(y) for y in b) for g in groups)

    if about_c and not one(about_c, about_f):
        return True
    return bool(said_f) and not one(said_f, about_c)


def slot_mask_target(
    c: CandidateFact,
    key: str,
    view: FactView,
    meaning: Meaning | None,
    lex: Lexicon = LEXICON,
    bars: SlotBars = SLOT_BARS,
) -> SemanticMatch | None:
    """The active fact of ``c``'s owner that ``c``, said with a change cue, gives a new
    value of: the same frame and the same kind of value at ``bars``, another value. The
    nearest frame wins. None without a :class:`Meaning` (usem off)."""
    if meaning is None or c.type not in _TYPES:
        return None
    if not (lex.has_change_cue(c.object) or lex.has_change_cue(c.context)):
        return None
    fam, _ = lex.family_of(c.predicate, c.object)
    if fam is not None and fam.additive:
        return None
    owner, _ = _owner(c.subject)
    new = fact_slot(c)
    if not owner or new is None:
        return None
    pool = view.by_subject(  # texts alone: usem reads them, no MiniLM vector is asked
        c.tenant_id,
        c.user_id,
        owner,
        statuses=(FactStatus.ACTIVE,),
        qualified=True,
        vectors=False,
    )
    best: SemanticMatch | None = None
    for f in pool:
        if f.key == key or f.type not in _TYPES or f.type == FactType.EVENT:
            continue
        _, rest = _owner(f.subject)
        if rest and FOLD.is_person(rest) and f.predicate != "name_is":
            continue  # another person's fact ("user's sister lives_in Oslo")
        ffams = lex.families_of(f.predicate, f.value)
        if any(x.additive for x in ffams) or (fam is not None and ffams and fam not in ffams):
            continue
        if other_persons(f.value, c.object, FOLD, lex) or person_clash(f, c, lex):
            continue  # "my manager is Priya" / "my partner is now Tomasz"
        old = fact_slot(f)
        if old is None or not _differ(old, new):
            continue
        frame = usem_similarity(meaning, old.frame, new.frame)
        if frame is None or frame < bars.frame:
            continue  # not asked about two English texts (``english_pairs``), or far
        value = meaning.similarity(old.value, new.value)
        if value < bars.value:
            continue
        why = f"slotmask:frame={frame:.3f}:value={value:.3f}"
        if best is None or (frame, f.fact_id) > (best.similarity, best.fact.fact_id):
            best = SemanticMatch(f, frame, why)
    return best
