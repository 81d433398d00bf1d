"""The final check before anything is persisted, and the redact stage reading values in context."""

from __future__ import annotations

from datetime import UTC, datetime

from memgate.core.events import (
    CandidateFact,
    DeadLetter,
    FactHistoryRecord,
    FactStatus,
    FactType,
    JournalRecord,
    RedactedCandidate,
    Resolution,
    ResolutionAction,
    StoredFact,
    TriageVerdict,
)
from memgate.stages.detectors import Detector
from memgate.stages.persist import plan
from memgate.stages.redact import Redactor
from memgate.stages.seal import mask_statement, seal

TS = datetime(2024, 5, 1, tzinfo=UTC)
DET = Detector()


def fact(subject: str, predicate: str, value: str, **kw: str) -> StoredFact:
    return StoredFact(
        fact_id="f1",
        tenant_id="acme",
        user_id="u1",
        key=kw.get("key", f"acme/u1/{subject}/{predicate}"),
        type=FactType.FACT,
        subject=subject,
        predicate=predicate,
        value=value,
        text=f"{subject} {predicate.replace('_', ' ')} {value}",
        status=FactStatus.ACTIVE,
        confidence=0.9,
        valid_from=TS,
        recorded_at=TS,
        first_seen=TS,
        last_seen=TS,
        source_turn_ids=["t1"],
        extractor="test",
        extractor_version="1",
        policy_version="p",
        rationale=kw.get("rationale", ""),
        context=kw.get("context", ""),
    )


def cand(subject: str, predicate: str, obj: str, context: str = "") -> CandidateFact:
    return CandidateFact(
        candidate_id="c1",
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        type=FactType.FACT,
        subject=subject,
        predicate=predicate,
        object=obj,
        confidence=0.9,
        source_turn_ids=["t1"],
        extractor="test",
        extractor_version="1",
        turn_ts=TS,
        context=context,
    )


def test_a_value_is_judged_in_its_statement_not_alone() -> None:
    # alone, "K48213907" is nothing; after "passport number" it is a document number
    subject, value, counts = mask_statement(DET, "user", "passport_number", "K48213907")
    assert (subject, value) == ("user", "[NATIONAL_ID]") and counts == {"national_id": 1}
    # alone, 912348765 looks like a Portuguese mobile; after "order number" it is an identifier
    assert mask_statement(DET, "user", "order_number", "912348765")[1] == "912348765"


def test_a_fact_with_a_secret_is_masked_before_it_is_written() -> None:
    raw = fact(
        "user",
        "wifi_password",
        "Tr0mb0ne-Harbor",
        key="acme/u1/user/wifi_password/tr0mb0ne-harbor",
        context="the password for the studio wifi is Tr0mb0ne-Harbor",
    )
    out = seal(DET, raw)
    dumped = out.model_dump_json().lower()
    assert "tr0mb0ne-harbor" not in dumped
    assert out.value == "[PASSWORD]" and out.text == "user wifi password [PASSWORD]"


def test_a_clean_record_comes_out_unchanged() -> None:
    clean = fact("user", "editor", "vim", context="I use vim for everything")
    assert seal(DET, clean) is clean


def test_journal_dead_letter_and_history_are_sealed() -> None:
    journal = JournalRecord(
        event_id="j1",
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        turn_id="t1",
        role="user",
        ts=TS,
        length=10,
        content_hmac="",
        verdict=TriageVerdict.KEEP,
        reason="r",
        redacted_text="我的手机号13912345678，有事打给我。",
        ingested_at=TS,
    )
    sealed = seal(DET, journal)
    assert "13912345678" not in sealed.redacted_text and sealed.redaction_counts == {"phone": 1}
    dead = DeadLetter(
        reason="bad",
        error_type="ValueError",
        source_topic="turns",
        payload='{"content": "mein Passwort lautet Kastanie#2291"}',
        failed_at=TS,
    )
    assert "Kastanie#2291" not in seal(DET, dead).payload
    history = FactHistoryRecord(
        event_id="h1",
        tenant_id="acme",
        user_id="u1",
        fact_id="f1",
        key="acme/u1/user/passport/k48213907",
        action="add",
        value="[NATIONAL_ID]",
        confidence=0.9,
        occurrences=1,
        source_turn_id="t1",
        policy_version="p",
        at=TS,
    )
    assert "k48213907" not in seal(DET, history).key


def test_persist_plans_sealed_facts_and_their_history() -> None:
    raw = fact("user", "passport_number", "K48213907", key="acme/u1/user/passport/k48213907")
    res = Resolution(
        event_id="r1",
        action=ResolutionAction.ADD,
        reason="new",
        key=raw.key,
        tenant_id="acme",
        user_id="u1",
        candidate_id="c1",
        source_turn_ids=["t1"],
        writes=[raw],
        policy_version="p",
        decided_at=TS,
    )
    out = plan(res, DET)
    dumped = " ".join(x.model_dump_json() for x in [*out.facts, *out.history]).lower()
    assert "k48213907" not in dumped
    assert plan(res).facts == [raw]  # without a detector: the writes as they are


def test_the_redact_stage_reads_the_value_in_its_sentence() -> None:
    redact = Redactor(detector=DET)
    # the label is in the subject and predicate, the value in the object
    out = redact(cand("user", "passport_number", "K48213907"))
    assert not any(isinstance(e, RedactedCandidate) for e in out)  # regulated: rejected
    # the label only in the source sentence: the value is still masked
    hidden = cand(
        "user",
        "travel_document",
        "C7RX41M92",
        context="Meine Reisepassnummer ist C7RX41M92, die brauchst du.",
    )
    kept = [e for e in redact(hidden) if isinstance(e, RedactedCandidate)]
    assert all("C7RX41M92" not in e.candidate.model_dump_json() for e in kept)
    # an order number stays what it is
    order = [
        e
        for e in redact(cand("user", "order_number", "912348765"))
        if isinstance(e, RedactedCandidate)
    ]
    assert order and order[0].candidate.object == "912348765"
