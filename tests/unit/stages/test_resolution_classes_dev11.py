"""Issue 9, by word class and frame (development file scenarios_dev11.jsonl): more words of
the manager family ("Teamleiter"), the usual airline as one slot of the traveller, a
deletion request whose memory verb follows its pronoun ("o que você guardou"), a common noun
after a determiner is no name in a German clause ("mein Getränk", "unsere Deployments")."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.references import find_references
from tests.unit.stages.resolver_kit import apply, cand, facts

# ------------------------------------------------------------ supersede


@pytest.mark.parametrize(
    ("old", "subject", "new"),
    [
        ("Mein Teamleiter ist Herr Krause", "user's teamleiter", "Neue Chefin: Frau Yilmaz"),
        ("Meine Teamleiterin ist Frau Roth", "user's teamleiterin", "Neuer Chef: Herr Brandt"),
        ("My team lead is Sam", "user's team lead", "My new manager is Alex"),
    ],
)
def test_a_new_boss_replaces_the_team_lead(
    store: EmbeddedIndex, old: str, subject: str, new: str
) -> None:
    apply(store, cand(old, "statement", days=0, subject=subject, multi=True))
    res, dec = apply(store, cand(new, "statement", days=30, multi=True))
    assert res.action.value == "SUPERSEDE", dec.reason
    assert facts(store)[old].status is FactStatus.SUPERSEDED


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I usually fly with British Airways", "These days I fly Emirates for everything"),
        ("Ich fliege meistens mit Lufthansa", "Inzwischen fliege ich nur noch mit Condor"),
        ("Je voyage toujours avec Air France", "Maintenant je prends surtout Transavia"),
    ],
)
def test_the_usual_airline_is_one_slot(store: EmbeddedIndex, old: str, new: str) -> None:
    apply(store, cand(old, "statement", days=0, multi=True))
    res, dec = apply(store, cand(new, "statement", days=30, multi=True))
    assert res.action.value == "SUPERSEDE", dec.reason
    assert facts(store)[old].status is FactStatus.SUPERSEDED


def test_a_flight_and_a_city_are_not_the_airline(store: EmbeddedIndex) -> None:
    old = "I usually fly with British Airways"
    apply(store, cand(old, "statement", days=0, multi=True))
    res, _ = apply(store, cand("I live in Leeds now", "statement", days=30, multi=True))
    assert facts(store)[old].status is FactStatus.ACTIVE
    assert res.action.value != "SUPERSEDE"


# ------------------------------------------------------------ deletion


@pytest.mark.parametrize(
    ("sentence", "topic"),
    [
        ("Apaga o que você guardou sobre a nossa documentação.", "nossa documentação"),
        ("Apague tudo o que você salvou sobre o meu carro.", "meu carro"),
        ("Borra lo que has guardado sobre mi coche.", "mi coche"),
    ],
)
def test_a_deletion_request_with_its_pronoun_before_the_memory_verb(
    sentence: str, topic: str
) -> None:
    refs = find_references(sentence)
    assert [r.op for r in refs] == ["delete"]
    assert topic in refs[0].topic.lower()


# ------------------------------------------------------------ dedupe


def test_a_german_noun_after_a_determiner_is_no_name() -> None:
    from memgate.stages.resolve_paraphrase import FOLD

    got = FOLD.common_nouns("Grüner Tee ist jeden Morgen mein Getränk")
    assert got == {"morgen", "getränk"}
    assert FOLD.common_nouns("Für unsere Deployments nutzen wir Argo CD") == {"deployments"}
    assert FOLD.common_nouns("Wir sind bei der AOK und nutzen unser McFit") == set()


def _names_agree(store: EmbeddedIndex, first: str, again: str) -> bool:
    """The names check of paraphrase folding between a stored sentence and a new one."""
    from memgate.stages.resolve_paraphrase import FOLD, _same_names
    from memgate.stages.resolve_slots import anchors

    apply(store, cand(first, "statement", days=0, multi=True))
    f = facts(store)[first]
    c = cand(again, "statement", days=30, multi=True).candidate
    return _same_names(
        anchors(f.value, sentence=True), anchors(c.object, sentence=True), f, c, FOLD
    )


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("Morgens trinke ich immer grünen Tee", "Grüner Tee ist jeden Morgen mein Getränk"),
        ("Wir deployen mit Argo CD", "Für unsere Deployments nutzen wir Argo CD"),
    ],
)
def test_a_german_restatement_with_more_nouns_names_the_same(
    store: EmbeddedIndex, first: str, again: str
) -> None:
    assert _names_agree(store, first, again)


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("Wir deployen mit Argo CD", "Für unsere Deployments nutzen wir Flux CD"),
        ("Morgens trinke ich immer grünen Tee", "Morgens trinke ich immer einen Kaffee"),
        ("Wir nutzen die Datenbank Postgres", "Unsere Datenbank ist MySQL"),
    ],
)
def test_another_name_with_german_nouns_is_another_value(
    store: EmbeddedIndex, first: str, again: str
) -> None:
    assert not _names_agree(store, first, again)


# ------------------------------------------------------------ noise


@pytest.mark.parametrize(
    "text",
    [
        "Ugh, barely slept last night, I'm running on fumes today.",
        "Hab heute kaum geschlafen, ich bin total neben der Spur.",
        "Mon vol a deux heures de retard, je suis coincé à Roissy.",
        "El tren va con retraso y estoy atrapada en la estación.",
        "Meu voo atrasou e estou preso no aeroporto.",
        "Bit of a headache today, so go easy on me.",
        "航班延误了，我被困在机场。",
    ],
)
def test_a_night_without_sleep_or_a_delay_is_the_moment(text: str) -> None:
    from memgate.stages.moment import moment_reason
    from memgate.stages.statement_text import split_statements

    assert moment_reason(split_statements(text)) == "moment"


@pytest.mark.parametrize(
    "text",
    [
        "I always sleep badly in hotels, so book me quiet rooms.",
        "I'm a pilot at Lufthansa.",
        "Our flights to Lisbon are always with TAP.",
        "Je suis souvent en retard le lundi.",
    ],
)
def test_durable_sentences_about_sleep_or_flights_are_not_the_moment(text: str) -> None:
    from memgate.stages.moment import moment_reason
    from memgate.stages.statement_text import split_statements

    assert moment_reason(split_statements(text)) is None


# ------------------------------------------------------------ deletion by a topic word


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("Ich trainiere im McFit", "mein Fitnessstudio"),
        ("I work out at PureGym most mornings", "my gym"),
        ("Treino na Smart Fit", "a minha academia"),
        ("Entreno en un Basic-Fit cerca de casa", "mi gimnasio"),
    ],
)
def test_a_gym_topic_reaches_where_the_user_trains(
    store: EmbeddedIndex, said: str, topic: str
) -> None:
    from tests.unit.stages.resolver_kit import ref

    apply(store, cand(said, "statement", days=0, multi=True))
    apply(store, cand("Ich spiele Bratsche", "statement", days=1, multi=True))
    res, dec = apply(store, ref(topic, "delete", days=30))
    assert res.action.value == "SUPERSEDE", dec.reason
    got = facts(store)
    assert said not in got or got[said].status is not FactStatus.ACTIVE
    assert got["Ich spiele Bratsche"].status is FactStatus.ACTIVE


# ------------------------------------------------------------ confirmation


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("C'est vérifié, notre région AWS est bien eu-west-3.", "notre région AWS est bien"),
        ("It's verified: staging runs MySQL 8.", "staging runs MySQL 8."),
        ("Está verificado: la caché es Redis.", "la caché es Redis."),
        ("Ist geprüft: unser Cloud-Anbieter ist Azure.", "unser Cloud-Anbieter ist Azure."),
    ],
)
def test_a_verified_opening_with_its_copula_confirms(text: str, rest: str) -> None:
    from memgate.stages.statement_text import without_confirmation_leads

    got, checked = without_confirmation_leads(text)
    assert checked
    assert got.startswith(rest)


def test_a_sentence_opened_by_a_check_is_read_after_it() -> None:
    """ "C'est vérifié, ..." opens with a pronoun: the sentence is not a comment on
    something said before, its statement after the opening is kept as confirmed."""
    from datetime import UTC, datetime

    from memgate.core.events import TurnEvent
    from memgate.stages.statements import HybridExtractor

    turn = TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="x", role="user",
        content="C'est vérifié, notre région AWS est bien eu-west-3.",
        ts=datetime(2024, 5, 3, tzinfo=UTC),
    )  # fmt: skip
    found = HybridExtractor().extract(turn)
    assert [c.object for c in found] == ["notre région AWS est bien eu-west-3"]
    assert all(c.confirmed for c in found)


def test_a_german_noun_after_a_quantifier_is_no_name(store: EmbeddedIndex) -> None:
    from memgate.stages.resolve_paraphrase import FOLD

    said = "Von allen Gerichten mag ich Käsespätzle am liebsten"
    assert FOLD.common_nouns(said) == {"gerichten"}
    assert _names_agree(store, "Mein Lieblingsessen ist Käsespätzle", said)


# ------------------------------------------------------------ dedupe: a person named again


@pytest.mark.parametrize(
    ("subject", "name", "again"),
    [
        ("user's daughter", "Beatriz", "A Beatriz é a minha filha"),
        ("user's sister", "Anna", "Anna is my sister"),
        ("user's son", "Lukas", "Lukas ist mein Sohn"),
    ],
)
def test_a_person_named_again_with_the_speaker_as_subject_folds(
    store: EmbeddedIndex, subject: str, name: str, again: str
) -> None:
    apply(store, cand(name, "name_is", days=0, subject=subject))
    res, dec = apply(store, cand(again, "statement", days=30, multi=True))
    assert res.action.value == "DUPLICATE", dec.reason
    assert facts(store)[name].occurrences == 2


@pytest.mark.parametrize(
    ("subject", "name", "again"),
    [
        ("user's sister", "Anna", "Anna is my colleague"),
        ("user's daughter", "Beatriz", "Beatriz is my son's teacher"),
        ("user's sister", "Anna", "Clara is my sister"),
    ],
)
def test_another_person_or_another_name_stays_apart(
    store: EmbeddedIndex, subject: str, name: str, again: str
) -> None:
    apply(store, cand(name, "name_is", days=0, subject=subject))
    res, _ = apply(store, cand(again, "statement", days=30, multi=True))
    assert res.action.value != "DUPLICATE"
