"""slotmask (stages/resolve_slotmask.py): a change in new words found by the statement with
its values masked (the frame) and by the values alone, on the real usem vectors.

The statement vectors are the hashing embedder's (words, not meaning), so no other rule of
the resolver reads these pairs as one slot: with slotmask off each change is a new fact.
"""

from __future__ import annotations

import pytest

from memgate.core.events import (
    DecisionRecord,
    FactType,
    RedactedCandidate,
    Resolution,
    StoredFact,
)
from memgate.core.settings import Settings
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolve_slotmask import (
    SLOT_BARS,
    fact_slot,
    slot_mask_target,
    statement_slot,
)
from tests.unit.stages.resolver_kit import CLOCK, EMB, USEM, facts, resolve
from tests.unit.stages.resolver_kit import statement as cand


def apply(
    store: EmbeddedIndex, item: RedactedCandidate, *, slotmask: bool
) -> tuple[Resolution, DecisionRecord]:
    resolver = Resolver(preset("balanced"), EMB, clock=CLOCK, meaning=USEM, slotmask=slotmask)
    return resolve(store, item, resolver)


def test_a_statement_is_read_as_a_frame_and_its_values() -> None:
    car = statement_slot("Traded in the old one, my car is a Mazda 3 now.")
    assert car is not None
    assert (car.frame, car.value) == ("Traded in the old one, my car is a X now.", "Mazda 3")
    assert car.names == {"mazda", "3"}
    # the first word is no name; two names apart are two values
    two = statement_slot("Priya left; I now report to Daniel Osei and Ana.")
    assert two is not None
    assert (two.frame, two.value) == ("Priya left; I now report to X and X.", "Daniel Osei Ana")
    # a Latin name inside Chinese text is a value of its own
    zh = statement_slot("我们现在用GitLab")
    assert zh is not None and (zh.frame, zh.value) == ("我们现在用 X", "GitLab")
    assert statement_slot("Mon sport, c'est la natation.") is None


def test_a_typed_fact_is_read_as_its_slot_and_value() -> None:
    f = StoredFact.model_construct(
        subject="user's boyfriend", predicate="name_is", value="Felipe", type=FactType.FACT
    )
    slot = fact_slot(f)
    assert slot is not None and (slot.frame, slot.value) == ("boyfriend name is X", "Felipe")
    m = f.model_copy(update={"subject": "user", "predicate": "contact:manager", "value": "Priya"})
    slot = fact_slot(m)
    assert slot is not None and slot.frame == "contact manager X"


def test_the_two_similarities_on_real_vectors() -> None:
    """The same frame and two values of one kind are near; two values of two kinds not."""
    old = statement_slot("I drive a Toyota Corolla.")
    new = statement_slot("Traded in the old one, my car is a Mazda 3 now.")
    assert old is not None and new is not None
    assert USEM.similarity(old.frame, new.frame) >= SLOT_BARS.frame
    assert USEM.similarity(old.value, new.value) >= SLOT_BARS.value
    # a manager and a partner: two people of two roles, far as values of one slot
    mgr = statement_slot("My manager is Priya Raman.")
    partner = statement_slot("My partner is now Tomasz.")
    assert mgr is not None and partner is not None
    assert USEM.similarity(mgr.value, partner.value) < SLOT_BARS.value


@pytest.mark.parametrize("slotmask", [False, True])
def test_a_change_in_another_language_supersedes(store: EmbeddedIndex, slotmask: bool) -> None:
    apply(
        store,
        cand("Felipe", days=0, predicate="name_is", subject="user's boyfriend"),
        slotmask=slotmask,
    )
    res, dec = apply(store, cand("Agora estou namorando o Rafael.", days=14), slotmask=slotmask)
    if not slotmask:  # the decision made without slotmask: a second fact
        assert (res.action.value, res.reason) == ("ADD", "new_key")
        assert facts(store)["Felipe"].status.value == "active"
        return
    assert (res.action.value, res.reason) == ("SUPERSEDE", "semantic_update")
    assert str(dec.details["match"]).startswith("slotmask:frame=")
    assert facts(store)["Felipe"].status.value == "superseded"


def test_a_change_of_car_in_another_language_supersedes(store: EmbeddedIndex) -> None:
    apply(store, cand("I drive a Toyota Corolla.", days=0), slotmask=True)
    res, _ = apply(store, cand("Agora meu carro é um Mazda 3.", days=9), slotmask=True)
    assert (res.action.value, res.reason) == ("SUPERSEDE", "semantic_update")
    assert facts(store)["I drive a Toyota Corolla."].status.value == "superseded"


def test_two_english_texts_are_not_asked(store: EmbeddedIndex) -> None:
    """MiniLM reads English (``english_pairs`` false, as for every use of usem). (A car
    is a family since supersede29, which finds its change: a bicycle is none.)"""
    apply(store, cand("I ride a Brompton.", days=0), slotmask=True)
    res, _ = apply(
        store, cand("Sold the old one, my bike is a Tern Verge now.", days=9), slotmask=True
    )
    assert res.action.value == "ADD"
    assert facts(store)["I ride a Brompton."].status.value == "active"


def test_another_slot_of_the_same_kind_is_not_superseded(store: EmbeddedIndex) -> None:
    apply(store, cand("My manager is Priya Raman.", days=0), slotmask=True)
    res, _ = apply(store, cand("Mein Partner ist jetzt Tomasz.", days=9), slotmask=True)
    assert res.action.value == "ADD"
    assert facts(store)["My manager is Priya Raman."].status.value == "active"


def test_the_same_value_said_again_is_no_change(store: EmbeddedIndex) -> None:
    """Asked directly (other rules may fold or supersede a restatement first): the same
    value in the same frame is no change, another value is."""
    apply(store, cand("I drive a Toyota Corolla.", days=0), slotmask=False)
    same = cand("Agora meu carro é um Toyota Corolla.", days=9).candidate
    assert slot_mask_target(same, "k", store, USEM) is None
    other = cand("Agora meu carro é um Mazda 3.", days=9).candidate
    hit = slot_mask_target(other, "k", store, USEM)
    assert hit is not None and hit.fact.value == "I drive a Toyota Corolla."
    assert slot_mask_target(other, "k", store, None) is None  # usem off: not asked


def test_the_setting_is_on_by_default() -> None:
    """On in the settings (so in every pipeline the settings build); a Resolver made by
    hand asks it only when told, as it asks usem only when given a Meaning."""
    assert Settings().resolution_slotmask == "on"
    assert Resolver(preset("balanced"), EMB).slotmask is False


def test_another_persons_change_is_not_the_owners(store: EmbeddedIndex) -> None:
    """The sister's move leaves the user's city; the user's move leaves the sister's."""
    apply(store, cand("Leeds", days=0, predicate="lives_in"), slotmask=True)
    sister = cand("Meine Schwester wohnt jetzt in Glasgow.", days=9, subject="user's sister")
    assert slot_mask_target(sister.candidate, "k", store, USEM) is None
    apply(store, sister, slotmask=True)
    assert facts(store)["Leeds"].status.value == "active"
    apply(store, cand("My sister lives in Oslo.", days=10), slotmask=False)
    moved = cand("Ich wohne jetzt in Berlin.", days=12).candidate
    hit = slot_mask_target(moved, "k", store, USEM)
    assert hit is None or hit.fact.value != "My sister lives in Oslo."
