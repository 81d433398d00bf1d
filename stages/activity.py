"""What an episode is an episode of: the activity reader of the fold (issue 12, item 2).

Two readings of one statement, from the word lists of ``memgate/data/activities.json``
(en de fr es pt; classes of words, never phrasings):

* :func:`read_activity`: the activity an episode's statement says, as an
  :class:`Activity` (its family and, for a light verb, the head of its object or
  destination), or ``None`` when it names none the lists know. A *content* verb is the
  activity by itself, wherever it stands and whoever came along ("I went climbing at the
  gym with Sam", "Ich war mit Jonas in der Halle klettern": ``climb``). A *light* verb
  (go, play, have, do, watch) takes its object as the activity: the last word of the
  first run of words after it that are not articles, pronouns, times or a companion
  ("I went to the dentist with Sam": ``go`` + ``dentist``; "played chess": ``play`` +
  ``chess``); a verb that ends its clause (German) takes the nearest word before it that
  is not inside a prepositional phrase ("am Samstag mit Petra Tennis gespielt":
  ``play`` + ``tennis``). The object is compared by its stem and its synonym group
  (``objects`` in the lists: "films" = "film", "movie" = "film"; "went to the gym" =
  "did a workout", a group that is an activity whatever verb carries it). The fold
  (:mod:`memgate.stages.consolidate`) folds only episodes of the same activity; cosine
  similarity alone cannot tell "played tennis with Marco" from "played chess with Marco".
* :func:`said_as_episode`: whether a German, French, Spanish or Portuguese statement says
  a past episode of the speaker (a first-person perfect, a German ``war`` + infinitive, a
  listed or shaped preterite: "Joguei futebol no sábado"): the hybrid extractor types
  it ``event`` as the rule extractor types the English ones, so that it can fold and
  retention counts it.

>>> read_activity("I went bouldering at the quarry with Ada")
Activity(family='climb', head='')
>>> read_activity("I went to the library with my son on Monday")
Activity(family='go', head='library')
>>> read_activity("Ich habe am Freitag mit Tim Fußball gespielt")
Activity(family='play', head='football')
>>> said_as_episode("Je suis allé courir avec Léa dimanche"), said_as_episode("J'ai un ami")
(True, False)
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

__all__ = ["LANGUAGES", "Activity", "read_activity", "said_as_episode"]

#: The languages of the word lists.
LANGUAGES: Final = ("en", "de", "fr", "es", "pt")
#: The languages whose episodes :func:`said_as_episode` reads (English: the rule extractor).
_EPISODE_LANGUAGES: Final = ("de", "fr", "es", "pt")

#: A French or Italian elision (``j'``, ``l'``, ``qu'``) is a word; any other apostrophe
#: or hyphen stays inside its word ("aujourd'hui", "week-end", "don't").
_TOKEN_RE: Final = re.compile(r"\b(?i:qu|[jldmtsnc])'|[^\W\d_]+(?:['-][^\W\d_]+)*")
_CLAUSE_RE: Final = re.compile(r"[.,;:!?()\"\u2014\u2013]+|\s-\s")


@dataclass(frozen=True)
class Activity:
    """An activity: a content family (``head`` empty) or a light verb and its object."""

    family: str
    head: str


@dataclass(frozen=True)
class _Stemmer:
    """The stem rules of one language (``objects.stem`` in activities.json): a word and
    its plural stem alike; a stem is no dictionary form."""

    min_stem: int
    irregular: dict[str, str]
    keep: frozenset[str]
    keep_endings: tuple[str, ...]
    steps: tuple[tuple[tuple[str, str], ...], ...]

    def __call__(self, word: str) -> str:
        word = self.irregular.get(word, word)
        if word in self.keep or (self.keep_endings and word.endswith(self.keep_endings)):
            return word
        for step in self.steps:
            for ending, instead in step:
                if word.endswith(ending) and len(word) - len(ending) >= self.min_stem:
                    word = word[: len(word) - len(ending)] + instead
                    break
        return word


def _stemmer(raw: dict[str, Any]) -> _Stemmer:
    return _Stemmer(
        min_stem=int(raw["min_stem"]),
        irregular={_plain(k): _plain(v) for k, v in raw["irregular"].items()},
        keep=frozenset(_plain(w) for w in raw["keep"].split()),
        keep_endings=tuple(raw["keep_endings"].split()),
        steps=tuple(tuple((str(e), str(i)) for e, i in step) for step in raw["steps"]),
    )


@dataclass(frozen=True)
class _Lists:
    content: dict[str, str]
    light: dict[str, str]
    skip: frozenset[str]
    time: frozenset[str]
    preposition: frozenset[str]
    conjunction: frozenset[str]
    companion: frozenset[str]
    episode: dict[str, Any]
    forms_by_lang: dict[str, frozenset[str]]
    #: the function words of each language whose stem rules there are (``objects``)
    function: dict[str, frozenset[str]]
    stemmers: dict[str, _Stemmer]
    #: (language, stem of a form) -> (synonym group, whether it names the activity alone)
    synonyms: dict[tuple[str, str], tuple[str, bool]]


def _words(by_lang: dict[str, str]) -> frozenset[str]:
    return frozenset(w for words in by_lang.values() for w in words.casefold().split())


def _forms(families: dict[str, dict[str, str]]) -> dict[str, str]:
    return {w: name for name, by_lang in families.items() for w in _words(by_lang)}


@cache
def _lists() -> _Lists:
    raw = (resources.files("memgate") / "data" / "activities.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    objects: dict[str, Any] = data["objects"]
    stemmers = {lang: _stemmer(rules) for lang, rules in objects["stem"].items()}
    function_words = {**data["episode"]["function_words"], **objects["function_words"]}
    synonyms: dict[tuple[str, str], tuple[str, bool]] = {}
    for group, by_lang in objects["synonyms"].items():
        for lang, stem in stemmers.items():
            for form in str(by_lang.get(lang, "")).split():
                synonyms[(lang, stem(_plain(form)))] = (group, bool(by_lang.get("any_verb")))
    return _Lists(
        content=_forms(data["content"]),
        light=_forms(data["light"]),
        skip=_words(data["skip"]),
        time=_words(data["time"]),
        preposition=_words(data["preposition"]),
        conjunction=_words(data["conjunction"]),
        companion=_words(data["companion"]),
        episode=data["episode"],
        forms_by_lang={
            lang: frozenset(
                w
                for group in ("content", "light")
                for by_lang in data[group].values()
                for w in by_lang.get(lang, "").casefold().split()
            )
            for lang in LANGUAGES
        },
        function={lang: frozenset(str(function_words[lang]).split()) for lang in stemmers},
        stemmers=stemmers,
        synonyms=synonyms,
    )


def _plain(word: str) -> str:
    """``word`` case-folded and without accents: how heads compare ("Fußball" = "fussball")."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _clauses(text: str) -> list[list[str]]:
    """The clauses of ``text`` as lists of words, in their case, apostrophes made plain."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("`", "'")
    out = [_TOKEN_RE.findall(part) for part in _CLAUSE_RE.split(text)]
    return [c for c in out if c]


# -- the activity ------------------------------------------------------------------------


def read_activity(statement: str) -> Activity | None:
    """The activity ``statement`` says (see the module), or ``None``. Nothing is cached:
    a statement (raw, before redaction, on the write path) is kept nowhere."""
    lists = _lists()
    clauses = [[w.casefold() for w in c] for c in _clauses(statement)]
    for clause in clauses:
        for word in clause:
            if word in lists.content:
                return Activity(lists.content[word], "")
    for clause in clauses:
        found = _light(clause, lists)
        if found is not None:
            return found
    return None


def _companions(words: list[str], lists: _Lists) -> set[int]:
    """Positions of companion phrases ("with my brother", "mit Petra"): never an object."""
    masked: set[int] = set()
    for i, w in enumerate(words):
        if w not in lists.companion:
            continue
        masked.add(i)
        j = i + 1
        while j < len(words) and words[j] in lists.skip:
            masked.add(j)
            j += 1
        if j < len(words):
            masked.add(j)
    return masked


def _light(words: list[str], lists: _Lists) -> Activity | None:
    verbs = [i for i, w in enumerate(words) if w in lists.light]
    if not verbs:
        return None
    v = verbs[-1]  # "I have played", "went to play": the last light verb says what was done
    masked = _companions(words, lists)
    if v == len(words) - 1:
        head = _object_before(words, v, masked, lists)
    else:
        head = _object_after(words, v, masked, lists)
    return _object(lists.light[words[v]], head, words, lists) if head else None


def _object(family: str, head: str, words: list[str], lists: _Lists) -> Activity:
    """The activity of light verb ``family`` with object ``head``: the head stemmed by the
    rules of the clause's language (the language with most of its function words; on a
    tie each of them, in the order of the lists), then its synonym group if it has one. A
    group with ``any_verb`` is the activity by itself ("went to the gym" / "did a
    workout"); another is the object of the same light verb ("watched a match" / "a game")."""
    plain = _plain(head)
    seen = set(words)
    score = {lang: len(seen & fw) for lang, fw in lists.function.items()}
    best = max(score.values())
    langs = [lang for lang, n in score.items() if n == best]
    for lang in langs:
        group = lists.synonyms.get((lang, lists.stemmers[lang](plain)))
        if group is not None:
            name, any_verb = group
            return Activity(name, "") if any_verb else Activity(family, name)
    return Activity(family, lists.stemmers[langs[0]](plain))


def _object_after(words: list[str], v: int, masked: set[int], lists: _Lists) -> str:
    run: list[str] = []
    for i in range(v + 1, len(words)):
        w = words[i]
        if i in masked or w in lists.preposition:
            if run:
                break
            continue
        if w in lists.conjunction or w in lists.light:
            break
        if w in lists.skip or w in lists.time:
            continue
        run.append(w)
    return run[-1] if run else ""


def _object_before(words: list[str], v: int, masked: set[int], lists: _Lists) -> str:
    i = v - 1
    while i >= 0:
        w = words[i]
        if w in lists.conjunction or w in lists.light:
            return ""
        if i in masked or w in lists.skip or w in lists.time or w in lists.preposition:
            i -= 1
            continue
        j = i - 1
        while j >= 0 and words[j] in lists.skip and j not in masked:
            j -= 1
        if j >= 0 and words[j] in lists.preposition:
            i = j - 1  # inside a prepositional phrase ("im Park"): not the object
            continue
        return w
    return ""


# -- the episode -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Episode:
    """The episode lists of one language (``episode`` in activities.json)."""

    subject: frozenset[str]
    function: frozenset[str]
    perfect_aux: frozenset[str]
    be_aux: frozenset[str]
    adverbs: frozenset[str]
    prefixes: tuple[str, ...]
    endings: tuple[str, ...]
    also_endings: tuple[str, ...]
    also: frozenset[str]
    be_participles: frozenset[str]
    absentive_aux: frozenset[str]
    infinitive_endings: tuple[str, ...]
    dated_aux: frozenset[str]
    not_participles: frozenset[str]
    preterite: frozenset[str]
    preterite_endings: tuple[str, ...]
    not_preterite: frozenset[str]
    preterite_after: frozenset[str]
    time: frozenset[str]


@cache
def _episode_lists() -> dict[str, _Episode]:
    lists = _lists()
    ep = lists.episode

    def words(name: str, lang: str) -> frozenset[str]:
        return frozenset(str(ep[name].get(lang, "")).casefold().split())

    out: dict[str, _Episode] = {}
    for lang in _EPISODE_LANGUAGES:
        part: dict[str, str] = ep["participle"][lang]
        out[lang] = _Episode(
            subject=words("subject", lang),
            function=words("function_words", lang),
            perfect_aux=words("perfect_aux", lang),
            be_aux=words("be_aux", lang),
            adverbs=words("adverbs", lang),
            prefixes=tuple(part.get("prefixes", "").split()),
            endings=tuple(part.get("endings", "").split()),
            also_endings=tuple(part.get("also_endings", "").split()),
            also=frozenset(part.get("also", "").split()) | lists.forms_by_lang[lang],
            be_participles=words("be_participles", lang),
            absentive_aux=words("absentive_aux", lang),
            infinitive_endings=tuple(words("infinitive_endings", lang)) or ("\0",),
            dated_aux=words("dated_aux", lang),
            not_participles=words("not_participles", lang),
            preterite=words("preterite", lang),
            preterite_endings=tuple(words("preterite_endings", lang)),
            not_preterite=words("not_preterite", lang),
            preterite_after=words("preterite_after", lang),
            time=lists.time,
        )
    return out


def _participle(word: str, lang: _Episode) -> bool:
    if word in lang.not_participles or len(word) < 2:
        return False
    if word in lang.also or word.endswith(lang.also_endings or ("\0",)):
        return True
    if not word.endswith(lang.endings):
        return False
    if not lang.prefixes:
        return True
    return any(word.startswith(p) and len(word) >= len(p) + 3 for p in lang.prefixes)


def _german(words: list[str], low: list[str], lang: _Episode) -> bool:
    """A perfect with its participle, or ``war`` + an infinitive, ending the clause; or a
    listed preterite; always with ``ich``/``wir``."""
    if not lang.subject & set(low):
        return False
    if lang.preterite & set(low):
        return True
    if set(low) & lang.dated_aux and set(low) & lang.time:
        return True  # "ich war am Montag beim Friseur": a past said with its time
    last, final = words[-1], low[-1]
    if not last[:1].islower():  # a noun (capitalised) ends the clause: "ich habe Zeit"
        return False
    auxes = set(low[:-1])
    if (
        auxes & lang.absentive_aux
        and final.endswith(lang.infinitive_endings)
        and len(final) >= 5
        and final not in lang.not_participles
    ):
        return True
    if not auxes & lang.perfect_aux or not _participle(final, lang):
        return False
    # "ich bin verheiratet" (a state): the auxiliary "sein" takes motion and change only,
    # and the activities of the lists ("ich bin gejoggt")
    if auxes & (lang.perfect_aux - lang.be_aux):
        return True
    return final in lang.be_participles or final in lang.also


def _perfect_after(low: list[str], lang: _Episode, *, need_subject: bool) -> bool:
    """An auxiliary (after a subject, if the language says one), at most some adverbs,
    then a participle: "j'ai joué", "nous sommes allés", "he jugado"."""
    for i, w in enumerate(low):
        if w not in lang.perfect_aux:
            continue
        if need_subject and not lang.subject & set(low[max(0, i - 2) : i]):
            continue
        j = i + 1
        while j < len(low) and low[j] in lang.adverbs:
            j += 1
        if j >= len(low):
            continue
        if w in lang.be_aux:
            if low[j] in lang.be_participles:
                return True
        elif _participle(low[j], lang):
            return True
    return False


def _preterite(low: list[str], lang: _Episode) -> bool:
    """Spanish and Portuguese: a perfect, a listed preterite, or a word of a preterite's
    ending that opens its clause or follows a subject, clitic or time word."""
    if _perfect_after(low, lang, need_subject=False) or lang.preterite & set(low):
        return True
    for i, w in enumerate(low):
        if len(w) < 4 or not w.endswith(lang.preterite_endings) or w in lang.not_preterite:
            continue
        before = low[i - 1] if i else ""
        # the verb opens its clause, after a subject, a clitic or a time ("ayer nadé")
        if not before or before in lang.preterite_after or before in lang.time:
            return True
    return False


def said_as_episode(statement: str) -> bool:
    """Whether a German, French, Spanish or Portuguese ``statement`` says a past episode of the
    speaker (see the module); English is read by the rule extractor, never here."""
    langs = _episode_lists()
    english = frozenset(str(_lists().episode["english"]).split())
    for words in _clauses(statement):
        low = [w.casefold() for w in words]
        if english & set(low):
            continue  # an English clause: the rule extractor reads it
        read = _languages(low, langs)
        if "de" in read and _german(words, low, langs["de"]):
            return True
        if "fr" in read and _perfect_after(low, langs["fr"], need_subject=True):
            return True
        if any(name in read and _preterite(low, langs[name]) for name in ("es", "pt")):
            return True
    return False


def _languages(low: list[str], langs: dict[str, _Episode]) -> set[str]:
    """The languages whose rules read a clause: those with the most of its function words
    (every language when it has none of them)."""
    seen = set(low)
    score = {name: len(seen & lang.function) for name, lang in langs.items()}
    best = max(score.values())
    return {name for name, n in score.items() if n == best}
