"""A change verb with the changed thing between the verb and the new value (issue 9,
dev2 d2-asof-pt-plano class): "mudei minha assinatura para anual", "I switched my plan to
the yearly one". The possessed object is a word class of the frame, not a phrase."""

from __future__ import annotations

import pytest

from memgate.stages.slot_frames import frame_probability, says_change


@pytest.mark.parametrize(
    "said",
    [
        "Mudei minha assinatura para anual",
        "I switched my plan to the yearly one",
        "Cambié mi tarifa a la nocturna",
        "J'ai passé mon abonnement à l'offre annuelle",
        "Ich habe meinen Tarif auf Flex L umgestellt",
    ],
)
def test_a_change_of_a_possessed_thing_is_a_change_frame(said: str) -> None:
    assert says_change(said)
    assert frame_probability(said, 0.1) >= 0.9


@pytest.mark.parametrize(
    "said",
    ["I changed my mind", "Switch the light off", "Mudei de ideia", "I moved my car yesterday"],
)
def test_no_new_value_no_change_frame(said: str) -> None:
    assert not says_change(said)
