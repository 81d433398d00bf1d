"""One single-valued slot, two values: the identity the read and the write path share.

An older fact whose single-valued family (``memgate/data/resolution.json``) is known and a
newer fact of the same owner (user and team pooled) that says the same family, or says a
change and names no family, are values of one slot (:func:`conflict`). Never: a
multi-valued family or predicate (languages, hobbies, children, allergies), a statement
that adds a value ("also", "auch", "也"), another person's fact (a person the older fact
does not name), a hedge or plan ("maybe", "quizás") and a state of the moment ("this week
I'm in Lisbon"). The words are the data of ``memgate/data/read_conflict.json`` and the
lists it names.

The read path (:mod:`memgate.read_conflict`) serves the newer of two such hits first. The
write path (:func:`changed_slot`, step 9b of :mod:`memgate.stages.dedupe`) closes the older
at once only where the change is plain: the newer names no family but says a change, a
word of one family's ``slot_hints`` (a flat, a move, a first day, a phone's make; weaker
than the family's own words, so read only beside a change said), a value named, and one
active fact of the owner fills that family.

>>> from datetime import UTC, datetime
>>> from memgate.core.events import FactStatus, FactType, StoredFact
>>> def fact(pred, value, day):
...     t = datetime(2025, 1, day, tzinfo=UTC)
...     return StoredFact.model_construct(
...         fact_id=value, subject="user", predicate=pred, value=value, text=value,
...         type=FactType.FACT, status=FactStatus.ACTIVE, valid_from=t, valid_to=None)
>>> old = fact("lives_in", "Köln", 1)
>>> conflict(old, fact("statement", "Seit dem Umzug wohnen wir jetzt in Leipzig", 20)).name
'lives_in'
>>> conflict(old, fact("statement", "Mein Bruder wohnt jetzt in Leipzig", 20)) is None
True
>>> hinted_family("Seit dem Umzug haben wir jetzt eine Wohnung in Leipzig")
'lives_in'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from memgate.core.events import CandidateFact, FactStatus, StoredFact, normalise
from memgate.core.stores import FactView
from memgate.core.text import bounded_alternation
from memgate.stages.moment import moment_reason
from memgate.stages.resolution_lexicon import LEXICON, Family
from memgate.stages.resolve_paraphrase import FOLD
from memgate.stages.resolve_replaced import CHANGE
from memgate.stages.slot_frames import says_change
from memgate.stages.statement_text import cues

__all__ = [
    "ConflictRules",
    "anchor",
    "changed_slot",
    "conflict",
    "hinted_family",
    "newcomer",
    "pair",
]

_OWNERS = ("user", "team")
_CJK_RE = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class ConflictRules:
    """The data of ``memgate/data/read_conflict.json`` and ``predicates.json``."""

    free_predicates: frozenset[str]
    multi_valued: frozenset[str]
    min_relevance: float
    hints: tuple[tuple[str, re.Pattern[str]], ...] = ()
    """Per single-valued family, the words that point at its slot beside a change said."""

    @classmethod
    def default(cls) -> ConflictRules:
        return _rules()


def _hint_re(words: list[str]) -> re.Pattern[str]:
    parts = sorted({w.lower() for w in words if w.strip()}, key=len, reverse=True)
    branches = [(re.escape(w).replace(r"\ ", r"\s+"), not _CJK_RE.search(w)) for w in parts]
    return re.compile(bounded_alternation(branches))


@lru_cache(maxsize=1)
def _rules() -> ConflictRules:
    def read(name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(
            (resources.files("memgate") / "data" / name).read_text("utf-8")
        )
        return data

    own, preds = read("read_conflict.json"), read("predicates.json")
    multi = set(preds["multi_valued"]) | set(preds["qualified_multi_valued"])
    return ConflictRules(
        free_predicates=frozenset(own["free_predicates"]),
        multi_valued=frozenset(multi),
        min_relevance=float(own["min_relevance"]),
        hints=tuple((name, _hint_re(ws)) for name, ws in own["slot_hints"].items() if ws),
    )


@dataclass(frozen=True)
class _Slot:
    family: Family | None
    owner: str


def _slot(f: StoredFact) -> _Slot:
    fam = LEXICON.family(f.predicate, f.value)
    return _Slot(fam, LEXICON.owner(LEXICON.canonical_subject(f.subject), fam))


def _many(f: StoredFact, rules: ConflictRules) -> bool:
    """The fact's predicate holds several values and is no free statement."""
    p = f.predicate
    return p not in rules.free_predicates and (p in rules.multi_valued or p.endswith(":other"))


