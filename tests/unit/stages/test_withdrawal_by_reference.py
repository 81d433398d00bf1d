"""Issue 9, item 3 (session 27, delete27): a withdrawal of what was said about a topic is an
operation on the facts the topic points at, read by frame in six languages.

* Withdrawing what was said ("scratch that bit about the gym", "desconsidera o que eu falei
  sobre ...", "关于游泳的那条，当我没说过") erases the content as a deletion does; the erased
  row keeps the ids of the turn it withdraws (``references.withdrawn``).
* The topic said first, the request after it ("Lo que te conté del coche, ignóralo"), a
  preposition fused with its article ("del", "do", "du"), "the stuff I told you about X",
  and Chinese "不要再记着 X" with any topic are read as references to that topic.
* A topic word names its kind's other words (a meeting: a standup).
* A first-person report of deleting something in the world is no request.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.fact_keys import DELETED_VALUE
from memgate.stages.references import find_references, is_retracted_deletion, with_references
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_semantic import DELETED_PREDICATE
from tests.unit.stages.resolver_kit import apply, cand, facts, ref


def _reference(text: str) -> tuple[str, str]:
    """The one reference of ``text``: its topic and the rationale op the extractor gives."""
    (r,) = find_references(text)
    return r.topic, r.op + (":retracted" if r.retracted else "")


# ------------------------------------------------------------ withdrawals erase


WITHDRAWALS = [
    (
        "en",
        "I lift weights at IronWorks Gym four mornings a week",
        "Actually, scratch that bit about the gym, I was describing my old routine.",
        "user",
    ),
    (
        "de",
        "Ich spiele Handball im Verein",
        "Ignorier, was ich dir über Handball gesagt habe, das war mein Bruder.",
        "user",
    ),
    (
        "fr",
        "Je joue du piano le soir",
        "Ignore ce que je t'ai dit sur le piano, c'était ma sœur.",
        "user",
    ),
    ("es", "Toco la guitarra en una banda", "Lo que te conté de la guitarra, ignóralo.", "user"),
    (
        "pt",
        "Nosso banco de dados principal é o MongoDB",
        "Desconsidera o que eu falei sobre o banco de dados, era de outro projeto.",
        "team",
    ),
    ("zh", "我每周三晚上去游泳馆游泳", "关于游泳的那条，你就当我没说过吧。", "user"),
]


@pytest.mark.parametrize(("lang", "said", "withdrawal", "subject"), WITHDRAWALS)
def test_a_withdrawal_by_topic_erases_the_content_and_names_the_turn(
    store: EmbeddedIndex, lang: str, said: str, withdrawal: str, subject: str
) -> None:
    apply(store, cand(said, days=1, subject=subject, multi=True))
    other = "Ich trinke gern Tee" if lang != "de" else "I drink tea"
    apply(store, cand(other, days=2, multi=True))
    topic, op = _reference(withdrawal)
    assert op == "delete:retracted", (lang, op)
    _res, dec = apply(store, ref(topic, op, days=3))
    assert dec.reason == "deletion_requested", (lang, dec.reason, dec.details)
    got = facts(store)
    assert said not in got  # the content is gone, nothing left to answer "as of" its time
    (gone,) = [f for f in got.values() if f.predicate == DELETED_PREDICATE]
    assert gone.value == DELETED_VALUE and gone.status is FactStatus.SUPERSEDED
    assert "t1" in gone.source_turn_ids  # the withdrawn turn stays named (ids only)
    assert got[other].status is FactStatus.ACTIVE


def test_the_extractor_candidate_of_a_withdrawal_is_a_retracted_deletion() -> None:
    from datetime import UTC, datetime

    from memgate.core.events import TurnEvent

    turn = TurnEvent(
        tenant_id="acme", user_id="u1", session_id="s", turn_id="t3", role="user",
        content="Scratch that bit about the gym.", ts=datetime(2024, 3, 4, tzinfo=UTC),
    )  # fmt: skip
    (c,) = with_references(turn, [])
    assert is_retracted_deletion(c)


def test_a_bare_anaphor_still_only_closes_what_it_points_at() -> None:
    # "scratch that" guesses at the latest turn: kept reversible, no erasure
    (r,) = find_references("Hmm, no, scratch that, I was thinking of a different project.")
    assert (r.op, r.previous, r.retracted) == ("retract", True, False)


# ------------------------------------------------------------ frames


@pytest.mark.parametrize(
    ("text", "term"),
    [
        # the topic said first, the request after it
        ("What I said about the car, ignore it, I mixed it up with my dad's.", "car"),
        ("Was ich dir über das Auto erzählt habe, vergiss es bitte.", "auto"),
        ("Ce que je t'ai dit sur la voiture, oublie-le.", "voiture"),
        ("Lo que te conté del coche, ignóralo, me confundí con el de mi padre.", "coche"),
        ("O que eu falei do carro, esquece, me confundi.", "carro"),
        ("关于车的那部分，你就当我没说过吧。", "车"),
        # a preposition fused with its article
        ("Olvida lo que te conté del coche.", "coche"),
        ("Esquece o que eu te disse do meu carro.", "carro"),
        ("Oublie ce que je t'ai dit du jardin.", "jardin"),
        # "the stuff I told you about X"
        ("Oh, please erase the stuff I told you about my pen collection, thanks.", "pen"),
    ],
)
def test_a_withdrawal_is_read_with_its_topic_in_every_frame(text: str, term: str) -> None:
    (r,) = find_references(text)
    assert (r.op, r.retracted, r.previous) == ("delete", True, False), r
    terms = LEXICON.topic_terms(r.topic)
    assert term in terms and len(terms) <= 2, terms


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("不要再记着我住哪儿了，把这个删了。", "住哪"),
        ("别再存着我女儿的学校了。", "学校"),
        ("不要记住我的生日。", "生日"),
    ],
)
def test_a_chinese_request_not_to_keep_a_topic_deletes_it(text: str, term: str) -> None:
    (r,) = find_references(text)
    assert r.op == "delete" and term in r.topic, r


def test_a_chinese_request_not_to_keep_where_i_live_erases_the_address(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("我住在杭州西湖区", "lives_in", days=1))
    apply(store, cand("我女儿叫小雨", days=2, multi=True))
    topic, op = _reference("不要再记着我住哪儿了，把这个删了。")
    _res, dec = apply(store, ref(topic, op, days=3))
    assert dec.reason == "deletion_requested"
    got = facts(store)
    assert "我住在杭州西湖区" not in got and got["我女儿叫小雨"].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("said", "asked", "subject"),
    [
        (
            "Our team's standup is at 9:15 every weekday",
            "Also, you can forget the stuff about our morning meeting, it keeps changing.",
            "team",
        ),
        ("Unser Standup ist jeden Tag um 9:15", "Vergiss alles über unsere Besprechung.", "team"),
        (
            "Notre stand-up est à 9h15 chaque matin",
            "Oublie tout ce que tu sais sur notre réunion du matin.",
            "team",
        ),
        (
            "Nuestra standup es a las 9:15",
            "Borra todo lo que sabes sobre la reunión diaria.",
            "team",
        ),
        (
            "A nossa standup é às 9h15",
            "Esquece tudo o que você sabe sobre a reunião da manhã.",
            "team",
        ),
        ("我们每天早上九点开站会", "请删除关于晨会的所有信息。", "team"),
    ],
)
def test_a_meeting_topic_reaches_the_standup(
    store: EmbeddedIndex, said: str, asked: str, subject: str
) -> None:
    apply(store, cand(said, days=1, subject=subject, multi=True))
    apply(store, cand("We track bugs in Linear", days=2, subject="team", multi=True))
    topic, op = _reference(asked)
    _res, dec = apply(store, ref(topic, op, days=3, subject=subject))
    assert dec.reason == "deletion_requested", (asked, dec.reason)
    got = facts(store)
    assert said not in got
    assert got["We track bugs in Linear"].status is FactStatus.ACTIVE


# ------------------------------------------------------------ counter-examples


@pytest.mark.parametrize(
    "text",
    [
        "I deleted my Facebook account.",
        "Ich habe mein Facebook-Konto gelöscht.",
        "J'ai supprimé mon compte Facebook.",
        "Borré mi cuenta de Facebook.",
        "Apaguei minha conta do Facebook.",
        "我把脸书账号删了。",
        # not keeping something in mind, said of oneself
        "我不要再记着这些烦心事了。",
        # what was said, remembered
        "Don't forget what I told you about my allergy.",
        "Lo que te conté del coche es verdad, no lo olvides.",
    ],
)
def test_a_report_of_deleting_or_a_remembered_statement_is_no_request(text: str) -> None:
    assert find_references(text) == []


# ------------------------------------------------------------ the request is no fact


def _extracted(content: str) -> list[tuple[str, str, bool]]:
    from datetime import UTC, datetime

    from memgate.core.events import CandidateFact, TriagedTurn, TurnEvent
    from memgate.stages.statements import HybridExtractor
    from memgate.streams.pipeline import ExtractStep

    t = TurnEvent(
        tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1", role="user",
        content=content, ts=datetime(2024, 5, 1, tzinfo=UTC),
    )  # fmt: skip
    out = ExtractStep(HybridExtractor())(TriagedTurn(turn=t, reason="kept"))
    return [(c.predicate, c.object, c.retracts) for c in out if isinstance(c, CandidateFact)]


@pytest.mark.parametrize(
    "content",
    [
        "Oh, and please erase the stuff I told you about my address, "
        "I'd rather not have it stored.",
        "Und bitte vergiss alles, was ich dir über meine Schwester erzählt habe, "
        "das möchte ich nicht gespeichert haben.",
        "Au fait, ce que je t'ai dit sur le yoga, oublie-le, je préfère que tu ne le gardes pas.",
        "Y otra cosa: borra lo que te conté de mi novio, no quiero que lo guardes.",
        "Ah, e apaga o que eu te contei da minha gata, prefiro que não fique guardado.",
        "对了，关于爬山的那部分，请删掉，我不想你存着。",
    ],
)
def test_a_wish_not_to_keep_said_with_a_deletion_is_the_request(content: str) -> None:
    got = _extracted(content)
    assert [r for *_, r in got] and all(r for *_, r in got), got  # references only


def test_a_fact_said_beside_a_deletion_and_its_keep_wish_stays() -> None:
    got = _extracted(
        "Please delete what you know about my old address, I'd rather you not keep it. "
        "I live in Porto now."
    )
    kept = [o for _p, o, r in got if not r]
    assert any("Porto" in o for o in kept) and not any("keep" in o for o in kept), got
