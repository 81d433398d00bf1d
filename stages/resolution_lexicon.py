"""The word lists of semantic resolution (data: ``memgate/data/resolution.json``).

Change cues, reference patterns (retractions, deletion requests and stops said
about a topic), predicate families, topic words and the implication table live
in data; this module only loads and applies them.

>>> LEXICON.has_change_cue("My new boss is Tom"), LEXICON.has_change_cue("My boss is Tom")
(True, False)
>>> LEXICON.has_change_cue("我们现在用GitLab")
True
>>> LEXICON.has_change_cue("Je n'ai plus Orange"), LEXICON.has_change_cue("J'ai Orange")
(True, False)
>>> LEXICON.family("statement", "My new boss is Tom").name
'manager'
>>> LEXICON.family("has_pet", "a dog named Rex").additive
True
>>> LEXICON.implied("lives_in")
('timezone', 'commute', 'contact:doctor', 'contact:gym', 'uses_tool:gym')
>>> LEXICON.topic_terms("the bit about my diet")
('diet',)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any, Final

from memgate.core.events import normalise
from memgate.core.memo import reading_cache
from memgate.core.text import bounded_alternation
from memgate.stages.literal_scan import LiteralScan
from memgate.stages.regex_literals import required_literals

__all__ = ["LEXICON", "Family", "Lexicon", "ReferencePattern", "Topic"]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_WORD_RE: Final = re.compile(r"\w+", re.UNICODE)
#: Where a Latin word meets Chinese ("改用Linear了"): a word boundary for the family words.
_SCRIPT_SEAM_RE: Final = re.compile(
    r"(?<=[A-Za-z0-9])(?=[\u3400-\u9fff])|(?<=[\u3400-\u9fff])(?=[A-Za-z0-9])"
)
_SPACES_RE: Final = re.compile(r"\s+")
#: Texts whose readings (change cue, negation, family, every family) each lexicon keeps,
#: least recently used first out. Resolution compares a candidate with every active fact
#: of its speaker (stages/dedupe.py), so the same stored values are read again for every
#: candidate; the texts are the redacted values and contexts that reach the stores anyway.
READING_CACHE: Final = 16_384


_CLASS_RE: Final = re.compile(r"\{(\w+)\}")
_VOWELS: Final = frozenset("aeiouyàâäéèêëíìîïóòôöúùûü")
#: Words a word class may have before it inside a phrase ("moved {household} to": "the
#: whole family", "my kids").
_CLASS_LEAD: Final = r"(?:\w+\s+){0,2}"


#: The shortest word of a family that takes an inflection ending ("boss", "jefe").
_INFLECTED_MIN: Final = 4


def _phrase_re(
    phrases: list[str],
    classes: dict[str, list[str]] | None = None,
    endings: tuple[str, ...] = (),
    doubled: tuple[str, ...] = (),
) -> re.Pattern[str] | None:
    """One pattern for a list of phrases: word-bounded, except CJK (a substring). A
    ``{name}`` in a phrase stands for a word of that class of ``classes``, after at
    most two words ("moved {household} to": "moved the whole family to"). A phrase of
    one Latin word of at least four letters may take one of ``endings`` (a plural, a
    case, a feminine: "Vorgesetzten", "Chefinnen", "jefes"), or, ending in a consonant,
    double it before one of ``doubled`` (the French feminine: "cheffe", "patronne")."""
    ending = "(?:" + "|".join(re.escape(e) for e in endings) + ")?" if endings else ""
    twice = "|".join(re.escape(e) for e in doubled)
    parts: list[tuple[str, bool]] = []
    for p in sorted({p.lower() for p in phrases if p.strip()}, key=len, reverse=True):
        pieces = _CLASS_RE.split(p)
        esc = ""
        for i, piece in enumerate(pieces):
            if i % 2 == 0:
                esc += re.escape(piece).replace(r"\ ", r"\s+")
            else:
                words = sorted((classes or {})[piece], key=len, reverse=True)
                esc += _CLASS_LEAD + "(?:" + "|".join(re.escape(w) for w in words) + ")"
        if ending and _WORD_RE.fullmatch(p) and len(p) >= _INFLECTED_MIN and not _CJK_RE.search(p):
            if twice and p[-1] not in _VOWELS:
                esc += f"(?:{re.escape(p[-1])}(?:{twice}))?"
            esc += ending
        parts.append((esc, not _CJK_RE.search(p)))
    return re.compile(bounded_alternation(parts)) if parts else None


def _enclitic_re(words: list[str]) -> re.Pattern[str] | None:
    """A pronoun after a verb and a hyphen, at the end of a word ("mudei-me")."""
    alts = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
    return re.compile(rf"(?<=\w)-(?:{alts})(?!\w)", re.IGNORECASE) if alts else None


def _elision_re(words: list[str]) -> re.Pattern[str] | None:
    """Elided words before an apostrophe and a letter, at the start of a word."""
    alts = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
    return re.compile(rf"(?<!\w)({alts})['\u2019](?=\w)", re.IGNORECASE) if alts else None


@dataclass(frozen=True)
class Family:
    """Predicates that speak of one thing (a manager, a home city, pets)."""

    name: str
    predicates: frozenset[str]
    words: re.Pattern[str] | None
    single: bool = False
    additive: bool = False
    speaker: bool = False  # the user's and the team's facts are one pool (tools)


@dataclass(frozen=True)
class Topic:
    """Words of a reference topic and the predicates and placeholders they are about."""

    words: re.Pattern[str]
    predicates: frozenset[str]
    placeholders: tuple[str, ...]


@dataclass(frozen=True)
class ReferencePattern:
    op: str  # "retract", "delete" or "stop"
    lang: str
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Lexicon:
    version: str
    cues: re.Pattern[str] | None
    cue_patterns: re.Pattern[str] | None
    references: tuple[ReferencePattern, ...]
    stopwords: frozenset[str]
    families: tuple[Family, ...]
    topics: tuple[Topic, ...]
    implies: dict[str, tuple[str, ...]]
    subject_aliases: dict[str, str]
    clause_stopwords: frozenset[str]
    negations: re.Pattern[str] | None
    delete_verbs: re.Pattern[str] | None
    determiners: frozenset[str] = frozenset()
    list_openers: frozenset[str] = frozenset()
    """Words besides the determiners that open a noun phrase listed after a deletion's
    topic ("lo de Iberia")."""
    final_particles: str = ""
    """Chinese particles that close a clause (read before a clause's head noun)."""
    elision: re.Pattern[str] | None = None
    """An elided article or pronoun before its word ("l'électricité"), to split off."""
    enclitic: re.Pattern[str] | None = None
    """A pronoun joined to its verb by a hyphen ("mudei-me"), to cut before a family's
    words are read: the verb's slot is the same with and without it."""
    no_change: re.Pattern[str] | None = None
    """Phrases that say nothing changed ("nothing has changed", "rien n'a changé", "没变":
    ``no_change`` of ``memgate/data/continuity.json``): cut before a text is read for a
    change cue or a negation, their "changed" and "nothing" say neither."""
    still: re.Pattern[str] | None = None
    """A word of continuing ("still", "immer noch", "还是": ``still`` of continuity.json)."""
    time_words: re.Pattern[str] | None = None
    """An adverb of the present ("now", "these days", "现在": ``time_words``): in a clause
    that also holds a word of continuing it dates the continuing, and is no change cue."""
    contrast: re.Pattern[str] | None = None
    """Words and punctuation that open another clause ("but", "aber", "但是", ","): a word
    of continuing reaches the time words of its own clause only."""
    single_words: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)
    """The words of each single-valued family that has words (one person of one role:
    "boss" / "manager"), in the families' order: read for every pair of facts compared."""
    _cue: Callable[[str], bool] = field(init=False, repr=False, compare=False)
    _negation: Callable[[str], bool] = field(init=False, repr=False, compare=False)
    _family: Callable[[str, str], tuple[Family | None, bool]] = field(
        init=False, repr=False, compare=False
    )
    _families: Callable[[str, str], tuple[Family, ...]] = field(
        init=False, repr=False, compare=False
    )
    #: the families' word patterns' literals, found in a text in one pass: a family none
    #: of whose literals a reading holds is not searched (issue 14)
    _family_scan: LiteralScan = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # per lexicon, bounded: the readings are pure functions of the text and the lists
        memo = reading_cache(READING_CACHE)
        single = tuple(f.words for f in self.families if f.single and f.words is not None)
        object.__setattr__(self, "single_words", single)
        scan = LiteralScan(
            [None if f.words is None else required_literals(f.words) for f in self.families]
        )
        object.__setattr__(self, "_family_scan", scan)
        object.__setattr__(self, "_cue", memo(self._read_change_cue))
        object.__setattr__(self, "_negation", memo(self._read_negation))
        object.__setattr__(self, "_family", memo(self._read_family))
        object.__setattr__(self, "_families", memo(self._read_families))

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Lexicon:
        cues = [w for words in data["change_cues"].values() for w in words]
        patterns = [p for ps in data.get("change_cue_patterns", {}).values() for p in ps]
        return cls(
            version=str(data["version"]),
            cues=_phrase_re(cues),
            cue_patterns=re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None,
            references=tuple(
                ReferencePattern(r["op"], r["lang"], re.compile(r["pattern"]))
                for r in data["references"]
            ),
            stopwords=frozenset(w.lower() for w in data["topic_stopwords"]),
            families=tuple(
                Family(
                    name=f["name"],
                    predicates=frozenset(f["predicates"]),
                    words=_phrase_re(
                        f["words"],
                        data.get("word_classes"),
                        tuple(data.get("family_word_endings", ())) if f.get("inflects") else (),
                        tuple(data.get("family_word_doubled_endings", ()))
                        if f.get("inflects")
                        else (),
                    ),
                    single=bool(f.get("single", False)),
                    additive=bool(f.get("additive", False)),
                    speaker=bool(f.get("speaker", False)),
                )
                for f in data["families"]
            ),
            topics=tuple(
                Topic(
                    words=_phrase_re(t["words"]) or re.compile(r"(?!)"),
                    predicates=frozenset(t["predicates"]),
                    placeholders=tuple(t["placeholders"]),
                )
                for t in data["topics"]
            ),
            implies={k: tuple(v) for k, v in data["implies"].items()},
            subject_aliases={
                normalise(alias): root
                for root, aliases in data.get("subject_aliases", {}).items()
                for alias in aliases
            },
            clause_stopwords=frozenset(normalise(w) for w in data.get("clause_stopwords", [])),
            negations=_phrase_re([w for ws in data.get("negations", {}).values() for w in ws]),
            delete_verbs=_phrase_re(
                [w for ws in data.get("delete_verbs", {}).values() for w in ws]
            ),
            determiners=frozenset(
                normalise(w) for ws in data.get("determiners", {}).values() for w in ws
            ),
            list_openers=frozenset(
                normalise(w) for ws in data.get("list_openers", {}).values() for w in ws
            ),
            elision=_elision_re([w for ws in data.get("elisions", {}).values() for w in ws]),
            enclitic=_enclitic_re([w for ws in data.get("enclitics", {}).values() for w in ws]),
            final_particles="".join(
                w for ws in data.get("final_particles", {}).values() for w in ws
            ),
        )

    def unelide(self, text: str) -> str:
        """The text with each elided word split from the next ("l'électricité" ->
        "l électricité"), so the noun is a word of its own once apostrophes are dropped.

        >>> LEXICON.unelide("pour l'électricité"), LEXICON.unelide("user's fournisseur")
        ('pour l électricité', "user's fournisseur")
        """
        return text if self.elision is None else self.elision.sub(r"\1 ", text)

    def has_change_cue(self, text: str) -> bool:
        """The text says that something changed ("now", "new", "switched", "不再")."""
        return self._cue(text)

    def _read_change_cue(self, text: str) -> bool:
        low = self._said(text)
        if self.cues is not None and self.cues.search(low) is not None:
            return True
        return self.cue_patterns is not None and self.cue_patterns.search(low) is not None

    def without_change_cues(self, text: str) -> str:
        """The lower-cased text with its change cues blanked out ("持续集成改成了gitlab" ->
        "持续集成 了gitlab"): Chinese has no spaces, so a cue may sit inside a word run.

        >>> LEXICON.without_change_cues("持续集成改成了GitLab CI")
        '持续集成 了gitlab ci'
        """
        low = text.lower()
        for pat in (self.cues, self.cue_patterns):
            if pat is not None:
                low = pat.sub(" ", low)
        return low

    def is_deletion(self, clause: str) -> bool:
        """The clause asks for content to go ("forget", "vergiss", "删除")."""
        return (
            self.delete_verbs is not None and self.delete_verbs.search(clause.lower()) is not None
        )

    def has_negation(self, text: str) -> bool:
        """The text holds a negation ("not", "nicht", "ne ... pas", "不")."""
        return self._negation(text)

    def _read_negation(self, text: str) -> bool:
        return self.negations is not None and self.negations.search(self._said(text)) is not None

    def _said(self, text: str) -> str:
        """The lower-cased text without its phrases of no change.

        >>> LEXICON.has_change_cue("Nothing has changed, I still work at Bosch")
        False
        >>> LEXICON.has_negation("rien n'a changé"), LEXICON.has_change_cue("I changed jobs")
        (False, True)
        """
        low = text.lower()
        low = low if self.no_change is None else self.no_change.sub(" ", low)
        return self._without_dated_continuing(low)

    def _without_dated_continuing(self, low: str) -> str:
        """``low`` with the time words of each clause that says something continues cut
        ("我现在还是在上海上班": "现在" dates the "还是"; "still there, but now remote": the
        "now" is of another clause and stays).

        >>> LEXICON.has_change_cue("I still live in Porto these days")
        False
        >>> LEXICON.has_change_cue("I still like Porto, but now I live in Lyon")
        True
        """
        if self.still is None or self.time_words is None or self.still.search(low) is None:
            return low
        parts = [low] if self.contrast is None else self.contrast.split(low)
        out = [self.time_words.sub(" ", p) if self.still.search(p) else p for p in parts]
        return " | ".join(out)

    def canonical_subject(self, subject: str) -> str:
        """A pronoun subject read as ``user`` or ``team`` ("on", "wir"); others unchanged.

        >>> LEXICON.canonical_subject("on"), LEXICON.canonical_subject("user's dog")
        ('team', "user's dog")
        """
        return self.subject_aliases.get(normalise(subject), subject)

    def family(self, predicate: str, value: str) -> Family | None:
        """The family of a fact: by its predicate, else (free statements) by its words."""
        return self.family_of(predicate, value)[0]

    def family_of(self, predicate: str, value: str) -> tuple[Family | None, bool]:
        """The family of a fact and whether its predicate (not its words) says so.

        A many-valued predicate (``likes``) whose value names a single-valued slot is a
        value of that slot: "I like to be contacted by phone" is the contact channel.
        """
        return self._family(predicate, value)

    def _read_family(self, predicate: str, value: str) -> tuple[Family | None, bool]:
        by_predicate = next((f for f in self.families if predicate in f.predicates), None)
        if by_predicate is None and ":" in predicate:
            # a qualifier that is a noun of a family ("contact:team_lead") names it
            qualifier = predicate.split(":", 1)[1].replace("_", " ").lower()
            by_predicate = next(
                (f for f in self.families
                 if f.single and f.words is not None and f.words.search(qualifier)),
                None,
            )  # fmt: skip
        if by_predicate is not None and not by_predicate.additive:
            return by_predicate, True
        scan = self._family_scan
        for low in self._family_readings(value):
            found = scan.found(low)
            for i, f in enumerate(self.families):
                usable = (by_predicate is None or f.single) and f.words is not None
                if usable and f.words is not None and scan.may(i, found) and f.words.search(low):
                    return f, False
        return (by_predicate, True) if by_predicate is not None else (None, False)

    def _family_readings(self, value: str) -> tuple[str, ...]:
        """The texts a value's family words are read in: the value as said, then (when it
        differs) the value with its change cues taken out and a Latin word set apart from
        the Chinese around it. A change says its slot with a cue inside the slot's words
        ("arbeite jetzt bei", "je travaille maintenant chez") or glued to a Latin value
        ("改用Linear了"); the slot is the same as without the cue.

        >>> LEXICON._family_readings("Ich arbeite jetzt bei Bosch")
        ('ich arbeite jetzt bei bosch', 'ich arbeite bei bosch')
        >>> LEXICON._family_readings("I work at Bosch")
        ('i work at bosch',)
        """
        low = value.lower()
        # a pronoun joined to the verb ("mudei-me para") says the slot of "mudei para"
        said = low if self.enclitic is None else self.enclitic.sub("", low)
        bare = self.without_change_cues(_SCRIPT_SEAM_RE.sub(" ", said))
        bare = _SPACES_RE.sub(" ", bare).strip()
        readings = [low]
        for r in (said, bare):
            if r.strip() != low.strip() and r not in readings:
                readings.append(r)
        return tuple(readings)

    def families_of(self, predicate: str, value: str) -> list[Family]:
        """Every family of a fact: its predicate's, else each family its words name
        ("ship my orders to my office": shipping and workplace).

        >>> [f.name for f in LEXICON.families_of("statement", "Ship my parcels to my office")]
        ['workplace', 'shipping']
        """
        return list(self._families(predicate, value))

    def _read_families(self, predicate: str, value: str) -> tuple[Family, ...]:
        first, by_predicate = self.family_of(predicate, value)
        if first is None:
            return ()
        readings = self._family_readings(value)
        if not by_predicate and first.words is not None:
            # a word inside the first family's phrase is that phrase's, no slot of its own:
            # "je vais au bureau en vélo" is the way to work, not the office
            readings = tuple(first.words.sub(" ", low) for low in readings)
        scan = self._family_scan
        found = [scan.found(low) for low in readings]
        more = [
            f
            for i, f in enumerate(self.families)
            if f is not first
            and f.single
            and f.words is not None
            and any(
                scan.may(i, fl) and f.words.search(low)
                for low, fl in zip(readings, found, strict=True)
            )
        ]
        return (first, *more)

    def owner(self, subject: str, family: Family | None) -> str:
        """Whose fact it is: ``user`` or ``team``, also for "user's boss" in the boss family.

        >>> m = LEXICON.family("statement", "Mi jefe es Carlos")
        >>> LEXICON.owner("user's jefe", m), LEXICON.owner("user's sister", m)
        ('user', 'users sister')
        """
        n = normalise(subject)
        for root in ("user", "team"):
            if n == root:
                return root
            if (
                n.startswith(root + "s ")
                and family is not None
                and family.words is not None
                and family.words.search(subject.lower())
            ):
                return root
        if (
            family is not None
            and family.speaker
            and family.words is not None
            and family.words.fullmatch(subject.lower()) is not None
        ):
            # the family's own noun said bare ("la base de datos es PostgreSQL"): the
            # speaker's thing, as "our database" is; a speaker family pools user and team
            return "team"
        return n

    def implied(self, predicate: str) -> tuple[str, ...]:
        """The predicates whose stored facts a change of ``predicate`` makes stale."""
        return self.implies.get(predicate, ())

    def topic_terms(self, topic: str) -> tuple[str, ...]:
        """The content words of a reference topic (stop words dropped, normalised)."""
        words = _WORD_RE.findall(normalise(topic))
        out: list[str] = []
        for w in words:
            if w in self.stopwords or w in out:
                continue
            if _CJK_RE.search(w):
                # no spaces between Chinese words: keep the run minus possessive stop words
                for s in sorted(self.stopwords, key=len, reverse=True):
                    if _CJK_RE.search(s):
                        w = w.replace(s, "")
                if not w:
                    continue
            out.append(w)
        return tuple(out)

    def topic_of(self, topic: str) -> list[Topic]:
        """The topic entries whose words occur in ``topic``."""
        low = topic.lower()
        return [t for t in self.topics if t.words.search(low)]


@lru_cache(maxsize=1)
def _load() -> Lexicon:
    raw = (resources.files("memgate") / "data" / "resolution.json").read_text("utf-8")
    lex = Lexicon.from_data(json.loads(raw))
    more = json.loads((resources.files("memgate") / "data" / "continuity.json").read_text("utf-8"))

    def words(name: str) -> re.Pattern[str] | None:
        return _phrase_re([w for ws in more.get(name, {}).values() for w in ws])

    contrast = words("contrast")
    return replace(
        lex,
        no_change=words("no_change"),
        still=words("still"),
        time_words=words("time_words"),
        contrast=re.compile(
            "[,;.!?，；。！？]" + ("" if contrast is None else f"|{contrast.pattern}")
        ),
    )


LEXICON: Final[Lexicon] = _load()
