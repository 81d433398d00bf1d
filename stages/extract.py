"""Extract: turn a triaged user turn into zero or more typed candidate facts.

:class:`Extractor` is the interface every extractor implements (the production
one calls a small model; see the domain guide). :class:`RuleExtractor` is the
offline default: precompiled regular expressions over each sentence, no I/O,
no state between calls, the same output schema. Zero facts is the normal
outcome; a rule fires only on a first-person statement, a standing
instruction or a "remember that" request.

Pipeline per turn: only ``role == user`` turns are read. The text is split into
sentences (:func:`memgate.core.text.split_sentences`). A sentence is skipped when
it is session-only ("for this one", "just this time", "right now", "for now"; but
"I'm really into jazz right now" is a taste of these days and is read) or a
question (only the clauses before the question part of "I use vim, any tips?" are
read); clauses that are hypothetical ("what if", "suppose",
"imagine", "if I were", "would you") or uncertain ("not sure", "maybe",
"might", "probably") are dropped. "Can you remember that ...?" / "please
remember that ..." are unwrapped first and what follows is read as a statement.
The rules run in priority order; a rule whose match overlaps a span taken by an
earlier rule in the same sentence is ignored, and *fallback* rules (weak
inferences such as "my wife" implies a relationship) fire only when nothing
else did in the whole turn. The events narrated in one turn are one story told in
steps and become one ``event`` fact ("went to a craft fair; met a woodturner"), with
the first stated date. Facts with the same (predicate, normalised object) are merged,
and a turn yields at most :data:`MAX_FACTS_PER_TURN` facts (write amplification). A
sentence that opens with "Correction:" ("Korrektur:", ...) turns its facts into
corrections.

Values are normalised so that repeated statements share a value: trailing
courtesy ("..., please", "bitte", "por favor", "thanks") and time words that are
not part of the value ("now", "these days", "last week", "yesterday") are cut;
a cut date goes to ``valid_from``.

Retraction: "we no longer use Jenkins", "we don't use Jenkins anymore", "we
stopped using Jenkins", "I'm not vegetarian anymore", "please forget that I like
jazz" are read in their positive form ("we use Jenkins", ...) by the ordinary
rules, and each fact found is emitted as a correction with ``retracts=True``
(confidence 0.9, rationale ``retraction``): same subject and predicate, and for a
multi-valued predicate the same object, as the fact it withdraws; the resolver
closes that fact. "Ignore what I said about my editor" withdraws by topic (a tool
category, a diet, where I live, ...; otherwise a taste: likes and dislikes).
Trivia narrated as events ("I had lunch outside", "walked into a glass door")
and remarks about the conversation itself ("last time I chatted with you we
talked about ...", "we talked about X before, right?") are not events.

Declined although they look first-person: aims with no content of their own ("I'm
determined to make it work", "I want to make a difference", "make the world a better
place", "I need to try that"), openness rather than habit ("I'm always up for new
recipes"), anticipation of a bare reference ("can't wait for the party"; kept with
content or a date: "can't wait for my sister's wedding in May"), and as a fallback
statement: platitudes and pledges ("we can make a difference together", "we all have
our own paths", "I'll keep pushing", "I'm sure we'll make it"), musing aloud ("I was
just thinking about X again"), undated promises to the listener ("I'll ask around") and
agreement ("I 100% agree").

Subjects: ``user`` (the speaker about themself), ``team`` ("we"/"our"), or a
named thing such as ``user's kids`` / ``user's sister`` ("my sister Ana lives in
Madrid").

Predicate vocabulary (data: ``memgate/data/predicates.json``; ``*`` = multi-valued:
several values hold at once and nothing is superseded; every other predicate is
single-valued, so a new value supersedes the old one for the same subject):

========================  ===========================================================
predicate                 meaning (example)
========================  ===========================================================
prefers:<topic>           a preference in one area; topics: answer_style, indentation,
                          answer_format, programming_language, editor, os, theme,
                          naming_style, testing, drink, schedule, other*
                          ("I prefer concise answers")
uses_tool:<category>      the tool used for a category: editor, shell, os, browser,
                          database, cloud, programming_language, package_manager,
                          container, orchestration, messaging, notes, vcs, terminal,
                          monitoring, framework, the category the user names
                          ("... as my planner"), also iac, sso, issue_tracker, chat,
                          integration, ecommerce, payments, crm, plan ("we're on the
                          Business plan"), other* ("I use vim as my editor")
deploys_with              CI/CD or deployment tool; CI/CD tools always map here, so
                          "we use Jenkins" and "we moved to GitHub Actions" share it
stack                     a team's or user's technology stack as a whole
works_at                  employer ("I work at Acme")
works_as                  occupation ("I'm a nurse", "as a nurse, ...", "I'm the tech lead
                          of the payments team"); for ``team`` what the organisation is
                          ("we're a small agency in Lyon")
lives_in                  place of residence ("I live in Lisbon", "I moved to Berlin")
comes_from                origin ("I'm from Sweden", "I grew up in Ohio")
name_is                   the speaker's name ("my name is Jon", "call me Jon")
diet                      diet ("I'm vegetarian", "I don't eat meat")
timezone                  time zone ("I'm in CET")
answer_language           language the assistant must answer in (an instruction)
relationship_status       married / engaged / single / divorced / in a relationship
contact:<role>            the named person in a role ("our account admin is Lena Ortiz")
team_size                 how big the team / company is ("our team is five people")
identity                  gender, orientation, faith, ... ("I'm a transgender woman")
favorite:<thing>          favourite of one kind ("my favorite band is Muse")
instruction*              a standing instruction ("always use type hints")
note*                     what the user asked to be remembered, when no finer rule fits
likes*, dislikes*         "I love hiking", "I can't stand cilantro", "I've always liked
                          Scandinavian design", "I love this podcast", "owls fascinate
                          me", "X is particularly interesting to me", "X is at the top
                          of my list", "green's my fave", "X speaks to me", "X brings me
                          so much peace", "as a Celtics fan", "(I) really miss sailing",
                          "love experimenting with sourdough" (no subject), "knitting
                          helps me unwind", "I'm loving the new album", "the Canucks
                          are my team"
values*                   what matters to the speaker ("my family means the world to me",
                          "honesty's super important to me", "it's important to me to
                          give back")
member_of*                a group the speaker belongs to ("I'm part of a running club",
                          "I'm on the infrastructure team")
practice*                 a working practice a team follows ("we follow trunk-based
                          development")
hobby*                    leisure activity ("I've been painting a lot lately", "birdwatching
                          and baking are my main hobbies", "I'm doing pilates", "I'm off
                          to do some judo")
activity*                 an ongoing non-leisure activity ("I'm researching agencies",
                          "I volunteer at the food bank", "I donate to a rescue",
                          also without a subject: "Still working on my thesis",
                          "Researching volunteer programs.", "... - building a
                          treehouse for the kids")
habit*                    "I always ...", "I usually ..."
has_pet*                  "I have a dog named Max", "I just adopted a puppy"
has_child*                "I have two kids"
family*                   other relatives ("I have three siblings")
speaks_language*          "I speak Portuguese"
decided*                  a decision ("we decided to use Kafka", "let's go with B")
plans_to*                 a plan ("I'm planning to run a marathon", "Gonna finish my
                          degree", "Planning a road trip to Norway")
goal*                     an aim ("I want to become a counselor", "I want to use my
                          savings to open a bakery", "our main goal was to raise money
                          for the library")
event*                    something that happened, ``valid_from`` its date when stated
                          ("I got married on 3 June 2023", "we played this card game",
                          "I took your advice and joined a gym" -> "joined a gym",
                          "I saw how the floods changed my village", "coaching my son's
                          team last spring was a blast")
statement*                fallback: a substantive first-person statement no rule above
                          read, kept whole (trimmed) when it carries concrete content --
                          a number, a date or period, a relative or friend, a named
                          thing ("I've known these friends for 4 years, since I moved
                          from my home country"); at most one per turn, only when
                          nothing else fired; never a reaction, a wish, reported speech,
                          advice, a problem of the moment or talk about the chat. Also
                          (fallback) a named answer ("Her name is Biscuit", "They're
                          called Fire Lilies", "It was Nina Simone") and something of
                          the speaker's shown ("Here's a pic of my garden in spring",
                          "here's a photo of me at the finish line", "here's one I
                          painted")
========================  ===========================================================

Confidence follows the domain's anchors: 0.9 stated explicitly by the user -- a
plain first-person declarative counts, whether a preference, a narrated event
("I went to a support group yesterday") or an activity ("I've been painting a
lot lately"); 0.5 an inference from a clear but indirect statement ("my wife"
-> married, "I can't wait to ..." -> a plan); 0.3 a guess ("I'm thinking about
..."). A client field never raises confidence: the source a turn claims
(``metadata["source"]``) is carried as ``source`` and only the write policy may trust it.

>>> from memgate.core.events import TurnEvent
>>> t = TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
...               role="user", content="Thanks! I use vim as my editor.",
...               ts="2024-05-01T10:00:00Z")
>>> [(f.type.value, f.subject, f.predicate, f.object) for f in RuleExtractor().extract(t)]
[('fact', 'user', 'uses_tool:editor', 'vim')]
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Protocol, runtime_checkable

from memgate.core.events import CandidateFact, FactType, Role, TurnEvent, normalise, stable_id
from memgate.core.text import (
    abbreviations,
    initial_dots,
    is_question,
    ordinal_dots,
    split_sentences,
    starts_like_question,
)
from memgate.stages.extract_build_statement import _statement_score
from memgate.stages.extract_clauses import (
    _CORRECTION_LEAD_RE,
    _FORGET_RE,
    _KEEP_TIME_PREDICATES,
    _NO_LONGER_RE,
    _NOT_ANYMORE_RE,
    _REMEMBER_ONLY,
    _RETRACT_TRIGGERS,
    _STOPPED_RE,
    _SWITCH_WORDS_RE,
    _clause_spans,
    _clause_starts,
    _cut,
    _merge_events,
    _relative,
    _topic_retractions,
    forget_topic_end,
)
from memgate.stages.extract_dates import parse_event_date
from memgate.stages.extract_lexicon import C_STATED, MAX_OBJECT_CHARS
from memgate.stages.extract_rule_kit import (
    _ED_END_RE,
    _ING_END_RE,
    _IRREGULAR_PAST_SET,
    _Ctx,
    _Hit,
    _Rule,
)
from memgate.stages.extract_rules import (
    _ALWAYS,
    _NO_LONGER_FIX_RE,
    _NOT_ANYMORE_FIX_RE,
    _RULE_INDEX,
    _RULES,
)
from memgate.stages.extract_text import (
    _CURRENT_TASTE_RE,
    _HYPO_RE,
    _HYPO_TRIGGERS,
    _INNER_DOT_RE,
    _PUNCT_END_RE,
    _REMEMBER_RE,
    _REMEMBER_TRIGGERS,
    _SESSION_RE,
    _SESSION_TRIGGERS,
    _TOKEN_RE,
    _UNSURE_RE,
    _UNSURE_TRIGGERS,
    _meaningful,
)
from memgate.stages.policy import claimed_source
from memgate.stages.references import change_frames
from memgate.stages.value_tails import TAILED, extend
from memgate.stages.vocabulary import MULTI_VALUED_PREDICATES

__all__ = [
    "MAX_FACTS_PER_TURN",
    "MULTI_VALUED_PREDICATES",
    "Extractor",
    "RuleExtractor",
    "parse_event_date",
]

MAX_FACTS_PER_TURN = 3


@runtime_checkable
class Extractor(Protocol):
    """Anything that turns one turn into candidate facts (may return [])."""

    name: str
    version: str

    def extract(self, turn: TurnEvent) -> list[CandidateFact]: ...


class RuleExtractor:
    """Offline, deterministic rule-based extractor (the default)."""

    name = "rules"
    version = "1.3.0"

    def __init__(self) -> None:
        self._rules = _RULES

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        if turn.role is not Role.USER:
            return []
        text = turn.content
        if not text or not text.strip():
            return []
        hits: list[_Hit] = []
        weak: list[_Hit] = []
        for sentence in split_sentences(text):
            self._sentence(sentence, turn.ts, hits, weak)
        # weak inferences ("my wife" -> in a relationship) and the fallback statement
        # only when nothing else fired; at most one statement, the most concrete
        if not hits:
            said = [h for h in weak if h.predicate == "statement"]
            hits = [h for h in weak if h.predicate != "statement"]
            if said:
                hits.append(max(said, key=lambda h: (_statement_score(h.object),
                                                     len(h.object))))
        facts = self._facts(turn, _merge_events(hits))
        return facts + change_frames(turn, facts)

    # ---------------------------------------------------------------- internals

    def _sentence(self, sentence: str, ts: datetime, hits: list[_Hit], weak: list[_Hit]) -> None:
        orig = sentence.replace("’", "'").replace("`", "'")
        low = orig.lower()
        if len(low) != len(orig):
            orig = low
        if "." in low:
            low = _INNER_DOT_RE.sub("\u2024", low)  # "2.0" -> "2\u20240", same length
            # "st. mary's" -> "st\u2024 mary's" in both (same length): no value ends there;
            # the fact says it with its full stop again (_facts)
            # so do a name's initials ("ursula k. le guin", read where the case still shows)
            # and a day's ordinal before its month ("am 12. august")
            for at in sorted({*_abbreviation_dots(low), *initial_dots(orig), *ordinal_dots(low)}):
                low = f"{low[:at]}\u2024{low[at + 1:]}"
                orig = f"{orig[:at]}\u2024{orig[at + 1:]}"
        words = _TOKEN_RE.findall(low)
        if not words:
            return
        wordset = frozenset(words)
        forced = False
        if wordset & _REMEMBER_TRIGGERS:
            rm = _REMEMBER_RE.match(low)
            if rm is not None and low.rstrip().endswith("?") and not re.match(
                    r"^(?:\w+[,\s]+)*?(?:can|could|will|would) you\b", low):
                rm = None  # "Remember that epic block in game 7?" asks, it does not tell
            if rm is not None:
                forced = True
                off = rm.start("rest")
                orig, low = orig[off:], low[off:]
                low_s = low.rstrip(" ?!.")
                orig, low = orig[: len(low_s)], low_s
                words = _TOKEN_RE.findall(low)
                wordset = frozenset(words)
                if not words:
                    return
        if wordset & _SESSION_TRIGGERS and _SESSION_RE.search(low) and not (
                _CURRENT_TASTE_RE.match(low)
                and all(sm.group(0) == "right now" for sm in _SESSION_RE.finditer(low))):
            return  # session-only: "keep it short for this one"
        if wordset & _RETRACT_TRIGGERS:
            blanked = self._retractions(orig, low, ts, hits)
            if blanked is not None:
                orig, low = blanked
                words = _TOKEN_RE.findall(low)
                if not words:
                    return
                wordset = frozenset(words)
        n0 = len(hits)
        self._statement(orig, low, words, wordset, ts, forced, hits, weak)
        if _CORRECTION_LEAD_RE.match(low.lstrip()):
            # "Correction: our main database is Postgres 15"
            hits[n0:] = [
                _Hit(FactType.CORRECTION, h.subject, h.predicate, h.object, h.confidence, h.rule,
                     h.valid_from, h.retracts)
                if h.type in (FactType.FACT, FactType.PREFERENCE) else h
                for h in hits[n0:]
            ]

    def _retractions(
        self, orig: str, low: str, ts: datetime, hits: list[_Hit]
    ) -> tuple[str, str] | None:
        """Emit the retractions of a sentence; return it with their clauses blanked out."""
        found: list[tuple[int, int, str, str, bool, str]] = []  # span, orig', low', topic, subj
        fm = _FORGET_RE.search(low)
        if fm is not None:
            # the topic ends where a clause with its own subject begins ("..., we use X")
            end = forget_topic_end(low, fm.start("rest"), fm.end("rest"))
            o2, l2 = _cut(orig, low, [(fm.start("rest"), end)])
            subj = "team" if re.search(r"\b(?:we|our|us)\b", l2) else "user"
            found.append((fm.start(), end, o2, l2, fm.group("about") is not None, subj))
        elif not (_NOT_ANYMORE_FIX_RE.search(low) or _NO_LONGER_FIX_RE.search(low)):
            spans = _clause_spans(low)
            for rx in (_NO_LONGER_RE, _NOT_ANYMORE_RE, _STOPPED_RE):
                for m in rx.finditer(low):
                    if any(m.start() < e and s < m.end() for s, e, *_ in found):
                        continue
                    ca, cb = next(((a, b) for a, b in spans if a <= m.start() < b),
                                  (m.start(), m.end()))
                    cb = max(cb, m.end())
                    subj = "team" if m.group("subj") == "we" else "user"
                    if rx is _NO_LONGER_RE:
                        o2, l2 = _cut(orig, low, [(m.start(), m.start("neg")), (m.end(), cb)])
                    elif rx is _NOT_ANYMORE_RE:
                        neg = m.group("neg").strip()
                        be = m.group("be") or (" am" if neg == "am not" else " are"
                                               if neg in ("aren't", "are not") else "")
                        o2, l2 = _cut(orig, low, [(m.start("subj"), m.end("subj")), be, " ",
                                                  (m.start("mid"), m.end("mid"))])
                    else:
                        obj = m.group("obj")
                        if _SWITCH_WORDS_RE.search(obj):
                            continue  # "we moved away from Jenkins to GitHub Actions"
                        o2, l2 = _cut(orig, low, [(m.start("subj"), m.end("subj")), " use ",
                                                  (m.start("obj"), m.end("obj"))])
                    found.append((ca, cb, o2, l2, False, subj))
        if not found:
            return None
        blank: list[tuple[int, int]] = []
        for a, b, o2, l2, topic, subj in found:
            got: list[_Hit] = []
            if topic:
                got = _topic_retractions(o2, subj)
            else:
                sink: list[_Hit] = []
                self._run(o2, l2, frozenset(_TOKEN_RE.findall(l2)), ts, False, got, sink)
            got = [h for h in got if h.predicate not in ("event", "note")]
            hits.extend(
                _Hit(FactType.CORRECTION, h.subject, h.predicate, h.object, C_STATED,
                     "retraction", h.valid_from, True)
                for h in got
            )
            if got or fm is not None:
                blank.append((a, b))  # else the clause is read as usual ("I quit my job")
        if not blank:
            return None
        pieces: list[tuple[int, int] | str] = []
        pos = 0
        for a, b in sorted(blank):
            pieces += [(pos, a), " " * (b - a)]
            pos = b
        pieces.append((pos, len(low)))
        return _cut(orig, low, pieces)

    def _statement(
        self, orig: str, low: str, words: list[str], wordset: frozenset[str], ts: datetime,
        forced: bool, hits: list[_Hit], weak: list[_Hit],
    ) -> None:
        spans = [(0, len(low))]
        if not forced and is_question(low):
            # "I use vim, any plugin tips?" keeps its first clause; a question that
            # starts like one ("do you know I'm vegan?") is skipped entirely
            if starts_like_question(low):
                return
            spans = _clause_spans(low)[:-1]
        hypo = not forced and bool(wordset & _HYPO_TRIGGERS) and _HYPO_RE.search(low) is not None
        unsure = bool(wordset & _UNSURE_TRIGGERS) and _UNSURE_RE.search(low) is not None
        if hypo or unsure:
            # drop only the clauses that are hypothetical or uncertain
            spans = [
                (a, b) for a, b in _clause_spans(low)
                if any(a >= s0 and b <= e0 for s0, e0 in spans)
                and not (not forced and _HYPO_RE.search(low[a:b]))
                and not _UNSURE_RE.search(low[a:b])
            ]
        if spans == [(0, len(low))]:
            self._run(orig, low, wordset, ts, forced, hits, weak)
            return
        for a, b in spans:
            sub = low[a:b]
            self._run(orig[a:b], sub, frozenset(_TOKEN_RE.findall(sub)), ts, forced, hits, weak)

    def _run(
        self, orig: str, low: str, wordset: frozenset[str], ts: datetime, forced: bool,
        hits: list[_Hit], weak: list[_Hit],
    ) -> None:
        if not wordset:
            return
        tokens = set(wordset)
        if wordset & _IRREGULAR_PAST_SET or _ED_END_RE.search(low):
            tokens.add("<ed>")
        if _ING_END_RE.search(low):
            tokens.add("<ing>")
        candidates: set[int] = set(_ALWAYS)
        for w in tokens:
            idx = _RULE_INDEX.get(w)
            if idx:
                candidates.update(idx)
        ctx = _Ctx(low=low, orig=orig, ts=ts, forced=forced)
        taken: list[tuple[int, int]] = []
        n_before = len(hits)
        for i in sorted(candidates):
            rule = self._rules[i]
            out = weak if rule.fallback else hits
            if rule.name in _REMEMBER_ONLY:
                if forced and len(hits) == n_before:
                    out.extend(self._apply(rule, rule.pattern.search(low), ctx))
                continue
            if rule.anchored:
                starts = [0]
                if rule.clauses:
                    starts += _clause_starts(low)
                for cs in starts:
                    sctx = ctx if cs == 0 else _Ctx(low=low[cs:], orig=orig[cs:], ts=ts,
                                                     forced=forced)
                    m0 = rule.pattern.match(sctx.low)
                    if m0 is None:
                        continue
                    s0, e0 = m0.start() + cs, m0.end() + cs
                    if any(s0 < te and ts_ < e0 for ts_, te in taken):
                        continue
                    got0 = self._apply(rule, m0, sctx)
                    if got0:
                        taken.append((s0, e0))
                        out.extend(got0)
                        break
                continue
            pos = 0
            while pos <= len(low):
                m = rule.pattern.search(low, pos)
                if m is None:
                    break
                s, e = m.span()
                got: list[_Hit] = []
                if not any(s < te and ts_ < e for ts_, te in taken) and not _relative(low, s):
                    got = self._apply(rule, m, ctx)
                if got:
                    taken.append((s, e))
                    out.extend(got)
                    pos = max(e, s + 1)
                else:
                    # a rejected match must not hide a later clause of the sentence
                    nxt = low.find(" ", s + 1)
                    pos = len(low) + 1 if nxt < 0 else nxt + 1

    @staticmethod
    def _apply(rule: _Rule, m: re.Match[str] | None, ctx: _Ctx) -> list[_Hit]:
        if m is None:
            return []
        out: list[_Hit] = []
        for h in rule.build(m, ctx):
            obj, when = h.object, h.valid_from
            if h.predicate not in _KEEP_TIME_PREDICATES:
                # "Berlin last year" -> "Berlin", valid from Jan 1 of last year
                found = parse_event_date(obj.lower(), ctx.ts)
                if found is not None and _PUNCT_END_RE.sub("", obj[found[1][1]:]) == "":
                    cut = _PUNCT_END_RE.sub("", obj[: found[1][0]]).strip()
                    if cut and _meaningful(cut):
                        obj = cut
                        when = when or found[0]
            if h.predicate in TAILED and ctx.orig[: m.end()].lower().endswith(obj.lower()):
                # "a dog" of "a dog, a beagle named Rocky": the name is part of the value
                obj = extend(h.predicate, obj, ctx.orig[m.end() :])
            out.append(_Hit(h.type, h.subject, h.predicate, obj, h.confidence, rule.name, when,
                            h.retracts))
        return out

    def _facts(self, turn: TurnEvent, hits: list[_Hit]) -> list[CandidateFact]:
        seen: set[tuple[str, str, bool]] = set()
        out: list[CandidateFact] = []
        source = claimed_source(turn.metadata)
        for h in hits:
            obj = h.object.replace("\u2024", ".").strip()[:MAX_OBJECT_CHARS].strip()
            if not obj:
                continue
            key = (h.predicate, normalise(obj), h.retracts)
            if key in seen or not key[1]:
                continue
            seen.add(key)
            i = len(out)
            out.append(
                CandidateFact.from_turn(
                    turn,
                    candidate_id=stable_id(turn.tenant_id, turn.turn_id, str(i)),
                    type=h.type,
                    subject=h.subject,
                    predicate=h.predicate,
                    object=obj,
                    confidence=h.confidence,
                    valid_from=h.valid_from or turn.ts,
                    rationale=h.rule,
                    extractor=self.name,
                    extractor_version=self.version,
                    multi_valued=h.predicate in MULTI_VALUED_PREDICATES,
                    retracts=h.retracts,
                    source=source,
                )
            )
            if len(out) >= MAX_FACTS_PER_TURN:
                break
        return out


def _abbreviation_dots(low: str) -> list[int]:
    """Where the full stops of abbreviations (``memgate/data/abbreviations.json``) stand
    inside a sentence, so a value does not end there ("st. mary's hospital").

    >>> _abbreviation_dots("i work at st. mary's; dr. hale. the end")
    [12, 24]
    """
    return [
        m.end() - 1
        for m in re.finditer(r"(?<![\w.\u2024])([\w.\u2024]+)\.(?=\s+\S)", low)
        if m.group(1).replace("\u2024", ".") in abbreviations()
    ]
