"""Two frames read by structure before the keep classifier's bar (issue 9, session 28).

The keep classifier (:mod:`memgate.stages.keep_model`) scores a short sentence from its
character n-grams, and a short durable statement of the speaker holds few of them: "I
collect vinyl records" scores 0.56 and "Juego al pádel los jueves" 0.53, under the bar of
a turn with one sentence (0.6), so the fact never exists. And a hedge ("ich glaube",
"acho que", "I think") is also a word of ``opinion``, so "I think I'm allergic to
penicillin" was vetoed as an opinion. Two frames, word lists in
``memgate/data/durable_frames.json``:

- a **durable own** frame (:func:`durable_own`): the speaker is the subject (a pronoun,
  or a Spanish or Portuguese verb of the first person), the verb is one of habit, state or
  possession in the present ("collect", "sammle", "juego", "收集"), or a copula before a
  lasting state ("allergic", "végétarienne", "过敏"), an object follows, and nothing scopes
  it to the moment ("today", "ce soir"). The sentence is kept at the frames'
  ``keep_probability``, as a value frame of :mod:`memgate.stages.slot_frames` is;
- a **hedged fact** (:func:`hedged_fact`): a hedge lead (statements.json ``hedge_leads``)
  followed by a clause about the speaker (a subject pronoun, a possessive lead, a verb of
  the first person) with no word of judgement (an adjective of judgement, a comparison,
  "should": ``evaluative``). The clause is judged without the hedge and stored without it;
  the fact stays a belief (confidence 0.5, :func:`memgate.stages.statement_text.hedged`).
  After a hedge, a clause about something else or with a word of judgement is an opinion,
  as before.

Session 29 (keep29) reads four more shapes of the durable own frame: a phrase of a
recurring time ("los sábados", "todas as manhãs", "每天": statements.json ``habit_times``)
is cut before the frame is read (:func:`habit_scope`), with a word of the present that
opens the clause beside it ("ahora", "现在": a change, not the moment), and then a light
verb of the speaker ("hago", "faço", "voy": ``light_verbs``) or any verb after a pronoun
of the speaker says a habit; a verb of taking with a bare object ("tomo metformina":
``bare_object_verbs``; "tomo un café" is the moment's); a possessive, a noun of kin and a
verb of habit in the third person ("mi hija estudia medicina": ``kin``); a Chinese clause
with no subject that opens, after a time of the past, with a verb of change or
acquisition ("上个月换了一部手机": ``zh_pro_drop``).

>>> durable_own("I collect vinyl records."), durable_own("Juego al pádel los jueves.")
(True, True)
>>> durable_own("I'm playing tennis today."), durable_own("I collect.")
(False, False)
>>> hedged_fact("I think I'm allergic to penicillin.")
"I'm allergic to penicillin."
>>> hedged_fact("I think Rust is overrated."), hedged_fact("I think we should use Kafka.")
(None, None)
>>> without_hedge("Acho que meu voo é na sexta."), without_hedge("Meu voo é na sexta.")
('meu voo é na sexta.', 'Meu voo é na sexta.')
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any, Final

from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.statement_text import (
    cues,
    first_person_verb,
    lexicon,
    normalise_text,
    word_pattern,
)

__all__ = [
    "DURABLE",
    "durable_own",
    "habit_scope",
    "hedge_split",
    "hedged_fact",
    "hedged_lasting",
    "lasting_of_speaker",
    "sets_a_slot",
    "without_hedge",
]

_CJK_RE: Final = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_OPENING_RE: Final = re.compile(
    r"^[\s,;:¿¡\"'(«“-]*(?:(?:oh|ah|hmm+|um+|uh+|well|so|and|but|also|ok|okay|ja|bon|eh|"
    r"bueno|pues|olha|então|嗯|哦)[\s,!.，！]+)*",
    re.IGNORECASE,
)
_PAUSE_RE: Final = re.compile(r"^[\s,:;，：、—–-]+")
# one word between a discourse lead and its pause ("nebenbei bemerkt,", "dit en passant,")
_WORD_PAUSE_RE: Final = re.compile(r"^\s+[^\W\d_]+[\s]*[,:;，：、—–-]+\s*")
# "i'm" and "we're" read as a subject and a copula; "j'ai" as "j'" and "ai"
_CONTRACTION_RE: Final = re.compile(r"\b(i|we)'(m|re|ve|d|ll)\b")
_TOKEN_RE: Final = re.compile(r"[^\W\d_]+'(?=[^\W\d_])|'[^\W\d_]+|[^\W\d_]+(?:-[^\W\d_]+)*|\d+")


@cache
def _data() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "durable_frames.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


DURABLE: Final[dict[str, Any]] = _data()


def _words(key: str) -> list[str]:
    return [normalise_text(w) for ws in _data()[key].values() for w in ws]


@cache
def _set(key: str) -> frozenset[str]:
    return frozenset(w for w in _words(key) if not _CJK_RE.search(w))


@cache
def _cjk(key: str) -> tuple[str, ...]:
    return tuple(sorted((w for w in _words(key) if _CJK_RE.search(w)), key=len, reverse=True))


@cache
def _pro_drop_verbs() -> frozenset[str]:
    """The verbs of habit of the languages that say the subject by the verb's ending."""
    verbs = _data()["habitual_verbs"]
    return frozenset(normalise_text(v) for lang in _data()["pro_drop"] for v in verbs[lang])


