"""Repeat by reference (issue 9, dedupe, dd24): a candidate the speaker said is a repeat
(``repeats``) folds into the active fact of the same owner it repeats, at a lower bar than
an unmarked restatement; never another person's fact, another user's or tenant's, a fact of
the other polarity or another value; with nothing to repeat it is stored as a first saying."""

from __future__ import annotations

from memgate.core.events import DecisionRecord, FactStatus, RedactedCandidate, Resolution
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from tests.unit.stages.resolver_kit import minilm, resolve
from tests.unit.stages.test_resolve_semantic import CLOCK, cand, facts

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm


def apply(store: EmbeddedIndex, item: RedactedCandidate) -> tuple[Resolution, DecisionRecord]:
    return resolve(store, item, Resolver(preset("balanced"), minilm(), clock=CLOCK))


def _repeat(item: RedactedCandidate) -> RedactedCandidate:
    c = item.candidate.model_copy(update={"repeats": True})
    return item.model_copy(update={"candidate": c})


_FIRST = ("Tomasz", "name_is", "user's partner")
_AGAIN = "Tomasz is my partner, we have been together six years"


def test_a_repeat_folds_into_the_fact_it_repeats(store: EmbeddedIndex) -> None:
    obj, pred, subj = _FIRST
    apply(store, cand(obj, pred, days=0, subject=subj))
    res, dec = apply(store, _repeat(cand(_AGAIN, "statement", days=14, multi=True)))
    assert (res.action.value, res.reason) == ("DUPLICATE", "repeat")
    assert dec.details["match"] == "repeat:anchors"
    got = facts(store)
    assert _AGAIN not in got
    assert got["Tomasz"].occurrences == 2
    assert got["Tomasz"].status is FactStatus.ACTIVE


def test_the_same_sentence_unmarked_is_a_second_fact(store: EmbeddedIndex) -> None:
    """The lower bar is the speaker's marker: without it the pair is not folded."""
    obj, pred, subj = _FIRST
    apply(store, cand(obj, pred, days=0, subject=subj))
    res, _ = apply(store, cand(_AGAIN, "statement", days=14, multi=True))
    assert res.action.value == "ADD"
    assert facts(store)["Tomasz"].occurrences == 1


def test_a_repeat_with_nothing_stored_is_a_first_saying(store: EmbeddedIndex) -> None:
    res, _ = apply(store, _repeat(cand(_AGAIN, "statement", days=14, multi=True)))
    assert res.action.value == "ADD"
    assert facts(store)[_AGAIN].status is FactStatus.ACTIVE


def test_another_users_fact_is_never_repeated(store: EmbeddedIndex) -> None:
    obj, pred, subj = _FIRST
    apply(store, cand(obj, pred, days=0, subject=subj, user="u2"))
    res, _ = apply(store, _repeat(cand(_AGAIN, "statement", days=14, multi=True)))
    assert res.action.value == "ADD"
    assert facts(store, user="u2")["Tomasz"].occurrences == 1


def test_another_tenants_fact_is_never_repeated(store: EmbeddedIndex) -> None:
    obj, pred, subj = _FIRST
    apply(store, cand(obj, pred, days=0, subject=subj, tenant="other"))
    res, _ = apply(store, _repeat(cand(_AGAIN, "statement", days=14, multi=True)))
    assert res.action.value == "ADD"


def test_another_persons_fact_is_never_repeated(store: EmbeddedIndex) -> None:
    """The stored fact is the sister's; the repeat names the partner."""
    apply(store, cand("Tomasz", "name_is", days=0, subject="user's sister"))
    res, _ = apply(store, _repeat(cand(_AGAIN, "statement", days=14, multi=True)))
    assert res.action.value == "ADD"
    assert facts(store)["Tomasz"].occurrences == 1


def test_a_repeat_of_the_other_polarity_is_not_folded(store: EmbeddedIndex) -> None:
    apply(store, cand("I eat meat every day at lunch", "statement", days=0, multi=True))
    res, _ = apply(
        store, _repeat(cand("I never eat meat at lunch", "statement", days=14, multi=True))
    )
    assert res.action.value == "ADD"


def test_a_repeat_naming_another_value_is_not_folded(store: EmbeddedIndex) -> None:
    """The stored fact's name is not said again: another thing, whatever the marker."""
    apply(store, cand("Our CI runs on GitLab", "statement", days=0, subject="team", multi=True))
    res, _ = apply(
        store,
        _repeat(cand("Our CI runs on Jenkins", "statement", days=14, subject="team", multi=True)),
    )
    assert res.reason != "repeat"
    assert facts(store)["Our CI runs on GitLab"].occurrences == 1


def test_a_repeat_with_a_change_cue_is_no_repeat(store: EmbeddedIndex) -> None:
    apply(store, cand("Our CI runs on GitLab", "statement", days=0, subject="team", multi=True))
    res, _ = apply(
        store,
        _repeat(
            cand("Our CI now runs on GitLab", "statement", days=14, subject="team", multi=True)
        ),
    )
    assert res.reason != "repeat"


def test_a_repeat_delivered_twice_counts_once(store: EmbeddedIndex) -> None:
    obj, pred, subj = _FIRST
    apply(store, cand(obj, pred, days=0, subject=subj))
    again = _repeat(cand(_AGAIN, "statement", days=14, multi=True))
    apply(store, again)
    res, _ = apply(store, again)
    assert (res.action.value, res.reason) == ("DUPLICATE", "redelivered")
    assert facts(store)["Tomasz"].occurrences == 2
