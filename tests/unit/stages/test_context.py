"""Source context: chosen from the turn, bounded, masked, searched, never deciding dedupe."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memgate.core.embedding import HashingEmbedder
from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    FactType,
    RedactedCandidate,
    RedactionAction,
    RedactionResult,
    Resolution,
    Role,
    TriagedTurn,
    TurnEvent,
)
from memgate.core.stores import SearchQuery
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.context import source_context, with_context
from memgate.stages.dedupe import Resolver
from memgate.stages.detectors import Detector
from memgate.stages.extract import RuleExtractor
from memgate.stages.persist import plan
from memgate.stages.policy import preset
from memgate.stages.redact import Redactor
from memgate.streams.pipeline import ExtractStep

TS = datetime(2024, 5, 1, tzinfo=UTC)


def cand(obj: str, context: str = "", n: int = 0, predicate: str = "event") -> CandidateFact:
    return CandidateFact(
        candidate_id=f"c{n}",
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        type=FactType.EVENT,
        subject="user",
        predicate=predicate,
        object=obj,
        confidence=0.9,
        source_turn_ids=[f"t{n}"],
        extractor="test",
        extractor_version="1",
        turn_ts=TS,
        context=context,
    )


LONG = (
    "Morning! "
    "Last weekend I finally ran the Lisbon half marathon with my sister. "
    "The course went along the river and past the old tram depot. "
    "My knees are sore but it was worth it. "
    "Next I want to try a trail race in the mountains near Sintra. "
    "Anyway, how was your week?"
)


def test_a_short_turn_is_kept_whole() -> None:
    turn = "I went to a support group yesterday. It was so powerful!"
    assert source_context(turn, "went to a support group", 320) == turn


def test_the_anchor_is_the_sentence_sharing_most_words_with_the_value() -> None:
    got = source_context(LONG, "a trail race in the mountains", 70)
    assert got == "Next I want to try a trail race in the mountains near Sintra."


def test_neighbours_widen_the_anchor_within_the_budget() -> None:
    got = source_context(LONG, "ran the Lisbon half marathon", 140)
    assert "Lisbon half marathon" in got
    assert "tram depot" in got  # the sentence after
    assert len(got) <= 140
    assert "how was your week" not in got


def test_an_anchor_longer_than_the_budget_is_cut_at_a_word() -> None:
    got = source_context(LONG, "ran the Lisbon half marathon with my sister", 30)
    assert len(got) <= 30
    assert got == "Last weekend I finally ran the"


def test_zero_budget_means_no_context() -> None:
    assert source_context(LONG, "marathon", 0) == ""
    [c] = with_context(LONG, [cand("ran a marathon")], 0)
    assert c.context == ""


def test_with_context_keeps_what_the_extractor_set() -> None:
    mine, other = with_context(LONG, [cand("x", context="given"), cand("ran the marathon", n=1)])
    assert mine.context == "given"
    assert "marathon" in other.context


@given(st.text(max_size=600), st.text(max_size=40), st.integers(min_value=1, max_value=500))
def test_context_is_bounded_and_made_of_the_turns_words(turn: str, value: str, budget: int) -> None:
    got = source_context(turn, value, budget)
    assert len(got) <= budget
    assert set(got.split()) <= set(turn.split()) | {w for w in got.split() if w in turn}


def test_the_extract_step_attaches_context_to_every_fact() -> None:
    turn = TurnEvent(
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        turn_id="t1",
        role=Role.USER,
        content="I switched to neovim last month. The plugin ecosystem is much better.",
        ts=TS,
    )
    step = ExtractStep(extractor=RuleExtractor())
    out = step(TriagedTurn(turn=turn, reason="durable"))
    facts = [e for e in out if isinstance(e, CandidateFact)]
    assert facts
    assert all(f.context == turn.content for f in facts)
    no_ctx = ExtractStep(extractor=RuleExtractor(), context_chars=0)
    facts = [
        e for e in no_ctx(TriagedTurn(turn=turn, reason="durable")) if isinstance(e, CandidateFact)
    ]
    assert facts and all(f.context == "" for f in facts)


# -- redaction -----------------------------------------------------------------------


REDACT = Redactor(detector=Detector())


def test_context_is_masked_without_changing_the_verdict() -> None:
    ctx = (
        "I went to a support group yesterday. Mail me at jane.doe@example.com, "
        "my therapist says it helps."
    )
    out = REDACT(cand("went to a support group", context=ctx))
    [rc] = [e for e in out if isinstance(e, RedactedCandidate)]
    [dec] = [e for e in out if isinstance(e, DecisionRecord)]
    assert rc.redaction.action is RedactionAction.CLEAN  # the fact itself is clean
    assert rc.candidate.object == "went to a support group"
    assert "jane.doe" not in rc.candidate.context
    assert "therapist" not in rc.candidate.context
    assert "[EMAIL]" in rc.candidate.context
    assert "[HEALTH]" in rc.candidate.context
    assert dec.details["context.email"] == 1
    assert dec.details["context.health"] == 1


def test_a_credential_in_the_context_is_masked_and_the_fact_kept() -> None:
    key = "sk-ant-api03-" + "Qw7" * 14 + "AA"
    out = REDACT(cand("moved to Lisbon", context=f"I moved to Lisbon. The key is {key}"))
    [rc] = [e for e in out if isinstance(e, RedactedCandidate)]
    assert key not in rc.candidate.context
    assert "Lisbon" in rc.candidate.context


def test_a_rejected_fact_is_rejected_whatever_its_context() -> None:
    out = REDACT(cand("my card 4111 1111 1111 1111", context="my card 4111 1111 1111 1111"))
    assert not [e for e in out if isinstance(e, RedactedCandidate)]


# -- dedupe and retrieval ------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> EmbeddedIndex:
    return EmbeddedIndex(tmp_path / "r.sqlite3", dim=HashingEmbedder().dim)


def _apply(r: Resolver, store: EmbeddedIndex, c: CandidateFact) -> Resolution:
    item = RedactedCandidate(candidate=c, redaction=RedactionResult(action=RedactionAction.CLEAN))
    res = next(e for e in r(item, store) if isinstance(e, Resolution))
    p = plan(res)
    if p.facts:
        store.upsert(p.facts, wait=True)
    return res


def test_stored_facts_keep_their_context_and_are_found_by_it(store: EmbeddedIndex) -> None:
    emb = HashingEmbedder()
    r = Resolver(preset("balanced"), emb)
    ctx = "I went to a support group yesterday. It met in the community library."
    res = _apply(r, store, cand("went to a support group", context=ctx))
    assert res.action.value == "ADD"
    [f] = store.list_facts("acme", "u1")
    assert f.context == ctx
    assert f.search_text.endswith(ctx)
    assert f.embedding == pytest.approx(emb.embed([f.text])[0].tolist(), abs=1e-6)
    assert f.search_embedding == pytest.approx(emb.embed([f.search_text])[0].tolist(), abs=1e-6)
    q = SearchQuery(tenant_id="acme", user_id="u1", text="library")
    [hit] = store.search(q, emb.embed(["library"])[0])
    assert hit.fact.fact_id == f.fact_id
    assert hit.bm25_rank == 1


def test_two_facts_of_one_turn_are_not_duplicates_because_they_share_context(
    store: EmbeddedIndex,
) -> None:
    r = Resolver(preset("balanced"), HashingEmbedder())
    ctx = "I adopted a dog named Rex and started learning the cello."
    a = _apply(r, store, cand("adopted a dog named Rex", context=ctx, predicate="pet"))
    b = _apply(r, store, cand("the cello", context=ctx, n=1, predicate="learning"))
    assert (a.action.value, b.action.value) == ("ADD", "ADD")
    assert len(store.list_facts("acme", "u1")) == 2


def test_the_same_fact_in_another_context_is_a_duplicate(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), HashingEmbedder())
    _apply(r, store, cand("neovim", context="I use neovim at work.", predicate="editor"))
    res = _apply(
        r, store, cand("neovim", context="Still on neovim, love it.", n=1, predicate="editor")
    )
    assert (res.action.value, res.reason) == ("DUPLICATE", "same_value")
    [f] = store.list_facts("acme", "u1")
    assert f.context == "I use neovim at work."  # the first wording stays
