"""A restatement names the owner's thing in another language or a name by a part of it
(issue 9, dedupe and confirmation, dedupe27): "Oui, mon chien s'appelle toujours Rex" after
"user's dog name_is Rex" (the ``things`` of ``memgate/data/paraphrase.json``), "I still
drive the Corolla" after "I drive a Toyota Corolla" (a run of adjacent names said by a part
of it). Both fold into the stored fact; another thing ("mon chat"), another name in the
run's place ("Toyota Yaris") and another person's fact stay apart."""

from __future__ import annotations

from memgate.core.events import DecisionRecord, FactStatus, RedactedCandidate, Resolution
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolve_paraphrase import FOLD
from tests.unit.stages.resolver_kit import CLOCK, cand, facts, minilm, resolve

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm


def _apply(store: EmbeddedIndex, item: RedactedCandidate) -> tuple[Resolution, DecisionRecord]:
    return resolve(store, item, Resolver(preset("balanced"), minilm(), clock=CLOCK))


def _hybrid(item: RedactedCandidate) -> RedactedCandidate:
    """As the hybrid extractor says it: a typed value of many words is its sentence."""
    c = item.candidate.model_copy(update={"extractor": "hybrid"})
    return item.model_copy(update={"candidate": c})


def _active(store: EmbeddedIndex) -> list[str]:
    return sorted(v for v, f in facts(store).items() if f.status is FactStatus.ACTIVE)


def test_one_thing_in_six_languages() -> None:
    for noun in ("hund", "chien", "perro", "cão", "狗"):
        assert FOLD.same_thing("dog", noun)
    assert FOLD.same_thing("backend", "backend")
    assert not FOLD.same_thing("dog", "chat")
    assert not FOLD.same_thing("", "dog")


def test_the_owners_thing_named_in_another_language_folds(store: EmbeddedIndex) -> None:
    _apply(store, cand("Rex", "name_is", days=0, subject="user's dog"))
    again = "mon chien s'appelle toujours Rex"
    res, _ = _apply(store, cand(again, days=14, subject="user's chien", multi=True))
    assert (res.action.value, res.reason) == ("DUPLICATE", "paraphrase")
    assert again not in facts(store)
    assert facts(store)["Rex"].occurrences == 2


def test_another_thing_of_the_owner_stays_apart(store: EmbeddedIndex) -> None:
    _apply(store, cand("Rex", "name_is", days=0, subject="user's dog"))
    other = "mon chat s'appelle Rex aussi"
    res, _ = _apply(store, cand(other, days=14, subject="user's chat", multi=True))
    assert res.action.value == "ADD"
    assert _active(store) == sorted(["Rex", other])


def test_a_name_said_by_a_part_of_it_folds(store: EmbeddedIndex) -> None:
    _apply(store, cand("I drive a Toyota Corolla", days=0, multi=True))
    res, dec = _apply(store, cand("I still drive the Corolla", days=14, multi=True))
    assert (res.action.value, res.reason) == ("DUPLICATE", "paraphrase")
    assert dec.details["match"] == "paraphrase:anchors"
    assert _active(store) == ["I drive a Toyota Corolla"]
    assert facts(store)["I drive a Toyota Corolla"].occurrences == 2


def test_another_name_in_the_runs_place_is_another_value(store: EmbeddedIndex) -> None:
    _apply(store, cand("I drive a Toyota Corolla", days=0, multi=True))
    res, _ = _apply(store, cand("I drive a Toyota Yaris", days=14, multi=True))
    assert res.reason != "paraphrase"
    assert "I drive a Toyota Yaris" in facts(store)
    assert facts(store)["I drive a Toyota Corolla"].occurrences == 1


def test_the_thing_said_without_its_owner_folds_into_the_owners(store: EmbeddedIndex) -> None:
    stack = cand("Our backend is written in Rust", "stack", days=0, subject="team's backend")
    _apply(store, _hybrid(stack))
    again = "the backend is still Rust"
    res, _ = _apply(store, cand(again, days=14, subject="backend", multi=True))
    assert (res.action.value, res.reason) == ("DUPLICATE", "paraphrase")
    assert again not in facts(store)
    assert facts(store)["Our backend is written in Rust"].occurrences == 2


def test_a_thing_without_owner_folds_into_no_other_fact(store: EmbeddedIndex) -> None:
    stack = cand("Our backend is written in Rust", "stack", days=0, subject="team's backend")
    _apply(store, _hybrid(stack))
    _apply(store, cand("I write Rust at home", days=1, multi=True))
    other = "the frontend is Rust too"
    res, _ = _apply(store, cand(other, days=14, subject="frontend", multi=True))
    assert res.action.value == "ADD"
    swapped = "the backend is Go"
    res, _ = _apply(store, cand(swapped, days=15, subject="backend", multi=True))
    assert res.reason != "paraphrase"
    assert {other, swapped} <= set(facts(store))
    assert facts(store)["I write Rust at home"].occurrences == 1


def test_two_tastes_with_no_name_stay_two(store: EmbeddedIndex) -> None:
    """The words of a typed value with no capital are no name to be said by a part of it
    ("love hiking" / "also love rock climbing": two things loved)."""
    _apply(store, _hybrid(cand("I love hiking", "likes", days=0, multi=True)))
    res, _ = _apply(store, _hybrid(cand("I also love rock climbing", "likes", days=1, multi=True)))
    assert res.action.value == "ADD"
    assert _active(store) == ["I also love rock climbing", "I love hiking"]