def _stands(text: str) -> bool:
    """Not a hedge or plan, not only the moment, not a value added beside the others."""
    if CHANGE.adds(text) or moment_reason([text]) is not None:
        return False
    return not cues(text)["uncertain"]


def anchor(f: StoredFact, rules: ConflictRules) -> Family | None:
    """The single-valued family the fact fills as the older value of a conflict."""
    if _many(f, rules):
        return None
    a = _slot(f)
    fam = a.family
    if fam is None or not fam.single or fam.additive or a.owner not in _OWNERS:
        return None
    return fam


def newcomer(f: StoredFact, rules: ConflictRules) -> str | None:
    """As the newer value of a conflict: the name of the family it says, ``""`` for a
    change in words of no family (any older family), ``None``: it never outranks."""
    if _many(f, rules):
        return None
    b = _slot(f)
    if b.owner not in _OWNERS:
        return None
    if b.family is not None:
        name = b.family.name if b.family.single and not b.family.additive else None
    elif LEXICON.has_change_cue(f.value) or says_change(f.value):
        name = ""
    else:
        return None
    return name if name is not None and _stands(f.value) else None


def pair(older: StoredFact, newer: StoredFact, fam: Family, says: str) -> bool:
    """``newer`` (saying ``says``) is a later value of ``older``'s slot ``fam``."""
    if newer.valid_from <= older.valid_from or says not in ("", fam.name):
        return False
    # another person's change ("a mi madre la atiende ..."): a person the older does not name
    return not FOLD.persons_in(newer.value) - FOLD.persons_in(older.value)


def conflict(
    older: StoredFact, newer: StoredFact, rules: ConflictRules | None = None
) -> Family | None:
    """The single-valued family both facts fill when ``newer`` is a later value of the slot
    ``older`` fills (so it ranks first), else ``None``."""
    rules = rules or _rules()
    fam = anchor(older, rules)
    says = None if fam is None else newcomer(newer, rules)
    if fam is None or says is None:
        return None
    return fam if pair(older, newer, fam, says) else None


def hinted_family(text: str, rules: ConflictRules | None = None) -> str | None:
    """The one family whose ``slot_hints`` the text says (``None``: none, or several)."""
    low = (rules or _rules()).hints
    found = {name for name, pat in low if pat.search(text.lower())}
    return found.pop() if len(found) == 1 else None


def _plain(text: str) -> bool:
    """A standing statement naming a value: no question, hypothesis or one-off request,
    and a name said (a capitalised word after the first, a Latin word in Chinese, or
    Chinese, or a text in lower case only: neither marks its names, "we're in bristol now")."""
    cue = cues(text)
    if cue["question"] or cue["hypothetical"] or cue["one_off"]:
        return False
    return bool(cue["named_thing"] or cue["cjk"] or text == text.lower())


def changed_slot(c: CandidateFact, new: StoredFact, view: FactView) -> StoredFact | None:
    """The active fact whose single-valued slot ``new`` (about to be added under a key of
    its own) says a change of, in words of no family: ``new`` says a change
    (:func:`newcomer` is ``""``), names a value, is valid now (not a plan dated later) and
    says a hint of one family; exactly one active fact of the speaker, older, fills that
    family and :func:`conflict` pairs them. ``None``: no write-time change (the read path
    still orders the two)."""
    rules = _rules()
    if new.valid_from > c.turn_ts or newcomer(new, rules) != "" or not _plain(new.value):
        return None
    name = hinted_family(new.value, rules)
    if name is None:
        return None
    t, u = c.tenant_id, c.user_id
    said = normalise(new.value)
    found: list[StoredFact] = []
    for subject in _OWNERS:
        for f in view.by_subject(
            t, u, subject, statuses=(FactStatus.ACTIVE,), qualified=True, vectors=False
        ):
            fam = anchor(f, rules)
            if fam is None or fam.name != name or f.key == new.key:
                continue
            if pair(f, new, fam, "") and normalise(f.value) not in said:
                found.append(f)
    if len({f.fact_id for f in found}) != 1:
        return None
    full = [g for g in view.by_key(t, u, found[0].key) if g.fact_id == found[0].fact_id]
    return full[-1] if full else None
