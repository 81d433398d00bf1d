"""Repeat markers (issue 9, dedupe, dd24): the speaker's own words that a sentence is a
repeat are discourse, cut before anything reads the sentence; the sentence is read alone and
its facts are flagged ``repeats``. A correction keeps its marker and flags nothing."""

from __future__ import annotations

import pytest

from memgate.core.events import FactType, TurnEvent
from memgate.stages.repeats import cut_marker
from memgate.stages.statements import HybridExtractor


@pytest.mark.parametrize(
    ("said", "cut"),
    [
        ("Just so you have it: Tomasz is my partner.", "Tomasz is my partner."),
        ("As I told you before, I work at Siemens.", "I work at Siemens."),
        ("Our billing contact is Maria Lopez, as I said before.",
         "Our billing contact is Maria Lopez."),
        ("Tomasz, as I said, is my partner.", "Tomasz is my partner."),
        ("Anyway, as you know I play cello.", "Anyway, I play cello."),
        ("Zur Erinnerung: Für CI nutzen wir GitLab.", "Für CI nutzen wir GitLab."),
        ("Wie ich dir schon gesagt habe, ich wohne in Köln.", "Ich wohne in Köln."),
        ("Je te le redis : nous déployons sur Kubernetes.", "Nous déployons sur Kubernetes."),
        ("Pour rappel, je suis végétarienne.", "Je suis végétarienne."),
        ("Como ya te dije, vivo en Sevilla.", "Vivo en Sevilla."),
        ("Como já disse, moro em Curitiba.", "Moro em Curitiba."),
        ("我之前说过，我家在成都。", "我家在成都。"),
        ("提醒一下，我们用PostgreSQL。", "我们用PostgreSQL。"),
        # a marker closing the sentence: its closing mark stays (a question stays one)
        ("我对猫毛过敏，这个你应该记得。", "我对猫毛过敏。"),
        ("I'm allergic to cats, remember.", "I'm allergic to cats."),
        ("I asked you about it last week, remember?", "I asked you about it last week?"),
        ("Ich bin Veganerin, weißt du noch?", "Ich bin Veganerin?"),
    ],
)  # fmt: skip
def test_a_repeat_marker_is_cut(said: str, cut: str) -> None:
    assert cut_marker(said) == cut


@pytest.mark.parametrize(
    "said",
    [
        # a correction: what was said before is denied, not repeated
        "Correction: our main database is Postgres 15, not MySQL like I said earlier.",
        "I told you my flight was on Friday, but it's actually on Saturday.",
        "Como te dije, ahora vivo en Madrid.",
        # an operation on stored facts, a request, a noun: no marker of a repeat
        "Remove what I told you about my car.",
        "Tu peux me rappeler comment on convertit des miles ?",
        "Rappel de la réunion demain.",
        "Remember to buy milk.",
        "Do you remember?",
        "I play the cello in a community orchestra.",
    ],
)
def test_no_repeat_marker(said: str) -> None:
    assert cut_marker(said) is None


def _turn(content: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="1", role="user",
        content=content, ts="2024-05-01T10:00:00Z",
    )  # fmt: skip


@pytest.fixture(scope="module")
def hybrid() -> HybridExtractor:
    return HybridExtractor()


def test_a_marked_sentence_is_read_alone_and_flagged(hybrid: HybridExtractor) -> None:
    turn = _turn(
        "Busy weekend ahead: rehearsal on Saturday, brunch with friends after, and I still "
        "haven't fixed the bike. Anyway, as you know I play cello in the community orchestra, "
        "so Saturdays are mostly gone."
    )
    got = hybrid.extract(turn)
    flagged = [c for c in got if c.repeats]
    assert [c.object for c in flagged] == [
        "I play cello in the community orchestra, so Saturdays are mostly gone"
    ]
    assert all("bike" not in c.object for c in flagged)
    assert not any("as you know" in c.object for c in got)
    assert len({c.candidate_id for c in got}) == len(got)


@pytest.mark.parametrize(
    "said",
    [
        "Como ya te dije, vivo en Sevilla.",
        "Je te le redis : toute notre production tourne sur Kubernetes.",
        "Wie ich dir schon gesagt habe, ich spiele Geige im Orchester.",
    ],
)
def test_a_past_saying_verb_makes_no_episode(hybrid: HybridExtractor, said: str) -> None:
    got = hybrid.extract(_turn(said))
    assert got and all(c.repeats for c in got)
    assert all(c.type is not FactType.EVENT for c in got)
    assert not any(w in c.object.lower() for c in got for w in ("dije", "redis", "gesagt"))


def test_a_turn_without_marker_is_read_as_before(hybrid: HybridExtractor) -> None:
    got = hybrid.extract(_turn("I play the cello in a community orchestra."))
    assert [c.object for c in got] == ["I play the cello in a community orchestra"]
    assert not any(c.repeats for c in got)
