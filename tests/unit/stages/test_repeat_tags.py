"""A statement closed by a recall tag ("..., remember?", "..., tu te souviens ?", "...,
lembra?", "...，记得吗？") is said, not asked (fold31): triage keeps it and the extractor reads
the sentence before the tag, flagged a repeat; six languages. A question before the tag
stays a question.

Imports only what the code before fold31 had, so that the tests can be run against it: the
triage and extraction cases fail there (the tag's question mark made the turn a question).
"""

from __future__ import annotations

import pytest

from memgate.core.events import TriageVerdict, TurnEvent
from memgate.stages.statements import HybridExtractor
from memgate.stages.triage import triage

TAGGED = [
    ("Our staging server runs Debian 12, remember?", "Debian 12"),
    ("Mein Hund heißt Bello, weißt du noch?", "Bello"),
    ("Mon frère s'appelle Julien, tu te souviens ?", "Julien"),
    ("Mi perro se llama Toby, ¿te acuerdas?", "Toby"),
    ("O Rui é o meu chefe, lembra?", "Rui"),
    ("我女儿在杭州上学，记得吗？", "杭州"),
]
#: (in English "remember" is a memory signal: such a turn is kept, tag or no tag)
QUESTIONS = [
    "Tu te souviens du nom du restaurant ?",
    "Wie hieß das Restaurant noch mal, weißt du noch?",
    "¿Cómo se llamaba el restaurante, te acuerdas?",
    "Qual era o nome do restaurante, lembra?",
]


def _turn(content: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="1", role="user",
        content=content, ts="2024-05-01T10:00:00Z",
    )  # fmt: skip


@pytest.mark.parametrize(("said", "value"), TAGGED)
def test_a_statement_with_a_recall_tag_is_kept(said: str, value: str) -> None:
    assert triage(_turn(said))[0] is TriageVerdict.KEEP


@pytest.mark.parametrize("asked", QUESTIONS)
def test_a_question_with_a_recall_tag_is_dropped(asked: str) -> None:
    assert triage(_turn(asked))[0] is TriageVerdict.DROP


@pytest.fixture(scope="module")
def hybrid() -> HybridExtractor:
    return HybridExtractor()


@pytest.mark.parametrize(("said", "value"), TAGGED)
def test_the_sentence_before_the_tag_is_read_as_a_repeat(
    hybrid: HybridExtractor, said: str, value: str
) -> None:
    got = hybrid.extract(_turn(said))
    assert got and all(c.repeats for c in got)
    assert any(value in c.object for c in got)
    assert not any(c.object.rstrip().endswith(("?", "？")) for c in got)
