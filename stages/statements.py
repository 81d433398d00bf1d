"""Statement-level extractors: the cleaned sentence is the memory (issue 9, item 2).

:class:`StatementExtractor` (setting ``extractor = "statements"``, design A) splits a user
turn into sentences (:func:`memgate.stages.statement_text.split_statements`, Chinese included),
asks the keep classifier (:mod:`memgate.stages.keep_model`) about each one and turns each kept
sentence into one :class:`~memgate.core.events.CandidateFact`:

* object: the sentence with its discourse openers and final punctuation cut
  (:func:`~memgate.stages.statement_text.clean_statement`) -- whole values, never a fragment;
* subject: ``user``, ``team``, ``user's <noun>`` or the noun phrase the sentence is about
  (:func:`~memgate.stages.statement_text.subject_of`);
* predicate: a family from the word lists (``lives_in``, ``stack``, ``likes``, ...,
  else ``statement``); for a single-valued family the key is subject + family, so a later
  statement of the same family supersedes the earlier one ("I moved to Denver" replaces
  "I live in Boston"); otherwise the value is part of the key;
* type: ``instruction`` for a standing instruction, ``correction`` after an explicit
  correction lead ("Correction:", "actually"), ``preference`` for the taste families,
  else ``fact``.

At most :data:`MAX_FACTS_PER_TURN` facts, the most probable first. Questions, one-off
requests, states of the moment, hypotheticals, opinions and chatter are never emitted
(their cues veto the classifier). :class:`HybridExtractor` (``extractor = "hybrid"``,
design B) runs the rule extractor first and adds a statement for each kept sentence that
no rule fact came from.

>>> from memgate.core.events import TurnEvent
>>> t = TurnEvent(tenant_id="t", user_id="u", session_id="s", turn_id="1", role="user",
...               content="Long day, sorry. Our staging cluster runs on Hetzner.",
...               ts="2024-05-01T10:00:00Z")
>>> [(f.subject, f.predicate, f.object) for f in StatementExtractor().extract(t)]
[("team's staging cluster", 'stack', 'Our staging cluster runs on Hetzner')]
"""

from __future__ import annotations

from typing import Final

from memgate.core.events import CandidateFact, FactType, Role, TurnEvent, normalise, stable_id
from memgate.stages.activity import said_as_episode
from memgate.stages.clauses import after_lead, asked_after, of_speaker
from memgate.stages.durable_frame import (
    DURABLE,
    durable_own,
    habit_scope,
    hedged_lasting,
    lasting_of_speaker,
    sets_a_slot,
    without_hedge,
)
from memgate.stages.extract import RuleExtractor
from memgate.stages.keep_model import KeepModel
from memgate.stages.moment_scope import object_first_request, of_the_day
from memgate.stages.policy import claimed_source
from memgate.stages.repeats import extract_with_repeats
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_residual import residual_value
from memgate.stages.slot_frames import FRAMES, frame_probability
from memgate.stages.statement_text import (
    _without_time_lead,
    clean_statement,
    cues,
    family,
    hedged,
    is_single_valued,
    lexicon,
    normalise_text,
    rules_read,
    said_of_another,
    split_statements,
    starts_with_correction,
    subject_of,
    without_agreement_lead,
    without_confirmation_leads,
    word_class,
)
from memgate.stages.tentative import believed, trial
from memgate.stages.triage import is_filler_sentence, without_greeting
from memgate.stages.unreal import unreal_kind

__all__ = ["MAX_FACTS_PER_TURN", "HybridExtractor", "StatementExtractor", "kept_statements"]

