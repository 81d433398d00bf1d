"""Operations by reference: retractions, deletion requests and stops said about a topic.

"Scratch that bit about the gym", "disregard what I told you about my diet",
"please delete what you know about my address", "we moved off Bitbucket":
the user does not restate the fact, they point at it. Each such clause
becomes one reference candidate (predicate :data:`REFERENCE_PREDICATE`,
``retracts=True``, the topic as its object, the operation in its rationale);
the resolver finds the facts it points at by topic and similarity and closes
them (:mod:`memgate.stages.resolve_semantic`). The patterns, in the six
supported languages, are data (``memgate/data/resolution.json``).

Any other candidate an extractor read from inside a reference clause is dropped:
"please delete what you know about my address" is a request, not a fact.

>>> from datetime import UTC, datetime
>>> from memgate.core.events import TurnEvent
>>> t = TurnEvent(tenant_id="a", user_id="u", session_id="s", turn_id="t1", role="user",
...               content="Scratch that bit about the gym.", ts=datetime(2024, 1, 1, tzinfo=UTC))
>>> [(c.object, c.rationale) for c in with_references(t, [])]
[('the gym', 'reference:delete:retracted')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from memgate.core.events import CandidateFact, FactType, Role, TurnEvent, normalise, stable_id
from memgate.core.memo import TextMemo
from memgate.core.text import split_sentences
from memgate.stages.policy import claimed_source
from memgate.stages.reference_clauses import clause_references
from memgate.stages.reference_topics import (
    anaphoric_reference,
    edits_a_thing,
    family_reach,
    is_anaphor,
    loose_references,
    names_keeping,
    negated_request,
)
from memgate.stages.regex_literals import required_literals
from memgate.stages.resolution_lexicon import LEXICON, Lexicon, ReferencePattern
from memgate.stages.statement_text import cues, first_person_verb, word_class

__all__ = [
    "CHANGE_FRAME",
    "REFERENCE_PREDICATE",
    "Reference",
    "change_frames",
    "find_references",
    "is_previous",
    "is_reference",
    "is_retracted_deletion",
    "with_references",
]

#: The predicate of a reference candidate (never stored: it only closes facts).
REFERENCE_PREDICATE: Final = "reference"
_RATIONALE_PREFIX: Final = "reference:"
#: A stop names the old thing; what follows a cut word is the new one ("... to GitLab").
_STOP_CUT_RE: Final = re.compile(
    r"\s+(?:and|to|for|in favou?r of|because|since|und|zu|für|et|pour|y|por|e|para)\s+|因为|改用"
)
#: A topic is a noun phrase: what follows a colon, a dash between spaces or a semicolon
#: is a clause of its own (the reason: "sur le chien : l'adoption est tombée à l'eau").
_TOPIC_CUT_RE: Final = re.compile(r"\s*(?::\s|\s[—–-]\s|;|：|；)")
_TEAM_RE: Final = re.compile(
    r"(?<!\w)(?:we|our|us|wir|unser\w*|nous|notre|nos|on|nosotros|nuestr\w*|nós|noss\w*)(?!\w)|我们"
)
_VERSION: Final = "1.0.0"
#: The rationale of a change sentence kept as the new fact (:func:`change_frames`).
CHANGE_FRAME: Final = "change frame"
_RETRACTED: Final = ":retracted"
#: The rationale suffix of a reference by a bare anaphor ("scratch that"): it points at
#: the facts of the user's latest turn before it.
_PREVIOUS: Final = ":previous"


@dataclass(frozen=True)
class Reference:
    """One clause that points at stored facts: what to do, and about what."""

    op: str  # retract, delete or stop
    topic: str
    subject: str  # user or team
    clause: str  # the lower-cased sentence span of the clause ("" for a change frame)
    sentence: str = ""  # the sentence of a change frame, as said
    retracted: bool = False  # a retraction said with a verb of deleting ("forget what I said")
    previous: bool = False  # a bare anaphor ("scratch that"): the latest turn's facts


def find_references(text: str, lex: Lexicon = LEXICON) -> list[Reference]:
    """The references of a text, in order, one per clause.

    >>> [(r.op, r.topic, r.subject) for r in find_references(
    ...     "We moved off Bitbucket, everything lives in GitLab now.")]
    [('stop', 'Bitbucket', 'team')]
    >>> [(r.op, r.topic) for r in find_references("请删除关于我地址的所有信息。")]
    [('delete', '我地址')]
    """
    if lex is LEXICON:
        return list(REFERENCES_MEMO.get(text, _read_default, keep=_holds_no_text))
    return _read(text, lex)


def _holds_no_text(refs: tuple[Reference, ...]) -> bool:
    """Whether a memo may keep this answer: only "no reference" (most turns). A reference
    quotes its turn (topic, clause), raw, before redaction ("forget my card number 4111
    ..."): it is read again rather than held for the turns after (attack19)."""
    return not refs


#: The references of the texts read last (the default lexicon's): triage and the
#: extractor's two passes (change frames, reference candidates) read the same turn;
#: only the texts with no reference are kept (:func:`_holds_no_text`).
REFERENCES_MEMO: Final[TextMemo[tuple[Reference, ...]]] = TextMemo(256)


def _read_default(text: str) -> tuple[Reference, ...]:
    return tuple(_read(text, LEXICON))


@dataclass(frozen=True)
class _Prefilter:
    """A lexicon's reference patterns, each with the literals one of which it needs
    (:func:`~memgate.stages.regex_literals.required_literals`, ``None``: it always runs),
    and every such literal once: a sentence is searched for the literals, then only the
    patterns whose literals it holds run (most sentences hold a reference by none)."""

    patterns: tuple[ReferencePattern, ...]
    needs: tuple[frozenset[str] | None, ...]
    literals: tuple[str, ...]
    ascii: tuple[str, ...]  # those all ASCII: the only ones an ASCII sentence can hold


#: The prefilter of each lexicon's reference patterns read so far (keyed by the id of
#: its patterns' tuple, the tuple kept with it so the id is not reused).
_PREFILTERS: dict[int, _Prefilter] = {}


def _prefilter(refs: tuple[ReferencePattern, ...]) -> _Prefilter:
    pf = _PREFILTERS.get(id(refs))
    if pf is None or pf.patterns is not refs:
        needs = tuple(required_literals(rp.pattern) for rp in refs)
        literals = tuple(sorted({lit for n in needs if n is not None for lit in n}))
        ascii_only = tuple(lit for lit in literals if lit.isascii())
        pf = _PREFILTERS[id(refs)] = _Prefilter(refs, needs, literals, ascii_only)
    return pf


def _read(text: str, lex: Lexicon) -> list[Reference]:
    out: list[Reference] = []
    pf = _prefilter(lex.references)
    for sentence in split_sentences(text):
        if negated_request(sentence):
            continue  # "don't forget what I told you about ...": remember, not forget
        low = sentence.lower()
        orig = sentence if len(sentence) == len(low) else low
        taken: list[tuple[int, int]] = []
        present = {lit for lit in (pf.ascii if low.isascii() else pf.literals) if lit in low}
        for rp, need in zip(pf.patterns, pf.needs, strict=True):
            if need is not None and need.isdisjoint(present):
                continue  # none of the literals the pattern needs: it cannot match
            for m in rp.pattern.finditer(low):
                if any(m.start() < e and s < m.end() for s, e in taken):
                    continue
                a, b = m.span("topic")
                topic = orig[a:b]
                if rp.op == "stop":
                    topic = _STOP_CUT_RE.split(topic, maxsplit=1)[0]
                topic = _TOPIC_CUT_RE.split(topic, maxsplit=1)[0]
                topic = topic.strip(" \t'\"“”«»:-")
                if not lex.topic_terms(topic):
                    continue
                if rp.op != "stop" and edits_a_thing(low, topic):
                    continue  # "remove the part about logging from the script": an edit
                taken.append(m.span())
                subject = "team" if _TEAM_RE.search(low[: m.end()]) else "user"
                clause = low[m.start() : m.end()]
                op, forget = withdrawn(rp.op)
                out.append(Reference(op, topic, subject, clause, retracted=forget))
                if rp.op == "delete":
                    # "borra lo de mis viajes, lo del asiento y lo de Iberia": the things
                    # listed after the topic are topics of the same request
                    for more in listed_after(orig[m.end() :], lex):
                        out.append(Reference(op, more, subject, clause, retracted=forget))
        if not taken:
            # no phrase pattern: a clause's roles (an imperative delete verb, a "no longer")
            found = clause_references(sentence)
            for op, topic, clause in found:
                if op == "stop" and lex.is_deletion(sentence):
                    # "I no longer want you to keep anything about my kids, delete it": what
                    # stopped is the keeping, the request is that the content go
                    op, topic = "delete", _known_topic(topic, lex)
                if lex.topic_terms(topic) and not (op != "stop" and edits_a_thing(low, topic)):
                    subject = "team" if _TEAM_RE.search(clause or low) else "user"
                    out.append(Reference(op, topic, subject, clause, "" if clause else sentence))
            if not found:
                out += _loose(sentence, text, lex)
    if any(not is_anaphor(r.topic) for r in out):
        # "esquece essa história das aulas de música. apaga isso da memória": the bare
        # anaphor of a turn that names its topic points at that topic, at nothing else
        out = [r for r in out if not is_anaphor(r.topic)]
    if not out:
        # a bare anaphor ("scratch that"), only when nothing else in the turn is meant
        said = anaphoric_reference(text)
        if said is not None:
            low = text.lower()
            subject = "team" if _TEAM_RE.search(low) else "user"
            out.append(Reference(said, "that", subject, low, previous=True))
    return out


#: A list after a topic: a comma opens it; commas and the words "and", "or" part it.
_LIST_OPEN_RE: Final = re.compile(r"^\s*[,，、]\s*")
_LIST_PART_RE: Final = re.compile(
    r"\s*[,，、]\s*|\s+(?:and|or|und|oder|et|ou|y|o|e)\s+|和|或"
)
#: The longest item of such a list (words): a longer piece is a clause, which ends it.
_LIST_ITEM_WORDS: Final = 5
#: The most items read from one list (a request names a few things; a longer list is
#: read this far, so that a turn of thousands of items costs no more than a short one).
_LIST_MAX_ITEMS: Final = 8


def listed_after(rest: str, lex: Lexicon = LEXICON) -> list[str]:
    """The noun phrases listed right after a deletion's topic, up to the sentence's end
    ("..., lo del asiento y lo de Iberia."): each opens with a determiner or a word of
    ``list_openers`` (``memgate/data/resolution.json``); a longer piece, one opened
    otherwise ("thanks", "I moved") or one with no topic word is no item and ends the
    list. Chinese lists are not read.

    >>> listed_after(", lo del asiento y lo de Iberia.")
    ['lo del asiento', 'lo de Iberia']
    >>> listed_after(", because I changed my mind about all of it.")
    []
    """
    if not _LIST_OPEN_RE.match(rest):
        return []
    out: list[str] = []
    body = _LIST_OPEN_RE.sub("", rest, count=1).rstrip(" .!。！")
    for piece in _LIST_PART_RE.split(body, maxsplit=_LIST_MAX_ITEMS)[:_LIST_MAX_ITEMS]:
        piece = piece.strip(" \t'\"“”«»")
        if not piece:
            continue
        words = piece.split()
        if (
            len(words) > _LIST_ITEM_WORDS
            or normalise(words[0]) not in lex.determiners | lex.list_openers
            or word_class("verbs").search(normalise(piece)) is not None  # "das war ..."
            or not lex.topic_terms(piece)
        ):
            break
        out.append(piece)
    return out


def _known_topic(topic: str, lex: Lexicon) -> str:
    """The words of a topic that name a topic or a kind ("que tu gardes quoi que ce soit
    sur vie famille" -> "famille"), or the topic as it is when none does."""
    known = [t for t in lex.topic_terms(topic) if lex.topic_of(t) or family_reach(t).names_a_kind]
    return " ".join(known) if known else topic


def _loose(sentence: str, text: str, lex: Lexicon) -> list[Reference]:
    """A sentence's references said loosely (:mod:`memgate.stages.reference_topics`): the
    topic before or after the request, a broader word; a withdrawal beside a wish not
    to keep it ("drop the pet stuff, I'd rather you didn't keep that") deletes."""
    out: list[Reference] = []
    for op, topic, clause in loose_references(sentence):
        # a clause said as the topic ("which school my kid goes to"): the words of a
        # topic or a kind are what it is about, not its verbs
        if not lex.topic_terms(topic):
            continue
        topic = _known_topic(topic, lex)
        op, forget = withdrawn(op)
        subject = "team" if _TEAM_RE.search(topic.lower()) else "user"
        out.append(Reference(op, topic, subject, clause, retracted=forget))
    return out


def withdrawn(op: str) -> tuple[str, bool]:
    """The operation of a reference that names its topic, and whether it is a withdrawal.

    Withdrawing what was said about a topic ("scratch that bit about the gym", "ignore
    what I said about the marathon, that was my cousin", "关于游泳的那条，当我没说过")
    says the statement was never to be kept: its content goes as a deletion's does, in
    every frame and language, and the erased row keeps the ids of the turns it withdraws
    (:func:`is_retracted_deletion`). Kept closed with its content, a withdrawn statement
    would still answer a question about its time ("as of" April) and a redelivery of its
    turn would find it; a change in the world ("I no longer like X", "we moved off
    Bitbucket": a stop, or a retraction by key) keeps its history. A bare anaphor
    ("scratch that") is not read here: what it points at is a guess, kept reversible.

    >>> withdrawn("retract"), withdrawn("delete"), withdrawn("stop")
    (('delete', True), ('delete', False), ('stop', False))
    """
    return ("delete", True) if op == "retract" else (op, False)


def is_reference(c: CandidateFact) -> bool:
    """A reference candidate (it closes the facts its topic points at)."""
    return c.retracts and c.predicate == REFERENCE_PREDICATE


def reference_op(c: CandidateFact) -> str:
    """``retract``, ``delete`` or ``stop``."""
    return c.rationale.removeprefix(_RATIONALE_PREFIX).split(":", 1)[0]


def is_previous(c: CandidateFact) -> bool:
    """A reference by a bare anaphor ("scratch that"): the latest turn's facts are meant."""
    return c.rationale.endswith(_PREVIOUS)


def is_retracted_deletion(c: CandidateFact) -> bool:
    """A deletion said as a retraction ("forget what I told you about my diet, I meant my
    brother"): the content goes, the erased row still names the turn it withdraws."""
    return c.rationale == _RATIONALE_PREFIX + "delete" + _RETRACTED


def _inside(obj: str, clauses: list[str]) -> bool:
    """The candidate's value lies in a reference clause, or holds one whole."""
    return bool(obj) and any(cl and (obj in cl or cl in obj) for cl in clauses)


_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
#: Where a value's parts meet: a comma or semicolon, or a coordinating conjunction between
#: two clauses ("I left Shopify last month and joined Stripe", "dejé X y me fui a Y").
_PART_RE: Final = re.compile(r"\s*[,;，；]\s*|\s+(?:and|und|et|y|e)\s+(?=\w)")


def said_beside(
    obj: str,
    clauses: list[str],
    lex: Lexicon = LEXICON,
    *,
    stop: bool = False,
    deleting: bool = False,
) -> str | None:
    """The part of a value said beside the reference clauses it holds, when that part
    states a change of its own: "Me pasé a Digi, ya no estoy con Movistar" -> "Me pasé a
    Digi"; "never mind the marathon, that was my flatmate" -> None (no new value).

    >>> said_beside("Me pasé a Digi, ya no estoy con Movistar", ["ya no estoy con movistar"])
    'Me pasé a Digi'
    >>> said_beside("I don't drive a Civic anymore, I sold it", ["i don't drive a civic anymore"])
    >>> said_beside("I left Shopify last month and joined Stripe", ["i left shopify"])
    'joined Stripe'

    Beside a stop (``stop``: every reference clause of the sentence stops a value), the
    part that names a thing the clauses do not is the new value too, cue or none: "I quit
    Siemens and start at Zeiss" -> "start at Zeiss"; "I quit Siemens and I'm glad" -> None.

    >>> said_beside("I quit Siemens and start at Zeiss", ["i quit siemens"], stop=True)
    'start at Zeiss'
    >>> said_beside("I quit Siemens and start at Zeiss", ["i quit siemens"])
    >>> said_beside("I quit Siemens and I'm glad", ["i quit siemens"], stop=True)

    Beside a deletion request (``deleting``: every reference clause of the sentence asks
    that content go), a change is a new value only when the speaker says it of themselves
    or the team ("forget my old address, I moved to Berlin"): a change of a thing of the
    day ("the meeting moved to 3, ..., please erase the stuff about my pens") is none.

    >>> said_beside("I moved to Berlin, forget my old address", ["forget my old address"],
    ...             deleting=True)
    'I moved to Berlin'
    >>> said_beside("The meeting moved to 3, erase my pen stuff", ["erase my pen stuff"],
    ...             deleting=True)
    """
    parts = [p for p in _PART_RE.split(obj) if p.strip()]
    rest = [p for p in parts if not any(cl and cl in normalise(p) for cl in clauses)]
    if not rest or len(rest) == len(parts):
        return None
    said = ", ".join(rest).strip()
    if not _says_more(normalise(said), lex):
        return None
    if deleting and not any(lex.has_change_cue(p) and _of_speaker(p) for p in rest):
        return None
    if lex.has_change_cue(said) or (stop and _names_new(said, clauses)):
        return said
    return None


def _of_speaker(part: str) -> bool:
    """The speaker or the team says the part of themselves (a pronoun, or the verb's
    person: "mudei para o Porto")."""
    c = cues(part)
    return c["first_person"] or c["first_person_plural"] or first_person_verb(normalise(part))


def _names_new(said: str, clauses: list[str]) -> bool:
    """A part names a thing (a word written with a capital after the part's first word,
    or a Latin word inside Chinese) that no reference clause holds: "start at Zeiss"
    beside "i quit siemens"."""
    words = [w.strip(".,;:!?()\"'") for w in said.split()]
    named = [w for w in words[1:] if w[:1].isupper()]
    if _CJK_RE.search(said):
        named += re.findall(r"[A-Za-z][\w.+-]*", said)
    held = " ".join(clauses)
    return any(normalise(w) and normalise(w) not in held.split() for w in named)


def _says_more(rest: str, lex: Lexicon) -> bool:
    """A normalised text holds a content word besides change cues (blanked out first: a
    Chinese cue sits inside a run of characters, "持续集成改成了gitlab ci")."""
    return any(
        (len(w) > 2 or (len(w) > 1 and _CJK_RE.search(w) is not None))
        and w not in lex.stopwords and w not in lex.clause_stopwords
        and not lex.has_change_cue(w)
        for w in lex.without_change_cues(rest).split()
    )  # fmt: skip


def change_frames(turn: TurnEvent, facts: list[CandidateFact]) -> list[CandidateFact]:
    """The change sentences of a turn an extractor read nothing else from.

    "Wir sind von npm auf pnpm umgestiegen": a correction worth keeping (the new
    value) that no rule reads. An extractor calls this with its own candidates and
    adds what it returns; the reference candidates of :func:`with_references` then
    stop the old value. It is the extractor's judgment, not the pipeline's: an
    extractor that keeps nothing gets nothing from here.
    """
    refs, clauses = _references_of(turn)
    if not refs or any(f.retracts or not _inside(normalise(f.object), clauses) for f in facts):
        return []
    source = claimed_source(turn.metadata)
    out: list[CandidateFact] = []
    for i, r in enumerate(refs):
        said = r.sentence.strip().rstrip(".!?。！？ ")
        if said:
            out.append(
                _candidate(
                    turn,
                    "change",
                    i,
                    subject=r.subject,
                    predicate="statement",
                    obj=said,
                    rationale=CHANGE_FRAME,
                    source=source,
                    multi_valued=True,
                )
            )
    return out


def with_references(turn: TurnEvent, facts: list[CandidateFact]) -> list[CandidateFact]:
    """The extractor's candidates plus one reference candidate per reference clause.

    A candidate read from inside a reference clause is dropped (it is the request
    itself), but for a change said beside the clause (:func:`said_beside`), which is
    kept as its value; retractions the extractor found stay (they close by key).
    """
    refs, clauses = _references_of(turn)
    if not refs:
        return facts
    # a stop's new value may be said without a cue ("I quit X and start at Y")
    stops = all(r.op == "stop" for r in refs)
    deletes = all(r.op == "delete" for r in refs)
    kept: list[CandidateFact] = []
    for f in facts:
        if f.retracts or f.rationale == CHANGE_FRAME or not _inside(normalise(f.object), clauses):
            kept.append(f)
        elif (beside := said_beside(f.object, clauses, stop=stops, deleting=deletes)) is not None:
            # the change said beside it, a sentence of its own: the predicate read from
            # the whole sentence ("... lives in GitLab" -> lives_in) is not its
            kept.append(f.model_copy(
                update={"object": beside, "predicate": "statement", "multi_valued": True}
            ))  # fmt: skip
    kept += _changes_beside(turn, refs, clauses, kept)
    if any(r.op == "delete" for r in refs):
        kept = _without_keep_wishes(kept)
    source = claimed_source(turn.metadata)
    theirs = [normalise(f.object) for f in facts if not f.retracts and another_persons(f.subject)]
    for i, r in enumerate(refs):
        said = clauses[i] or normalise(r.sentence.strip().rstrip(".!?。！？ "))
        if r.op == "stop" and said and any(said in obj or obj in said for obj in theirs):
            continue  # the clause is about another person's thing ("my friend's company
            # moved off Jira"): the extractor read its subject, nothing of the speaker stops
        kept.append(
            _candidate(
                turn,
                "reference",
                i,
                subject=r.subject,
                predicate=REFERENCE_PREDICATE,
                obj=r.topic,
                rationale=_RATIONALE_PREFIX
                + r.op
                + (_RETRACTED if r.retracted else "")
                + (_PREVIOUS if r.previous else ""),
                source=source,
                retracts=True,
            )
        )
    return kept


def another_persons(subject: str) -> bool:
    """A subject of another person's fact or thing: the first link after the speaker is a
    person noun ("user's sister", "user's friend's company"), not a role a single-valued
    family holds as the speaker's slot ("user's new boss").

    >>> another_persons("user's friend's company"), another_persons("user's sister")
    (True, True)
    >>> another_persons("user's new boss"), another_persons("team's backend")
    (False, False)
    >>> another_persons("user")
    False
    """
    # resolve_slots reads the lexicon's families and the person nouns when first asked
    from memgate.stages.resolve_slots import a_person

    head, sep, rest = subject.replace("\u2019", "'").partition("'s ")
    return bool(sep) and normalise(head) in ("user", "team") and a_person(rest)


def _without_keep_wishes(facts: list[CandidateFact], lex: Lexicon = LEXICON) -> list[CandidateFact]:
    """The candidates of a turn that asks for a deletion, less the parts that wish the
    content not be kept: "I'd rather not have it stored", "je préfère que tu ne le gardes
    pas", "prefiro que não fique guardado", "我不想你存着" say the request again, not a
    preference to store (a verb of keeping under a negation, any language of the data). A
    candidate left with nothing else is dropped; one with other parts keeps those."""
    out: list[CandidateFact] = []
    for f in facts:
        if f.retracts or not f.object:
            out.append(f)
            continue
        parts = [p for p in _PART_RE.split(f.object) if p.strip()]
        wish = [p for p in parts if names_keeping(p) and lex.has_negation(p)]
        if not wish:
            out.append(f)
        elif len(wish) < len(parts):
            rest = ", ".join(p.strip() for p in parts if p not in wish)
            out.append(f.model_copy(update={"object": rest}))
    return out


def _changes_beside(
    turn: TurnEvent, refs: list[Reference], clauses: list[str], kept: list[CandidateFact]
) -> list[CandidateFact]:
    """The new value said beside a reference clause in the same sentence, when no kept
    candidate says it: "We dropped Slack, all team talk happens in Teams these days" or
    "Ya no uso Sublime, me pasé a VS Code": the extractor read the stopped value from the
    sentence (its clause is the reference), and the change beside it (:func:`said_beside`)
    is a statement of its own, with the reference's subject."""
    said = [normalise(f.object) for f in kept if not f.retracts and f.object]
    source = claimed_source(turn.metadata)
    out: list[CandidateFact] = []
    for sentence in split_sentences(turn.content):
        low = normalise(sentence)
        mine = [(cl, r) for cl, r in zip(clauses, refs, strict=True) if cl and cl in low]
        if not mine:
            continue
        beside = said_beside(
            sentence.strip().rstrip(".!?。！？ "),
            [cl for cl, _ in mine],
            stop=all(r.op == "stop" for _, r in mine),
            deleting=all(r.op == "delete" for _, r in mine),
        )
        if beside is None:
            continue
        nb = normalise(beside)
        if any(x in nb or nb in x for x in said if x):
            continue
        out.append(_candidate(
            turn, "beside", len(out), subject=mine[0][1].subject, predicate="statement",
            obj=beside, rationale=CHANGE_FRAME, source=source, multi_valued=True,
        ))  # fmt: skip
    return out


def _references_of(turn: TurnEvent) -> tuple[list[Reference], list[str]]:
    """A user turn's reference clauses and their normalised text (none for another role)."""
    if turn.role is not Role.USER or not turn.content.strip():
        return [], []
    refs = find_references(turn.content)
    return refs, [normalise(r.clause) for r in refs]


def _candidate(
    turn: TurnEvent,
    kind: str,
    i: int,
    *,
    subject: str,
    predicate: str,
    obj: str,
    rationale: str,
    source: str,
    retracts: bool = False,
    multi_valued: bool = False,
) -> CandidateFact:
    """The ``i``-th candidate of ``kind`` ("change" or "reference") read from ``turn``."""
    return CandidateFact.from_turn(
        turn,
        candidate_id=stable_id(turn.tenant_id, turn.turn_id, kind, str(i)),
        type=FactType.CORRECTION,
        subject=subject,
        predicate=predicate,
        object=obj[:2_000],
        confidence=0.9,
        valid_from=turn.ts,
        rationale=rationale,
        extractor="references",
        extractor_version=_VERSION,
        retracts=retracts,
        multi_valued=multi_valued,
        source=source,
    )
