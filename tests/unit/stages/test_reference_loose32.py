"""Session 32 (retr32): withdrawals and deletion requests by reference in wording the phrase
patterns do not hold, read by word classes of memgate/data/reference_topics.json.

* A topic fronted at the head of a sentence by a topic lead ("As for the gym: I was wrong",
  "Quant au vélo, ce n'était pas moi", "关于游泳，我说错了"), then the speaker's own error
  (``self_error_cues``), withdraws that topic. A lead inside the sentence ("I was wrong
  about the deadline") or a bare word of error that may be said of an answer ("About the
  deadline: that's wrong") still withdraws nothing.
* A request not to keep a thing names it as its object ("No guardes lo que te dije de mi
  sueldo", "Não guardes o nome da clínica que te disse"), when the sentence is about what
  was said or stored besides the keep negation itself: "Não guardes os recibos" is a chore.
* A Chinese thing said ("我之前说的X的事") and a withdrawal said as "don't take it
  seriously" (别当真).
* A broader word for the tools a person or team work with ("nos outils", "our tooling")
  reaches the products named (a tracker, a chat tool), and nothing else of the user.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.reference_topics import family_reach
from memgate.stages.references import find_references
from tests.unit.stages.resolver_kit import apply, cand, facts, ref


def _refs(text: str) -> list[tuple[str, str, bool]]:
    return [(r.op, r.topic.lower(), r.retracted) for r in find_references(text)]


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("Oh, about the gym membership: I was wrong, that's my flatmate's.", "gym"),
        ("Zum Thema Segelboot, war nicht ich, das gehört meinem Onkel.", "segelboot"),
        ("Quant au vélo électrique, ce n'était pas moi, c'est ma voisine.", "vélo"),
        ("En cuanto al piano, me equivoqué: quien toca es mi primo.", "piano"),
        ("Quanto ao cão, enganei-me, é da minha vizinha.", "cão"),
        ("关于游泳，我说错了，是我表哥。", "游泳"),
    ],
)
def test_a_fronted_topic_with_the_speakers_own_error_is_withdrawn(text: str, topic: str) -> None:
    got = _refs(text)
    assert [(op, retracted) for op, _t, retracted in got] == [("delete", True)], got
    assert topic in got[0][1]


@pytest.mark.parametrize(
    "text",
    [
        "About the deadline: that's wrong.",  # may be said of an answer
        "I was wrong about the deadline.",  # a lead inside the sentence
        "As for the weekend, I was wrong to think it would rain.",  # wrong about another thing
        "About the trip, I forgot to tell you we booked Rome.",
        "Quant au budget, c'est bon pour moi.",
        "关于周末的安排，我们再商量。",
    ],
)
def test_a_fronted_topic_without_the_speakers_own_error_withdraws_nothing(text: str) -> None:
    assert _refs(text) == []


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("No guardes lo que te dije de mi sueldo.", "mi sueldo"),
        ("Não guardes o nome da clínica que te disse, apaga isso.", "o nome da clínica"),
        ("Não guardes o que eu disse sobre a minha dieta.", "dieta"),
    ],
)
def test_a_request_not_to_keep_names_its_object(text: str, topic: str) -> None:
    assert _refs(text) == [("delete", topic, False)]


@pytest.mark.parametrize(
    "text",
    [
        "Não guardes os recibos do supermercado.",
        "No guardes las cajas vacías en el garaje.",
        "Don't keep the receipts in the kitchen drawer.",
    ],
)
def test_a_chore_of_not_keeping_a_thing_is_no_deletion(text: str) -> None:
    assert _refs(text) == []


def test_a_chinese_thing_said_withdrawn_as_not_to_be_taken_seriously() -> None:
    assert _refs("我之前说的钢琴的事你别当真，是我表妹在学。") == [("delete", "钢琴", True)]
    # a plan of the day, no thing said before: no reference
    assert _refs("明天开会的事你别忘了。") == []


@pytest.mark.parametrize(
    ("topic", "reached", "not_reached"),
    [
        # the kind "tools" reaches the products named
        ("nos outils", "team statement on gère les tickets dans jira", "user likes jazz"),
        ("our tooling", "team uses slack for chat", "user lives in leeds"),
        ("我们的工具", "team statement 我们用飞书沟通", "user statement 我住在杭州"),
        # a word for health or hobbies reaches its members
        ("my health", "user statement i have type 1 diabetes", "user runs on sundays"),
        ("ma santé", "user statement je prends de l'insuline le soir", "user likes jazz"),
        ("我健康相关", "user statement 我有哮喘", "user statement 我在银行上班"),
        ("my hobbies", "user statement i do pottery on tuesdays", "user works as a nurse"),
        ("mis aficiones", "user statement juego al ajedrez online", "user lives in cádiz"),
    ],
)
def test_a_kinds_word_reaches_its_members_and_nothing_else(
    topic: str, reached: str, not_reached: str
) -> None:
    reach = family_reach(topic)
    assert reach.search(reached)
    assert not reach.search(not_reached)


def test_one_tracker_named_reaches_no_other_tool() -> None:
    """Trackers and chat tools are distinct products: only the kind's word reaches them."""
    assert not family_reach("jira").search("team chats on slack")
    assert not family_reach("slack").search("team tracks bugs in jira")


