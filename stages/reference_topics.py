"""References said loosely, and the topic families that widen what a topic points at.

Users withdraw or erase what they said without a set phrase: the topic first and the
request after it ("Das mit dem Auto war Quatsch, vergiss das bitte"; "Lo del fútbol no
era verdad, ignóralo"; "Ce que je t'ai dit sur ma mère, tu peux le supprimer"), as a
complaint ("it's creepy that you know which school my kid goes to, get rid of that"),
by a broader word ("drop all the pet stuff" for a border collie), or by a bare
anaphor right after the fact ("scratch that, I was thinking of another project").
:func:`loose_references` reads such a sentence by three word classes, with no phrase
per sentence: a verb of withdrawing or deleting, evidence that the sentence is about
what was said or stored (a memory word or a word saying it was wrong), and a topic
after a topic lead ("about", "das mit dem", "lo del", "关于") or before a stuff word.
:func:`anaphoric_reference` reads the bare anaphor. :func:`family_reach` widens a
topic that names a kind (pets, the car, music, sport, family) to the words of its
members (a dog breed, a car make, an instrument, a sport). All word lists are data:
``memgate/data/reference_topics.json``.

>>> [(op, topic) for op, topic, _ in loose_references("Lo del fútbol no era verdad, ignóralo.")]
[('retract', 'fútbol')]
>>> loose_references("Delete the stale feature branches from the repo.")
[]
>>> anaphoric_reference("Hmm, no, scratch that, I was thinking of a different project.")
'retract'
>>> bool(family_reach("the pet stuff").search("user has a border collie called juno"))
True
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

from memgate.core.text import bounded_alternation

__all__ = [
    "TopicReach",
    "anaphoric_reference",
    "asks_not_to_keep",
    "edits_a_thing",
    "family_reach",
    "is_anaphor",
    "loose_references",
    "negated_request",
    "speaker_owned",
]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_CLAUSE_SPLIT_RE: Final = re.compile(r"\s*(?:[,;:，；：]|\s[—–-]\s)\s*")
_WORD_RE: Final = re.compile(r"[\w'’-]+", re.UNICODE)
_NEVER: Final = re.compile(r"(?!)")
#: Where a clause ends: a punctuation mark, a dash, or the end of the text.
_CLAUSE_END_RE: Final = re.compile(r"\s*(?:[,;:.!?，；：。！？—–-]|$)")


def _phrases(words: list[str]) -> re.Pattern[str]:
    """One pattern for a list of phrases: word-bounded, Chinese as a substring."""
    parts = [
        (re.escape(w.lower()).replace(r"\ ", r"\s+"), not _CJK_RE.search(w))
        for w in sorted({w for w in words if w.strip()}, key=len, reverse=True)
    ]
    return re.compile(bounded_alternation(parts)) if parts else _NEVER


def _flat(d: dict[str, list[str]]) -> list[str]:
    return [w for ws in d.values() for w in ws]


@dataclass(frozen=True)
class _Words:
    delete: re.Pattern[str]
    retract: re.Pattern[str]
    keep_negations: re.Pattern[str]
    keep_verbs: re.Pattern[str]
    memory: re.Pattern[str]
    cues: re.Pattern[str]
    leads: re.Pattern[str]
    ends: re.Pattern[str]
    stuff: re.Pattern[str]
    anaphors: frozenset[str]
    anaphor_verbs: frozenset[str]
    strong: frozenset[str]
    tasks: re.Pattern[str]
    heads: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]
    sets: dict[str, re.Pattern[str]]
    head_only: frozenset[str]
    neg_before: re.Pattern[str]
    neg_after: re.Pattern[str]
    self_cues: re.Pattern[str]
    said_leads: re.Pattern[str]
    said_markers: re.Pattern[str]
    thing_markers: re.Pattern[str]
    said_thing: re.Pattern[str]
    said_speaker: re.Pattern[str]
    said_not_topics: frozenset[str]
    fronted: re.Pattern[str]
    keep_ends: re.Pattern[str]
    owner: re.Pattern[str]


@cache
def _words() -> _Words:
    raw = (resources.files("memgate") / "data" / "reference_topics.json").read_text("utf-8")
    d: dict[str, Any] = json.loads(raw)
    stuff = "|".join(re.escape(w) for w in d["stuff_words"])
    leads = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in d["stuff_leads"])
    return _Words(
        delete=_phrases(_flat(d["op_verbs"]["delete"])),
        retract=_phrases(_flat(d["op_verbs"]["retract"])),
        keep_negations=_phrases(_flat(d["keep_negations"])),
        keep_verbs=_phrases(_flat(d["keep_verbs"])),
        memory=_phrases(_flat(d["memory_words"])),
        cues=_phrases(_flat(d["retract_cues"])),
        leads=_phrases(_flat(d["topic_leads"])),
        ends=_phrases(_flat(d["topic_ends"])),
        # "all the pet stuff", "that dog thing": the one or two words before a stuff word
        stuff=re.compile(rf"(?<!\w)(?:{leads})\s+((?:\w+\s+)?\w+)\s+(?:{stuff})(?!\w)"),
        anaphors=frozenset(w.lower() for w in _flat(d["anaphors"])),
        anaphor_verbs=frozenset(w.lower() for w in _flat(d["anaphor_verbs"])),
        strong=frozenset(w.lower() for w in d["strong_anaphor_verbs"]),
        tasks=_phrases(_flat(d["task_nouns"])),
        heads=tuple((_phrases(f["heads"]), tuple(f["sets"])) for f in d["families"]),
        sets={name: _phrases(ws) for name, ws in d["sets"].items()},
        head_only=frozenset(d.get("head_only_sets", ())),
        # a negation right before the verb (at most one word between: "don't ever forget")
        neg_before=re.compile(
            "(?:" + _phrases(d["request_negations"]["before"]).pattern + r")\s*(?:\w+\s+)?$"
        ),
        self_cues=_phrases(_flat(d["self_error_cues"])),
        said_leads=_phrases(_flat(d["said_topic_leads"])),
        said_markers=_phrases(_flat(d["said_topic_markers"])),
        thing_markers=_phrases(_flat(d["said_thing_markers"])),
        # "that heroku thing": a demonstrative, one or two words, a stuff word
        said_thing=re.compile(
            rf"(?<!\w)(?:{_phrases(_flat(d['said_thing_leads'])).pattern})\s+((?:\w+\s+)?\w+)"
            rf"\s+(?:{stuff})(?!\w)"
        ),
        said_speaker=_phrases(_flat(d["said_thing_speaker"])),
        said_not_topics=frozenset(_flat(d["said_thing_not_topics"])),
        neg_after=re.compile(
            r"^\s*,?\s*(?:" + _phrases(d["request_negations"]["after"]).pattern + ")"
        ),
        # a topic lead at the head of a sentence, after discourse fillers ("actually, about")
        fronted=re.compile(
            rf"^(?:(?:{_phrases(_flat(d['fronting_fillers'])).pattern})[\s,，]*)*"
            rf"(?:{_phrases(_flat(d['fronted_topic_leads'])).pattern})"
        ),
        keep_ends=_phrases(_flat(d["keep_object_ends"])),
        owner=_phrases(_flat(d["speaker_owner_words"])),
    )


def _topic_after_lead(
    low: str, w: _Words, leads: re.Pattern[str] | None = None
) -> tuple[str, int, int] | None:
    """The words after the first topic lead, to a topic end or the end of the clause."""
    for m in (leads or w.leads).finditer(low):
        rest = low[m.end() :]
        cut = len(rest)
        for sep in _CLAUSE_SPLIT_RE.finditer(rest):
            cut = sep.start()
            break
        for p in ("。", "！", "？", "?", "!", "."):
            i = rest.find(p)
            if 0 <= i < cut:
                cut = i
        rest = rest[:cut]
        end = w.ends.search(rest)
        # a topic end at the very start is the topic itself ("about that") in no sense
        if end is not None and end.start() > 0:
            rest = rest[: end.start()]
        topic = rest.strip(" '\"“”«»")
        if topic and not _only_anaphor(topic, w):
            return topic, m.start(), m.end() + len(rest)
    return None


def _only_anaphor(topic: str, w: _Words) -> bool:
    return topic.lower().strip(" .!?") in w.anaphors


def is_anaphor(topic: str) -> bool:
    """The topic is a bare anaphor ("that", "isso", "das", "这个"): it names nothing."""
    return _only_anaphor(topic, _words())


def _op(low: str, w: _Words) -> str | None:
    if w.delete.search(low) or w.keep_negations.search(low):
        return "delete"
    if w.retract.search(low):
        return "retract"
    return None


def loose_references(sentence: str) -> list[tuple[str, str, str]]:
    """``(op, topic, clause)`` for a sentence that withdraws or erases a topic loosely.

    ``op`` is ``delete`` for a verb of deleting (or "don't keep"), else ``retract``;
    empty when the sentence has no such verb, no memory word nor word of error, or
    no topic, or names a thing being edited outside its topic ("... from the script").
    """
    w = _words()
    low = sentence.lower().strip()
    op = _op(low, w)
    if op is None:
        said = _said_wrong(low, w)
        return [("retract", said, low)] if said else []
    if not (w.memory.search(low) or w.cues.search(low)):
        return []
    found = _topic_after_lead(low, w) or _topic_after_lead(low, w, w.said_leads)
    if found is None:
        m = w.stuff.search(low)
        found = (m.group(1), m.start(), m.end()) if m is not None else _kept_object(low, w)
        if found is None:
            return []
    topic, _a, _b = found
    if edits_a_thing(low, topic):
        return []
    return [(op, topic, low)]


def _kept_object(low: str, w: _Words) -> tuple[str, int, int] | None:
    """The object of a request not to keep a thing ("não guardes o nome do projeto que te
    disse", "don't keep my blood type"): the words after the keep negation to the end of
    its clause or a ``keep_object_ends`` word (a relative clause of saying, "please"), when
    the sentence says besides that it is about what was said or stored (a memory word or a
    word of error outside the keep negation): "não guardes os recibos" is a chore.

    >>> _kept_object("não guardes o nome do projeto que te disse, remove isso", _words())
    ('o nome do projeto', 0, 29)
    >>> _kept_object("please don't keep that, i told you", _words())
    >>> _kept_object("não guardes os recibos do supermercado", _words())
    """
    m = w.keep_negations.search(low)
    if m is None:
        return None
    outside = low[: m.start()] + " " + low[m.end() :]
    if not (w.memory.search(outside) or w.cues.search(outside)):
        return None
    rest = _CLAUSE_SPLIT_RE.split(low[m.end() :], maxsplit=1)[0]
    rest = re.split(r"[.!?。！？]", rest, maxsplit=1)[0]
    end = w.keep_ends.search(rest)
    if end is not None:
        rest = rest[: end.start()]
    topic = rest.strip(" '\"“”«»")
    if not topic or _only_anaphor(topic, w):
        return None
    return topic, m.start(), m.end() + len(rest.rstrip())


def _fronted(low: str, w: _Words) -> tuple[str, int, int] | None:
    """A topic said first, after a topic lead at the head of the sentence ("actually, about
    the allergy: that wasn't me", "quanto ao carro, enganei-me", "关于花生，我说错了"), when
    the speaker then says the error was theirs (``self_error_cues``) in a clause of its
    own: a lead inside the sentence ("I was wrong about the deadline") names no thing
    said, "about the deadline: that's wrong" may be said of an answer, and "as for the
    weekend, I was wrong to think it would rain" is wrong about something else.

    >>> _fronted("actually, about the allergy: that wasn't me, it's my sister", _words())
    ('the allergy', 0, 27)
    >>> _fronted("about the allergy: that's wrong", _words())
    >>> _fronted("i was wrong about the allergy", _words())
    >>> _fronted("as for the weekend, i was wrong to think it would rain", _words())
    """
    found = _topic_after_lead(low, w, w.fronted)
    if found is None:
        return None
    text = low.replace("’", "'")
    for cue in w.self_cues.finditer(text, found[2]):
        if _CLAUSE_END_RE.match(text, cue.end()):
            return found
    return None


def _said_wrong(low: str, w: _Words) -> str | None:
    """The topic of a sentence that says a thing the user said was wrong, with no verb of
    withdrawing: a lead of its own points at what was said ("das mit AWS stimmt nicht",
    "lo de mi hermana no es cierto"; Chinese: the topic before a demonstrative marker,
    "刚才说养狗那句不对") and a word of error follows the topic.

    >>> _said_wrong("lo de mi hermana no es cierto, me confundí", _words())
    'mi hermana'
    >>> _said_wrong("刚才说养狗那句不对", _words()), _said_wrong("i was wrong about it", _words())
    ('养狗', None)
    >>> _said_wrong("跑步那个是我说错了", _words()), _said_wrong("老板那个方案不对", _words())
    ('跑步', None)
    """
    found = None
    cjk = _CJK_RE.search(low) is not None
    marker = (w.said_markers.search(low) or w.thing_markers.search(low)) if cjk else None
    if marker is None:
        found = _topic_after_lead(low, w, w.said_leads) or _said_thing(low, w)
        if found is None:
            fronted = _fronted(low, w)  # the speaker's own error: no further cue needed
            return fronted[0] if fronted else None
    else:
        head = low[: marker.start()]
        leads = list(w.said_leads.finditer(head))
        start = leads[-1].end() if leads else 0
        topic = head[start:].strip(" ，,、")
        # a thing ("跑步那个") is a thing said only after a lead or with the speaker's own
        # error ("我说错了"): "老板那个方案不对" says a plan is wrong
        said = w.said_markers.match(low, marker.start()) is not None
        if not (said or leads or w.self_cues.search(low[marker.end() :])):
            return None
        if topic and not _CLAUSE_SPLIT_RE.search(topic):
            found = (topic, start, marker.start())
    if found is None:
        return None
    topic, _start, end = found
    return topic if w.cues.search(low[end:]) else None


def _said_thing(low: str, w: _Words) -> tuple[str, int, int] | None:
    """A thing said with a demonstrative and a stuff word ("that heroku thing isn't right,
    that was at my previous job"), when the speaker says why in words of their own after
    the word of error, or says they were wrong: "that regex thing is wrong" may be said of
    an answer.

    >>> _said_thing("that heroku thing isn't right, that was at my previous job", _words())
    ('heroku', 0, 17)
    >>> _said_thing("that regex thing isn't right", _words())
    >>> _said_thing("that second part is wrong, i need it shorter", _words())
    """
    m = w.said_thing.search(low)
    if m is None or set(m.group(1).split()) & w.said_not_topics:
        return None
    cue = w.cues.search(low, m.end())
    if cue is None:
        return None
    if not (w.said_speaker.search(low, cue.end()) or w.self_cues.search(low.replace("’", "'"))):
        return None
    return m.group(1), m.start(), m.end()


#: What follows one of these in a topic is where the thing is, not the thing.
_WHERE_RE: Final = re.compile(
    r"\s(?:from|in|of|aus|in der|im|von der|dans|du|de la|del|de la|en el|do|da|no|na)\s"
)


def edits_a_thing(sentence: str, topic: str) -> bool:
    """The sentence asks to edit a thing being worked on (a file, a paragraph, a draft:
    ``task_nouns``) named outside the topic or where the topic is ("remove the part about
    logging from the script", "borra el párrafo sobre precios"): no reference to memory.

    >>> edits_a_thing("remove the part about logging from the script", "logging from the script")
    True
    >>> edits_a_thing("delete what you know about my email", "my email")
    False
    """
    w = _words()
    low, t = sentence.lower(), topic.lower()
    head = _WHERE_RE.split(" " + t + " ", maxsplit=1)[0].strip()
    i = low.find(t)
    outside = low.replace(t, " ", 1) if i >= 0 else low
    where = t[len(head) :] if t.startswith(head) else ""
    return bool(w.tasks.search(outside) or w.tasks.search(where))


def negated_request(sentence: str) -> bool:
    """Every verb of withdrawing or deleting in the sentence is negated: "don't forget what
    I told you about my allergy", "vergiss nicht, was ...", "n'oublie pas ...", "别忘了 ..."
    ask to remember, not to forget.

    >>> negated_request("Don't forget what I told you about my allergy.")
    True
    >>> negated_request("Forget what I told you about my allergy."), negated_request("Hi.")
    (False, False)
    """
    w = _words()
    low = sentence.lower().replace("’", "'")
    found = False
    for verbs in (w.delete, w.retract):
        for m in verbs.finditer(low):
            found = True
            before, after = low[: m.start()], low[m.end() :]
            if not (w.neg_before.search(before) or w.neg_after.search(after)):
                return False
    return found


def speaker_owned(topic: str) -> bool:
    """The topic names the speaker as its owner ("where I work", "mon travail", "我的工作").

    >>> speaker_owned("where I work"), speaker_owned("the project"), speaker_owned("我的工作")
    (True, False, True)
    """
    return _words().owner.search(topic.lower().replace("’", "'")) is not None


def asks_not_to_keep(text: str) -> bool:
    """The text asks that something not be kept ("I'd rather you didn't keep that",
    "no quiero que guardes nada"): a withdrawal said beside it is a deletion."""
    return _words().keep_negations.search(text.lower()) is not None


def names_keeping(text: str) -> bool:
    """The text names keeping something in memory ("stored", "gardes", "存着"), or asks in
    one phrase that it not be kept (:func:`asks_not_to_keep`): with a negation beside
    it, a wish that something not be kept.

    >>> names_keeping("I'd rather not have it stored"), names_keeping("我不想你存着")
    (True, True)
    >>> names_keeping("I play chess on Sundays")
    False
    """
    w = _words()
    low = text.lower()
    return w.keep_verbs.search(low) is not None or w.keep_negations.search(low) is not None


def says_own_error(text: str) -> bool:
    """The speaker says they were wrong or mixed something up ("me equivoqué antes",
    "I misspoke", "我搞混了"; ``self_error_cues``): what follows corrects a fact said
    before, an operation on the store, never a remark of the moment."""
    return _words().self_cues.search(text.lower().replace("’", "'")) is not None


def anaphoric_reference(text: str) -> str | None:
    """``retract`` or ``delete`` when a clause of ``text`` is a verb of withdrawing with a
    bare anaphor ("scratch that", "vergiss das bitte", "olvídalo", "当我没说") and the
    verb is a strong one or the speaker says they were wrong ("my bad", "me confundí");
    "no, that's wrong, forget it" may be said of an answer: None."""
    w = _words()
    low = text.lower()
    for sentence in re.split(r"(?<=[.!?。！？])\s*", low):
        for clause in _CLAUSE_SPLIT_RE.split(sentence.strip(" .!?。！？")):
            tokens = _WORD_RE.findall(clause)
            verb = _anaphor_verb(clause, tokens, w)
            if verb is None:
                continue
            if verb in w.strong or w.self_cues.search(low.replace("’", "'")):
                return "delete" if w.delete.search(verb) else "retract"
    return None


def _anaphor_verb(clause: str, tokens: list[str], w: _Words) -> str | None:
    """The verb of a clause that is a verb and an anaphor (politeness words aside)."""
    if _CJK_RE.search(clause):
        return next((v for v in w.anaphor_verbs if _CJK_RE.search(v) and v in clause), None)
    polite = {"please", "bitte", "stp", "svp", "por", "favor", "just", "no", "hmm", "oh", "ok"}
    rest = [t for t in tokens if t not in polite]
    if len(rest) == 1 and rest[0] in w.anaphor_verbs and rest[0].endswith(("lo", "la")):
        return rest[0]  # a clitic anaphor ("olvídalo")
    if len(rest) == 2 and rest[0] in w.anaphor_verbs and rest[1] in w.anaphors:
        return rest[0]
    return None


@dataclass(frozen=True)
class TopicReach:
    """The words a topic reaches through the families it names."""

    pattern: re.Pattern[str]

    def search(self, text: str) -> bool:
        return self.pattern is not _NEVER and self.pattern.search(text.lower()) is not None

    @property
    def names_a_kind(self) -> bool:
        """The topic names a family or a set (it reaches something)."""
        return self.pattern is not _NEVER


@cache
def family_reach(topic: str) -> TopicReach:
    """The words of every set a topic names: a member word its own set, a head word
    (a kind: "pet", "Auto", "运动") every set of its family."""
    w = _words()
    low = topic.lower()
    names: list[str] = []
    for head, sets in w.heads:
        if head.search(low):
            names += sets
    # a member word reaches its own set, unless the set is one of distinct products
    # ("Datadog" does not reach Grafana): only a head word reaches those
    names += [n for n, p in w.sets.items() if n not in w.head_only and p.search(low)]
    if not names:
        return TopicReach(_NEVER)
    pattern = "|".join(f"(?:{w.sets[n].pattern})" for n in dict.fromkeys(names))
    return TopicReach(re.compile(pattern))
