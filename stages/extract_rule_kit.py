"""The parts every rule of the rule extractor is made of: hits, the match context,
the rule record, the shared builder and pattern fragments."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from memgate.core.events import FactType
from memgate.stages.extract_dates import parse_event_date
from memgate.stages.extract_lexicon import C_STATED
from memgate.stages.extract_text import _BAD_OBJ_START, _clean, _meaningful

# ============================================================== rules


@dataclass(frozen=True, slots=True)
class _Hit:
    type: FactType
    subject: str
    predicate: str
    object: str
    confidence: float
    rule: str
    valid_from: datetime | None = None
    retracts: bool = False


@dataclass(slots=True)
class _Ctx:
    """What a builder may read about the sentence it is looking at."""

    low: str  # lower-cased sentence (same length as orig)
    orig: str  # original sentence (or ``low`` if lower-casing changed the length)
    ts: datetime
    forced: bool  # inside an explicit "remember that ..." request

    def text(self, m: re.Match[str], group: str) -> str:
        s, e = m.span(group)
        return self.orig[s:e] if s >= 0 else ""

    def date(self) -> tuple[datetime, tuple[int, int]] | None:
        return parse_event_date(self.low, self.ts)


Builder = Callable[[re.Match[str], _Ctx], list[_Hit]]


@dataclass(frozen=True, slots=True)
class _Rule:
    """One extraction rule.

    It runs only on a clause holding one of its ``triggers`` (lower-case tokens, or
    the pseudo-tokens ``<ed>`` / ``<ing>`` for "has a past-tense / -ing word"); an
    empty set means always. ``anchored`` rules match at the clause start only.
    """

    name: str
    triggers: frozenset[str]
    pattern: re.Pattern[str]
    build: Builder
    fallback: bool = False
    anchored: bool = False
    clauses: bool = False  # anchored, but also tried at the start of each later clause



_SUBJ = r"(?P<subj>i|we)"
_ADV = r"(?:(?:really|also|just|still|totally|absolutely|actually|genuinely|truly|now|" \
       r"currently|usually|generally|definitely|honestly|kind of|kinda|sort of|so|always|" \
       r"both|all|even|already|finally|recently|strongly|mostly|mainly|often|sometimes|" \
       r"officially|literally|seriously|pretty much|recently)\s+)*"


def _subject(m: re.Match[str]) -> str:
    try:
        s = m.group("subj")
    except IndexError:
        return "user"
    if s and s.split("'")[0].strip() in ("we", "our", "us", "wir", "unser", "unsere", "nous",
                                         "notre", "nosotros", "nuestro", "nuestra", "nós",
                                         "nosso", "nossa"):
        return "team"
    return "user"


def _simple(
    type_: FactType,
    predicate: str | Callable[[str], str],
    conf: float = C_STATED,
    group: str = "obj",
    min_words: int = 1,
    dated: bool = False,
) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        raw = ctx.text(m, group)
        when: datetime | None = None
        if dated:
            found = ctx.date()
            if found is not None:
                when, (ds, de) = found
                s0 = m.start(group)
                # drop the date phrase from the object when it lies inside it
                if s0 <= ds < s0 + len(raw):
                    raw = raw[: ds - s0] + " " + raw[de - s0:]
        obj = _clean(raw)
        if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj, min_words):
            return []
        pred = predicate if isinstance(predicate, str) else predicate(obj)
        if not pred:
            return []
        return [_Hit(type_, _subject(m), pred, obj, conf, "", when)]

    return build

# ---------------------------------------------------------------- the rule table


def _r(
    name: str,
    triggers: str | Iterable[str],
    pattern: str,
    build: Builder,
    fallback: bool = False,
    clauses: bool = False,
) -> _Rule:
    trig = frozenset(triggers.split()) if isinstance(triggers, str) else frozenset(triggers)
    return _Rule(name, trig, re.compile(pattern), build, fallback, pattern.startswith("^"),
                 clauses)


_IM = r"(?:i'm|im|i am)"
_WEARE = r"(?:we're|we are)"
_OBJ = r"(?P<obj>[^.!?;]+)"
_OBJ_SHORT = r"(?P<obj>[^.!?;,]{2,80})"
# "I love this pic": a reaction to what the listener shared, not a taste
_REACTION_NOUNS = (
    r"(?:pic|pics|photo|photos|picture|pictures|shot|idea|one|look|vibe|vibes|message|"
    r"advice|quote|part|moment|news|color|colors|colour|colours|detail|details|stuff|thing|"
    r"way|feeling|energy|attitude|mindset|spot|view)\b"
)
_IRREGULAR_PAST = (
    "went got ran took made met began won bought found gave wrote built drove flew swam sang "
    "drew caught taught brought spent sold grew rode broke chose became held led sent spoke "
    "wore threw fell left did had saw read hit put lost quit ate drank fought dug hung hid "
    "kept lent lit paid rang rose sat slept stood stole struck swore swept swung tore woke "
    "shot shut sank spun split spread came cut beat bit blew froze forgave overcame "
    "underwent withdrew"
)
_EDVERB = (
    r"(?P<verb>set up|" + "|".join(_IRREGULAR_PAST.split()) + r"|[a-z]{2,}ed)"
)
_EDVERB_BARE = _EDVERB.replace("(?P<verb>", "(?:")
_PPVERB = (
    r"(?P<verb>gone|gotten|got|run|taken|made|met|begun|won|bought|found|given|written|"
    r"built|driven|flown|become|done|been to|been through|joined|had|seen|read|sold|"
    r"grown|ridden|started|[a-z]{2,}ed)"
)

_IRREGULAR_PAST_SET = frozenset(_IRREGULAR_PAST.split()) | {"set"}  # "set up"
_ED_END_RE = re.compile(r"ed\b")
_ING_END_RE = re.compile(r"ing\b")
