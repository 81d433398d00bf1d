"""A single-valued fact changed in new words (issue 9, supersede29): the slot named
differently (a car, a cloud provider: families of memgate/data/resolution.json), a move
said by someone else's verb ("me pasaron al equipo de X": change cues of being moved), a
recurring time slot given another activity (stages/resolve_recurring.py).

Hard negatives: a value added ("aussi"), another day, the same activity said again,
two facts of one day, another person's car.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus, StoredFact
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.resolve_recurring import RECURRING, recurring_target
from tests.unit.stages.resolver_kit import apply_change, changed, statement, status


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("I drive a Honda Civic", "My car is a Kia Ceed now"),
        ("Je conduis une Clio", "Maintenant ma voiture c'est une Tesla Model 3"),
        ("Ich fahre einen Golf", "Mein Auto ist jetzt ein Skoda Fabia"),
        ("Our cloud provider is Google Cloud", "We moved everything over to Azure this spring"),
        ("Nosso provedor de nuvem é a AWS", "Agora estamos no Google Cloud"),
    ],
)
def test_a_slot_named_differently_is_one_slot(store: EmbeddedIndex, stored: str, said: str) -> None:
    changed(store, stored, said)


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("Trabajo en el equipo de Backend", "Me cambiaron al equipo de Datos"),
        ("Estou na equipe de Vendas", "Me passaram para a equipe de Suporte"),
    ],
)
def test_being_moved_by_someone_is_a_change(store: EmbeddedIndex, stored: str, said: str) -> None:
    changed(store, stored, said)


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("Le mardi soir je joue au badminton", "Maintenant le mardi soir je fais du théâtre"),
        ("Los domingos por la mañana hago yoga", "Ahora los domingos por la mañana salgo en bici"),
        ("Mittwochs gehe ich zum Chor", "Mittwochs spiele ich jetzt Tischtennis"),
        ("我每周三晚上打羽毛球", "现在周三晚上我去学游泳"),
    ],
)
def test_a_recurring_time_slot_given_another_activity(
    store: EmbeddedIndex, stored: str, said: str
) -> None:
    changed(store, stored, said)


def test_the_time_slot_is_read_in_six_languages() -> None:
    assert RECURRING.slot("On Thursday evenings I go bouldering") == ({3}, {2})
    assert RECURRING.slot("Samstags vormittags gehe ich schwimmen") == ({5}, {0})
    assert RECURRING.slot("Às quintas à noite faço pilates") == ({3}, {2})
    assert RECURRING.slot("每周六早上跑步") == ({5}, {0})
    assert RECURRING.slot("I go bouldering") == (set(), set())


def test_another_day_or_an_added_activity_supersede_nothing(store: EmbeddedIndex) -> None:
    stored = "Le mardi soir je joue au badminton"
    apply_change(store, statement(stored, days=0))
    res, _ = apply_change(store, statement("Maintenant le jeudi soir je fais du théâtre", days=7))
    assert res.action.value == "ADD"
    res, _ = apply_change(
        store, statement("Le mardi soir je fais aussi du théâtre maintenant", days=9)
    )
    assert res.action.value != "SUPERSEDE"
    assert status(store, stored) is FactStatus.ACTIVE


def _fact(value: str) -> StoredFact:
    return StoredFact.model_construct(subject="user", predicate="statement", value=value)


def test_the_one_fact_of_the_slot_with_another_activity() -> None:
    tennis, market = (
        _fact("Le samedi matin je fais du tennis"),
        _fact("Le samedi matin je vais au marché"),
    )
    said = "Maintenant le samedi matin je dors"
    assert recurring_target(said, [tennis, _fact("Le dimanche matin je cours")]) is tennis
    assert recurring_target(said, [tennis, market]) is None  # two facts of the slot
    assert recurring_target(said, [_fact("Le samedi soir je danse")]) is None  # another part
    # the same activity said again is no change
    assert recurring_target("Le samedi matin je fais toujours du tennis", [tennis]) is None
    assert recurring_target("Maintenant je dors", [tennis]) is None  # no day named


def test_another_persons_car_is_not_mine(store: EmbeddedIndex) -> None:
    apply_change(store, statement("I drive a Honda Civic", days=0))
    said = "My sister's car is a Fiat Panda now"
    res, _ = apply_change(store, statement(said, days=14, subject="user's sister"))
    assert res.action.value == "ADD"
    assert status(store, "I drive a Honda Civic") is FactStatus.ACTIVE
