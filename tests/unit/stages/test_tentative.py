"""A tentative statement of the user said plainly, and the later turn that confirms or
withdraws it (stages/tentative.py). The sentences are written for these tests, in other
words than the development files."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.tentative import (
    STATED_EXTRACTOR,
    HeldStatement,
    answer,
    believed,
    plain_statement,
    stated_fact,
)

T0 = datetime(2025, 5, 2, 9, 0, tzinfo=UTC)

#: A tentative statement of the speaker and a word its plain form keeps, six languages.
PLAIN = {
    "en": ("I'm considering taking up the cello this winter.", "cello"),
    "en-modal": ("I think I might be allergic to penicillin.", "allergic to penicillin"),
    "de": ("Vielleicht wechseln wir im Frühjahr zu Bitbucket.", "Bitbucket"),
    "fr": ("Je pense que je vais peut-être m'inscrire au club d'escalade.", "escalade"),
    "es": ("Estoy pensando en apuntarme a un curso de cerámica.", "cerámica"),
    "pt": ("Provavelmente vou trabalhar no turno da noite.", "turno da noite"),
    "zh": ("我也许会报名学钢琴。", "钢琴"),
}

#: Turns that are no tentative statement of the speaker.
NOT_PLAIN = [
    "I play the cello in an orchestra.",  # nothing tentative
    "Maybe it will snow on Friday.",  # of the weather, not the speaker
    "Could you maybe check the logs?",  # a question
    "I might not renew my gym membership.",  # a negation
    "Vielleicht ist der Zug heute pünktlich.",  # of a train
    "也许明天会下雨。",  # of the weather
]


@pytest.mark.parametrize("lang", sorted(PLAIN))
def test_a_tentative_statement_is_said_plainly(lang: str) -> None:
    text, kept = PLAIN[lang]
    plain = plain_statement(text)
    assert plain is not None and kept in plain
    doubts = ("considering", "might", "Vielleicht", "peut-être", "pensando", "Provavelmente")
    assert not any(doubt in plain for doubt in (*doubts, "也许"))


@pytest.mark.parametrize("text", NOT_PLAIN)
def test_no_plain_form_for_a_firm_a_foreign_a_negated_or_an_asked_statement(text: str) -> None:
    assert plain_statement(text) is None


def test_a_modal_of_possibility_is_a_belief_with_no_plain_form() -> None:
    """A belief to store pending ("Ich könnte ..."), with no plain form to hold; a verb of
    considering says a true fact of the speaker and no belief."""
    assert believed("Ich könnte eine Katzenhaarallergie haben.")
    assert believed("Il se peut que je sois muté à Lille.")
    assert plain_statement("Ich könnte eine Katzenhaarallergie haben.") is None
    assert not believed("Ich habe eine Katzenhaarallergie.")
    assert not believed("I'm considering a move to the Lisbon office.")


def _held(plain: str, session: str = "s1", turn: str = "t1", hours: int = 0) -> HeldStatement:
    return HeldStatement(turn, session, T0 + timedelta(hours=hours), plain)


LATER = T0 + timedelta(hours=3)


@pytest.mark.parametrize(
    "text",
    ["Right, it's settled then.", "Alles klar, ist beschlossen.", "C'est acté.",
     "Vale, decidido.", "Pronto, está fechado.", "好了，敲定了。"],
)  # fmt: skip
def test_a_brief_confirmation_naming_nothing_confirms_the_sessions_latest(text: str) -> None:
    held = [_held("I'm taking up the cello.", turn="t1"), _held("We use Bitbucket.", turn="t2")]
    found = answer(text, "s1", LATER, held)
    assert found is not None and found.kind == "confirms" and not found.named
    assert found.held.turn_id == "t2"
    assert answer(text, "s2", LATER, held) is None  # another session: names nothing


def test_a_confirmation_naming_the_statement_reaches_it_in_another_session() -> None:
    held = [_held("I'm taking up the cello.", turn="t1"), _held("We use Bitbucket.", turn="t2")]
    found = answer("Cello lessons: confirmed!", "s9", LATER + timedelta(days=4), held)
    assert found is not None and found.kind == "confirms" and found.named
    assert found.held.turn_id == "t1"
    zh = answer("钢琴课定了。", "s9", LATER, [_held("我会报名学钢琴。")])
    assert zh is not None and zh.kind == "confirms"


@pytest.mark.parametrize(
    "text",
    [
        "Yes.",  # a bare yes answers the assistant, not a guess
        "Maybe it's decided next week.",  # a doubt
        "Not decided yet.",  # a negation
        "Is it confirmed?",  # a question
        "Confirmed, my brother is moving to Lisbon.",  # a fact of someone else
        "It's official, Hannah got the promotion.",  # a name of its own
        "It's official that the new library opens downtown next month with a big "
        "party and free coffee for everyone who comes early.",  # not brief
    ],
)
def test_a_yes_a_doubt_a_question_or_a_fact_of_its_own_confirms_nothing(text: str) -> None:
    assert answer(text, "s1", LATER, [_held("I'm taking up the cello.")]) is None


def test_a_turn_naming_the_statement_with_a_negation_withdraws_it() -> None:
    held = [_held("I'm transferring to the Rotterdam office.")]
    found = answer("The Rotterdam move got cancelled.", "s4", LATER, held)
    assert found is not None and found.kind == "withdraws"
    assert answer("Nope, not happening.", "s4", LATER, held) is None  # names nothing
    zh = answer("学钢琴的事取消了。", "s2", LATER, [_held("我会报名学钢琴。")])
    assert zh is not None and zh.kind == "withdraws"


def test_a_statement_said_after_the_turn_is_not_answered() -> None:
    assert answer("It's settled.", "s1", T0, [_held("I'm taking up the cello.", hours=5)]) is None


def test_the_stated_fact_is_the_confirmed_statement() -> None:
    turn = TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="x", role="user",
        content="Empiezo un curso de cerámica.", ts=T0, confirmed=True,
    )  # fmt: skip
    fact = stated_fact(turn)
    assert fact is not None
    assert fact.object == "Empiezo un curso de cerámica"
    assert fact.confirmed is True and fact.confidence == 0.9
    assert fact.extractor == STATED_EXTRACTOR and fact.source_turn_ids == ["x"]
