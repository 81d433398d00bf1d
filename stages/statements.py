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
from memgate.stages.extract import RuleExtractor
from memgate.stages.keep_model import KeepModel
from memgate.stages.policy import claimed_source
from memgate.stages.statement_text import (
    clean_statement,
    cues,
    family,
    is_single_valued,
    split_statements,
    starts_with_correction,
    subject_of,
)

__all__ = ["MAX_FACTS_PER_TURN", "HybridExtractor", "StatementExtractor", "kept_statements"]

MAX_FACTS_PER_TURN: Final = 3
MAX_OBJECT_CHARS: Final = 300
_VETO: Final = (
    "question", "moment", "one_off", "hypothetical", "opinion", "chatter", "uncertain",
    "session_only",
)
_TASTE: Final = frozenset({"likes", "dislikes", "prefers:other"})


def kept_statements(text: str, model: KeepModel) -> list[tuple[float, str]]:
    """The sentences of ``text`` the classifier keeps, with their probability, best first."""
    out: list[tuple[float, str]] = []
    for sentence in split_statements(text):
        c = cues(sentence)
        if any(c[v] for v in _VETO) and not c["standing"]:
            continue
        p = model.probability(sentence)
        if p >= model.threshold:
            out.append((p, sentence))
    out.sort(key=lambda ps: -ps[0])
    return out


def _fact_type(sentence: str, predicate: str) -> FactType:
    if starts_with_correction(sentence):
        return FactType.CORRECTION
    if cues(sentence)["standing"] and not cues(sentence)["first_person_plural"]:
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
        return self._facts(turn, [s for _, s in kept_statements(turn.content, self.model)])

    def _facts(
        self, turn: TurnEvent, sentences: list[str], start: int = 0
    ) -> list[CandidateFact]:
        out: list[CandidateFact] = []
        seen: set[str] = set()
        source = claimed_source(turn.metadata)
        for sentence in sentences:
            statement = clean_statement(sentence)[:MAX_OBJECT_CHARS].strip()
            if not statement or normalise(statement) in seen:
                continue
            seen.add(normalise(statement))
            predicate = family(statement)
            out.append(
                CandidateFact(
                    candidate_id=stable_id(turn.tenant_id, turn.turn_id, str(start + len(out))),
                    tenant_id=turn.tenant_id,
                    user_id=turn.user_id,
                    session_id=turn.session_id,
                    type=_fact_type(sentence, predicate),
                    subject=subject_of(statement)[:200],
                    predicate=predicate,
                    object=statement,
                    confidence=0.9,
                    valid_from=turn.ts,
                    rationale=f"keep classifier {self.model.version}",
                    source_turn_ids=[turn.turn_id],
                    extractor=self.name,
                    extractor_version=self.version,
                    turn_ts=turn.ts,
                    outcome=turn.outcome,
                    confirmed=turn.confirmed,
                    multi_valued=not is_single_valued(predicate),
                    source=source,
                )
            )
            if start + len(out) >= MAX_FACTS_PER_TURN:
                break
        return out


class HybridExtractor(StatementExtractor):
    """Design B: the rules first (high precision); a statement for each kept sentence no
    rule fact was read from."""

    name = "hybrid"
    version = "1.0.0"

    def __init__(self, model: KeepModel | None = None) -> None:
        super().__init__(model)
        self.rules = RuleExtractor()

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        if turn.role is not Role.USER or not turn.content.strip():
            return []
        facts = self.rules.extract(turn)
        if len(facts) >= MAX_FACTS_PER_TURN:
            return facts
        covered = [normalise(f.object) for f in facts if f.object]
        rest = [
            s for _, s in kept_statements(turn.content, self.model)
            if not any(obj and obj in normalise(s) for obj in covered)
        ]
        return facts + self._facts(turn, rest, start=len(facts))