@cache
def _pattern(key: str) -> re.Pattern[str]:
    return word_pattern(_words(key))


@cache
def _moment_time() -> re.Pattern[str]:
    return word_pattern(list(lexicon()["moment_time"]))


@cache
def _possessive() -> re.Pattern[str]:
    return word_pattern(list(lexicon()["possessive_lead"]))


@cache
def _discourse() -> re.Pattern[str]:
    return word_pattern(list(lexicon()["discourse_lead"]))


def _body(sentence: str) -> str:
    """The normalised sentence without its opening punctuation, interjections and
    discourse leads ("au fait, ...", "by the way, ..."); a lead may take one word before
    its pause, a participle of saying or an intensifier ("nebenbei bemerkt, ...")."""
    norm = _OPENING_RE.sub("", normalise_text(sentence))
    for _ in range(2):
        m = _discourse().match(norm)
        rest = norm[m.end() :] if m is not None else ""
        pause = _WORD_PAUSE_RE.match(rest) or _PAUSE_RE.match(rest)
        if m is None or not pause:
            break
        norm = _OPENING_RE.sub("", rest[pause.end() :])
    return norm


def _tokens(norm: str) -> list[str]:
    return _TOKEN_RE.findall(_CONTRACTION_RE.sub(r"\1 '\2", norm))


def _size(norm: str) -> int:
    return len(_tokens(norm)) + len(_CJK_RE.findall(norm)) // 2


@cache
def _habit_times() -> re.Pattern[str]:
    return word_pattern(list(lexicon()["habit_times"]))


def habit_scope(body: str) -> tuple[str, str]:
    """The normalised clause without its phrases of a recurring time, and those phrases
    (statements.json ``habit_times``). With one, a word of the present
    (durable_frames.json ``now_words``) that opens the clause says a change, not the
    moment, and is cut too: "ahora los sábados voy a ...", "现在我一般都坐...".

    >>> habit_scope("los sábados por la mañana hago natación")
    ('hago natación', 'los sábados por la mañana')
    >>> habit_scope("hoy estoy cansado")
    ('hoy estoy cansado', '')
    """
    found = [m.group(0) for m in _habit_times().finditer(body)]
    if not found:
        return body, ""
    join = "" if _CJK_RE.match(body) else " "
    cut = _habit_times().sub(join, body)
    now = _pattern("now_words").match(_OPENING_RE.sub("", cut.strip(" ,，、")))
    if now is not None:
        cut = _OPENING_RE.sub("", cut.strip(" ,，、"))[now.end() :]
    cut = re.sub(r"\s+", " ", cut).strip(" ,，、")
    return cut, " ".join(found)


