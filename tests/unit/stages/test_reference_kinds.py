"""A deletion or retraction by a broader word ("forget what I said about beverages")
reaches the one fact a word of which the topic is the kind of (stages/reference_kinds.py);
never an unrelated fact, never two facts the topic is near alike, never another user's."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus, RedactedCandidate
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.reference_kinds import named_by_kind
from tests.unit.stages.resolver_kit import CLOCK, USEM, cand, facts, minilm, ref, resolve

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm

OTHERS = ["I work as a nurse", "My sister lives in Lisbon", "I play badminton on Tuesdays"]
OTHERS_DE = ["Ich arbeite als Krankenpfleger", "Meine Schwester wohnt in Lissabon"]
OTHERS_FR = ["Je travaille comme infirmière", "Ma sœur habite à Lisbonne"]


def _apply(store: EmbeddedIndex, item: RedactedCandidate) -> str:
    _, dec = resolve(store, item, Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM))
    return dec.reason


def _said(store: EmbeddedIndex, values: list[str], user: str = "u1") -> None:
    for i, v in enumerate(values):
        _apply(store, cand(v, "statement", days=i, multi=True, user=user))


@pytest.mark.parametrize(
    ("topic", "member", "others", "op", "reason"),
    [
        ("seafood", "I'm allergic to shrimp", OTHERS, "delete", "deletion_requested"),
        ("Meeresfrüchte", "Ich bin allergisch gegen Garnelen", OTHERS_DE, "delete",
         "deletion_requested"),
        ("fruits de mer", "Je suis allergique aux crevettes", OTHERS_FR, "retract",
         "retracted_by_reference"),
    ],
)  # fmt: skip
def test_a_topic_by_a_broader_word_reaches_its_member(
    store: EmbeddedIndex, topic: str, member: str, others: list[str], op: str, reason: str
) -> None:
    _said(store, [member, *others])
    assert _apply(store, ref(topic, op, days=30)) == reason
    got = facts(store)
    assert member not in got or got[member].status is FactStatus.SUPERSEDED
    assert all(got[v].status is FactStatus.ACTIVE for v in others)


def test_a_topic_near_no_fact_erases_nothing(store: EmbeddedIndex) -> None:
    # "gardening" is nearest to "nurse" (0.51), but not apart enough from the next fact
    _said(store, OTHERS)
    assert _apply(store, ref("gardening", "delete", days=30)) == "nothing_referenced"
    assert all(f.status is FactStatus.ACTIVE for f in facts(store).values())


def test_a_topic_near_two_facts_alike_names_neither(store: EmbeddedIndex) -> None:
    # "beverages" is near the "drink" of both alike: which one is meant is unknown
    _said(store, ["I drink espresso every morning", "I drink green tea at night"])
    assert _apply(store, ref("beverages", "delete", days=30)) == "nothing_referenced"
    assert all(f.status is FactStatus.ACTIVE for f in facts(store).values())


def test_another_users_fact_is_not_reached(store: EmbeddedIndex) -> None:
    _said(store, ["I'm allergic to shrimp"], user="u2")
    _said(store, OTHERS)
    assert _apply(store, ref("seafood", "delete", days=30)) == "nothing_referenced"
    assert facts(store, user="u2")["I'm allergic to shrimp"].status is FactStatus.ACTIVE


def test_a_long_topic_is_no_kind(store: EmbeddedIndex) -> None:
    _said(store, ["I'm allergic to shrimp"])
    c = ref("what I told you about the seafood place", "delete", days=30).candidate
    assert named_by_kind(c, store, USEM) == []


def test_without_usem_no_kind_is_read(store: EmbeddedIndex) -> None:
    _said(store, ["I'm allergic to shrimp"])
    assert named_by_kind(ref("seafood", "delete", days=30).candidate, store, None) == []