def test_a_withdrawal_by_the_tools_word_closes_the_tool_and_nothing_else(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("We track our tickets in Linear", "statement", days=0, subject="team"))
    apply(store, cand("My manager is called Ines", "statement", days=1))
    _, dec = apply(store, ref("nos outils", "delete", days=5, subject="team"))
    assert dec.reason == "deletion_requested"
    assert dec.details["matched_by"] == "topic_family"
    left = facts(store)
    assert "We track our tickets in Linear" not in left
    assert left["My manager is called Ines"].status is FactStatus.ACTIVE


def test_one_condition_named_reaches_no_other_condition() -> None:
    """'my allergy' names the allergy by its words, not the asthma beside it."""
    assert not family_reach("my allergy").search("user statement i have asthma")
    assert not family_reach("my pottery").search("user statement i play chess")


def test_a_deletion_by_health_erases_the_condition_and_keeps_the_habit(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("I've had high blood pressure for years", "statement", days=0))
    apply(store, cand("I swim every Friday morning", "statement", days=1))
    _, dec = apply(store, ref("my health", "delete", days=5))
    assert dec.reason == "deletion_requested"
    left = facts(store)
    assert "I've had high blood pressure for years" not in left
    assert left["I swim every Friday morning"].status is FactStatus.ACTIVE


def test_the_speakers_own_topic_does_not_reach_what_another_person_does(
    store: EmbeddedIndex,
) -> None:
    """'where I work' erases the user's workplace, not the wife's (a fact of another
    subject reached only by its predicate); 'my wife' still reaches hers."""
    apply(store, cand("Siemens", "works_at", days=0))
    apply(store, cand("My wife works at Bosch", "works_at", days=1, subject="user's wife"))
    _, dec = apply(store, ref("where I work", "delete", days=5))
    assert dec.reason == "deletion_requested"
    left = facts(store)
    assert "Siemens" not in left
    assert left["My wife works at Bosch"].status is FactStatus.ACTIVE
    _, dec = apply(store, ref("my wife", "delete", days=6))
    assert dec.reason == "deletion_requested"
    assert "My wife works at Bosch" not in facts(store)


def test_a_topic_not_the_speakers_own_reaches_another_persons_fact(store: EmbeddedIndex) -> None:
    apply(store, cand("Tomasz lives in Austin", "lives_in", days=0, subject="Tomasz"))
    _, dec = apply(store, ref("Tomasz", "delete", days=5))
    assert dec.reason == "deletion_requested"
    assert "Tomasz lives in Austin" not in facts(store)