MAX_FACTS_PER_TURN: Final = 3
MAX_OBJECT_CHARS: Final = 300
#: The merged statement of :class:`HybridExtractor` (several sentences of one turn).
MAX_MERGED_CHARS: Final = 600
#: Keep probability a sentence needs to make a memory of a turn of several sentences
#: that the rules found nothing in (chat narrates; most of its sentences are not memories).
LONG_TURN_THRESHOLD: Final = 0.97
SHORT_TURN_THRESHOLD: Final = 0.6
#: ... and, in a turn the (English) rules do not read (:func:`rules_read`), a sentence
#: with the speaker as its subject this probable: the keep probability of a value frame
#: (``memgate/data/slot_frames.json``). The narrated-turn bar is calibrated on English
#: chat, where the rules say the durable facts and a sentence left to the classifier is
#: mostly narration; in German, French, Spanish, Portuguese or Chinese the classifier's
#: sentence is all that says the fact ("Sorry, war beim Einkaufen. Übrigens, ich bin seit
#: drei Jahren bei der Bahn als Fahrdienstleiterin.").
RULELESS_TURN_THRESHOLD: Final = float(FRAMES["keep_probability"])
#: Keep probability a statement cut from the question it led needs
#: (:func:`memgate.stages.clauses.asked_after`: "ich fahr nen alten VW Golf IV, also …,
#: was mach ich …?"): midway between the bar of a turn's one sentence and that of a value
#: frame, set on the development files ("Je cherche un cadeau pour mon frère, …, vous avez
#: des baskets en promo ?" is a moment at 0.63).
CUT_LEAD_THRESHOLD: Final = 0.75
_VETO: Final = (
    "question",
    "moment",
    "one_off",
    "hypothetical",
    "opinion",
    "chatter",
    "uncertain",
    "session_only",
    "second_person",
)
#: Vetoes that a standing cue ("always", "every") does not lift: "they're always there for
#: us" is still a comment on something said before.
_HARD_VETO: Final = ("social", "anaphoric")
_TASTE: Final = frozenset({"likes", "dislikes", "prefers:other"})


def statement_parts(text: str) -> list[str]:
    """The turn's sentences; a question led by a statement of the speaker's own is that
    statement and the question (:func:`memgate.stages.clauses.asked_after`)."""
    return [part for sentence in split_statements(text) for part in asked_after(sentence)]


def announced(sentence: str) -> str:
    """The sentence without a short lead that announces a fact of the speaker's ("quick
    thing so you have it: my manager is Dana Whitfield"); a confirmation's opening ("Oui,
    c'est confirmé : ...") is read by :func:`without_confirmation_leads` instead."""
    tail = after_lead(sentence)  # "" for a sentence with no colon: most (issue 14)
    if not tail or without_confirmation_leads(sentence)[1]:
        return sentence
    return tail


def kept_statements(
    text: str, model: KeepModel, read: list[str] | None = None
) -> list[tuple[float, str]]:
    """The sentences of ``text`` the classifier keeps, with their probability, best first
    (``read``: the sentences as the caller reads them, else :func:`statement_parts`)."""
    out: list[tuple[float, str]] = []
    # a statement cut from the question it led is judged without the rest of its sentence:
    # held to a margin above the bar of a sentence read whole
    cut = {parts[0] for s in split_statements(text) if len(parts := asked_after(s)) > 1}
    for part in statement_parts(text) if read is None else read:
        # a short lead that announces the fact ("Und bevor du fragst: Kaffee rühr ich nicht
        # an") is no part of it: the fact is judged alone (memgate.stages.clauses)
        sentence = announced(part)
        # an opening of agreement ("Isso mesmo, ...") says nothing of the fact after it,
        # and its pronoun ("isso": that) is no comment on something said before
        # a hedge before a fact of the speaker ("I think I'm allergic to penicillin") is no
        # opinion: the fact is judged without it (memgate.stages.durable_frame)
        said = without_hedge(without_agreement_lead(sentence))
        # read after an opening that says it was checked ("C'est vérifié, ...", "Oui, c'est
        # confirmé : ..."): the opening's pronoun is no comment on something said before
        checked = without_hedge(without_confirmation_leads(without_agreement_lead(sentence))[0])
        c = cues(checked)
        if c["anaphoric"] and not cues(_without_time_lead(normalise_text(checked)))["anaphoric"]:
            # "These days I commute by train": a time of the present opens it, no pronoun
            # of something said before ("these are great")
            c["anaphoric"] = False
        if any(c[v] for v in _HARD_VETO) or (any(c[v] for v in _VETO) and not c["standing"]):
            continue
        if said_of_another(said):
            continue  # "my colleague says ...", "my sister wants to ...": another person's
        if unreal_kind(said) is not None:
            continue  # fiction, irrealis, irony, a stranger's words (memgate.stages.unreal)
        if of_the_day(said) or object_first_request(said):
            continue  # "Hoy tengo el día liadísimo", "帮我把这段话翻译一下" (moment_scope)
        if is_filler_sentence(sentence):
            continue
        p = frame_probability(said, model.probability(said))
        if checked != said:  # the opening says how the speaker knows: never against a keep
            p = max(p, frame_probability(checked, model.probability(checked)))
        if (
            hedged_lasting(without_agreement_lead(sentence))
            or (checked != said and lasting_of_speaker(checked))
            or (sets_a_slot(said) and not of_speaker(said))
        ):
            # a belief about something lasting of the speaker or the team, read by its
            # structure as triage reads it (held as a belief: _believed), or the same
            # said as checked ("C'est confirmé, la réunion d'équipe a lieu le jeudi")
            p = max(p, float(DURABLE["keep_probability"]))
        if p >= (CUT_LEAD_THRESHOLD if part in cut else model.threshold):
            out.append((p, part))
    out.sort(key=lambda ps: -ps[0])
    return out


