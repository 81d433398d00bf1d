"""fold30 (issue 9, dedupe): a fact said again with a part added or left out folds into it.

- a word of continuing dates a time word of its clause ("我现在还是在上海上班": the "现在"
  is no change cue beside "还是"; "still living there these days");
- a restatement with its reason after it ("..., weil ...", "..., por razones ...") is read
  for the paraphrase fold without the reason (stages/resolve_restate.py);
- a value said again without its tail under its key ("Porto com a minha namorada" / "Porto");
- a comparative after its noun ("o meu irmão mais velho" / "mais novo") names another thing
  of the owner, as "my older brother" / "my younger brother" does.

Hard negatives in several languages stay apart: a change said with "now" and no word of
continuing, a time word in another clause than the "still", another name with a reason,
a change cue in the reason, another name after the head ("Porto Alegre"), the same brother
moving.
"""

from __future__ import annotations

import time

import pytest

from memgate.core.events import DecisionRecord, FactStatus, RedactedCandidate, Resolution
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_restate import without_reason, without_request
from tests.unit.stages.resolver_kit import CLOCK, USEM, cand, facts, minilm, resolve, statement

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm


def _apply(store: EmbeddedIndex, item: RedactedCandidate) -> tuple[Resolution, DecisionRecord]:
    resolver = Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM)
    return resolve(store, item, resolver)


def _active(store: EmbeddedIndex) -> dict[str, int]:
    return {v: f.occurrences for v, f in facts(store).items() if f.status is FactStatus.ACTIVE}


# ---------------------------------------------------------------- a word of continuing


@pytest.mark.parametrize(
    "text",
    [
        "我现在还是在上海上班",
        "Clara is still living in Lisbon these days",
        "Ich arbeite derzeit immer noch bei Bosch",
        "Je suis toujours chez Airbus en ce moment",
        "Ahora sigo viviendo en Sevilla",
        "Atualmente ainda moro no Porto",
    ],
)
def test_a_time_word_beside_a_word_of_continuing_is_no_change(text: str) -> None:
    assert not LEXICON.has_change_cue(text)


@pytest.mark.parametrize(
    "text",
    [
        "我现在在北京上班",  # "now" and no word of continuing: a change
        "I still like Porto, but now I live in Lyon",  # the "now" of another clause
        "Ich mag Köln immer noch, aber jetzt wohne ich in Bonn",
        "Sigo en Madrid pero ahora trabajo en otra empresa",
        "I still work there but I moved to the night shift",  # a change verb stays a cue
    ],
)
def test_a_change_stays_a_change(text: str) -> None:
    assert LEXICON.has_change_cue(text)


def test_still_there_now_folds_into_the_fact(store: EmbeddedIndex) -> None:
    _apply(store, statement("我在上海工作", days=0))
    res, _ = _apply(store, statement("我现在还是在上海上班", days=30))
    assert res.action.value == "DUPLICATE"
    assert _active(store) == {"我在上海工作": 2}


def test_now_somewhere_else_is_no_fold(store: EmbeddedIndex) -> None:
    _apply(store, statement("我在上海工作", days=0))
    res, _ = _apply(store, statement("我现在在北京上班", days=30))
    assert res.action.value != "DUPLICATE"
    assert "我现在在北京上班" in _active(store)


# ----------------------------------------------------------------- a reason added


def test_the_reason_is_cut_at_its_conjunction() -> None:
    assert without_reason("Nüsse vertrage ich nicht, weil ich Ausschlag bekomme") == (
        "Nüsse vertrage ich nicht"
    )
    assert without_reason("Je ne prends pas l'avion parce que j'ai peur") == (
        "Je ne prends pas l'avion"
    )
    assert without_reason("我不吃辣因为胃不好") == "我不吃辣"
    assert without_reason("Because I like it") is None  # no fact said before the reason
    assert without_reason("I drive to work") is None


