"""Who a statement is about and which family it names (issue 9, judge5).

The sentences are written for these tests, in other words than the development
scenarios (scenarios_dev7.jsonl) that measure the same classes.
"""

from __future__ import annotations

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.statement_text import cues, family, subject_of
from memgate.stages.statements import HybridExtractor


def turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
                     role="user", content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("My cousin recently relocated to Porto", "user's cousin"),
        ("My uncle finally retired to Crete", "user's uncle"),
        ("Mi primo recién se mudó a Cádiz", "user's primo"),
        ("Mon frère vient de partir à Lille", "user's frère"),
        ("Our landlord already sold the building", "team's landlord"),
    ],
)
def test_an_adverb_or_a_past_verb_ends_the_subject_of_someone_else(text: str, subject: str) -> None:
    """A relative's move is the relative's: the noun phrase after the possessive ends at
    an adverb of clause_adverbs or an English past form, not only at a verb of the list
    (before: "user", so the relative's city closed the user's own)."""
    assert subject_of(text) == subject


def test_the_speakers_own_move_stays_the_speakers() -> None:
    assert subject_of("I just relocated to Porto") == "user"
    assert family("I just relocated to Porto") == "lives_in"


def test_a_relatives_move_is_no_city_of_the_user() -> None:
    """The hybrid extractor says the relative's move under the relative's subject."""
    facts = HybridExtractor().extract(turn("My cousin just moved to Porto."))
    assert facts
    assert all(f.subject != "user" for f in facts if f.predicate == "lives_in")


@pytest.mark.parametrize(
    "text",
    ["Depuis mars, je suis chez Michelin", "Seit Mai sind wir bei Zalando",
     "Ich bin jetzt bei Continental"],
)  # fmt: skip
def test_being_at_a_named_company_is_the_employer(text: str) -> None:
    """French 'être chez' and German 'sein bei' followed by a name say the employer."""
    assert family(text) == "works_at"


@pytest.mark.parametrize(
    "text",
    ["Je suis chez moi ce soir", "Je suis chez le dentiste", "Ich bin bei meiner Mutter"],
)
def test_being_at_home_or_at_a_person_is_no_employer(text: str) -> None:
    assert family(text) != "works_at"


@pytest.mark.parametrize(
    "text",
    ["Today I'm working from home.", "Heute bin ich im Homeoffice.",
     "Aujourd'hui je suis en télétravail.", "Hoy trabajo desde casa."],
)  # fmt: skip
def test_working_from_home_today_is_a_state_of_the_moment(text: str) -> None:
    assert cues(text)["moment"]


def test_working_from_home_without_a_time_of_the_moment_is_no_moment() -> None:
    assert not cues("I work from home for a Berlin startup.")["moment"]


@pytest.mark.parametrize(
    "text",
    ["Since May, Ilse Brandt has led our lab and she's my supervisor.",
     "We shipped the new billing flow in May.", "My lease runs until May 2026."],
)  # fmt: skip
def test_the_month_may_is_no_doubt(text: str) -> None:
    """English "May" the month (after a preposition, before a number, capitalised inside a
    sentence) is not the modal of doubt (before: the whole turn was read as uncertain)."""
    assert not cues(text)["uncertain"]


@pytest.mark.parametrize(
    "text", ["I may switch to Fastmail next year.", "May I ask which plan you're on?"]
)
def test_the_modal_may_still_doubts(text: str) -> None:
    assert cues(text)["uncertain"]


def test_a_new_boss_named_a_clause_before_is_kept() -> None:
    """ "X took over ..., so he's my boss now": a clause that ends "<someone> is my <noun of a
    single-valued family>" is a statement to keep (the resolver then finds the old boss)."""
    said = "Ilse Brandt took over the lab in May, so she's my supervisor now."
    facts = HybridExtractor().extract(turn(said))
    assert any("Ilse Brandt" in f.object for f in facts), [f.object for f in facts]


@pytest.mark.parametrize(
    ("text", "slot"),
    [("Ilse took over, so she's my supervisor now", "supervisor now"),
     ("Marta es mi jefa desde enero", "jefa desde enero"),
     ("That is my favourite song", None), ("It's my birthday today", None)],
)  # fmt: skip
def test_an_inverted_copula_names_a_family_slot(text: str, slot: str | None) -> None:
    from memgate.stages.slot_frames import inverted_slot

    assert inverted_slot(text) == slot


@pytest.mark.parametrize(
    "text",
    ["My flatmate Jonas swears by Arch Linux.", "One of my neighbours said the road will close.",
     "Mein Bruder meint, ich sollte Go lernen.", "Ma sœur dit que Lyon est plus calme.",
     "Mi padre dice que el coche consume mucho."],
)  # fmt: skip
def test_what_another_person_says_is_no_memory_of_the_speaker(text: str) -> None:
    """Reported speech (a person of paraphrase.json's persons, a saying verb): before, the
    keep classifier stored it as the user's statement."""
    assert HybridExtractor().extract(turn(text)) == []


@pytest.mark.parametrize(
    "text", ["My brother's name is Jonas.", "I told my manager I prefer async standups."]
)
def test_a_fact_about_a_person_without_a_saying_verb_is_not_reported_speech(text: str) -> None:
    assert HybridExtractor().extract(turn(text))
