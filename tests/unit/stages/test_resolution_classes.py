"""Issue 9 item 3, by word class and frame (development file scenarios_dev9.jsonl): a change
said beside a stop in Chinese keeps its new value, a stop said with a verb of deleting is a
deletion, a broader word (a relationship, a computer, family life) reaches its members, a
topic said as 'everything to do with X', states of the moment on the move, a thing named by its
name, a Chinese adverb of seeming, and the team chat as one single-valued tool."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.moment import moment_reason
from memgate.stages.reference_topics import family_reach
from memgate.stages.references import find_references, said_beside
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.statement_text import hedged
from tests.unit.stages.resolver_kit import apply, cand, facts


def _refs(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(r.op, LEXICON.topic_terms(r.topic)) for r in find_references(text)]


@pytest.mark.parametrize(
    ("obj", "clause", "beside"),
    [
        # Chinese has no spaces: the cue ("改成") sits inside the word run of the new value
        (
            "我们已经不用Jenkins了，持续集成改成了GitLab CI",
            "我们已经不用jenkins",
            "持续集成改成了GitLab CI",
        ),
        ("我已经不用微信了，现在改用Signal", "我已经不用微信", "现在改用Signal"),
    ],
)
def test_a_change_beside_a_stop_in_chinese_is_said(obj: str, clause: str, beside: str) -> None:
    assert said_beside(obj, [clause]) == beside


def test_a_cue_alone_beside_a_stop_says_nothing() -> None:
    assert said_beside("我们已经不用Jenkins了，现在", ["我们已经不用jenkins"]) is None


@pytest.mark.parametrize(
    ("text", "term"),
    [
        (
            "Je ne veux plus que tu gardes quoi que ce soit sur ma vie de famille, supprime ça.",
            "famille",
        ),
        ("I no longer want you to keep anything about my kids, delete it.", "kids"),
        ("Ich will nicht mehr, dass du was über meine Familie speicherst, lösch das.", "familie"),
    ],
)
def test_a_stop_with_a_verb_of_deleting_is_a_deletion(text: str, term: str) -> None:
    got = _refs(text)
    assert [o for o, _ in got] == ["delete"], got
    assert got[0][1] == (term,), got


def test_a_stop_without_a_verb_of_deleting_stays_a_stop() -> None:
    assert [o for o, _ in _refs("We no longer use Jenkins.")] == ["stop"]


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("Bitte vergiss alles, was mit meiner Beziehung zu tun hat.", "beziehung"),
        ("Please forget everything to do with my relationship.", "relationship"),
        ("Borra todo lo que tenga que ver con mi relación.", "relación"),
    ],
)
def test_everything_to_do_with_a_topic_is_a_reference(text: str, term: str) -> None:
    got = _refs(text)
    assert [o for o, _ in got] == ["delete"], got
    assert term in got[0][1], got


@pytest.mark.parametrize(
    ("topic", "reached", "not_reached"),
    [
        ("meine Beziehung", "user's boyfriend name is luca", "user spielt schach im verein"),
        ("o meu namoro", "user's girlfriend name is júlia", "user trabalha como engenheiro"),
        ("my love life", "user is married to jana", "user cooks italian food"),
        ("mi ordenador", "mi portátil del trabajo es un thinkpad x1", "trabajo en el equipo"),
        ("my computer", "my work laptop is a macbook pro", "i work on the data team"),
        ("我的电脑", "我的笔记本是联想的", "我喜欢打羽毛球"),
    ],
)
def test_a_broader_word_reaches_its_members(topic: str, reached: str, not_reached: str) -> None:
    reach = family_reach(topic)
    assert reach.search(reached)
    assert not reach.search(not_reached)


@pytest.mark.parametrize(
    "text",
    [
        "Je suis coincée dans les bouchons, j'arrive dans vingt minutes.",
        "I'm stuck in traffic, I'll be there in ten minutes.",
        "我现在在地铁上，信号不太好。",
        "I'm on the train right now, the signal is bad.",
        "Estoy en el metro ahora, luego te escribo.",
    ],
)
def test_a_state_on_the_move_is_the_moment(text: str) -> None:
    assert moment_reason([text]) == "moment"


@pytest.mark.parametrize(
    "text",
    [
        "My commute is forty minutes by train.",
        "I take the train to work every day.",
        "我每天坐地铁上班。",
    ],
)
def test_a_durable_trip_is_not_the_moment(text: str) -> None:
    assert moment_reason([text]) is None


_K8S = "Nuestro clúster de Kubernetes está en Google Cloud"


@pytest.mark.parametrize(
    ("said", "folds"),
    [
        # the thing is named by its name, with another verb: the same slot, the same value
        ("El Kubernetes lo tenemos montado sobre Google Cloud", True),
        # the thing named, another value: a second fact
        ("El Kubernetes lo tenemos montado sobre AWS", False),
    ],
)
def test_a_thing_named_by_its_name_is_the_same_slot(
    store: EmbeddedIndex, said: str, folds: bool
) -> None:
    thing = "team's clúster de kubernetes"
    apply(store, cand(_K8S, "statement", days=0, subject=thing, multi=True))
    res, dec = apply(store, cand(said, "statement", days=30, subject="team", multi=True))
    got = facts(store)
    assert got[_K8S].status is FactStatus.ACTIVE
    if folds:
        assert res.action.value == "DUPLICATE", dec.reason
        # "Google Cloud" names the cloud family (supersede29): the same clause of one slot
        assert dec.details.get("match") == "paraphrase:family" or dec.reason == "same_clause"
        assert said not in got and got[_K8S].occurrences == 2
    else:
        assert res.action.value != "DUPLICATE"
        assert got[said].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("sentence", "believed"),
    [
        # a Chinese adverb of seeming stands after the subject and topic, not first
        ("我记得我们的数据库好像是PostgreSQL 14。", True),
        ("我们的CI似乎是跑在Jenkins上的。", True),
        ("我们的数据库是PostgreSQL 14。", False),
    ],
)
def test_a_chinese_hedge_adverb_inside_the_clause_says_a_belief(
    sentence: str, believed: bool
) -> None:
    assert hedged(sentence) is believed


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "Für Chats im Team nutzen wir Slack",
            "Slack haben wir abgeschafft, wir schreiben uns jetzt nur noch über Microsoft Teams",
        ),
        ("Our team chat is on Mattermost", "We moved team chat over to Slack now"),
    ],
)
def test_a_new_chat_tool_replaces_the_old_one(store: EmbeddedIndex, old: str, new: str) -> None:
    """The team chat is a single-valued tool of the speaker and the team (one pool)."""
    apply(store, cand(old, "statement", days=0, subject="user", multi=True))
    res, dec = apply(store, cand(new, "statement", days=30, subject="team", multi=True))
    assert res.action.value == "SUPERSEDE", dec.reason
    got = facts(store)
    assert got[old].status is FactStatus.SUPERSEDED
    assert got[new].status is FactStatus.ACTIVE


def test_a_second_chat_tool_without_a_change_cue_stands_beside(store: EmbeddedIndex) -> None:
    apply(store, cand("Our team chat is on Slack", "statement", days=0, subject="team", multi=True))
    apply(store, cand("The community talks on Discord", "statement", days=30, subject="team"))
    assert facts(store)["Our team chat is on Slack"].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("text", "kept", "dropped"),
    [
        (
            "Je suis crevée ce soir. Au fait, je suis végétalienne, donc pas de recettes "
            "avec des œufs.",
            "végétalienne",
            "crevée",
        ),
        (
            "I'm swamped this week. By the way, I'm allergic to peanuts.",
            "peanuts",
            "swamped",
        ),
    ],
)
def test_a_state_of_the_moment_beside_one_durable_sentence_leaves_it_one_to_judge(
    text: str, kept: str, dropped: str
) -> None:
    """A sentence of the moment is no sentence to judge: the durable one beside it is held
    to the bar of a turn with one sentence, not of a narrated turn."""
    from datetime import UTC, datetime

    from memgate.core.events import TurnEvent
    from memgate.stages.statements import HybridExtractor

    turn = TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="x", role="user",
        content=text, ts=datetime(2024, 5, 3, tzinfo=UTC),
    )  # fmt: skip
    said = " ".join(c.object for c in HybridExtractor().extract(turn))
    assert kept in said
    assert dropped not in said
