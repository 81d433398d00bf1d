"""Issue 9, dev23a (scenarios_dev23a.jsonl): leaving an employer by resigning, in six
languages, stops the employer; the new value said beside the stop without a change cue
("... and start at Zeiss") is kept as a statement, as a value said with a cue already was;
words beside a stop that name nothing new keep nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.references import REFERENCE_PREDICATE, find_references, with_references
from memgate.stages.statements import HybridExtractor


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="x1", role="user", content=text,
        ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("sentence", "topic"),
    [
        ("I resigned from Unilever last month.", "Unilever"),
        ("Ich habe bei Siemens gekündigt.", "Siemens"),
        ("J'ai démissionné de Renault en juin.", "Renault"),
        ("Renuncié a Indra hace dos semanas.", "Indra"),
        ("Pedi demissão da Embraer.", "Embraer"),
        ("我辞去了华为的工作。", "华为"),
    ],
)
def test_resigning_from_a_named_employer_stops_it_in_every_language(
    sentence: str, topic: str
) -> None:
    refs = find_references(sentence)
    assert [(r.op, r.topic.lower()) for r in refs] == [("stop", topic.lower())]


@pytest.mark.parametrize(
    "sentence",
    [
        "Ich habe bei der Bank gekündigt.",
        "Ich habe mein Abo gekündigt.",
        "J'ai démissionné de mon poste.",
        "Renuncié a la idea de mudarme.",
    ],
)
def test_resigning_from_no_named_employer_stops_nothing(sentence: str) -> None:
    assert [r for r in find_references(sentence) if r.op == "stop"] == []


@pytest.mark.parametrize(
    ("said", "new"),
    [
        ("I quit Siemens and start at Zeiss next month.", "Zeiss"),
        ("Ich habe bei Siemens gekündigt und fange bei Zeiss an.", "Zeiss"),
        ("J'ai démissionné de Renault et je commence chez Valeo.", "Valeo"),
        ("Renuncié a Indra y empiezo en Accenture.", "Accenture"),
        ("Pedi demissão da Embraer e começo na Natura.", "Natura"),
    ],
)
def test_the_new_value_beside_a_stop_is_kept_without_a_change_cue(said: str, new: str) -> None:
    turn = _turn(said)
    got = with_references(turn, HybridExtractor().extract(turn))  # as the extract step does
    assert any(c.predicate == REFERENCE_PREDICATE for c in got), "the stop is still read"
    values = [c.object for c in got if not c.retracts]
    assert any(new in v for v in values), values
    assert not any(v.startswith(("I quit", "Ich habe", "J'ai", "Renuncié", "Pedi")) for v in values)


@pytest.mark.parametrize(
    "said",
    [
        "I quit Siemens and I'm glad.",
        "Ich habe bei Siemens gekündigt und bin froh darüber.",
        "I left Siemens and it was about time.",
    ],
)
def test_words_beside_a_stop_that_name_nothing_new_keep_nothing(said: str) -> None:
    turn = _turn(said)
    got = with_references(turn, HybridExtractor().extract(turn))
    assert all(c.retracts for c in got), [c.object for c in got if not c.retracts]


def test_a_retraction_beside_a_name_keeps_no_statement() -> None:
    """The cue-less new value is read beside a stop only: a retraction's words beside it
    ("that was my brother Jonas") are no new value."""
    turn = _turn("Forget what I said about the marathon, that was my brother Jonas.")
    got = with_references(turn, HybridExtractor().extract(turn))
    assert all(c.retracts for c in got), [c.object for c in got if not c.retracts]
