"""A deletion request that names a category, not the fact: "remove anything you have on my
prescriptions" for "my doctor put me on metformin", "efface tout ce qui concerne mon boulot"
for "I maintain the billing service at Quadra".

A category word and a sentence are far apart for any sentence encoder (usem: "mon boulot"
and the billing sentence 0.13, and 0.33 with "je fais de l'escalade": a bare similarity
picks the wrong fact). A fact is put in a category by its nearest *prototypes* instead:
short typical statements of each category in several languages
(``memgate/data/reference_categories.json``), compared with the fact by usem. A fact belongs
to the category of its nearest prototype only at or above the data's ``bar`` and by its
``margin`` over every other category; else to none.

:func:`by_category` is asked for a deletion whose topic names a category word: the facts of
the speaker (tenant and user of the request, said before it) in a named category; None
when the topic names no category or usem is off (no opinion). :func:`other_category` tells
a fact reached by bare similarity that clearly belongs to another category than the one
named: it is not erased.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Final

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, StoredFact
from memgate.core.stores import FactView
from memgate.stages.reference_kinds import speaker_facts
from memgate.stages.resolve_meaning import meaning_text

__all__ = ["Categories", "by_category", "categories", "category_of", "other_category"]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
#: How much of a topic is read for the categories it names (a topic is a noun phrase; a
#: longer one is read this far, so reading it stays cheap whatever a user sends).
_TOPIC_CHARS: Final = 400


@dataclass(frozen=True)
class Categories:
    """The categories of the data file: the words that name each, its prototypes."""

    words: dict[str, re.Pattern[str]]
    prototypes: dict[str, tuple[str, ...]]
    bar: float
    margin: float
    includes: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def named(self, topic: str) -> frozenset[str]:
        """The categories a topic names by one of their words, with the categories each
        includes ("my job" reaches the colleagues named at work). A word inside a longer
        word of another category names that one only: "gente de mi trabajo" names the
        colleagues, not the job.

        >>> sorted(categories().named("meinen Essgewohnheiten")), categories().named("mein Auto")
        (['diet'], frozenset())
        >>> sorted(categories().named("我身体状况"))
        ['health']
        >>> sorted(categories().named("gente de mi trabajo"))
        ['colleagues']
        >>> sorted(categories().named("mon boulot"))
        ['colleagues', 'job']
        """
        low = topic[:_TOPIC_CHARS].casefold()  # a noun phrase: its head is near the start
        spans = {name: [m.span() for m in rx.finditer(low)] for name, rx in self.words.items()}
        longer = [(name, span) for name, own in spans.items() for span in own]
        direct = {
            name
            for name, own in spans.items()
            if any(not _inside(span, name, longer) for span in own)
        }
        return frozenset(direct | {i for name in direct for i in self.includes.get(name, ())})


def _inside(span: tuple[int, int], name: str, spans: list[tuple[str, tuple[int, int]]]) -> bool:
    """``span`` lies inside a longer match of another category's word."""
    s, e = span
    return any(o != name and a <= s and e <= b and (a, b) != span for o, (a, b) in spans)


def _pattern(words: list[str]) -> re.Pattern[str]:
    latin = sorted({w.casefold() for w in words if not _CJK_RE.search(w)}, key=len, reverse=True)
    cjk = sorted({w for w in words if _CJK_RE.search(w)}, key=len, reverse=True)
    parts = []
    if latin:
        parts.append(r"(?<!\w)(?:" + "|".join(map(re.escape, latin)) + r")(?!\w)")
    parts += [re.escape(w) for w in cjk]
    return re.compile("|".join(parts) if parts else r"(?!x)x")


@cache
def categories() -> Categories:
    """The categories of ``memgate/data/reference_categories.json``."""
    raw = json.loads(
        resources.files("memgate.data").joinpath("reference_categories.json").read_text("utf-8")
    )
    cats = raw["categories"]
    return Categories(
        words={k: _pattern(v["words"]) for k, v in cats.items() if v["words"]},
        prototypes={k: tuple(v["prototypes"]) for k, v in cats.items()},
        bar=float(raw["bar"]),
        margin=float(raw["margin"]),
        includes={k: tuple(v.get("includes", ())) for k, v in cats.items()},
    )


def _nearest(text: str, meaning: Meaning, cats: Categories) -> dict[str, float]:
    """Each category's nearest prototype to ``text``, by usem."""
    return {k: max(meaning.similarity(text, p) for p in ps) for k, ps in cats.prototypes.items()}


def category_of(text: str, meaning: Meaning, cats: Categories | None = None) -> str | None:
    """The category of a fact's text: its nearest prototype's, at or above the bar and by
    the margin over every other category's nearest; None when no category is clearly
    nearest."""
    cats = cats or categories()
    scores = sorted(((v, k) for k, v in _nearest(text, meaning, cats).items()), reverse=True)
    if not scores or scores[0][0] < cats.bar:
        return None
    if len(scores) > 1 and scores[0][0] - scores[1][0] < cats.margin:
        return None
    return scores[0][1]


def _side(text: str, named: frozenset[str], meaning: Meaning, cats: Categories) -> int:
    """1 when ``text`` is clearly of a named category, -1 when clearly of another one, 0
    when neither: the nearest prototype of one side at or above the bar and by the margin
    over the other side's nearest ("my job" and the colleagues it includes are one side: a
    work fact near both is still a work fact)."""
    near = _nearest(text, meaning, cats)
    inside = max((v for k, v in near.items() if k in named), default=0.0)
    outside = max((v for k, v in near.items() if k not in named), default=0.0)
    if inside >= cats.bar and inside - outside >= cats.margin:
        return 1
    if outside >= cats.bar and outside - inside >= cats.margin:
        return -1
    return 0


def by_category(
    c: CandidateFact, view: FactView, meaning: Meaning | None
) -> list[tuple[StoredFact, str]] | None:
    """The current facts of ``c``'s owner in a category ``c``'s topic names, oldest
    recorded first, with why (``topic_category``); None when the topic names no category
    or usem is off."""
    if meaning is None:
        return None
    cats = categories()
    named = cats.named(c.object)
    if not named:
        return None
    facts = sorted(speaker_facts(view, c), key=lambda f: (f.recorded_at, f.fact_id))
    return [
        (f, "topic_category") for f in facts if _side(meaning_text(f), named, meaning, cats) > 0
    ]


def other_category(c: CandidateFact, f: StoredFact, meaning: Meaning | None) -> bool:
    """``f`` clearly belongs to another category than every one ``c``'s topic names
    (False when the topic names none, or usem is off)."""
    if meaning is None:
        return False
    cats = categories()
    named = cats.named(c.object)
    if not named:
        return False
    return _side(meaning_text(f), named, meaning, cats) < 0