def _fact_type(sentence: str, predicate: str) -> FactType:
    if starts_with_correction(sentence):
        return FactType.CORRECTION
    if (
        cues(sentence)["standing"]
        and not cues(sentence)["first_person_plural"]
        and not durable_own(sentence)
        and not (
            habit_scope(normalise_text(sentence))[1]
            and word_class("task_verbs").match(normalise_text(sentence)) is None
        )
    ):
        # a standing wish ("always answer in French"); a habit the speaker says of
        # themselves with a word of always ("Morgens trink ich immer einen Flat White",
        # "我每周六上午都去打羽毛球") is a fact of theirs, which a change replaces
        return FactType.INSTRUCTION
    if predicate in _TASTE:
        return FactType.PREFERENCE
    return FactType.FACT


class StatementExtractor:
    """Design A: per-sentence keep classifier; the cleaned sentence is the statement."""

    name = "statements"
    version = "1.0.0"

    def __init__(self, model: KeepModel | None = None) -> None:
        self.model = model or KeepModel.load()

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        if turn.role is not Role.USER or not turn.content.strip():
            return []
        turn = checked_turn(turn)
        return self._facts(turn, [s for _, s in kept_statements(turn.content, self.model)])

    def _facts(
        self,
        turn: TurnEvent,
        sentences: list[str],
        start: int = 0,
        max_chars: int = MAX_OBJECT_CHARS,
    ) -> list[CandidateFact]:
        out: list[CandidateFact] = []
        seen: set[str] = set()
        source = claimed_source(turn.metadata)
        for sentence in sentences:
            statement = clean_statement(without_hedge(announced(sentence)))[:max_chars].strip()
            if not statement or normalise(statement) in seen:
                continue
            seen.add(normalise(statement))
            predicate = family(statement)
            kind = _fact_type(sentence, predicate)
            subject = subject_of(statement)[:200]
            if kind is FactType.INSTRUCTION and not subject.startswith(("user", "team")):
                subject = "user"  # "Strict mode TS always": a standing wish is the speaker's
            out.append(
                CandidateFact.from_turn(
                    turn,
                    candidate_id=stable_id(turn.tenant_id, turn.turn_id, str(start + len(out))),
                    type=kind,
                    subject=subject,
                    predicate=predicate,
                    object=statement,
                    confidence=0.9,
                    valid_from=turn.ts,
                    rationale=f"keep classifier {self.model.version}",
                    extractor=self.name,
                    extractor_version=self.version,
                    multi_valued=not is_single_valued(predicate),
                    source=source,
                )
            )
            if start + len(out) >= MAX_FACTS_PER_TURN:
                break
        return out


