"""The same fact said again with a span of time or a standing word (stages/resolve_same.py).

A span of time reaching back from now ("seit Jahren", "depuis des années", "desde hace
muchos años", "since 2016", "从小") holds one of the lexicon's change cues ("seit",
"depuis", "desde", "since", "从"), and a habit said with a standing word ("immer",
"siempre", "always", "toujours") is read as an instruction: either kept a restatement
from the same-fact fold. A fact held for years has not changed, and a habit said with
"always" is the fact said again. Hard negatives: a change said with "seit kurzem" or
"since" and another value, another value held for years, another person's fact, a
typed instruction, an order addressed to the assistant. MiniLM's vectors, as the gate's.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactType
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from tests.unit.stages.resolver_kit import CLOCK, USEM, facts, minilm, resolve, statement

STORE_EMBEDDER = minilm
FACT, TOLD = FactType.FACT, FactType.INSTRUCTION


def _resolver() -> Resolver:
    return Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM)


#: a fact and a habit said with a standing word, one typed, the other a free statement
TYPED_FOLDS = [
    # (stored, its predicate, its type, restatement, its type, the fold that finds it):
    # since fold41 the paraphrase fold reads "Mongo" as "MongoDB" written shorter
    # (stages/name_variants.py) and folds the pair before the same-fact fold is asked
    ("MongoDB en todas mis aplicaciones", "uses_tool:database", FACT,
     "En todas mis aplicaciones la base de datos es siempre Mongo.", TOLD, "paraphrase"),
    ("Vou sempre nadar às terças.", "statement", TOLD, "Às terças tenho natação.", FACT,
     "same_fact"),
]  # fmt: skip


@pytest.mark.parametrize(("said", "predicate", "t_said", "again", "t_again", "reason"), TYPED_FOLDS)
def test_a_habit_said_again_with_a_standing_word_folds(
    store: EmbeddedIndex, said: str, predicate: str, t_said: FactType, again: str,
    t_again: FactType, reason: str,
) -> None:  # fmt: skip
    resolve(store, statement(said, days=0, predicate=predicate, type_=t_said), _resolver())
    res, dec = resolve(store, statement(again, days=30, type_=t_again), _resolver())
    assert (res.action.value, res.reason) == ("DUPLICATE", reason), dec.details
    got = facts(store)
    assert set(got) == {said} and got[said].occurrences == 2


FOLDS = [
    # (stored, its type, restatement, its type)
    ("Ich spiele seit vielen Jahren Cello in einem Laienorchester.", FACT,
     "Ich spiele Cello in einem Laienorchester, das mache ich gern.", FACT),
    ("Je fais du yoga depuis des années.", FACT,
     "Le yoga, c'est mon sport depuis longtemps, j'en fais chaque semaine.", FACT),
    ("Toco la guitarra desde hace muchos años.", FACT,
     "La guitarra es mi pasatiempo, la toco casi todos los días.", FACT),
    ("Jogo padel desde 2019 no clube do bairro.", FACT,
     "Jogo padel no clube do bairro, é o meu desporto.", FACT),
    ("I've been a member of the Ravensworth chess club since 2016.", FACT,
     "I belong to the Ravensworth chess club.", FACT),
    ("我从小就对猫毛过敏。", FACT, "我对猫毛过敏。", FACT),
    ("I write all my notes in Obsidian.", FACT, "My notes always go into Obsidian.", TOLD),
    ("Ich fahre mit dem Fahrrad zur Arbeit.", FACT,
     "Zur Arbeit fahre ich immer mit dem Fahrrad.", TOLD),
    ("Pido el café con leche de avena.", FACT,
     "El café siempre lo tomo con leche de avena.", TOLD),
    ("Je prends le train de 7h12 pour aller au bureau.", FACT,
     "Pour aller au bureau je prends toujours le train de 7h12.", TOLD),
]  # fmt: skip


@pytest.mark.parametrize(("said", "t_said", "again", "t_again"), FOLDS)
def test_a_restatement_with_a_span_or_a_standing_word_folds(
    store: EmbeddedIndex, said: str, t_said: FactType, again: str, t_again: FactType
) -> None:
    resolve(store, statement(said, days=0, type_=t_said), _resolver())
    res, dec = resolve(store, statement(again, days=30, type_=t_again), _resolver())
    assert res.action.value == "DUPLICATE", (res.reason, dec.details)
    got = facts(store)
    assert set(got) == {said} and got[said].occurrences == 2


NEGATIVES = [
    ("Ich arbeite bei Siemens.", FACT, "Seit kurzem arbeite ich bei Bosch.", FACT),
    ("I work at Siemens.", FACT, "I've worked at Bosch since 2021.", FACT),
    ("Je fais du yoga depuis des années.", FACT, "Je fais du pilates depuis des années.", FACT),
    ("Toco la guitarra desde hace muchos años.", FACT,
     "Mi hermano toca la guitarra desde hace muchos años.", FACT),
    ("I write all my notes in Obsidian.", FACT,
     "Always put my meeting notes in a Notion page.", TOLD),
    ("Sou vegana desde 2018.", FACT, "A minha irmã é vegana desde 2018.", FACT),
]  # fmt: skip


@pytest.mark.parametrize(("said", "t_said", "again", "t_again"), NEGATIVES)
def test_another_fact_with_a_span_or_a_standing_word_stays_apart(
    store: EmbeddedIndex, said: str, t_said: FactType, again: str, t_again: FactType
) -> None:
    resolve(store, statement(said, days=0, type_=t_said), _resolver())
    res, _ = resolve(store, statement(again, days=30, type_=t_again), _resolver())
    assert res.action.value != "DUPLICATE"
    assert facts(store)[said].occurrences == 1


def test_a_typed_instruction_is_no_fact_said_again(store: EmbeddedIndex) -> None:
    """An instruction the extractor typed (not a free statement) keeps its own type."""
    resolve(store, statement("I write all my notes in Obsidian.", days=0), _resolver())
    told = statement("Always write my notes in Obsidian.", days=30, type_=TOLD,
                     predicate="instruction")  # fmt: skip
    res, _ = resolve(store, told, _resolver())
    assert res.reason != "same_fact"
