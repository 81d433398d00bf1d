"""The topology: one chain of topics, and what each stage's outputs do."""

from __future__ import annotations

import itertools

import pytest

from memgate.core.events import (
    CandidateFact,
    JournalRecord,
    Resolution,
    ResolutionAction,
    Stage,
    TriagedTurn,
)
from memgate.streams.topology import (
    ROUTES,
    TOPIC_NAMES,
    decode_audit,
    effects,
    encode_audit,
    next_route,
    route_of,
)
from tests.unit.streams.conftest import Gate, turn

THREE_FACTS = (
    "I prefer four-space indentation in every Python file. I work as a backend engineer "
    "on the payments team. We deploy with Jenkins and Helm charts."
)


def test_the_stages_form_one_chain_of_topics_and_each_topic_has_one_reader() -> None:
    assert [r.stage for r in ROUTES] == [
        Stage.TRIAGE, Stage.EXTRACT, Stage.REDACT, Stage.DEDUPE, Stage.PERSIST
    ]
    for route, following in itertools.pairwise(ROUTES):
        assert route.forward_to == following.source
        assert next_route(route) is following
    assert ROUTES[-1].forward_to is None and next_route(ROUTES[-1]) is None
    assert TOPIC_NAMES == (
        "turns", "triaged", "extracted", "redacted", "resolved", "audit", "dlq", "deferred"
    )
    assert len(set(TOPIC_NAMES)) == len(TOPIC_NAMES)
    with pytest.raises(KeyError):
        route_of(Stage.INGEST)


def test_what_each_stage_does_with_its_outputs(gate: Gate) -> None:
    p = gate.pipeline()
    triaged = effects(Stage.TRIAGE, p.triage(turn("t1", THREE_FACTS)))
    assert [type(e) for e in triaged.forward] == [TriagedTurn]
    assert {type(a).__name__ for a in triaged.audit} == {"JournalRecord", "DecisionRecord"}
    assert triaged.facts == ()
    extracted = effects(Stage.EXTRACT, p.extract(triaged.forward[0]))  # type: ignore[arg-type]
    assert len(extracted.forward) == 3 and all(
        isinstance(c, CandidateFact) for c in extracted.forward
    )
    redacted = effects(Stage.REDACT, p.redact(extracted.forward[0]))  # type: ignore[arg-type]
    resolved = effects(Stage.DEDUPE, p.dedupe(redacted.forward[0], gate.retrieval))  # type: ignore[arg-type]
    (res,) = resolved.forward
    assert isinstance(res, Resolution) and res.action is ResolutionAction.ADD
    # the dedupe stage writes its resolution's facts (the store is its state) ...
    assert resolved.facts == tuple(res.writes) and resolved.stored == ("add",)
    # ... and the persist stage records their history: audit rows, nothing forwarded
    persisted = effects(Stage.PERSIST, p.persist(res))
    assert persisted.forward == () and persisted.facts == ()
    assert [h.fact_id for h in persisted.audit] == [f.fact_id for f in res.writes]


def test_audit_messages_round_trip_and_a_foreign_message_is_refused(gate: Gate) -> None:
    rows = [e for e in gate.pipeline().triage(turn("t1", "hi")) if not isinstance(e, TriagedTurn)]
    assert [decode_audit(encode_audit(r)) for r in rows] == rows  # type: ignore[arg-type]
    assert any(isinstance(r, JournalRecord) for r in rows)
    for raw in (b'{"_kind": "other"}', b"[1, 2]", b"{"):
        with pytest.raises(ValueError):
            decode_audit(raw)



def test_a_fact_the_final_check_masks_is_audited_and_counted(gate: Gate) -> None:
    """A stage before it let a wifi password through (simulated by skipping the redact
    stage): the dedupe step's final check masks the fact, records why, and the metric counts it."""
    from datetime import UTC, datetime

    from memgate.core.events import (
        DecisionRecord,
        FactType,
        RedactedCandidate,
        RedactionAction,
        RedactionResult,
    )
    from memgate.streams.metrics import Metrics

    def cand(obj: str, cid: str) -> CandidateFact:
        return CandidateFact(
            candidate_id=cid, tenant_id="acme", user_id="alice", session_id="s1",
            type=FactType.FACT, subject="user", predicate="wifi_password", object=obj,
            confidence=0.9, source_turn_ids=[f"t-{cid}"], extractor="test",
            extractor_version="1", turn_ts=datetime(2024, 5, 1, tzinfo=UTC),
            context=f"the password for the studio wifi is {obj}",
        )

    p = gate.pipeline()
    passed = RedactionResult(action=RedactionAction.CLEAN)
    unredacted = RedactedCandidate(candidate=cand("Tr0mb0ne-Harbor", "c1"), redaction=passed)
    resolved = effects(Stage.DEDUPE, p.dedupe(unredacted, gate.retrieval))
    assert resolved.facts, "the candidate was not stored"
    assert "tr0mb0ne-harbor" not in " ".join(f.model_dump_json() for f in resolved.facts).lower()
    checks = [
        a
        for a in resolved.audit
        if isinstance(a, DecisionRecord) and a.reason == "final_check_fact"
    ]
    assert len(checks) == 1 and checks[0].verdict == "masked"
    assert checks[0].details.get("field.value") == 1
    assert "tr0mb0ne-harbor" not in checks[0].model_dump_json().lower()
    m = Metrics()
    m.record_effects(Stage.DEDUPE, resolved)
    assert m.final_check.labels(record="fact")._value.get() == 1
    # a clean candidate adds no such record
    clean = RedactedCandidate(candidate=cand("on the second floor", "c2"), redaction=passed)
    out = effects(Stage.DEDUPE, p.dedupe(clean, gate.retrieval))
    assert not any(getattr(a, "reason", "") == "final_check_fact" for a in out.audit)
