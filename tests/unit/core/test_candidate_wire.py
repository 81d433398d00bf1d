"""The candidate's wire format across versions: ``repeats`` (session 24) is written only
when set, so a message of a candidate that is no repeat is the one an older worker reads
(events forbid unknown fields: an older worker dead-letters a message with a field it does
not know)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from memgate.core.events import (
    CandidateFact,
    FactType,
    RedactedCandidate,
    RedactionAction,
    RedactionResult,
)

TS = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def candidate(**update: object) -> CandidateFact:
    c = CandidateFact(
        candidate_id="c1",
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        type=FactType.FACT,
        subject="user",
        predicate="statement",
        object="Unser CI läuft auf GitLab",
        confidence=0.9,
        valid_from=TS,
        source_turn_ids=["t1"],
        extractor="hybrid",
        extractor_version="1.1.0",
        turn_ts=TS,
    )
    return c.model_copy(update=update)


def older_worker_reads(payload: str) -> None:
    """What a worker before the field checks: every field but ``repeats`` is known, an
    unknown one is refused (``extra="forbid"``)."""
    unknown = set(json.loads(payload)) - (set(CandidateFact.model_fields) - {"repeats"})
    if unknown:
        raise ValueError(f"extra fields not permitted: {sorted(unknown)}")


def test_a_candidate_that_is_no_repeat_is_written_as_before() -> None:
    payload = candidate().model_dump_json()
    assert "repeats" not in json.loads(payload)
    older_worker_reads(payload)  # an older worker reads it
    assert CandidateFact.model_validate_json(payload) == candidate()


def test_a_repeat_carries_its_flag_and_reads_back() -> None:
    payload = candidate(repeats=True).model_dump_json()
    assert json.loads(payload)["repeats"] is True
    assert CandidateFact.model_validate_json(payload).repeats is True
    with pytest.raises(ValueError, match="repeats"):
        older_worker_reads(payload)


def test_inside_a_redacted_candidate_the_same() -> None:
    clean = RedactionResult(action=RedactionAction.CLEAN)
    plain = RedactedCandidate(candidate=candidate(), redaction=clean).model_dump_json()
    assert "repeats" not in json.loads(plain)["candidate"]
    marked = RedactedCandidate(candidate=candidate(repeats=True), redaction=clean)
    back = RedactedCandidate.model_validate_json(marked.model_dump_json())
    assert back.candidate.repeats is True
    assert RedactedCandidate.model_validate_json(plain).candidate.repeats is False


def test_an_unknown_field_is_still_refused() -> None:
    data = json.loads(candidate().model_dump_json())
    data["repeatz"] = True
    with pytest.raises(ValidationError, match="repeatz"):
        CandidateFact.model_validate(data)