@pytest.mark.parametrize(
    ("first", "again"),
    [
        (
            "Ich bin allergisch gegen Nüsse",
            "Nüsse vertrage ich überhaupt nicht, weil ich davon allergische Reaktionen bekomme",
        ),
        (
            "Ich fahre jeden Tag mit dem Zug zur Arbeit",
            "Mit dem Zug fahre ich täglich ins Büro, weil ich kein Auto habe",
        ),
    ],
)
def test_a_restatement_with_its_reason_folds(store: EmbeddedIndex, first: str, again: str) -> None:
    _apply(store, statement(first, days=0))
    res, dec = _apply(store, statement(again, days=30))
    assert (res.action.value, res.reason) == ("DUPLICATE", "paraphrase")
    assert str(dec.details["match"]).endswith("+reason")
    assert _active(store) == {first: 2}


@pytest.mark.parametrize(
    ("first", "again"),
    [
        # another thing with a reason: another fact
        (
            "Ich bin allergisch gegen Nüsse",
            "Erdbeeren vertrage ich überhaupt nicht, weil ich davon Ausschlag bekomme",
        ),
        # a change cue in the restatement: never a fold
        (
            "Ich bin allergisch gegen Nüsse",
            "Nüsse esse ich nicht mehr, weil ich davon allergische Reaktionen bekomme",
        ),
        # another thing in another word order, with its reason
        (
            "Ich fahre jeden Tag mit dem Zug zur Arbeit",
            "Mit dem Fahrrad fahre ich täglich ins Büro, weil ich kein Auto habe",
        ),
    ],
)
def test_another_fact_with_a_reason_stays_apart(
    store: EmbeddedIndex, first: str, again: str
) -> None:
    _apply(store, statement(first, days=0))
    res, _ = _apply(store, statement(again, days=30))
    assert res.action.value != "DUPLICATE"
    assert again in _active(store)  # a fact of its own (or the change it says)
    assert _active(store).get(first, 1) == 1


@pytest.mark.parametrize(
    ("first", "again", "person"),
    [
        ("Je ne mange pas de porc", "Ma sœur ne mange pas de porc", "user's sœur"),
        ("I don't eat pork at all", "My sister doesn't eat pork at all", "user's sister"),
        (
            "Ich esse kein Schweinefleisch",
            "Meine Mutter isst kein Schweinefleisch",
            "user's mutter",
        ),
    ],
)
def test_another_persons_fact_is_not_the_speakers_said_again(
    store: EmbeddedIndex, first: str, again: str, person: str
) -> None:
    _apply(store, statement(first, days=0))
    res, _ = _apply(store, statement(again, days=30, subject=person))
    assert res.action.value == "ADD"
    assert _active(store) == {first: 1, again: 1}


@pytest.mark.parametrize(
    ("first", "again"),
    [
        (
            "Ich fahre jeden Tag mit dem Zug zur Arbeit",
            "Mit dem Fahrrad fahre ich täglich ins Büro",
        ),
        ("Meine Schwester wohnt im Norden", "Im Süden wohnt meine Schwester"),
    ],
)
def test_a_noun_swapped_in_one_frame_stays_apart(
    store: EmbeddedIndex, first: str, again: str
) -> None:
    _apply(store, statement(first, days=0))
    res, _ = _apply(store, statement(again, days=30))
    assert res.action.value != "DUPLICATE"


def test_the_same_nouns_in_another_order_still_fold(store: EmbeddedIndex) -> None:
    first = "Ich fahre jeden Morgen mit dem Fahrrad zur Arbeit"
    _apply(store, statement(first, days=0))
    res, _ = _apply(store, statement("Zur Arbeit nehme ich morgens immer das Fahrrad", days=30))
    assert res.action.value == "DUPLICATE"
    assert _active(store) == {first: 2}


# ------------------------------------------------------------- a tail left out


def test_the_value_said_without_its_tail_folds(store: EmbeddedIndex) -> None:
    _apply(store, cand("Porto com a minha namorada", "lives_in", days=0))
    res, _ = _apply(store, cand("Porto", "lives_in", days=30))
    assert (res.action.value, res.reason) == ("DUPLICATE", "same_value")
    assert _active(store) == {"Porto com a minha namorada": 2}


@pytest.mark.parametrize(
    ("first", "again"),
    [("New York", "New"), ("Airbus in Toulouse", "Toulouse"), ("Lyon", "Lyon")],
)
def test_another_value_is_no_tail_left_out(store: EmbeddedIndex, first: str, again: str) -> None:
    from memgate.stages.resolve_restate import shortened_value

    _apply(store, cand(first, "lives_in", days=0))
    said = cand(again, "lives_in", days=30).candidate
    assert not shortened_value(facts(store)[first], said)
    assert not shortened_value(
        facts(store)[first], said.model_copy(update={"object": "Airbus, now in Toulouse"})
    )


