"""Sentences that state no fact of the speaker's world, read by their structure (issue 9,
the write decision's precision), in the six supported languages.

Four frames, each a grammatical shape over word classes of ``memgate/data/unreal_frames.json``
(never a phrase of a failing case):

* **fiction**: the sentence is set inside a work ("In the novel the detective ...", "Im Film
  ...", "Dans le roman ...", "En la serie ...", "No livro ...", "在那部电影里"): a locative
  with an article or demonstrative (not a possessive: "in my book club" is the speaker's)
  before a noun of a work (not a compound such as "film industry", "book club"), or a
  character noun as the subject ("The protagonist is ...", "男主角是 ..."). A work the
  speaker makes or reads is the speaker's world (keep31): a relative clause of the speaker
  right after the work ("the novel I'm writing", "den ich lese", "que estoy escribiendo",
  "我写的小说里") or a possessive of the speaker after the character ("the hero of my
  novel", "le héros de mon roman");
* **irrealis**: a counterfactual or imagined world: a protasis ("if", "wenn", "si", "se",
  "如果我") with a conditional in the sentence (English "would"/"'d", German Konjunktiv II,
  the French imperfect after "si", the Spanish and Portuguese imperfect subjunctive after
  "si"/"se", a Chinese result word) outside the protasis ("if you'd like" is an offer:
  the conditional is the protasis's own verb), a lead that imagines opening its clause
  ("Imagine ...", "Stell dir vor ..."; "I can imagine it was hard" is the speaker's own
  reaction), or a world of its own ("in an ideal world"). A polite conditional of a
  standing preference ("I'd prefer", "je préférerais", "it would help if you always ...")
  is no irrealis; an indicative condition ("If a deploy fails, always message me")
  neither;
* **irony**: a verb of liking said with a mock-enthusiasm marker (a lead such as "oh
  sure", "na toll", "ah, claro", "哈哈", a closing tag such as "qué maravilla", "真是享受",
  or the verb in capitals) and an adversity (a failure, the middle of the night, again);
  a lead and a tag together are enough;
* **stranger**: an indefinite person ("a guy", "jemand", "un inconnu", "alguien", "um
  cara", "有个人") opens the sentence and says something or is its subject without the
  speaker, or is placed ("on the forum", "im Forum") and then says something: no person
  of the speaker's life (the speaker's family and colleagues are possessed: "my brother
  keeps bees").

:func:`unreal_kind` names the frame; triage drops a turn whose every content sentence is
in one (:mod:`memgate.stages.moment`), and the extractors never make a statement of such a
sentence (:mod:`memgate.stages.statements`).

>>> unreal_kind("In the film the pianist lives on a houseboat in Utrecht.")
'fiction'
>>> unreal_kind("I run a book club that reads crime novels.") is None
True
>>> unreal_kind("In the novel I'm writing, the pianist lives on a houseboat.") is None
True
>>> unreal_kind("Wenn ich Zeit hätte, würde ich töpfern lernen."), unreal_kind(
...     "If a nightly job fails, always open a ticket for me.")
('irrealis', None)
>>> unreal_kind("I can imagine it was hard."), unreal_kind("I can send it to you if you'd like.")
(None, None)
>>> unreal_kind("Oh great, I just love it when the pipeline fails at midnight again.")
'irony'
>>> unreal_kind("I genuinely love writing Rust.") is None
True
>>> unreal_kind("A stranger on the train said she keeps bees."), unreal_kind("My aunt keeps bees.")
('stranger', None)
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any, Final

from memgate.core.memo import TextMemo
from memgate.stages.statement_text import (
    cues,
    first_person_verb,
    lexicon,
    normalise_text,
    word_class,
    word_pattern,
)

__all__ = ["UNREAL_KINDS", "standing_condition", "unreal_kind"]

#: The frames, in the order they are tried.
UNREAL_KINDS: Final = ("fiction", "irrealis", "irony", "stranger")

_CJK: Final = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE: Final = re.compile(f"[{_CJK}]")
_LEAD_RE: Final = re.compile(r"^[\s,;:¿¡\"'(«“—-]+")
# punctuation read as a space, so that a lead said with commas ("Ah, claro, ...") is one
_PUNCT_RE: Final = re.compile(rf"[^\w\s'{_CJK}]+")
# the French imperfect after "si" (si j'étais), the Spanish and Portuguese imperfect
# subjunctive after "si" / "se" (si tuviera, se eu morasse): the counterfactual protasis
_FR_IF_RE: Final = re.compile(
    r"(?<![\w'])s(?:i|'il|'ils)\s+(?:[^\s]+\s+){0,2}?[^\s]*\w{2}(?:ais|ait|ions|iez|aient)\b"
)
_ES_IF_RE: Final = re.compile(
    r"(?<![\w'])(?:si|que)\s+(?:[^\s]+\s+){0,2}?\w{2,}(?:ara|iera|ase|iese)(?:s|n|mos)?\b"
    r"|(?<![\w'])(?:si|que)\s+(?:[^\s]+\s+){0,2}?\w+(?:áramos|iéramos)\b"
)
_PT_IF_RE: Final = re.compile(
    r"(?<![\w'])se\s+(?:[^\s]+\s+){0,2}?(?:\w{2,}(?:asse|esse|isse)(?:s|m|mos)?|fosse[ms]?|"
    r"\w+(?:ássemos|êssemos|íssemos|fôssemos))\b"
)
# a verb of liking in capitals ("I just LOVE debugging"): said, not meant
_CAPS_RE: Final = re.compile(r"\b[A-Z]{4,}\b")
# the break between an inverted protasis and its apodosis
_CLAUSE_BREAK_RE: Final = re.compile(r"[,;:，；：]")
_STRANGER_GAP: Final = 8
# words between a character noun and the possessive of its work ("the hero of my novel")
_OWNER_GAP: Final = 3
# characters between the speaker and the relative particle before a work ("我最近在读的")
_ZH_OWN_GAP: Final = 6
_MEMO: Final[TextMemo[str | None]] = TextMemo(256)


@cache
def _data() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "unreal_frames.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


@cache
def _m(name: str) -> re.Pattern[str]:
    return word_pattern(list(_data()[name]))


def _alt(entries: list[str]) -> str:
    words = sorted({normalise_text(e) for e in entries}, key=len, reverse=True)
    return "|".join(re.escape(w) for w in words)


@cache
def _fiction_re() -> re.Pattern[str]:
    d = _data()
    return re.compile(
        rf"^(?:{_alt(d['fiction_locative'])})\s+(?:[^\s]+\s+){{0,2}}?(?:{_alt(d['fiction_works'])})"
        rf"(?![\w'])(?!\s+(?:{_alt(d['fiction_compounds'])})(?![\w]))"
    )


@cache
def _character_re() -> re.Pattern[str]:
    return re.compile(rf"^(?:{_alt(_data()['fiction_characters'])})(?![\w'])")


@cache
def _speaker_re(name: str) -> re.Pattern[str]:
    """An entry of ``name`` opening the text; an elided one ("j'") joins its verb."""
    latin = [normalise_text(e) for e in _data()[name] if not _CJK_RE.search(e)]
    elided = [e for e in latin if e.endswith("'")]
    whole = [e for e in latin if not e.endswith("'")]
    alts = [f"(?:{_alt(elided)})"] if elided else []
    return re.compile("|".join([*alts, rf"(?:{_alt(whole)})(?![\w'])"]))


@cache
def _zh_own_re() -> re.Pattern[str]:
    """A Chinese relative clause of the speaker ending right before the work, maybe with a
    demonstrative and measure word: "我写的", "我们上周看的那部"."""
    subjects = [e for e in _data()["speaker_subjects"] if _CJK_RE.search(e)]
    return re.compile(rf"(?:{_alt(subjects)})[{_CJK}]{{0,{_ZH_OWN_GAP}}}的[{_CJK}]{{0,2}}$")


@cache
def _stranger_res() -> tuple[re.Pattern[str], re.Pattern[str]]:
    d = _data()
    # a determiner and a noun of a person met in passing ("a lady", "un chauffeur"): the
    # indefinite ones open a sentence as "someone" does; a definite one ("the waiter",
    # "la dame") only when the person is placed and then says something
    nouns = _alt(d["stranger_nouns"])
    persons = rf"{_alt(d['stranger_persons'])}|(?:{_alt(d['stranger_indefinites'])})\s+(?:{nouns})"
    anyone = rf"{persons}|(?:{_alt(d['stranger_definites'])})\s*(?:{nouns})"
    says = _alt([*lexicon()["saying_verbs"], *d["saying_extra"]])
    gap = rf"(?:\s+[^\s]+){{0,{_STRANGER_GAP}}}?"
    opening = re.compile(rf"^(?:{persons})(?![\w'])")
    placed = re.compile(
        rf"(?<![\w'])(?:{anyone})\s+(?:on|in|at|from|im|in|auf|bei|aus|sur|dans|à|au|en|no|"
        rf"na|num|numa|em|do|da){gap}\s+(?:{says})(?![\w])"
    )
    return opening, placed


@cache
def _says_re() -> re.Pattern[str]:
    return word_pattern([*lexicon()["saying_verbs"], *_data()["saying_extra"]])


def _body(sentence: str) -> str:
    body = _LEAD_RE.sub("", normalise_text(sentence))
    lead = word_class("discourse_lead").match(body)
    if lead is not None:
        body = _LEAD_RE.sub("", body[lead.end() :])
    return body


def _fiction(body: str) -> bool:
    work = _fiction_re().match(body)
    if work is not None:
        # "in the novel I'm writing", "dans le roman que je lis": the speaker makes or
        # reads the work, a fact of the speaker's world
        return not _speakers_relative(body[work.end() :])
    character = _character_re().match(body)
    if character is not None:
        # "the protagonist of my novel": the speaker's own work
        rest = " ".join(body[character.end() :].split()[:_OWNER_GAP])
        return _m("speaker_possessives").search(rest) is None
    zh = _m("fiction_zh").search(body)
    if zh is None or body.startswith(("我", "我们")):
        return False
    # "我写的小说里", "我最近在读的书中": a relative clause of the speaker before the work
    return _zh_own_re().search(body[: zh.start()]) is None


def _speakers_relative(rest: str) -> bool:
    """A relative clause of the speaker right after the noun of a work: a subject of the
    speaker ("the novel I'm writing"), or a relative word and then a subject of the
    speaker, a Spanish / Portuguese auxiliary of the first person or verb of the first
    person ("den ich schreibe", "que estoy escribiendo", "que escribo"). A comma with no
    relative word ends the phrase ("In the film, I think ..."): no relative clause."""
    rel = _m("fiction_relatives").match(_LEAD_RE.sub("", rest))
    if rel is None:
        return _speaker_re("speaker_subjects").match(rest.lstrip(" ")) is not None
    clause = _LEAD_RE.sub("", _LEAD_RE.sub("", rest)[rel.end() :])
    return (
        _speaker_re("speaker_subjects").match(clause) is not None
        or _speaker_re("speaker_auxiliaries").match(clause) is not None
        or first_person_verb(clause)
    )


def _irrealis(body: str) -> bool:
    if _m("polite_conditionals").search(body):
        return False
    if _m("irrealis_zh").search(body):
        return _m("irrealis_zh_result").search(body) is not None
    if _m("irrealis_leads").match(body) or _m("irrealis_worlds").search(body):
        # a lead that imagines opens its clause ("Imagine ...", "Stell dir vor ..."); after
        # a subject it is the speaker's own reaction ("I can imagine it was hard")
        return True
    if_word = _m("irrealis_if").search(body)
    if if_word is not None and any(
        v.start() < if_word.start() or not _in_protasis(body[if_word.end() : v.start()])
        for v in _m("irrealis_verbs").finditer(body)
    ):
        return True  # "if ... would", "wenn ... wäre"
    if _inverted_protasis(body):
        return True  # "hätte ich mehr zeit, würde ich ...", "had i known, i would ..."
    return any(r.search(body) for r in (_FR_IF_RE, _ES_IF_RE, _PT_IF_RE))


def _inverted_protasis(body: str) -> bool:
    """A protasis said by inversion, with no "if": a finite conditional opens the sentence
    before its subject, and a conditional follows the clause break ("Hätte ich mehr Zeit,
    würde ich töpfern", "Had I known, I would have stayed"). "Hätte ich fast vergessen: ich
    bin Vegetarier" has no conditional after the break: a fact of the speaker; "Had dinner
    with Ana, she'd love Lisbon" has no subject after the verb."""
    verb = _m("irrealis_inverted").match(body)
    if verb is None or _m("irrealis_inverted_subjects").match(body[verb.end() :].lstrip()) is None:
        return False  # "Had dinner with my sister, ...": a past verb, no protasis
    brk = _CLAUSE_BREAK_RE.search(body, verb.end())
    return brk is not None and _m("irrealis_verbs").search(body, brk.end()) is not None


def _in_protasis(between: str) -> bool:
    """A conditional at most one word after "if" is the protasis's own verb ("if you'd
    like", "if it would help": a polite offer), not the apodosis of an imagined world."""
    return len(between.split()) <= 1


def _irony(sentence: str, body: str) -> bool:
    flat = " ".join(_PUNCT_RE.sub(" ", body).split())
    lead = _m("irony_leads").match(flat) is not None
    tag = _m("irony_tags").search(flat) is not None
    if lead and tag:
        return True
    affect = _m("irony_affect").search(flat)
    if affect is None:
        return False
    caps = any(m.group(0).casefold() == affect.group(0) for m in _CAPS_RE.finditer(sentence))
    if not (lead or tag or caps):
        return False
    return _m("irony_adverse").search(flat) is not None or ((lead or tag) and caps)


def _stranger(body: str) -> bool:
    if _CJK_RE.search(body):
        m = _m("stranger_zh").search(body)
        if m is None or "我" in body[: m.start()]:
            return False
        rest = body[m.end() : m.end() + 10]
        return _m("stranger_zh_verbs").search(rest) is not None
    opening, placed = _stranger_res()
    m = opening.match(body)
    if m is not None:
        rest = body[m.end() :]
        own = word_class("first_person_singular").search(rest)
        return _says_re().search(rest) is not None or own is None
    return placed.search(body) is not None


def unreal_kind(sentence: str) -> str | None:
    """The frame (one of :data:`UNREAL_KINDS`) in which the sentence states no fact of the
    speaker's world, else None."""
    return _MEMO.get(sentence, _read)


def _read(sentence: str) -> str | None:
    body = _body(sentence)
    if not body:
        return None
    if _fiction(body):
        return "fiction"
    if _irrealis(body):
        return "irrealis"
    if _irony(sentence, body):
        return "irony"
    if _stranger(body):
        return "stranger"
    return None


def standing_condition(sentence: str) -> bool:
    """A real (indicative) condition with a standing instruction ("If a nightly job fails,
    always open a ticket for me", "Wenn ..., schick mir immer ..."): the opening "if" makes
    it look hypothetical to the classifiers, but it says what to do every time.

    >>> standing_condition("If a nightly job fails, always open a ticket for me.")
    True
    >>> standing_condition("If I were rich I would always fly business.")
    False
    """
    c = cues(sentence)
    return (
        c["hypothetical"] and c["standing"] and not c["question"] and unreal_kind(sentence) is None
    )
