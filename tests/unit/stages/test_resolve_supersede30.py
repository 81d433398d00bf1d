"""A single-valued slot changed in new words (issue 9, change30): the way to work (the
``commute`` family of memgate/data/resolution.json), a role noun in its French feminine
("cheffe": ``family_word_doubled_endings``), a move said with a pronoun joined to the verb
("mudei-me para": ``enclitics``), and a change opened by a time of the present ("These days
I ...") that is no pronoun of something said before, so it is kept at all.

Hard negatives: a week's exception, another person's way to work, a value added with
"also", the way to the office that is no office, words near a family's that are not it.
"""

from __future__ import annotations

import pytest

from memgate.core.events import (
    DecisionRecord,
    FactStatus,
    RedactedCandidate,
    Resolution,
    TurnEvent,
)
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.statements import HybridExtractor
from tests.unit.stages.resolver_kit import CLOCK, USEM, facts, minilm, resolve, statement

#: the gate's encoder: a change in new words is far from the old sentence by its cosine
STORE_EMBEDDER = minilm
_OTHER = "I like hiking in the Alps"


def _apply(store: EmbeddedIndex, item: RedactedCandidate) -> tuple[Resolution, DecisionRecord]:
    resolver = Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM, slotmask=True)
    return resolve(store, item, resolver)


def _said(store: EmbeddedIndex, stored: str, said: str) -> Resolution:
    _apply(store, statement(stored, days=0))
    _apply(store, statement(_OTHER, days=1))  # another fact of the owner, between the two
    res, _ = _apply(store, statement(said, days=14))
    assert facts(store)[_OTHER].status is FactStatus.ACTIVE
    return res


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("I drive to work every day", "Nowadays I take the bus to work"),
        ("Je vais au travail en voiture", "Désormais je prends le train pour aller au bureau"),
        ("我每天开车上班", "现在我坐地铁通勤"),
        ("Ich fahre mit dem Auto zur Arbeit", "Inzwischen pendle ich mit der S-Bahn"),
        ("Voy al trabajo en coche", "Ahora cojo el metro para ir al trabajo"),
        ("Vou para o trabalho de carro", "Agora vou trabalhar de metrô"),
    ],
)
def test_the_way_to_work_is_one_slot(store: EmbeddedIndex, stored: str, said: str) -> None:
    res = _said(store, stored, said)
    assert res.action.value == "SUPERSEDE"
    assert facts(store)[stored].status is FactStatus.SUPERSEDED
    assert facts(store)[said].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        # the French feminine of a role noun doubles its consonant: "chef" -> "cheffe"
        ("Mon responsable s'appelle Paul Girard", "Ma cheffe, c'est Inès Roux désormais"),
        # a pronoun joined to its verb: "mudei-me para" is "mudei para"
        ("Moro em Braga", "Mudei-me para Coimbra este ano"),
    ],
)
def test_a_slot_in_another_form_of_its_word(store: EmbeddedIndex, stored: str, said: str) -> None:
    res = _said(store, stored, said)
    assert res.action.value == "SUPERSEDE"
    assert facts(store)[stored].status is FactStatus.SUPERSEDED


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        # a week's exception: no word of the way to work, and no change of it
        ("Voy al trabajo en bicicleta", "Esta semana voy en autobús porque la bici está rota"),
        # another person's way to work
        ("I cycle to work", "My husband drives to work now"),
        # a second way, added
        ("I take the train to work", "I also walk to work when it's sunny"),
    ],
)
def test_what_is_no_change_of_the_way_to_work(store: EmbeddedIndex, stored: str, said: str) -> None:
    _said(store, stored, said)
    assert facts(store)[stored].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("Ma cheffe, c'est Anne", "manager"),
        ("Mes cheffes sont sympas", "manager"),
        ("Mudei-me para Lisboa", "lives_in"),
        ("Ich pendle mit der S-Bahn", "commute"),
        ("I take the tram to the office", "commute"),
        ("Je travaille au bureau de Lyon", "workplace"),
        ("I like to work with Python", None),
        ("On a visité une chefferie traditionnelle", None),
        ("Vendi-me caro", None),
    ],
)
def test_the_family_read_from_the_words(text: str, family: str | None) -> None:
    fam = LEXICON.family("statement", text)
    assert (fam.name if fam is not None else None) == family


@pytest.mark.parametrize(
    ("text", "families"),
    [
        # a word inside one family's phrase is no slot of its own: the way to the office
        # is no office
        ("Je vais au bureau en vélo", ["commute"]),
        ("I take the train to the office", ["commute"]),
        # two phrases, two slots
        ("Ship my parcels to my office", ["workplace", "shipping"]),
    ],
)
def test_the_families_of_a_statement(text: str, families: list[str]) -> None:
    assert [f.name for f in LEXICON.families_of("statement", text)] == families


def _kept(text: str) -> list[str]:
    t = TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="1", role="user", content=text,
        ts="2025-03-01T09:00:00Z",
    )  # fmt: skip
    return [c.object for c in HybridExtractor().extract(t)]


@pytest.mark.parametrize(
    "text",
    ["These days I take the train to work.", "These days I commute by bike to the office."],
)
def test_a_time_of_the_present_is_no_pronoun(text: str) -> None:
    assert _kept(text) == [text.rstrip(".")]


@pytest.mark.parametrize("text", ["These are so cute!", "These days are exhausting."])
def test_a_comment_on_something_said_before_is_still_not_kept(text: str) -> None:
    assert _kept(text) == []
