"""Two things of one owner told apart by a qualifier, under one slot of the extractor.

"Our staging database is PostgreSQL" and "Our analytics database is ClickHouse" are both
``team uses_tool:database``: the extractor keeps the slot and the value, not which
database. Read as one key, the second would supersede the first; they are two databases.
The source sentences say it by structure (``memgate/data/qualifiers.json``): the owner's
possessive, a qualifier and the head noun, the same noun on both sides (or the noun
inflected) and another qualifier, neither a word of time or rank ("new", "current": one
thing at another time). :func:`kept_apart` then gives the candidate a subject of its own
("team's analytics database"), so it is a fact of its own key: said again, it folds into
itself; changed ("our analytics database is now Snowflake"), it supersedes itself only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from memgate.core.events import CandidateFact, FactStatus, StoredFact, normalise
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_stance import inflected

__all__ = [
    "QUALIFIERS",
    "Qualifiers",
    "adds_another",
    "kept_apart",
    "other_thing",
    "qualified_noun",
]

_WORD_RE: Final = re.compile(r"\w+", re.UNICODE)
_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")


def _pattern(words: list[str]) -> re.Pattern[str] | None:
    """One pattern of the words, at word boundaries (a hyphen joins: "segunda-feira" is no
    "segunda"), Chinese as a substring; None for no words."""
    parts = [
        re.escape(w) if _CJK_RE.search(w) else rf"(?<![\w-]){re.escape(w)}(?![\w-])"
        for w in sorted({w.lower() for w in words}, key=len, reverse=True)
    ]
    return re.compile("|".join(parts)) if parts else None


@dataclass(frozen=True)
class Qualifiers:
    """The data of :mod:`memgate.stages.resolve_qualifier`."""

    version: str
    possessives: frozenset[str]
    not_qualifiers: frozenset[str]
    adding: re.Pattern[str] | None = None
    """A word that adds one more ("also") or names another one ("second", "another")."""
    classes: tuple[tuple[re.Pattern[str], ...], ...] = ()
    """Closed classes (the days of the week): a pattern per member."""
    additive: re.Pattern[str] | None = None
    """A word that adds one more ("also", "aussi"), without the words naming another one."""
    degree: frozenset[str] = frozenset()
    """A comparative's degree word after its noun ("mais velho", "más joven", "plus âgé")."""

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Qualifiers:
        def words(key: str) -> frozenset[str]:
            return frozenset(normalise(w) for ws in data[key].values() for w in ws)

        adding = [w for key in ("additive", "another") for ws in data[key].values() for w in ws]
        classes = tuple(
            tuple(p for p in (_pattern(m) for m in members) if p is not None)
            for members in data["closed_classes"].values()
        )
        return cls(
            str(data["version"]),
            words("possessives"),
            words("not_qualifiers"),
            _pattern(adding),
            classes,
            _pattern([w for ws in data["additive"].values() for w in ws]),
            words("degree") if "degree" in data else frozenset(),
        )

    def members(self, text: str) -> list[frozenset[int]]:
        """Per closed class, the members ``text`` names (by index)."""
        low = text.lower()
        return [frozenset(i for i, p in enumerate(c) if p.search(low)) for c in self.classes]


def _load() -> Qualifiers:
    text = resources.files("memgate.data").joinpath("qualifiers.json").read_text("utf-8")
    return Qualifiers.from_data(json.loads(text))


QUALIFIERS: Final = _load()


def qualified_noun(
    text: str, q: Qualifiers = QUALIFIERS, lex: Lexicon = LEXICON
) -> tuple[str, str] | None:
    """The (qualifier, noun) the owner's first possessive of ``text`` is followed by
    ("Our staging database is ...": ``("staging", "database")``; a comparative after its
    noun read the same: "o meu irmão mais velho": ``("velho", "irmão")``); None when the
    word after it is no qualifier (a function word, a word of time or rank) or nothing
    follows.

    >>> qualified_noun("O meu irmão mais novo mora em Lisboa")
    ('novo', 'irmão')
    """
    words = _WORD_RE.findall(normalise(text))
    for i, w in enumerate(words[:-2]):
        if w in q.possessives:
            mod, noun = words[i + 1], words[i + 2]
            skip = q.not_qualifiers | lex.stopwords | lex.clause_stopwords
            if noun in q.degree and i + 3 < len(words):
                # the qualifier after its noun, as a comparative ("o meu irmão mais velho"):
                # a comparative is no word of time ("mais novo": younger, not new)
                mod, noun = words[i + 3], words[i + 1]
                skip = lex.stopwords | lex.clause_stopwords
            if mod in skip or noun in skip or mod.isdigit():
                return None
            return mod, noun
    return None


def _two_things(a: str, b: str, q: Qualifiers, lex: Lexicon) -> str | None:
    """The qualifier of ``b`` when ``a`` and ``b`` name one noun of the owner with two
    qualifiers ("staging database" / "analytics database"), else None."""
    qa, qb = qualified_noun(a, q, lex), qualified_noun(b, q, lex)
    if qa is None or qb is None:
        return None
    if not inflected(qa[1], qb[1]) or inflected(qa[0], qb[0]):
        return None
    return f"{qb[0]} {qb[1]}"


def kept_apart(
    c: CandidateFact,
    existing: list[StoredFact],
    q: Qualifiers = QUALIFIERS,
    lex: Lexicon = LEXICON,
) -> CandidateFact | None:
    """``c`` with a subject of its own when the active fact of its key is another thing of
    the owner by its qualifier (:func:`qualified_noun` on both source sentences); None when
    it is not (the same thing, or no qualifier read on either side)."""
    if c.retracts or c.multi_valued:
        return None
    active = next((f for f in existing if f.status is FactStatus.ACTIVE), None)
    if active is None:
        return None
    own = _two_things(active.context or active.value, c.context or c.object, q, lex)
    if own is None:
        return None
    owner = normalise(c.subject).split(" ", 1)[0].removesuffix("'s")
    return c.model_copy(update={"subject": f"{owner}'s {own}"})


def other_thing(
    f: StoredFact, c: CandidateFact, q: Qualifiers = QUALIFIERS, lex: Lexicon = LEXICON
) -> bool:
    """``f`` is another thing of the owner than ``c`` by its qualifier: no fact ``c``
    supersedes under another key either (the family of the staging database's tool is the
    analytics database's too). Nor does a statement that says it adds a value beside the
    stored one ("le mardi je fais aussi du théâtre") where the stored one does not say so:
    an added value replaces nothing (``qualifiers.json``'s additive words; "another team"
    names no added value of the owner)."""
    add = q.additive
    if add is not None and add.search(c.object.lower()) and not add.search(f.value.lower()):
        return True
    return _two_things(f.context or f.value, c.context or c.object, q, lex) is not None


def adds_another(said: str, again: str, q: Qualifiers = QUALIFIERS) -> bool:
    """``again`` is another fact than ``said`` however near in words: it says a word that adds
    one more or names another one ("also", "a second", "außerdem") that ``said`` does not,
    or both name members of one closed class and not the same ones (Mondays / Tuesdays)."""
    low_s, low_a = said.lower(), again.lower()
    if q.adding is not None and q.adding.search(low_a) and not q.adding.search(low_s):
        return True
    return any(a and b and a != b for a, b in zip(q.members(said), q.members(again), strict=True))