def durable_own(sentence: str) -> bool:
    """The sentence says something lasting of the speaker: subject, verb of habit or
    state (or copula and lasting state), object, no moment scope (see the module). A
    phrase of a recurring time (:func:`habit_scope`) makes any verb of the speaker one of
    habit; a possessive, a noun of kin and a verb of habit in the third person say a
    lasting fact of the speaker's family (:func:`_kin_habit`)."""
    body = _body(sentence).rstrip(" .!。！")
    if not body or "?" in body or "？" in body or _size(body) > int(DURABLE["max_words"]):
        return False
    body, habit = habit_scope(body)
    if not body or _moment_time().search(body) is not None:
        return False
    if _CJK_RE.match(body):
        return _durable_cjk(body, bool(habit)) or _pro_drop_cjk(body)
    words = _tokens(body)
    gap = _set("gap_words")
    subject = _pattern("subjects").match(" ".join(words))
    at = 0
    if subject is not None:
        at = len(subject.group(0).split())
    else:
        # "juego al pádel ...", "colecciono sellos", "não bebo nada": the verb's ending is
        # the subject; a time phrase that opened the clause is read after it
        while at < min(int(DURABLE["max_gap_words"]), len(words)) and words[at] in gap:
            at += 1
        opener = words[at] if at < len(words) else ""
        light = bool(habit) and opener in _set("light_verbs")
        if not (
            opener in _pro_drop_verbs()
            or opener in _set("bare_object_verbs")
            or light
            or first_person_verb(f"{body} {habit}".strip())
        ):
            return _kin_habit(words)
        if light:
            # "(los domingos) hago yoga", "(ahora los viernes) voy a clases": a light
            # verb of the speaker scoped by a phrase of a recurring time
            return any(len(w) > 2 for w in words[at + 1 :])
        at = 0
    limit = at + int(DURABLE["max_gap_words"])
    while at < min(limit, len(words)) and words[at] in gap:
        at += 1
    if at >= len(words):
        return False
    verb, rest = words[at], words[at + 1 :]
    has_object = any(len(w) > 2 or w.isdigit() for w in rest)
    if verb in _set("habitual_verbs"):
        return has_object or bool(habit)  # "ich jogge morgens": the time is its complement
    if habit and subject is not None:
        # a phrase of a recurring time makes any verb after a pronoun of the speaker one
        # of habit ("every morning I walk the dog", "每天晚上我都练书法")
        return has_object
    if verb in _set("bare_object_verbs"):
        # "tomo metformina", "I drink coffee": a bare object is a habit; "tomo un café" is
        # the moment's, and "tomo mi café" one's own thing (:func:`_determined`)
        return has_object and not _determined(rest[0])
    if verb in _set("copulas"):
        return _pattern("lasting_states").match(" ".join(rest)) is not None
    return False


def _determined(word: str) -> bool:
    """An article or a possessive opens the object: a thing of the moment or one's own
    ("tomo un café", "I drink my coffee black"), no bare object of habit."""
    return word in set(lexicon()["articles"]) or _possessive().fullmatch(word) is not None


@cache
def _kin_words() -> tuple[frozenset[str], frozenset[str]]:
    """The nouns of kin and the verbs of habit of ``kin``, normalised once (issue 14)."""
    kin = DURABLE.get("kin", {})
    nouns = frozenset(normalise_text(w) for ws in kin.get("nouns", {}).values() for w in ws)
    verbs = frozenset(normalise_text(w) for ws in kin.get("verbs", {}).values() for w in ws)
    return nouns, verbs


def _kin_habit(words: list[str]) -> bool:
    """A possessive lead, a noun of kin and a verb of habit in the third person, then an
    object (durable_frames.json ``kin``): "mi hija estudia medicina", "my son plays
    chess"; "mi hija está cansada" (no verb of habit) is no such frame."""
    nouns, verbs = _kin_words()
    lead = _possessive().match(" ".join(words))
    if lead is None:
        return False
    at = len(lead.group(0).split())
    return (
        len(words) > at + 2
        and words[at] in nouns
        and words[at + 1] in verbs
        and any(len(w) > 2 for w in words[at + 2 :])
    )


def _pro_drop_cjk(body: str) -> bool:
    """A Chinese clause with no subject that opens (after a time of the past: "上个月")
    with a verb of change or acquisition, then an object: "上个月换了一部小米手机" is
    the speaker's, as a Spanish verb of the first person is (durable_frames.json
    ``zh_pro_drop``)."""
    frame = DURABLE.get("zh_pro_drop", {})
    rest = body
    lead = next((t for t in frame.get("time_leads", ()) if rest.startswith(t)), None)
    if lead is not None:
        rest = _PAUSE_RE.sub("", rest[len(lead) :])
    verb = next((v for v in frame.get("verbs", ()) if rest.startswith(v)), None)
    return verb is not None and len(_CJK_RE.findall(rest[len(verb) :])) >= 2


