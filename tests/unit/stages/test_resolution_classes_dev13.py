"""Issue 9, by word class and frame (development file scenarios_dev13.jsonl): restatements
read by their words (fillers of agreement and frequency left out, words of one concept
counted as one, German common nouns that are no names, habits typed as instructions),
with the hard negatives that must stay two facts."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from memgate.core.events import FactStatus, FactType, Resolution, Role, TurnEvent, normalise
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.keep_model import KeepModel
from memgate.stages.policy import preset
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_paraphrase import FOLD, _shared_terms
from memgate.stages.statement_text import subject_of, without_agreement_lead
from memgate.stages.statements import HybridExtractor, kept_statements
from tests.unit.stages.resolver_kit import CLOCK, EMB, apply, cand, facts

# ------------------------------------------------------------ dedupe by words


@pytest.mark.parametrize(
    ("first", "first_type", "again", "again_type"),
    [
        # German nouns after a contracted article are common nouns, not names; agreement
        # ("Stimmt") and frequency ("täglich", "jeden Tag") say nothing of the fact
        (
            "Ich fahre jeden Tag mit dem Fahrrad zur Arbeit", FactType.FACT,
            "Stimmt, ich fahre täglich mit dem Fahrrad ins Büro", FactType.FACT,
        ),
        # a habit the extractor typed as an instruction ("immer") is the fact said again
        (
            "Ich trinke meinen Kaffee schwarz", FactType.FACT,
            "Kaffee trinke ich immer schwarz, ganz ohne Milch", FactType.INSTRUCTION,
        ),
        # two words of one concept (answering) in two verbs
        (
            "que me respondas en español", FactType.PREFERENCE,
            "Contéstame siempre en español, por favor", FactType.INSTRUCTION,
        ),
        (
            "Je vais au travail à vélo", FactType.FACT,
            "Pour aller au bureau, je prends toujours mon vélo", FactType.INSTRUCTION,
        ),
    ],
)  # fmt: skip
def test_a_restatement_in_other_words_of_one_concept_folds(
    store: EmbeddedIndex, first: str, first_type: FactType, again: str, again_type: FactType
) -> None:
    apply(store, cand(first, "statement", days=0, multi=True, type_=first_type))
    res, dec = apply(store, cand(again, "statement", days=30, multi=True, type_=again_type))
    assert res.action.value == "DUPLICATE", dec.reason
    assert facts(store)[first].occurrences == 2


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("Ich arbeite dienstags im Büro", "Ich arbeite donnerstags im Homeoffice"),
        ("Ich trinke meinen Kaffee schwarz", "Ich trinke meinen Tee schwarz"),
        ("Ich fahre mit dem Fahrrad zur Arbeit", "Ich fahre mit dem Fahrrad zur Uni"),
        ("Je vais au bureau en métro", "Je vais au bureau à pied"),
        ("Juego al pádel los martes", "Juego al tenis los jueves"),
    ],
)
def test_another_value_among_common_nouns_and_concepts_stays_apart(
    store: EmbeddedIndex, first: str, again: str
) -> None:
    apply(store, cand(first, "statement", days=0, multi=True))
    res, _ = apply(store, cand(again, "statement", days=30, multi=True))
    assert res.action.value != "DUPLICATE"
    assert facts(store)[first].occurrences == 1


def test_a_term_of_the_other_side_answers_one_term_only() -> None:
    # "arbeit" answers "arbeit"; "büro" (the same concept) finds no second workplace word
    assert _shared_terms({"arbeit", "dienst", "büro"}, {"arbeit", "donner", "homeof"}) == 1
    assert _shared_terms({"arbeit", "fahrra"}, {"büro", "fahrra"}) == 2


def test_fillers_and_short_words_are_no_content() -> None:
    assert FOLD.content({"stimmt", "täglic", "fahrra", "au", "zur"}) == {"fahrra"}
    assert FOLD.concept("büro") == FOLD.concept("travai") is not None


# ------------------------------------------------------------ families in any form


@pytest.mark.parametrize(
    ("said", "family"),
    [
        ("Seit April habe ich einen neuen Vorgesetzten, Herrn Schulz", "manager"),
        ("Unsere Chefinnen sind Anna und Eva", "manager"),
        ("Tengo nuevos jefes desde enero", "manager"),
        ("Toda nuestra infraestructura está en AWS", "deploy"),
        ("我家在杭州", "lives_in"),
    ],
)
def test_a_family_noun_in_another_form_names_its_family(said: str, family: str) -> None:
    fam = LEXICON.family("statement", said)
    assert fam is not None and fam.name == family


@pytest.mark.parametrize(
    "said",
    [
        "I do gymnastics on Sundays",  # "gym": no ending, and no stem of another word
        "I got noticed by fashion editors last week",  # a tool family does not inflect
        "Education and infrastructure shape our community",  # infrastructure in English
    ],
)
def test_words_of_no_family_name_none(said: str) -> None:
    assert LEXICON.family("statement", said) is None


def test_a_new_superior_in_the_accusative_supersedes_the_boss(store: EmbeddedIndex) -> None:
    old = "Meine Chefin ist Frau Weber"
    apply(store, cand(old, "statement", days=0, multi=True, subject="user's chefin"))
    new = "Seit April habe ich einen neuen Vorgesetzten, Herrn Schulz"
    res, dec = apply(store, cand(new, "statement", days=30, multi=True))
    assert res.action.value == "SUPERSEDE", dec.reason
    assert facts(store)[old].status is FactStatus.SUPERSEDED


def test_the_whole_infrastructure_on_a_host_is_the_deployment_said_again(
    store: EmbeddedIndex,
) -> None:
    first = "AWS"
    apply(store, cand(first, "deploys_with", days=0, subject="team"))
    again = "Toda nuestra infraestructura está en AWS"
    res, dec = apply(store, cand(again, "statement", days=30, multi=True, subject="team"))
    assert res.action.value == "DUPLICATE", dec.reason
    assert facts(store)[first].occurrences == 2


# ------------------------------------------------------------ Chinese: the value in a family


@pytest.mark.parametrize(("again", "folds"), [("我家在杭州", True), ("我家在上海", False)])
def test_a_chinese_restatement_in_the_family_folds_on_its_value(
    store: EmbeddedIndex, again: str, folds: bool
) -> None:
    apply(store, cand("我住在杭州", "lives_in", days=0))
    res, dec = apply(store, cand(again, "statement", days=30, multi=True))
    assert (res.action.value == "DUPLICATE") is folds, dec.reason
    assert facts(store)["我住在杭州"].occurrences == (2 if folds else 1)


# ------------------------------------------------------------ implied updates


def test_a_new_workplace_makes_the_manager_need_confirmation(store: EmbeddedIndex) -> None:
    apply(store, cand("我在阿里巴巴工作", "statement", days=0, multi=True))
    apply(store, cand("我的领导是王强", "statement", days=1, multi=True, subject="user's 领导"))
    res, dec = apply(store, cand("现在在腾讯上班", "statement", days=30, multi=True))
    assert res.action.value == "SUPERSEDE", dec.reason
    got = facts(store)
    assert got["我在阿里巴巴工作"].status is FactStatus.SUPERSEDED
    assert got["我的领导是王强"].status is FactStatus.PENDING


# ------------------------------------------------------------ a repeat opened by agreement


@pytest.mark.parametrize(
    ("said", "rest"),
    [
        ("Isso mesmo, continuo usando o VS Code como editor.", "continuo usando o VS Code"),
        ("Oui voilà, on surveille tout avec Grafana.", "on surveille tout avec Grafana"),
        ("Genau, wir schreiben alles in Confluence.", "wir schreiben alles in Confluence"),
        ("没错，我们组一直用飞书。", "我们组一直用飞书"),
    ],
)
def test_an_opening_of_agreement_is_cut_and_the_fact_after_it_kept(said: str, rest: str) -> None:
    assert without_agreement_lead(said).startswith(rest)
    kept = kept_statements(said, KeepModel.load())
    assert kept, "the fact after the agreement is kept"
    facts_ = HybridExtractor().extract(_turn(said))
    assert any(f.object.startswith(rest) for f in facts_), [f.object for f in facts_]


@pytest.mark.parametrize(
    "said", ["Yesterday I left early.", "Isso não é verdade.", "对面的餐厅很好吃。", "Yes"]
)
def test_a_word_of_agreement_without_a_pause_is_no_opening(said: str) -> None:
    assert without_agreement_lead(said) == said


def test_the_monitoring_tool_said_again_with_its_verb_folds(store: EmbeddedIndex) -> None:
    first = "Notre outil de supervision, c'est Grafana"
    apply(store, cand(first, "statement", days=0, multi=True, subject="team"))
    again = "on surveille tout avec Grafana"
    res, dec = apply(store, cand(again, "statement", days=30, multi=True, subject="team"))
    assert res.action.value == "DUPLICATE", dec.reason
    assert facts(store)[first].occurrences == 2


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        turn_id="t1",
        role=Role.USER,
        content=text,
        ts=datetime(2024, 5, 1, tzinfo=UTC),
    )


# ------------------------------------------------------------ English by words


@pytest.mark.parametrize(
    ("first", "first_type", "again", "again_type", "folds"),
    [
        # every content term of the smaller side said again (a seat is sat in)
        ("I always book a window seat", FactType.INSTRUCTION,
         "sitting by the window", FactType.PREFERENCE, True),
        ("I bike to work every day", FactType.FACT,
         "I cycle to the office daily", FactType.FACT, True),
        # one term of two swapped: another value
        ("I prefer aisle seats", FactType.PREFERENCE,
         "I prefer window seats", FactType.PREFERENCE, False),
        ("I usually take the train to work", FactType.FACT,
         "I usually take the bus to work", FactType.FACT, False),
        ("I work from home on Fridays", FactType.FACT,
         "I work from the office on Mondays", FactType.FACT, False),
    ],
)  # fmt: skip
def test_two_english_sides_fold_by_words_only_when_every_term_is_said_again(
    store: EmbeddedIndex,
    first: str,
    first_type: FactType,
    again: str,
    again_type: FactType,
    folds: bool,
) -> None:
    apply(store, cand(first, "statement", days=0, multi=True, type_=first_type))
    res, dec = apply(store, cand(again, "statement", days=30, multi=True, type_=again_type))
    assert (res.action.value == "DUPLICATE") is folds, dec.reason


# ------------------------------------------------------------ one name, one or two slots


def test_the_same_name_with_a_word_of_one_concept_is_one_slot(store: EmbeddedIndex) -> None:
    first = "Mein Lieblingsessen ist Käsespätzle"
    apply(store, cand(first, "statement", days=0, multi=True, subject="user's lieblingsessen"))
    again = "Von allen Gerichten mag ich Käsespätzle am liebsten"
    res, dec = apply(
        store, cand(again, "statement", days=30, multi=True, type_=FactType.PREFERENCE)
    )
    assert res.action.value == "DUPLICATE", dec.reason
    assert facts(store)[first].occurrences == 2


@pytest.mark.parametrize(
    ("first", "predicate", "again"),
    [
        ("Berlin", "lives_in", "Ich arbeite in Berlin"),
        ("Lisbon", "lives_in", "I work in Lisbon"),
    ],
)
def test_one_place_in_two_single_valued_slots_is_two_facts(
    store: EmbeddedIndex, first: str, predicate: str, again: str
) -> None:
    """However near in meaning (a cosine of 0.75: above the fold band, below a near
    duplicate): the home city and the workplace are two slots, one name in each is two
    facts."""
    apply(store, cand(first, predicate, days=0))
    stored = facts(store)[first]
    assert stored.embedding is not None
    vec = _at_cosine(np.asarray(stored.embedding, dtype=np.float32), 0.75)
    item = cand(again, "statement", days=30, multi=True)
    out = Resolver(preset("balanced"), EMB, clock=CLOCK).resolve(item, store, vec)
    res = next(e for e in out if isinstance(e, Resolution))
    assert res.action.value != "DUPLICATE", res.reason


def _at_cosine(unit: np.ndarray, cos: float) -> np.ndarray:
    """A unit vector at cosine ``cos`` from ``unit``."""
    other = np.zeros_like(unit)
    other[int(np.argmin(np.abs(unit)))] = 1.0
    other -= float(np.dot(other, unit)) * unit
    other /= np.linalg.norm(other)
    return (cos * unit + np.sqrt(1 - cos * cos) * other).astype(np.float32)


@pytest.mark.parametrize(
    ("doctor", "owner"),
    [
        ("Meine Hausärztin ist Dr. Albers", "user's hausärztin"),
        ("Mon médecin traitant est le Dr Morel", "user's médecin traitant"),
        ("My GP is Dr. Shah", "user's gp"),
    ],
)
def test_a_move_makes_the_family_doctor_need_confirmation(
    store: EmbeddedIndex, doctor: str, owner: str
) -> None:
    apply(store, cand("Köln", "lives_in", days=0))
    apply(store, cand(doctor, "statement", days=1, multi=True, subject=owner))
    res, dec = apply(store, cand("München", "lives_in", days=30))
    assert res.action.value == "SUPERSEDE", dec.reason
    assert facts(store)[doctor].status is FactStatus.PENDING


@pytest.mark.parametrize(
    ("first", "again", "folds"),
    [
        ("Mi hija estudia medicina en Sevilla", "Mi hijo estudia derecho en Sevilla", False),
        ("My daughter works at Siemens", "My son works at Siemens", False),
        ("My manager is Priya", "Priya is my boss", True),
    ],
)
def test_two_persons_of_the_speaker_are_two_facts_however_near(
    store: EmbeddedIndex, first: str, again: str, folds: bool
) -> None:
    """Each statement names a person noun and none the other's (nor one role's): two
    people, even with one name in common and a cosine above the fold band."""
    apply(store, cand(first, "statement", days=0, multi=True))
    stored = facts(store)[first]
    assert stored.embedding is not None
    vec = _at_cosine(np.asarray(stored.embedding, dtype=np.float32), 0.75)
    item = cand(again, "statement", days=30, multi=True)
    out = Resolver(preset("balanced"), EMB, clock=CLOCK).resolve(item, store, vec)
    res = next(e for e in out if isinstance(e, Resolution))
    assert (res.action.value == "DUPLICATE") is folds, res.reason


# ------------------------------------------------------------ Chinese "we"


@pytest.mark.parametrize(
    ("said", "subject"),
    [
        ("我们用Jenkins做持续集成", "team"),
        ("我们已经不用Gitee了，代码全部迁到了GitHub", "team"),
        ("我住在杭州", "user"),
        ("我和我们团队都用Slack", "user"),
    ],
)
def test_chinese_we_is_the_team_though_it_holds_i(said: str, subject: str) -> None:
    assert subject_of(said) == subject


@pytest.mark.parametrize(
    ("said", "subject"),
    [
        ("Ahora la base de datos es PostgreSQL", "base de datos"),
        ("Now the team uses Linear", "team"),
        ("El equipo usa Jira", "team"),
        ("现在我们用GitHub", "team"),
        ("Nowhere is better than home", "nowhere"),
        ("Time is money", "time"),
    ],
)
def test_a_word_of_the_present_before_the_subject_is_passed_over(said: str, subject: str) -> None:
    assert subject_of(said) == subject


# ------------------------------------------------------------ the family's noun said bare


def test_a_tool_family_noun_said_bare_is_the_speakers_thing(store: EmbeddedIndex) -> None:
    old = "Nuestra base de datos es MySQL"
    apply(store, cand(old, "statement", days=0, multi=True, subject="team's base de datos"))
    new = "Ahora la base de datos es PostgreSQL"
    res, dec = apply(store, cand(new, "statement", days=30, multi=True, subject="base de datos"))
    assert res.action.value == "SUPERSEDE", dec.reason
    assert facts(store)[old].status is FactStatus.SUPERSEDED


@pytest.mark.parametrize("subject", ["analytics database", "base de datos de staging"])
def test_a_qualified_thing_is_no_bare_family_noun(subject: str) -> None:
    fam = LEXICON.family("statement", f"The {subject} is ClickHouse")
    assert fam is not None
    assert LEXICON.owner(subject, fam) == normalise(subject)


@pytest.mark.parametrize(
    ("value", "nouns"),
    [
        ("Lufthansa ist meine bevorzugte Airline", {"airline"}),  # an adjective between
        ("mein neuer Chef Tom", {"chef"}),  # the name after the noun stays a name
        ("ich nutze einen alten MacBook", set()),  # another capital: a name
    ],
)
def test_a_german_noun_after_a_determiner_and_its_adjectives_is_no_name(
    value: str, nouns: set[str]
) -> None:
    assert FOLD.common_nouns(value) == nouns
