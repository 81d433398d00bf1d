"""The write policy: a client field never raises confidence unless the policy trusts its source."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anthropic
import pytest

from memgate.core.embedding import HashingEmbedder
from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    FactStatus,
    RedactedCandidate,
    Resolution,
    ResolutionAction,
    TurnEvent,
)
from memgate.core.sources import parse_trusted_sources
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.detectors import Detector
from memgate.stages.extract import RuleExtractor
from memgate.stages.extract_anthropic import AnthropicExtractor
from memgate.stages.persist import plan
from memgate.stages.policy import WritePolicy, claimed_source, preset
from memgate.stages.redact import Redactor
from tests.unit.stages.anthropic_standin import AnthropicStandIn, running_standin, tool_use_reply

EMB = HashingEmbedder()
TS = datetime(2024, 3, 1, 21, 0, tzinfo=UTC)
# an inference (0.5): under "balanced" it waits for confirmation or evidence
INFERENCE = "My wife keeps telling me I work too late."


def turn(content: str = INFERENCE, tenant: str = "acme", **metadata: Any) -> TurnEvent:
    return TurnEvent(
        tenant_id=tenant,
        user_id="alice",
        session_id="s1",
        turn_id="t1",
        role="user",
        content=content,
        ts=TS,
        metadata=metadata,
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddedIndex]:
    s = EmbeddedIndex(tmp_path / "r.sqlite3", dim=EMB.dim)
    yield s
    s.close()


def resolve(
    policy: WritePolicy, store: EmbeddedIndex, cand: CandidateFact
) -> tuple[Resolution, DecisionRecord]:
    redacted = Redactor(detector=Detector())(cand)
    item = next(e for e in redacted if isinstance(e, RedactedCandidate))
    out = Resolver(policy=policy, embedder=EMB)(item, store)
    res = next(e for e in out if isinstance(e, Resolution))
    dec = next(e for e in out if isinstance(e, DecisionRecord))
    store.upsert(plan(res).facts, wait=True)
    return res, dec


def test_a_client_source_does_not_raise_confidence_by_default(store: EmbeddedIndex) -> None:
    (c,) = RuleExtractor().extract(turn(source="system_of_record"))
    assert c.predicate == "relationship_status"
    assert c.confidence == 0.5  # the extractor's own estimate, whatever the client says
    res, dec = resolve(preset("balanced"), store, c)
    assert res.action is ResolutionAction.PENDING
    assert res.writes[0].status is FactStatus.PENDING
    assert dec.details["confidence"] == 0.5
    assert "trusted_source" not in dec.details
    assert dec.details["source"] == "untrusted"
    assert dec.policy_version == "balanced-1"


def test_a_trusted_source_of_the_tenant_stores_at_confidence_one(store: EmbeddedIndex) -> None:
    policy = preset("balanced").with_trusted_sources(["acme:system_of_record"])
    (c,) = RuleExtractor().extract(turn(source="system_of_record"))
    res, dec = resolve(policy, store, c)
    assert res.action is ResolutionAction.ADD
    assert res.writes[0].status is FactStatus.ACTIVE and res.writes[0].confidence == 1.0
    assert dec.details["trusted_source"] == "system_of_record"
    assert dec.details["confidence"] == 1.0
    # the allow-list is part of the recorded policy version
    assert dec.policy_version.startswith("balanced-1+trusted.")
    assert dec.policy_version != preset("balanced").version


@pytest.mark.parametrize(
    ("entries", "tenant", "source"),
    [
        (["acme:system_of_record"], "globex", "system_of_record"),  # another tenant's grant
        (["acme:hr_import"], "acme", "system_of_record"),  # another source
        (["acme:system_of_record"], "acme", "System_Of_Record"),  # exact, case-sensitive
        (["acme:b"], "acme", "x:b"),  # a colon in the claimed source never matches
    ],
)
def test_only_the_listed_tenant_and_source_are_trusted(
    store: EmbeddedIndex, entries: list[str], tenant: str, source: str
) -> None:
    policy = preset("balanced").with_trusted_sources(entries)
    (c,) = RuleExtractor().extract(turn(tenant=tenant, source=source))
    res, dec = resolve(policy, store, c)
    assert res.action is ResolutionAction.PENDING
    assert "trusted_source" not in dec.details


def test_a_wildcard_entry_trusts_a_source_for_every_tenant(store: EmbeddedIndex) -> None:
    policy = preset("balanced").with_trusted_sources(["*:crm_sync"])
    (c,) = RuleExtractor().extract(turn(tenant="globex", source="crm_sync"))
    res, dec = resolve(policy, store, c)
    assert res.action is ResolutionAction.ADD
    assert dec.details["trusted_source"] == "crm_sync"


def test_trust_does_not_override_the_other_rules(store: EmbeddedIndex) -> None:
    # conservative: corrections always need confirmation, trusted or not
    policy = preset("conservative").with_trusted_sources(["acme:system_of_record"])
    facts = RuleExtractor().extract(
        turn("Correction: our main database is Postgres 15.", source="system_of_record")
    )
    (c,) = [f for f in facts if f.type.value == "correction"]
    res, _ = resolve(policy, store, c)
    assert res.action is ResolutionAction.PENDING


@pytest.fixture
def api() -> Iterator[AnthropicStandIn]:
    with running_standin() as standin:
        yield standin


def test_the_claude_path_follows_the_same_rule(api: AnthropicStandIn, tmp_path: Path) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=api.base_url, max_retries=0)
    ex = AnthropicExtractor(client, model="claude-haiku-4-5")
    api.enqueue(
        tool_use_reply(
            [{"type": "fact", "subject": "user", "predicate": "relationship_status",
              "object": "married", "confidence": 0.5}]
        ),
        tool_use_reply(
            [{"type": "fact", "subject": "user", "predicate": "relationship_status",
              "object": "married", "confidence": 0.5}]
        ),
    )
    (c,) = ex.extract(turn(source="system_of_record"))
    assert c.confidence == 0.5
    s1 = EmbeddedIndex(tmp_path / "a.sqlite3", dim=EMB.dim)
    res, _ = resolve(preset("balanced"), s1, c)
    assert res.action is ResolutionAction.PENDING
    s1.close()
    (c2,) = ex.extract(turn(source="system_of_record"))
    s2 = EmbeddedIndex(tmp_path / "b.sqlite3", dim=EMB.dim)
    trusted = preset("balanced").with_trusted_sources(["acme:system_of_record"])
    res2, dec2 = resolve(trusted, s2, c2)
    assert res2.action is ResolutionAction.ADD and dec2.details["trusted_source"]
    s2.close()
    client.close()


def test_claimed_source_is_only_a_short_plain_string() -> None:
    assert claimed_source({"source": "system_of_record"}) == "system_of_record"
    assert claimed_source({}) == ""
    assert claimed_source({"source": 1}) == ""
    assert claimed_source({"source": True}) == ""
    assert claimed_source({"source": "a/b"}) == ""
    assert claimed_source({"source": "x" * 65}) == ""
    assert claimed_source({"source": "crm sync"}) == ""


@pytest.mark.parametrize(
    "bad", ["system_of_record", "acme:", ":src", "acme:src/x", "acme:with space", "*:", "a/b:src"]
)
def test_malformed_allow_list_entries_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="trusted source"):
        parse_trusted_sources([bad])


def test_the_allow_list_is_empty_by_default() -> None:
    for name in ("conservative", "balanced", "permissive"):
        assert preset(name).trusted_sources == frozenset()
    assert parse_trusted_sources(["acme:sor", "*:crm"]) == frozenset({"acme:sor", "*:crm"})
