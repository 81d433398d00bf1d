"""The redact stage: what is stored, redacted or rejected, and that values never leak."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    FactType,
    RedactedCandidate,
    RedactionAction,
)
from memgate.stages.detectors import Detector
from memgate.stages.redact import Redactor, mask_all

TS = datetime(2024, 5, 1, tzinfo=UTC)
DET = Detector()
FAKE_KEY = "sk-ant-api03-" + "Qw7" * 14 + "AA"


def cand(obj: str, subject: str = "user", rationale: str = "rule") -> CandidateFact:
    return CandidateFact(
        candidate_id="c1",
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        type=FactType.FACT,
        subject=subject,
        predicate="contact",
        object=obj,
        confidence=0.9,
        source_turn_ids=["t1"],
        extractor="test",
        extractor_version="1",
        turn_ts=TS,
        rationale=rationale,
    )


@pytest.mark.parametrize(
    ("obj", "regulated", "action", "reason", "kinds"),
    [
        ("dark mode in the editor", "reject", "clean", "clean", {}),
        ("version 2.10.4 of the SDK", "reject", "clean", "clean", {}),
        ("order #123456789 shipped", "reject", "clean", "clean", {}),
        (
            "weekly report to jane.doe@example.com",
            "reject",
            "redacted",
            "placeholders",
            {"email": 1},
        ),
        ("call +44 20 7946 0958 on outages", "reject", "redacted", "placeholders", {"phone": 1}),
        (
            "jane.doe@example.com",
            "reject",
            "rejected",
            "nothing_left_after_redaction",
            {"email": 1},
        ),
        (f"the key {FAKE_KEY}", "reject", "rejected", "credential", {"api_key": 1}),
        ("password is hunter2-Secret!", "redact", "rejected", "credential", {"password": 1}),
        (
            "card 4111 1111 1111 1111 for payments",
            "reject",
            "rejected",
            "regulated_category",
            {"card": 1},
        ),
        (
            "card 4111 1111 1111 1111 for payments",
            "redact",
            "redacted",
            "placeholders",
            {"card": 1},
        ),
        (
            "takes metformin every morning",
            "reject",
            "rejected",
            "regulated_category",
            {"health": 1},
        ),
        ("takes metformin every morning", "redact", "redacted", "placeholders", {"health": 1}),
        (
            "IBAN DE89 3704 0044 0532 0130 00 for refunds",
            "reject",
            "rejected",
            "regulated_category",
            {"iban": 1},
        ),
        (
            "bester Kontakt: max.mustermann@beispiel.de",
            "reject",
            "redacted",
            "placeholders",
            {"email": 1},
        ),
    ],
)
def test_redaction_table(
    obj: str, regulated: str, action: str, reason: str, kinds: dict[str, int]
) -> None:
    out = Redactor(DET, regulated=regulated)(cand(obj))  # type: ignore[arg-type]
    decision = next(e for e in out if isinstance(e, DecisionRecord))
    assert (decision.verdict, decision.reason) == (action, reason)
    assert {k.removeprefix("kind."): v for k, v in decision.details.items()} == kinds
    passed = [e for e in out if isinstance(e, RedactedCandidate)]
    if action == "rejected":
        assert passed == []
    else:
        [rc] = passed
        assert rc.redaction.action is RedactionAction(action)
        assert rc.redaction.counts == kinds
        assert "@" not in rc.candidate.object and "4111" not in rc.candidate.object


def test_decision_never_carries_values() -> None:
    out = Redactor(DET)(
        cand("weekly report to jane.doe@example.com", rationale="from jane.doe@example.com")
    )
    for e in out:
        assert "jane.doe" not in e.model_dump_json()
        if isinstance(e, RedactedCandidate):
            assert e.candidate.rationale == "from [EMAIL]"


emails = st.from_regex(r"[a-z]{3,8}\.[a-z]{2,6}@[a-z]{3,8}\.(com|org|de)", fullmatch=True)
luhn_cards = st.sampled_from(["4111 1111 1111 1111", "5555-5555-5555-4444", "378282246310005"])


@given(st.text(alphabet="abcdefgh ijk", max_size=40), emails, luhn_cards)
def test_mask_all_never_leaves_a_detected_secret(prefix: str, email: str, card: str) -> None:
    text = f"{prefix} {email} and {card} and {FAKE_KEY}"
    masked = mask_all(DET, text)
    assert email not in masked.text and card not in masked.text and FAKE_KEY not in masked.text
    assert not DET.contains_secret(masked.text)