class HybridExtractor(StatementExtractor):
    """Design B: the rules and the keep classifier decide whether a turn holds a memory;
    the turn's own sentences say it whole.

    Per user turn:

    * the rules' typed facts (every predicate but the generic ones listed in
      ``generic_rule_predicates`` of ``memgate/data/statements.json``: name, city, tools,
      answer style, ...) as the rules wrote them; their typed keys supersede and fold;
    * at most one merged statement, when a generic rule fact (``event``, ``likes``, ...)
      was read from a sentence that is not a question, a social formula, a remark about
      the other person, a hypothetical, a state of the moment or chatter, or when the
      classifier keeps a sentence the typed facts do not say: with
      :data:`SHORT_TURN_THRESHOLD` when one sentence is left to judge, with
      :data:`LONG_TURN_THRESHOLD` in a narrated turn of several (chat such as LoCoMo
      narrates; most of its sentences are no memory). The statement is every sentence of
      the turn that is not filler, a question, a social formula, a request or said by a
      typed fact, cleaned and joined in turn order: a narrated turn ("we went to the
      lake; the kids loved it; I finally finished my novel") is one memory, not one per
      sentence, and it keeps the context a reader needs. One sentence keeps the key of
      design A (a single-valued family supersedes); several are a multi-valued statement.
      An episode (the rules' ``event``) whose sentences name no family keeps the rules'
      predicate: "user event I went climbing at the gym with Sam", not "user statement ...".
      A German, French or Spanish episode of the speaker, which the rules do not read
      (:func:`~memgate.stages.activity.said_as_episode`: "Ich war am Montag klettern"), is
      chosen and said the same way (type ``event``, predicate ``event``).
    """

    name = "hybrid"
    version = "1.1.0"
    #: A turn of several sentences with no rule fact needs a sentence this probable.
    long_turn_threshold: float = LONG_TURN_THRESHOLD
    #: ... and a turn with one sentence left to judge, a sentence this probable.
    short_threshold: float = SHORT_TURN_THRESHOLD
    #: ... and a turn of several that the rules do not read, a sentence of the speaker's
    #: own this probable.
    ruleless_threshold: float = RULELESS_TURN_THRESHOLD

    def __init__(self, model: KeepModel | None = None) -> None:
        super().__init__(model)
        self.rules = RuleExtractor()

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        if turn.role is not Role.USER or not turn.content.strip():
            return []
        # a greeting that opens the turn ("Hallo nochmal – wie gesagt, …") is no part of it
        said = without_greeting(turn.content)
        if said != turn.content:
            turn = turn.model_copy(update={"content": said})
        # a sentence the speaker says is a repeat ("as I told you ...") is read alone, its
        # marker cut, its facts flagged for resolution (memgate.stages.repeats)
        return extract_with_repeats(checked_turn(turn), self._extract)

    def _extract(self, turn: TurnEvent) -> list[CandidateFact]:
        facts = self.rules.extract(turn)
        generic = set(lexicon()["generic_rule_predicates"])
        # a retraction is an operation on stored facts, never a statement to store: the
        # rules' retractions pass as they are, and their sentences are said by them
        typed = [f for f in facts if f.predicate not in generic or f.retracts]
        sentences = statement_parts(turn.content)
        loose = [
            f
            for f in facts
            if f.predicate in generic and not f.retracts and not _only_from_vetoed(f, sentences)
        ]
        # a sentence a typed rule fact was read from is said by that fact
        taken = {i for i, s in enumerate(sentences) for f in typed if _source_of(f, s)}
        # ... but for what it leaves of it: the pieces no typed fact was read from that have
        # a subject of their own ("our nightly builds run on jenkins and the repo is an nx
        # monorepo"), judged as a sentence (memgate.stages.resolve_residual)
        judged = list(sentences)
        for i in sorted(taken):
            left = residual_value(sentences[i], lambda p: any(_source_of(f, p) for f in typed))
            judged[i] = sentences[i] if left is None else left
        taken = {i for i in taken if judged[i] == sentences[i]}
        chosen = {i for i, s in enumerate(sentences) for f in loose if _source_of(f, s)} - taken
        # a German, French or Spanish episode of the speaker ("Ich war am Montag klettern"),
        # which the (English) rules do not read: chosen as the rules' event would choose it
        episodes = {
            i for i, s in enumerate(judged)
            if i not in taken and not is_filler_sentence(s) and said_as_episode(s)
            and not any(cues(s)[v] for v in (*_RULE_VETO, "one_off"))  # "帮我写个 …": asked
            and unreal_kind(s) is None
        }  # fmt: skip
        chosen |= episodes
        unplaced = [f for f in loose if not any(_source_of(f, s) for s in sentences)]
        kept = [
            (p, s)
            for p, s in kept_statements(turn.content, self.model, read=judged)
            if judged.index(s) not in taken
        ]
        # a state of the moment ("Je suis crevée ce soir.") or a sentence of no fact of the
        # speaker's world (irony, fiction: memgate.stages.unreal) is no sentence to judge:
        # the durable one beside it is held to the bar of a turn with one sentence
        content = [
            s
            for s in judged
            if not is_filler_sentence(s) and not _of_the_moment(s) and unreal_kind(s) is None
        ]
        rest = [s for i, s in enumerate(judged) if i not in taken and s in content]
        # one sentence left to judge: a sentence the classifier keeps with some margin; a
        # narrated turn of several: only a sentence the classifier is nearly sure of. A
        # change of the speaker's said before a question or request ("Bin auf Zed
        # umgestiegen. Wie richte ich da rust-analyzer ein?") is one sentence to judge:
        # the request is the reason for the turn, the change is what a later session needs
        bar = (
            self.short_threshold
            if len(rest) <= 1 or _change_before_asking(rest) or _one_change(rest)
            else self.long_turn_threshold
        )
        if bar > self.ruleless_threshold and not rules_read(turn.content):
            # a language the rules do not read: a sentence the speaker says of themselves
            # or their team is held to the bar of a value frame
            kept_own = [(p, s) for p, s in kept if of_speaker(s)]
            if any(p >= self.ruleless_threshold for p, _ in kept_own):
                bar = self.ruleless_threshold
        if chosen or any(p >= bar for p, _ in kept):
            # the turn holds a memory: say it with every sentence that is not filler, a
            # question, a social formula, a request or already said by a typed rule fact
            # (the context a reader needs: "we went to the lake; the kids loved it")
            chosen |= {
                i
                for i, s in enumerate(judged)
                if i not in taken and s in content and not _aside(s)
            }
        # a state of the day or an excuse ("Sorry, my cat just walked across the keyboard")
        # may hold a rule's fact that says the turn holds a memory, but is no part of it
        said = [i for i in sorted(chosen) if not of_the_day(judged[i])]
        if any(not trial(judged[i]) for i in said):
            # a trial beside a lasting sentence ("… rodam no Jest com Node 20. vou testar o
            # Bun pra ver se …") is no part of what lasts (memgate.stages.tentative.trial)
            said = [i for i in said if not trial(judged[i])]
        parts = [
            p for p in (clean_statement(without_hedge(announced(judged[i]))) for i in said) if p
        ]
        out = typed + unplaced
        if parts:
            first = loose[0] if loose else None
            inferred = [f for f in typed if not any(_source_of(f, s) for s in sentences)]
            merged = self._merged_fact(
                turn, parts, first, start=len(out), inferred=inferred, episode=bool(episodes)
            )
            if any(judged[i] != sentences[i] for i in said):
                # what a typed fact left of its sentence is searched by its own words, not
                # by the typed fact's ("a gente mora em Niterói" is no answer about a husband)
                merged = [f.model_copy(update={"context": " ".join(judged[i] for i in said)})
                          for f in merged]  # fmt: skip
            out += merged
        return _believed(out, sentences)

    def _merged_fact(
        self,
        turn: TurnEvent,
        parts: list[str],
        rule_fact: CandidateFact | None,
        start: int,
        inferred: list[CandidateFact],
        episode: bool = False,
    ) -> list[CandidateFact]:
        facts = self._facts(turn, [_merge(parts)], start=start, max_chars=MAX_MERGED_CHARS)
        if not facts:
            return []
        f = facts[0]
        update: dict[str, object] = {}
        if len(parts) > 1 and is_single_valued(f.predicate):
            # several sentences: not one value of a single-valued family
            update.update(predicate="statement", multi_valued=True)
        if rule_fact is not None and f.type is FactType.FACT:
            update["type"] = rule_fact.type
            if rule_fact.type is FactType.EVENT and update.get("predicate", f.predicate) == (
                "statement"
            ):
                # an episode the sentence names no family for is said under the rules'
                # predicate ("user event I went climbing ..."), as the rule extractor
                # says it: the text tells what it is, and the lifecycle jobs (fold,
                # retention) are calibrated on episodes said so (memgate/data/lifecycle.json)
                update["predicate"] = rule_fact.predicate
        elif (
            rule_fact is None
            and episode
            and f.type is FactType.FACT
            and update.get("predicate", f.predicate) == "statement"
        ):
            # a de/fr/es episode is typed and said as the rules say an English one, about
            # the speaker
            update.update(
                type=FactType.EVENT, predicate="event", subject=_speaker(f.object, f.subject)
            )
        if inferred:
            # the rules read something the turn does not say (a wife: married): the
            # statement is that evidence and is as sure as the inference (pending, if low)
            update["confidence"] = min(min(x.confidence for x in inferred), f.confidence)
        return [f.model_copy(update=update)]