def _durable_cjk(body: str, habit: bool = False) -> bool:
    """我 / 我们, adverbs, a verb of habit (or a lasting state anywhere after the
    subject: "我对青霉素过敏"), then at least one character of object; with a phrase of
    a recurring time ("一般", "每天"), any verb and object."""
    subject = next((s for s in _cjk("subjects") if body.startswith(s)), None)
    if subject is None:
        return False
    if habit and len(_CJK_RE.findall(body[len(subject) :])) >= 2:
        return True
    rest = body[len(subject) :]
    for _ in range(int(DURABLE["max_gap_words"])):
        gap = next((g for g in _cjk("gap_words") if rest.startswith(g)), None)
        if gap is None:
            break
        rest = rest[len(gap) :]
    if _workplace_cjk(rest):
        return True
    verb = next((v for v in _cjk("habitual_verbs") if rest.startswith(v)), None)
    if verb is not None:
        return bool(_CJK_RE.search(rest[len(verb) :])) or bool(
            re.search(r"[A-Za-z]", rest[len(verb) :])
        )
    return any(s in rest for s in _cjk("lasting_states"))


def _workplace_cjk(rest: str) -> bool:
    """After the subject, a workplace said with a locative before a verb of work: "在一家
    银行做会计", "在医院工作" (durable_frames.json ``workplace``): the place opens with a
    measure of an organisation or ends with a word for one; "在厨房做饭" is no workplace."""
    frame = DURABLE.get("workplace", {}).get("zh", {})
    loc = next((w for w in frame.get("locatives", ()) if rest.startswith(w)), None)
    if loc is None:
        return False
    rest = rest[len(loc) :]
    for at in range(2, min(len(rest), 12)):
        verb = next((v for v in frame["verbs"] if rest.startswith(v, at)), None)
        if verb is None:
            continue
        place = rest[:at]
        return place.startswith(tuple(frame["place_leads"])) or place.endswith(
            tuple(frame["place_ends"])
        )
    return False


def hedge_split(sentence: str) -> tuple[str, str] | None:
    """The hedge that opens the sentence and the clause after it (as written), or None.

    >>> hedge_split("Ich glaube, ich bin allergisch gegen Nüsse.")
    ('Ich glaube', 'ich bin allergisch gegen Nüsse.')
    >>> hedge_split("I think that we use Terraform"), hedge_split("I thinkpad daily")
    (('I think', 'we use Terraform'), None)
    """
    s = " ".join(sentence.replace("’", "'").split())
    opening = _OPENING_RE.match(s)
    at = opening.end() if opening is not None else 0
    for length, leads in _hedge_lengths():
        end = at + length
        lead = s[at:end].casefold()
        if lead not in leads:
            continue
        nxt = s[end : end + 1]
        if not (_CJK_RE.search(lead) or lead.endswith("'") or nxt in ("", " ", ",")):
            continue
        rest = _PAUSE_RE.sub("", s[end:])
        for word in DURABLE.get("complementizers", ()):
            if rest.casefold().startswith(word) and (
                word.endswith("'") or rest[len(word) : len(word) + 1] in (" ", ",")
            ):
                rest = _PAUSE_RE.sub("", rest[len(word) :])
                break
        return (s[at:end], rest) if rest else None
    return None


@cache
def _hedge_leads() -> tuple[str, ...]:
    return tuple(
        sorted(map(normalise_text, lexicon().get("hedge_leads", ())), key=len, reverse=True)
    )


@cache
def _hedge_lengths() -> tuple[tuple[int, frozenset[str]], ...]:
    """The hedge leads by length, the longest first: one slice of a sentence is compared
    with all the leads of its length at once (they are tried longest first, and two leads
    of one length never both equal one slice)."""
    leads = _hedge_leads()
    lengths = sorted({len(lead) for lead in leads}, reverse=True)
    return tuple((n, frozenset(lead for lead in leads if len(lead) == n)) for n in lengths)


@cache
def _team_nouns() -> re.Pattern[str]:
    return word_pattern(list(lexicon()["team_nouns"]))


