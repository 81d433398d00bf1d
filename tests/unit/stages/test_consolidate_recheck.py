"""Consolidation reads again the folds a former rule made (issue 12): a habit folded by
cosine alone ("played tennis" with "played chess") is split by activity; when too few
episodes of its activity are left it is closed and its episodes fold anew or stay
episodes. Pure: :func:`memgate.stages.consolidate.plan_lifecycle` on facts in memory."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from memgate.core.events import FactStatus, FactType, StoredFact, stable_id
from memgate.core.tenant_policy import RetentionPolicy
from memgate.stages import consolidate
from memgate.stages.activity import Activity
from memgate.stages.consolidate import LIFECYCLE, LifecyclePlan, plan_lifecycle
from memgate.stages.policy import preset

T0 = datetime(2024, 1, 1, tzinfo=UTC)
DAY = timedelta(days=1)


def episode(i: int, value: str) -> StoredFact:
    at = T0 + i * DAY
    return StoredFact(
        fact_id=stable_id("ep", str(i)), tenant_id="acme", user_id="u1",
        key=f"acme/u1/user/event/{value}", type=FactType.EVENT, subject="user",
        predicate="event", value=value, text=f"user event {value}", status=FactStatus.ACTIVE,
        confidence=0.9, valid_from=at, recorded_at=at, session_ids=[f"s{i}"], first_seen=at,
        last_seen=at, source_turn_ids=[f"t{i}"], extractor="hybrid", extractor_version="1",
        policy_version="balanced-1", embedding=[1.0, 0.0, 0.0, 0.0],
    )  # fmt: skip


def run(facts: dict[str, StoredFact], day: int) -> LifecyclePlan:
    plan = plan_lifecycle(
        list(facts.values()), preset("balanced"), RetentionPolicy(),
        now=T0 + day * DAY, policy_version="lifecycle-1+balanced-1",
    )  # fmt: skip
    for f in plan.writes:
        facts[f.fact_id] = f
    for f in plan.deletes:
        facts.pop(f.fact_id)
    return plan


@pytest.fixture
def old_rule(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    with monkeypatch.context() as m:
        # a former rule: cosine alone (every episode one activity; the vectors are equal)
        m.setattr(consolidate, "read_activity", lambda _text: Activity("play", ""))
        yield m


def test_a_fold_left_with_too_few_episodes_is_closed_and_folds_anew(
    old_rule: pytest.MonkeyPatch,
) -> None:
    said = [
        "I played tennis with Marco", "I played chess with Marco", "I played tennis with Ana",
        "I played chess with Ana", "I played chess with Jo",
    ]  # fmt: skip
    facts = {e.fact_id: e for e in (episode(i, v) for i, v in enumerate(said))}
    assert run(facts, 6).counts() == {"fold": 5}
    (old,) = [f for f in facts.values() if f.extractor == LIFECYCLE]
    assert "tennis" in old.value
    old_rule.undo()
    plan = run(facts, 7)
    # two tennis games are too few for a habit: it is closed and all five are episodes
    # again; the three chess games fold into a habit of their own
    assert plan.counts() == {"unfold": 6, "fold": 3}
    reasons = sorted(d.reason for d in plan.decisions if d.verdict == "unfold")
    assert reasons == ["fold_closed"] * 2 + ["other_activity"] * 3 + ["too_few_episodes"]
    assert facts[old.fact_id].status is FactStatus.SUPERSEDED
    (habit,) = [
        f for f in facts.values() if f.extractor == LIFECYCLE and f.status is FactStatus.ACTIVE
    ]
    assert "chess" in habit.value and habit.source_turn_ids == ["t1", "t3", "t4"]
    tennis = [f for f in facts.values() if "tennis" in f.value and f.type is FactType.EVENT]
    assert [f.status for f in tennis] == [FactStatus.ACTIVE] * 2
    assert all(f.superseded_by is None and f.valid_to is None for f in tennis)
    assert run(facts, 8).empty  # idempotent


def test_a_fold_of_the_current_rule_is_left_as_it_is() -> None:
    said = ["I played tennis with Marco", "I played tennis with Ana", "I played tennis again"]
    facts = {e.fact_id: e for e in (episode(i, v) for i, v in enumerate(said))}
    assert run(facts, 4).counts() == {"fold": 3}
    assert run(facts, 5).empty