#: A generic rule fact read only from sentences with one of these cues is not a memory
#: (the rules' "event" from "have you ever been to Lisbon?" or "good luck at the race!").
_RULE_VETO: Final = (
    "question",
    "social",
    "second_person",
    "hypothetical",
    "moment",
    "chatter",
)


#: The confidence of a fact said as a belief ("ich glaube, wir nutzen Terraform"): an
#: inference from a clear statement on the scale of the domain guide.
BELIEVED_CONFIDENCE: Final = 0.5


def checked_turn(turn: TurnEvent) -> TurnEvent:
    """The turn as the extractors read it: a sentence that opens by saying the speaker
    checked it ("Double-checked: the Kafka cluster runs 3.6", "确认过了，...") makes the
    turn confirm what it states (``confirmed``, unless the turn already says): a
    confirmation settles the guess it answers (:mod:`memgate.stages.resolve_confirm`);
    the opening is no part of a statement (:func:`clean_statement`)."""
    _, checked = without_confirmation_leads(turn.content)
    if not checked or turn.confirmed is not None:
        return turn
    return turn.model_copy(update={"confirmed": True})


def _believed(facts: list[CandidateFact], sentences: list[str]) -> list[CandidateFact]:
    """The facts read only from hedged sentences or sentences of a belief (:func:`hedged`,
    :func:`memgate.stages.tentative.believed`: "Il est possible que je ...", "Ich könnte
    ...") at :data:`BELIEVED_CONFIDENCE`: a write policy holds them until confirmed or
    repeated."""
    out = []
    for f in facts:
        sources = [s for s in sentences if _source_of(f, s)]
        doubted = [hedged(s) or believed(s) or trial(s) for s in sources]
        if not f.retracts and sources and all(doubted):
            f = f.model_copy(update={"confidence": min(f.confidence, BELIEVED_CONFIDENCE)})
        out.append(f)
    return out


