"""One thing said twice in one turn (issue 9, dedupe, dedupe27): a turn that names two
values of one single-valued key ("je ne mange pas de viande : je suis végétarienne") is a
restatement, not a change from its first reading to its second. The fact the second
reading names stays (or is again) the one current fact, counted once for the turn; a
change said with a cue, a change said in a later turn and the values of a multi-valued
family are untouched."""

from __future__ import annotations

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from tests.unit.stages.resolver_kit import apply, cand, facts


def _active(store: EmbeddedIndex) -> list[str]:
    return sorted(v for v, f in facts(store).items() if f.status is FactStatus.ACTIVE)


def test_the_second_reading_of_a_turn_keeps_the_fact_it_names(store: EmbeddedIndex) -> None:
    apply(store, cand("végétarienne", "diet", days=0))
    apply(store, cand("pas de viande", "diet", days=14))  # the turn's first reading
    res, _ = apply(store, cand("végétarienne", "diet", days=14))  # its second
    assert (res.action.value, res.reason) == ("DUPLICATE", "said_twice")
    got = facts(store)
    assert _active(store) == ["végétarienne"]
    assert got["végétarienne"].occurrences == 2
    assert got["végétarienne"].source_turn_ids == ["t0", "t14"]
    assert got["pas de viande"].status is FactStatus.SUPERSEDED
    assert got["pas de viande"].superseded_by == got["végétarienne"].fact_id


def test_the_turn_delivered_again_changes_nothing(store: EmbeddedIndex) -> None:
    apply(store, cand("vegetarian", "diet", days=0))
    apply(store, cand("no meat", "diet", days=14))
    apply(store, cand("vegetarian", "diet", days=14))
    before = {v: (f.status, f.occurrences) for v, f in facts(store).items()}
    for value in ("no meat", "vegetarian"):  # a redelivery of the whole turn
        res, _ = apply(store, cand(value, "diet", days=14))
        assert res.reason == "redelivered" and res.writes == []
    assert {v: (f.status, f.occurrences) for v, f in facts(store).items()} == before


def test_a_second_value_after_the_fold_of_the_first_adds_nothing(store: EmbeddedIndex) -> None:
    apply(store, cand("vegetarian", "diet", days=0))
    apply(store, cand("vegetarian", "diet", days=14))  # the turn says the fact again first
    res, _ = apply(store, cand("no meat", "diet", days=14))
    assert (res.action.value, res.reason, res.writes) == ("DUPLICATE", "said_twice", [])
    assert _active(store) == ["vegetarian"]
    assert facts(store)["vegetarian"].occurrences == 2
    assert "no meat" not in facts(store)


def test_a_change_in_a_later_turn_still_supersedes(store: EmbeddedIndex) -> None:
    apply(store, cand("Paris", "lives_in", days=0))
    res, _ = apply(store, cand("Lyon", "lives_in", days=14))  # "I moved to Lyon"
    assert res.action.value == "SUPERSEDE"
    assert _active(store) == ["Lyon"]
    assert facts(store)["Paris"].status is FactStatus.SUPERSEDED


def test_a_second_reading_with_a_change_cue_is_a_change(store: EmbeddedIndex) -> None:
    apply(store, cand("vegetarian", "diet", days=0))
    apply(store, cand("vegetarian", "diet", days=14))
    res, _ = apply(store, cand("now vegan", "diet", days=14))  # "..., but now vegan"
    assert res.action.value == "SUPERSEDE"
    assert _active(store) == ["now vegan"]


def test_two_values_of_a_multi_valued_family_in_one_turn_both_stay(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("French", "speaks_language", days=0, multi=True))
    apply(store, cand("German", "speaks_language", days=0, multi=True))  # one turn, both
    assert _active(store) == ["French", "German"]
