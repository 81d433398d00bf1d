"""The moment by its time scope and its mood, in the six supported languages (issue 9, noise).

Three structural readings of a sentence, beside the word classes of
:func:`memgate.stages.statement_text.cues` (which need a state word of a known class):

* **a state scoped to the day** (:func:`day_scoped_state`): one clause holds a deictic time
  bounded to the day or the week ("today", "this afternoon", "cette semaine", "hoy", "刚")
  and a present-tense state (a copula, "have", "feel", a Chinese state adverb), with no
  verb of a lasting change ("start", "join", "move") and no word that makes the time the
  start of a lasting state ("since today", "ab heute", "a partir de hoje"); and no other
  clause of the sentence says something lasting (a predicate family such as ``works_at``
  or ``diet``, a standing cue, a change verb). "Hoy tengo el día liadísimo" is the moment;
  "I'm vegetarian, so no meat tonight" and "Ab heute bin ich Vegetarier" are not;
* **a state of a known class said with a time of the day** (:func:`day_class`): the classes
  of ``moment_state_classes`` with the day words above ("刚开完会" is a meeting just over);
* **an excuse** (:func:`excuse`): an apology opens the sentence before a pause or a word of
  delay ("Sorry, chaotic morning, ...", "Perdona el retraso, ...") and no clause says
  something lasting;
* **an object-first request** (:func:`object_first_request`): Chinese puts a request's
  object before its verb with 把 or 将 ("帮我把这段话翻译成英文吧"); a request lead, the
  marker, then a task verb in the same clause is a one-off request;
* **a request by an imperative with its pronoun joined** (:func:`clitic_request`): Spanish,
  Portuguese and French join an object pronoun to the imperative ("Tradúceme ...",
  "Escreve-me ...", "Corrige-moi ..."); a task verb with an enclitic of ``enclitics``
  opening the sentence is a one-off request like the bare verb.

The word lists are data (``memgate/data/moment_scope.json``); the task verbs, request
leads, families and standing cues are those of ``statements.json``.

>>> day_scoped_state("Hoy tengo el día liadísimo con reuniones.")
True
>>> day_scoped_state("I'm vegetarian, so no meat tonight.")
False
>>> day_scoped_state("Ab heute bin ich Vegetarier.")
False
>>> excuse("Perdona el retraso, se me cayó el wifi."), excuse("Sorry to hear that, I moved.")
(True, False)
>>> object_first_request("帮我把这段话翻译成英文吧。"), object_first_request("我把车卖了。")
(True, False)
>>> clitic_request("Tradúceme este correo, porfa."), clitic_request("Llámame Pepe.")
(True, False)
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from importlib import resources
from typing import Any, Final

from memgate.stages.statement_text import (
    cues,
    family,
    lexicon,
    normalise_text,
    word_class,
    word_pattern,
)

__all__ = [
    "clitic_request",
    "day_class",
    "day_scoped_state",
    "excuse",
    "laughed_anecdote",
    "object_first_request",
    "of_the_day",
    "request_with_content",
]

_CJK_RE: Final = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# clause boundaries: punctuation, and the coordinating conjunctions of the six languages
_CLAUSE_RE: Final = re.compile(
    r"\s*[,;:，；：、]\s*|\s+(?:and|but|und|aber|doch|et|mais|donc|y|pero|e|mas|então)\s+"
    r"|然后|而且|所以|但是"
)
_LEAD_RE: Final = re.compile(r"^[\s,;:¿¡\"'(«“-]+")
# one Chinese object of at most this many characters between 把/将 and the task verb
_OBJECT_CHARS: Final = 12


@cache
def _data() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "moment_scope.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


@cache
def _matcher(name: str) -> re.Pattern[str]:
    return word_pattern(list(_data()[name]))


@cache
def _class_matcher() -> re.Pattern[str]:
    classes: dict[str, list[str]] = lexicon().get("moment_state_classes", {})
    return word_pattern([w for ws in classes.values() for w in ws])


def _strip_interjections(norm: str) -> str:
    rest = _LEAD_RE.sub("", norm)
    m = _matcher("interjections").match(rest)
    return _LEAD_RE.sub("", rest[m.end() :]) if m is not None and m.end() < len(rest) else rest


def _clauses(norm: str) -> list[str]:
    return [c for c in _CLAUSE_RE.split(norm) if c.strip()]


def _day_time(clause: str) -> bool:
    """A day-bounded time in the clause that does not open a lasting state."""
    inception = _matcher("inception_leads")
    for m in _matcher("day_scope").finditer(clause):
        before = clause[: m.start()].rstrip()
        after = clause[m.end() :].lstrip()
        if _CJK_RE.search(m.group(0)):
            # Chinese: 从今天起, 今天开始, 今天以来
            if inception.search(before[-2:]) or inception.match(after[:2]):
                continue
            return True
        words = before.split()
        last = " ".join(words[-3:])
        lead = inception.search(last)
        if lead is not None and lead.end() == len(last):
            continue  # "since today", "ab heute", "a partir de hoje"
        return True
    return False


def _own_change(clause: str) -> bool:
    """A verb of a lasting change said by the speaker ("I'm moving", "我刚搬到"), not of a
    thing ("the car wouldn't start")."""
    if _matcher("change_verbs").search(clause) is None:
        return False
    c = cues(clause)
    return c["first_person"] or c["first_person_plural"] or c["first_person_verb"] or c["cjk"]


def _durable_cue(clause: str) -> bool:
    return _own_change(clause) or word_class("standing").search(clause) is not None


def _lasting(clause: str) -> bool:
    """The clause says something lasting: a change verb, a standing cue, a family."""
    return _durable_cue(clause) or family(clause) != "statement"


def _state(clause: str) -> bool:
    """A present-tense state, a posture or passing activity ("liegt", "esperando": with the
    day's time, a state of the moment), or an exclamation ("what a day", "que calor")."""
    return (
        _matcher("present_state").search(clause) is not None
        or _matcher("momentary_verbs").search(clause) is not None
        or _matcher("exclamative_leads").match(clause) is not None
    )


def day_scoped_state(sentence: str) -> bool:
    """A present state scoped to the day, and nothing lasting in the sentence's other
    clauses (see the module's docstring). A day time in the first clause frames the whole
    sentence ("Today I'm tired and my back hurts", "刚开完会，脑子有点乱"); elsewhere it
    scopes its own clause ("I'm vegetarian, so no meat tonight")."""
    clauses = _clauses(_strip_interjections(normalise_text(sentence)))
    if not clauses or any(_durable_cue(c) for c in clauses):
        return False
    if _day_time(clauses[0]) and any(_state(c) for c in clauses):
        return not any(_lasting(c) for c in clauses[1:])
    scoped = [c for c in clauses if _day_time(c) and _state(c)]
    return bool(scoped) and not any(_lasting(c) for c in clauses if c not in scoped)


def day_class(sentence: str) -> bool:
    """A state of a class of the moment (``moment_state_classes``) said with a day-bounded
    time, in a sentence with no verb of a lasting change ("刚开完会", "today I'm starving")."""
    norm = normalise_text(sentence)
    if _class_matcher().search(norm) is None or _matcher("change_verbs").search(norm):
        return False
    return any(_day_time(c) for c in _clauses(norm))


def excuse(sentence: str) -> bool:
    """An apology before a pause or a word of delay, and nothing lasting in the sentence."""
    norm = _LEAD_RE.sub("", normalise_text(sentence))
    m = _matcher("excuse_leads").match(norm)
    if m is None:
        return False
    rest = norm[m.end() :]
    first = _clauses(rest)[0] if _clauses(rest) else ""
    paused = re.match(r"^\s*[,.!:;，。！：]", rest) is not None
    if not paused and _matcher("delay_words").search(first) is None:
        return False  # "sorry to hear that": sympathy, not an excuse
    if _matcher("error_words").search(rest) is not None:
        return False  # "Sorry, I gave you the wrong name: it's ...": a correction
    # "Sorry, I'm allergic to nuts": a present state of the speaker with no time of the day
    # is the reason given, and it lasts
    return not any(_lasting(c) or _own_present_state(c) for c in _clauses(rest))


def _own_present_state(clause: str) -> bool:
    c = cues(clause)
    own = c["first_person"] or c["first_person_plural"] or c["first_person_verb"]
    return own and _matcher("present_state").search(clause) is not None and not _day_time(clause)


def object_first_request(sentence: str) -> bool:
    """A Chinese request whose object comes first: a request lead, 把 / 将 and an object,
    then a task verb, in one clause."""
    norm = _LEAD_RE.sub("", normalise_text(sentence))
    lead = word_class("request_lead").match(norm)
    if lead is None:
        return False
    rest = norm[lead.end() :].lstrip()
    marker = _matcher("object_first_markers").match(rest)
    if marker is None:
        return False
    clause = _clauses(rest[marker.end() :])
    verb = word_class("task_verbs").search(clause[0]) if clause else None
    return verb is not None and verb.start() <= _OBJECT_CHARS


def _plain(word: str) -> str:
    """A word without its accents ("tradúce" -> "traduce")."""
    return "".join(ch for ch in unicodedata.normalize("NFD", word) if not unicodedata.combining(ch))


@cache
def _plain_task_verbs() -> frozenset[str]:
    return frozenset(_plain(w) for w in lexicon()["task_verbs"] if " " not in w)


_FIRST_WORD_RE: Final = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
# the one-off cue's bound (statement_text.cues): a longer sentence may say more than a task
_REQUEST_WORDS: Final = 14


def clitic_request(sentence: str) -> bool:
    """A one-off request whose imperative carries its object pronoun ("Escríbeme un
    mensaje", "Escreve-me uma legenda", "Corrige-moi ce texte"): the first word, after any
    request lead, is a task verb of ``statements.json`` once an enclitic of ``enclitics``
    (and the accent the enclitic put on the stem) is taken off. Bounded like the one-off cue
    (at most 14 words)."""
    norm = _LEAD_RE.sub("", normalise_text(sentence))
    lead = word_class("request_lead").match(norm)
    if lead is not None:
        norm = _LEAD_RE.sub("", norm[lead.end() :])
    m = _FIRST_WORD_RE.match(norm)
    if m is None or len(norm.split()) > _REQUEST_WORDS:
        return False
    word = m.group(0)
    for clitic in _data()["enclitics"]:
        stem = word[: -len(clitic)].rstrip("-") if word.endswith(clitic) else ""
        if len(stem) >= 3 and _plain(stem) in _plain_task_verbs():
            return True
    return False


def request_with_content(sentence: str) -> bool:
    """A one-off request longer than the one-off cue's bound because a clause of what to
    say follows it ("Write a short note to the team, that the release moves to Friday"): the
    sentence cut at a comma before a subordinator of ``content_subordinators`` is a one-off
    request, and the clause after it holds no first person of the speaker (a fact of the
    speaker in it may be true: "..., that I'm moving to Berlin" is kept)."""
    m = _subordinate_re().search(sentence)
    if m is None:
        return False
    head, rest = sentence[: m.start()], normalise_text(sentence[m.end() :])
    if not cues(head)["one_off"]:
        return False
    return word_class("first_person_singular").search(rest) is None


@cache
def _subordinate_re() -> re.Pattern[str]:
    words = "|".join(re.escape(w) for w in _data()["content_subordinators"])
    return re.compile(rf"\s*,\s*(?:{words})(?:(?<=')|(?![\w]))", re.IGNORECASE)


_PAST_ED_RE: Final = re.compile(r"\w{2,}ed\b")


def _recent_past(rest: str) -> bool:
    """An event of a moment ago: a word of the recent past ("vient de", "acaba de", "刚才"),
    or the English "just" before a past form ("just walked", "just stole"; "I just love
    sushi" says a taste)."""
    if _matcher("recent_past").search(rest) is not None:
        return True
    for m in _matcher("recent_past_just").finditer(rest):
        after = rest[m.end() :].lstrip()
        if _PAST_ED_RE.match(after) or _matcher("past_forms").match(after):
            return True
    return False


def laughed_anecdote(sentence: str) -> bool:
    """A laugh opens the sentence, then an event of a moment ago, and no clause says
    something lasting: an anecdote of the moment ("lol, my cat just knocked a glass over",
    "jaja, mi hermano acaba de caerse"). "haha, I just moved to Lyon" holds a change verb,
    "haha, just ran my first marathon" a milestone; "lol, I'm a nurse by the way" no event
    of a moment ago.

    >>> laughed_anecdote("Lol, my cat just knocked a glass off the shelf.")
    True
    >>> laughed_anecdote("haha, I just moved to Lyon!"), laughed_anecdote("lol I just love sushi")
    (False, False)
    """
    norm = _LEAD_RE.sub("", normalise_text(sentence))
    laugh = _matcher("laughter").match(norm)
    if laugh is None:
        return False
    rest = _LEAD_RE.sub("", norm[laugh.end() :])
    if not rest or not _recent_past(rest) or _matcher("milestones").search(rest):
        return False  # "haha, just ran my first marathon": a milestone
    return not any(_lasting(c) for c in _clauses(rest))


def of_the_day(sentence: str) -> bool:
    """Any of the readings of the moment above but the request: the sentence is no memory."""
    return (
        day_scoped_state(sentence)
        or day_class(sentence)
        or excuse(sentence)
        or laughed_anecdote(sentence)
    )