def _speaker(statement: str, subject: str) -> str:
    """The subject of the speaker's own episode: the one the statement names (``user``,
    ``team``, ``user's sister``), else the person of its verb (Spanish says no pronoun:
    "fui a nadar" is the user's, "fuimos a nadar" the team's, never "fui")."""
    if subject in ("user", "team") or subject.startswith(("user's ", "team's ")):
        return subject
    plural = tuple(lexicon().get("pronoun_verb_endings", ()))
    return "team" if any(w.endswith(plural) for w in normalise(statement).split()[:3]) else "user"


def _of_the_moment(sentence: str) -> bool:
    """A state of the moment, by the classifier's cue or by a class of the moment's states
    ("Bin heute spät dran", "今天好困啊")."""
    c = cues(sentence)
    return c["moment"] or c["moment_class"] or of_the_day(sentence)


def _change_before_asking(sentences: list[str]) -> bool:
    """One sentence that says a change (a change cue: "switched", "umgestiegen", "改去"),
    the others questions or requests after it."""
    stated = [s for s in sentences if not _aside(s)]
    return (
        len(stated) == 1
        and sentences[0] == stated[0]
        and (LEXICON.has_change_cue(stated[0]) or of_speaker(stated[0]))
    )


def _one_change(sentences: list[str]) -> bool:
    """One sentence of a change of the speaker's, the others asides or a few words
    ("reorg finally happened lol. i report to marcus now"; "cambio de curro!! ...")."""
    said = [s for s in sentences if not _aside(s) and len(s.split()) > _FEW_WORDS]
    return len(said) == 1 and LEXICON.has_change_cue(said[0]) and of_speaker(said[0])


_FEW_WORDS: Final = 4


def _aside(sentence: str) -> bool:
    c = cues(sentence)
    return (
        c["question"]
        or c["social"]
        or c["one_off"]
        or object_first_request(sentence)
        or unreal_kind(sentence) is not None
    )


def _only_from_vetoed(fact: CandidateFact, sentences: list[str]) -> bool:
    sources = [s for s in sentences if _source_of(fact, s)]
    return bool(sources) and all(
        any(cues(s)[v] for v in _RULE_VETO) or said_of_another(s) or unreal_kind(s) is not None
        for s in sources
    )


def _source_of(fact: CandidateFact, sentence: str) -> bool:
    """Whether a rule fact was read from this sentence: its value is in it, or most of
    its words are."""
    obj = normalise(fact.object or "")
    if not obj:
        return False
    sent = normalise(sentence)
    if obj in sent:
        return True
    words = [w for w in obj.split() if len(w) > 2]
    return bool(words) and sum(w in sent for w in words) >= 0.6 * len(words)


def _merge(parts: list[str]) -> str:
    """The statements of one turn as one text, each whole, at most
    :data:`MAX_MERGED_CHARS` characters (whole statements only, the first always)."""
    out: list[str] = []
    size = 0
    for part in parts:
        if out and size + len(part) + 2 > MAX_MERGED_CHARS:
            break
        out.append(part)
        size += len(part) + 2
    return "; ".join(out)[:MAX_MERGED_CHARS]