# ------------------------------------------------------ a comparative after its noun


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("O meu irmão mais velho mora em Lisboa", "O meu irmão mais novo mora em Lisboa"),
        ("Mi hermano más joven vive en Sevilla", "Mi hermano más grande vive en Sevilla"),
    ],
)
def test_two_siblings_by_a_comparative_stay_apart(
    store: EmbeddedIndex, first: str, again: str
) -> None:
    _apply(store, cand(first, "lives_in", days=0))
    res, _ = _apply(store, cand(again, "lives_in", days=30))
    assert res.action.value == "ADD"
    assert _active(store) == {first: 1, again: 1}


def test_the_same_sibling_moving_still_supersedes(store: EmbeddedIndex) -> None:
    first = "O meu irmão mais velho mora em Lisboa"
    _apply(store, cand(first, "lives_in", days=0))
    res, _ = _apply(store, cand("O meu irmão mais velho mora agora no Porto", "lives_in", days=30))
    assert res.action.value == "SUPERSEDE"


# ---------------------------------------------------------------- a request after the fact
# req43: a restatement with a clause addressed to the assistant after it ("..., falls du
# mir Parkhäuser heraussuchst") is read for the paraphrase fold without that clause
# (``request_tails`` of memgate/data/restate.json); another value or a change cue with a
# request stays apart.


def test_the_request_clause_is_cut_in_six_languages() -> None:
    assert without_request("I'm allergic to cats, so please no pet-friendly hotels") == (
        "I'm allergic to cats"
    )
    assert without_request("Ich fahre einen Kombi, falls du mir Parkhäuser heraussuchst") == (
        "Ich fahre einen Kombi"
    )
    assert without_request("Je suis daltonien, garde ça en tête pour les graphiques") == (
        "Je suis daltonien"
    )
    assert without_request("Soy zurdo, tenlo en cuenta con las tijeras") == "Soy zurdo"
    assert without_request("Sou canhoto, lembra disso quando sugerir ferramentas") == (
        "Sou canhoto"
    )
    assert without_request("我是左撇子，推荐工具的时候注意一下") == "我是左撇子"
    # no request after the fact, or nothing said before it
    assert without_request("I'm allergic to cats, dogs are fine") is None
    assert without_request("Please, I'm allergic to cats") is None


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("Ich fahre einen Kombi", "Ich fahre einen Kombi, falls du mir Parkhäuser heraussuchst"),
        ("Mi editor es Neovim", "Trabajo con Neovim, así que nada de trucos de VS Code por favor"),
        ("Je travaille avec Django", "On est sur Django, donc pas de solution Node s'il te plaît"),
    ],
)
def test_a_restatement_with_a_request_folds(store: EmbeddedIndex, first: str, again: str) -> None:
    _apply(store, statement(first, days=0))
    res, dec = _apply(store, statement(again, days=30))
    assert (res.action.value, res.reason) == ("DUPLICATE", "paraphrase")
    assert str(dec.details["match"]).endswith("+reason")  # read without the request
    assert _active(store) == {first: 2}


@pytest.mark.parametrize(
    ("first", "again"),
    [
        # another value with a request
        (
            "Ich fahre einen Kombi",
            "Ich fahre einen Sportwagen, falls du mir Parkhäuser heraussuchst",
        ),
        # a change cue with a request: never a fold
        ("Soy zurdo", "Ya no soy zurdo, tenlo en cuenta con las tijeras"),
    ],
)
def test_another_value_or_a_change_with_a_request_stays_apart(
    store: EmbeddedIndex, first: str, again: str
) -> None:
    _apply(store, statement(first, days=0))
    res, _ = _apply(store, statement(again, days=30))
    assert res.action.value != "DUPLICATE"


def test_a_long_text_of_separators_stays_linear() -> None:
    started = time.perf_counter()
    for text in (",," * 50_000, "a, " * 40_000 + "please", "x" * 100_000 + ", please"):
        without_request(text)
    assert time.perf_counter() - started < 3.0
