"""Episodes the hybrid extractor says with the turn's sentence (issue 12): resolution
reads them as sentences. The helpers are the resolution tests' kit (resolver_kit); the
``store`` fixture is this folder's conftest."""

from __future__ import annotations

from memgate.core.events import FactStatus, FactType, RedactedCandidate
from memgate.sinks.embedded import EmbeddedIndex
from tests.unit.stages.resolver_kit import apply, cand, facts


def test_a_change_naming_a_word_of_an_episode_said_whole_does_not_replace_it(
    store: EmbeddedIndex,
) -> None:
    """An episode the hybrid extractor says with the turn's sentence (predicate ``event``,
    issue 12) is a sentence: its anchors are its names, not every word of it, as when it
    was stored under ``statement``; a later change naming one of its words is no new
    value of it."""

    def hybrid(item: RedactedCandidate) -> RedactedCandidate:
        c = item.candidate.model_copy(update={"extractor": "hybrid"})
        return item.model_copy(update={"candidate": c})

    episode = "Yesterday I went to the dentist"
    apply(store, hybrid(cand(episode, "event", days=0, type_=FactType.EVENT, multi=True)))
    change = cand("I switched to a new dentist in town", "statement", days=3, multi=True)
    said = "I switched to a new dentist in town."
    ctx = change.candidate.model_copy(update={"context": said})
    res, _ = apply(store, hybrid(change.model_copy(update={"candidate": ctx})))
    assert res.action.value != "SUPERSEDE", res.reason
    assert facts(store)[episode].status is FactStatus.ACTIVE