def _names_the_team(norm: str) -> bool:
    """The clause's subject phrase (its first words) holds a word for the speaker's team:
    "la réunion d'équipe a lieu le jeudi", "the team standup is at ten", "团队周会在周五"
    are about the team as "our ..." is (statements.json ``team_nouns``)."""
    if _CJK_RE.match(norm):
        return _team_nouns().search(norm[:4]) is not None
    return _team_nouns().search(" ".join(_tokens(norm)[:4])) is not None


def _about_speaker(norm: str) -> bool:
    """The clause's subject or owner is the speaker or the speaker's team: a subject
    pronoun, a possessive lead, or a verb of the first person ("juego", "usamos")."""
    if _CJK_RE.match(norm):
        return norm.startswith(_cjk("subjects")) or _names_the_team(norm)
    words = _tokens(norm)
    if _pattern("subjects").match(" ".join(words)) is not None or _names_the_team(norm):
        return True  # before an article is cut: "a gente usa ..." (pt "we") opens with "a"
    if len(words) > 1 and words[0] in set(lexicon()["articles"]):
        # "o meu plano", "la mia": an article before the possessive
        norm = norm.split(" ", 1)[1]
        words = words[1:]
    plural = tuple(lexicon().get("pronoun_verb_endings", ()))
    return bool(words) and (
        _pattern("subjects").match(" ".join(words)) is not None
        or _possessive().match(norm) is not None
        or first_person_verb(norm)
        or (len(words[0]) > 5 and words[0].endswith(plural))
    )


def hedged_fact(sentence: str) -> str | None:
    """The clause after a hedge when it is a fact of the speaker with no word of judgement
    (see the module), else None: the sentence opens with no hedge, or it is an opinion."""
    split = hedge_split(sentence)
    if split is None:
        return None
    clause = split[1]
    norm = _body(clause)
    if not _about_speaker(norm) or _pattern("evaluative").search(norm) is not None:
        return None
    if cues(clause)["opinion"]:
        return None  # "I think I'd recommend Kafka": an opinion after the hedge
    return clause


def hedged_lasting(sentence: str) -> bool:
    """A hedged fact (:func:`hedged_fact`) with no moment scope in its clause: "Il me semble
    que la réunion d'équipe a lieu le jeudi" is a belief about something lasting of the
    speaker's team, kept as one (the write policy holds it until confirmed), as triage
    keeps it; "I think we're meeting tomorrow" is of the moment."""
    clause = hedged_fact(sentence)
    return clause is not None and _moment_time().search(_body(clause)) is None


def lasting_of_speaker(clause: str) -> bool:
    """A clause (said after an opening that says it was checked: "C'est confirmé, la réunion
    d'équipe a lieu le jeudi") about the speaker or the team, with no word of judgement and
    no moment scope: the frame of a hedged fact's clause (:func:`hedged_fact`).

    >>> lasting_of_speaker("la réunion d'équipe a lieu le jeudi")
    True
    >>> lasting_of_speaker("the build is green today"), lasting_of_speaker("Rust is overrated")
    (False, False)
    """
    norm = _body(clause)
    return (
        _about_speaker(norm)
        and _pattern("evaluative").search(norm) is None
        and not cues(clause)["opinion"]
        and _moment_time().search(norm) is None
    )


def without_hedge(sentence: str) -> str:
    """The sentence as it is stored: a hedged fact without its hedge (:func:`hedged_fact`),
    any other sentence as it is."""
    return hedged_fact(sentence) or sentence


def sets_a_slot(sentence: str) -> bool:
    """The sentence names a slot that holds one value (a city, an editor, the language of
    replies: a single-valued family of ``memgate/data/resolution.json``) with a change cue
    or a standing cue: "三月底搬到苏州了", "Merci de toujours nous répondre en français"
    set or change what a later session must know, with or without a pronoun of the
    speaker (Chinese drops it).

    >>> sets_a_slot("三月底搬到苏州了。"), sets_a_slot("苏州很漂亮。")
    (True, False)
    """
    fam, _ = LEXICON.family_of("statement", sentence)
    if fam is None or not fam.single:
        return False
    return LEXICON.has_change_cue(sentence) or cues(sentence)["standing"]
