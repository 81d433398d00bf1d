"""Changes that look like repeats and repeats that look like changes (issue 9, dev4).

Each test names the structural reading it proves: a near-duplicate that swaps one value
for another is a change, two things of the speaker never update each other, and the
change verbs and move verbs of the lexicons are read in every supported language.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus, FactType
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages import resolve_slots
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.statement_text import family
from tests.unit.stages.resolver_kit import apply, cand, facts

INVOICES = "I'd like my invoices and the shop receipts emailed to the billing team {}"
TARIFF = (
    "My electricity tariff with the city utility in Bremen has been the Flex {} plan for a"
    " year and I pay it monthly by direct debit from my savings account"
)


def test_a_near_repeat_with_another_value_is_not_counted_as_a_repeat(store: EmbeddedIndex) -> None:
    """The hashing embedder puts the two sentences at cosine 0.93, above the near-duplicate
    bar (one word of fourteen differs); the swapped value makes the second a statement of
    its own, not a second occurrence of the first."""
    first, second = INVOICES.format("monthly"), INVOICES.format("quarterly")
    apply(store, cand(first, "likes", days=0, multi=True))
    res, _ = apply(store, cand(second, "likes", days=30, multi=True))
    assert res.action.value != "DUPLICATE"
    got = facts(store)
    assert got[first].occurrences == 1 and second in got


def test_a_near_repeat_with_another_name_under_the_same_key_supersedes(
    store: EmbeddedIndex,
) -> None:
    """Cosine 0.96 with the hashing embedder: a repeat by similarity, a change by its name."""
    old, new = TARIFF.format("30"), TARIFF.format("50")
    apply(store, cand(old, "plan", days=0))
    res, _ = apply(store, cand(new, "plan", days=30))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "new_value")
    got = facts(store)
    assert got[old].status is FactStatus.SUPERSEDED
    assert got[new].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("a", "b", "swapped"),
    [
        (
            "Please send my parcels to the Camden pickup point",
            "Please send my parcels to the Islington pickup point from now on",
            True,
        ),
        ("Meu plano de internet é de 100 megas", "Meu plano de internet é de 500 megas", True),
        (
            "I prefer tabs over spaces",
            "For indentation I always want tabs rather than spaces",
            False,
        ),
        ("We run production on Kubernetes", "Our production runs on Kubernetes", False),
        ("I'm allergic to peanuts", "Peanuts are a no-go for me, I have an allergy", False),
        (
            "Je préfère être contacté par e-mail",
            "Je préfère être contacté par e-mail, merci",
            False,
        ),
    ],
)
def test_substitution_is_one_value_swapped_in_the_same_frame(a: str, b: str, swapped: bool) -> None:
    assert resolve_slots.substitution(a, b) is swapped


def test_a_new_thing_of_the_team_does_not_update_another_thing(store: EmbeddedIndex) -> None:
    """A change cue ("neues") and a shared word ("geschrieben") made the admin tool's stack
    supersede the customer portal's: two possessed nouns with no word in common are two
    things."""
    old = "Unser Kundenportal ist in React geschrieben"
    apply(store, cand(old, "stack", days=0, subject="team's kundenportal"))
    res, _ = apply(
        store,
        cand(
            "Unser neues Admin-Tool ist in Vue geschrieben",
            "stack",
            days=30,
            subject="team's neues admin-tool",
        ),
    )
    assert res.action.value == "ADD"
    assert facts(store)[old].status is FactStatus.ACTIVE


def test_the_same_thing_said_new_still_updates(store: EmbeddedIndex) -> None:
    old = "Unser Paketmanager ist npm"
    apply(store, cand(old, "statement", days=0, subject="team's paketmanager", multi=True))
    res, _ = apply(
        store,
        cand(
            "Unser neuer Paketmanager ist pnpm",
            "statement",
            days=30,
            subject="team's neuer paketmanager",
            multi=True,
        ),
    )
    assert res.action.value == "SUPERSEDE"
    assert facts(store)[old].status is FactStatus.SUPERSEDED


@pytest.mark.parametrize(
    "text",
    [
        "We relocated the office last spring",
        "Wir haben das Budget erhöht",
        "J'ai augmenté mon forfait",
        "Me trasladé a Bilbao por trabajo",
        "Aumentei meu plano de internet",
        "我们把代码仓库迁到了 Gitee",
        "今年我调到杭州工作了",
    ],
)
def test_change_verbs_in_six_languages_are_change_cues(text: str) -> None:
    assert LEXICON.has_change_cue(text)


@pytest.mark.parametrize(
    "text",
    [
        "I've settled in Vancouver since April",
        "Desde o mês passado estou morando em Recife",
        "Hace dos meses me trasladé a Bilbao por trabajo",
        "Nous avons emménagé à Lyon",
        "我已经在成都定居了",
    ],
)
def test_moves_in_other_words_are_the_home_family(text: str) -> None:
    assert family(text) == "lives_in"
    fam = LEXICON.family("statement", text)
    assert fam is not None and fam.name == "lives_in"


def test_a_move_in_other_words_supersedes_the_home_city(store: EmbeddedIndex) -> None:
    apply(store, cand("Belo Horizonte", "lives_in", days=0))
    moved = "Desde o mês passado estou morando em Recife"
    res, _ = apply(store, cand(moved, "lives_in", days=30))
    assert res.action.value == "SUPERSEDE"
    got = facts(store)
    assert got["Belo Horizonte"].status is FactStatus.SUPERSEDED
    assert got[moved].status is FactStatus.ACTIVE and got[moved].type is FactType.FACT


def test_settling_in_a_city_is_a_move_not_a_decision() -> None:
    from memgate.core.events import TurnEvent
    from memgate.stages.statements import HybridExtractor

    turn = TurnEvent(
        tenant_id="t",
        user_id="u",
        session_id="s",
        turn_id="1",
        role="user",
        content="I've settled in Vancouver since April, the mountains are amazing.",
        ts="2024-05-20T19:00:00Z",
    )
    got = [(f.predicate, f.object) for f in HybridExtractor().extract(turn)]
    assert got and all(p != "decided" for p, _ in got)
    assert any(p == "lives_in" and "Vancouver" in o for p, o in got)
