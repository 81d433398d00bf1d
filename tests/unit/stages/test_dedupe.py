"""Dedupe / resolve: tables of histories and their expected verdicts, plus properties."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgate.core.embedding import HashingEmbedder, MiniLMEmbedder
from memgate.core.events import (
    CandidateFact,
    FactStatus,
    FactType,
    RedactedCandidate,
    RedactionAction,
    RedactionResult,
    Resolution,
)
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver, fact_key
from memgate.stages.persist import plan
from memgate.stages.policy import PRESETS, preset

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
EMB = HashingEmbedder()
CLOCK = lambda: datetime(2024, 6, 1, tzinfo=UTC)  # noqa: E731


def cand(
    obj: str,
    *,
    n: int = 0,
    subject: str = "user",
    predicate: str = "uses_tool:editor",
    type_: FactType = FactType.PREFERENCE,
    conf: float = 0.9,
    session: str = "s1",
    tenant: str = "acme",
    user: str = "u1",
    days: int = 0,
    confirmed: bool | None = None,
    outcome: str | None = None,
    multi: bool = False,
) -> RedactedCandidate:
    ts = T0 + timedelta(days=days, seconds=n)
    c = CandidateFact(
        candidate_id=f"c{n}-{obj}-{days}",
        tenant_id=tenant,
        user_id=user,
        session_id=session,
        type=type_,
        subject=subject,
        predicate=predicate,
        object=obj,
        confidence=conf,
        valid_from=ts,
        source_turn_ids=[f"t{n}-{days}"],
        extractor="test",
        extractor_version="1",
        turn_ts=ts,
        confirmed=confirmed,
        outcome=outcome,  # type: ignore[arg-type]
        multi_valued=multi,
    )
    return RedactedCandidate(candidate=c, redaction=RedactionResult(action=RedactionAction.CLEAN))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddedIndex]:
    s = EmbeddedIndex(tmp_path / "r.sqlite3", dim=EMB.dim)
    yield s
    s.close()


def apply(resolver: Resolver, store: EmbeddedIndex, item: RedactedCandidate) -> Resolution:
    out = resolver(item, store)
    res = next(e for e in out if isinstance(e, Resolution))
    p = plan(res)
    if p.facts:
        store.upsert(p.facts, wait=True)
    return res


def test_key_is_stable_under_case_and_whitespace() -> None:
    assert fact_key("a", "u", "The  User", "Prefers:Editor") == fact_key(
        "a", "u", "the user ", "prefers:editor"
    )


@given(
    st.text(alphabet=st.characters(categories=["L", "N"]), min_size=1, max_size=20),
    st.lists(st.sampled_from([" ", "  ", "\t"]), min_size=1, max_size=3),
)
def test_key_stable_property(word: str, spaces: list[str]) -> None:
    a = fact_key("t", "u", f"{word}{spaces[0]}x", "likes")
    b = fact_key("t", "u", f"{spaces[-1]}{word.upper()} x ", "LIKES")
    assert a == b


# (history of objects, expected action of the last write, expected reason)
CASES = [
    (["vim"], "ADD", "new_key"),
    (["vim", "vim"], "DUPLICATE", "same_value"),
    (["vim", "VIM"], "DUPLICATE", "same_value"),
    (["vim", "neovim"], "SUPERSEDE", "new_value"),
    (["vim", "neovim", "emacs"], "SUPERSEDE", "new_value"),
    (["vim", "neovim", "neovim"], "DUPLICATE", "same_value"),
]


@pytest.mark.parametrize(("history", "action", "reason"), CASES)
def test_resolution_table(
    store: EmbeddedIndex, history: list[str], action: str, reason: str
) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    res = [apply(r, store, cand(obj, n=i, days=i)) for i, obj in enumerate(history)][-1]
    assert (res.action.value, res.reason) == (action, reason)
    active = [f for f in store.list_facts("acme", "u1") if f.status is FactStatus.ACTIVE]
    assert len(active) == 1
    assert active[0].value.lower() == history[-1].lower()


def test_duplicate_counts_occurrence_and_refreshes_last_seen(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand("vim", n=0))
    apply(r, store, cand("vim", n=1, days=5, session="s2"))
    [f] = store.list_facts("acme", "u1")
    assert f.occurrences == 2
    assert f.last_seen == T0 + timedelta(days=5, seconds=1)
    assert f.session_ids == ["s1", "s2"]


def test_redelivery_is_idempotent(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand("vim", n=0))
    res = apply(r, store, cand("vim", n=0))
    assert (res.action.value, res.reason) == ("DUPLICATE", "redelivered")
    [f] = store.list_facts("acme", "u1")
    assert f.occurrences == 1


def test_supersede_keeps_history_with_back_reference(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    first = apply(r, store, cand("Jenkins", predicate="deploys_with", days=0))
    second = apply(r, store, cand("GitHub Actions", predicate="deploys_with", n=1, days=30))
    old = store.get("acme", "u1", first.writes[0].fact_id)
    assert old is not None
    assert old.status is FactStatus.SUPERSEDED
    assert old.superseded_by == second.writes[0].fact_id
    assert old.valid_to == T0 + timedelta(days=30, seconds=1)
    assert old.superseded_at is not None
    new = store.get("acme", "u1", second.writes[0].fact_id)
    assert new is not None and new.supersedes == old.fact_id


def test_late_older_statement_becomes_history(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand("GitHub Actions", predicate="deploys_with", n=1, days=30))
    res = apply(r, store, cand("Jenkins", predicate="deploys_with", n=0, days=0))
    assert res.reason == "older_than_current"
    active = [f for f in store.list_facts("acme", "u1") if f.status is FactStatus.ACTIVE]
    assert [f.value for f in active] == ["GitHub Actions"]


def test_multi_valued_predicates_do_not_supersede(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand("hiking", predicate="likes", multi=True))
    res = apply(r, store, cand("pottery", predicate="likes", multi=True, n=1))
    assert res.action.value == "ADD"
    assert len(store.list_facts("acme", "u1")) == 2


@pytest.mark.parametrize(
    ("policy", "conf", "confirmed", "outcome", "action", "reason"),
    [
        ("balanced", 0.3, None, None, "REJECT", "below_min_confidence"),
        ("balanced", 0.9, None, "failure", "REJECT", "task_failed"),
        ("balanced", 0.9, True, "failure", "ADD", "new_key"),
        ("balanced", 0.5, None, None, "PENDING", "needs_confirmation_or_evidence"),
        ("balanced", 0.5, True, None, "ADD", "new_key"),
        ("conservative", 0.8, None, None, "PENDING", "needs_confirmation_or_evidence"),
        ("conservative", 0.5, None, None, "REJECT", "below_min_confidence"),
        ("permissive", 0.3, None, "failure", "ADD", "new_key"),
    ],
)
def test_write_policies(
    store: EmbeddedIndex,
    policy: str,
    conf: float,
    confirmed: bool | None,
    outcome: str | None,
    action: str,
    reason: str,
) -> None:
    r = Resolver(preset(policy), EMB, clock=CLOCK)
    res = apply(r, store, cand("vim", conf=conf, confirmed=confirmed, outcome=outcome))
    assert (res.action.value, res.reason) == (action, reason)


def test_repeated_evidence_across_sessions_promotes_pending(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)  # min_sessions = 2
    first = apply(r, store, cand("vim", conf=0.5, session="s1"))
    assert first.action.value == "PENDING"
    same_session = apply(r, store, cand("vim", conf=0.5, session="s1", n=1))
    assert (same_session.action.value, same_session.reason) == ("PENDING", "awaiting_evidence")
    assert store.list_facts("acme", "u1") == []  # pending facts are never served
    promoted = apply(r, store, cand("vim", conf=0.5, session="s2", n=2))
    assert (promoted.action.value, promoted.reason) == ("ADD", "promoted_repeated_evidence")
    [f] = store.list_facts("acme", "u1")
    assert f.status is FactStatus.ACTIVE and f.occurrences == 3


def test_confirmation_promotes_pending(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand("vim", conf=0.5))
    res = apply(r, store, cand("vim", conf=0.5, n=1, confirmed=True))
    assert (res.action.value, res.reason) == ("ADD", "promoted_confirmed")


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_near_duplicate_under_another_key(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    store = EmbeddedIndex(tmp_path / "r.sqlite3", dim=minilm.dim)
    r = Resolver(preset("balanced"), minilm, clock=CLOCK)
    apply(r, store, cand("hiking", predicate="likes", multi=True))
    res = apply(r, store, cand("going hiking", predicate="likes", multi=True, n=1))
    assert (res.action.value, res.reason) == ("DUPLICATE", "near_duplicate")
    [f] = store.list_facts("acme", "u1")
    assert f.occurrences == 2


def test_paraphrase_under_same_key_is_a_duplicate_not_a_supersede(
    tmp_path: Path, minilm: MiniLMEmbedder
) -> None:
    store = EmbeddedIndex(tmp_path / "r.sqlite3", dim=minilm.dim)
    r = Resolver(preset("balanced"), minilm, clock=CLOCK)
    pred = "prefers:answer_style"
    apply(r, store, cand("concise answers", predicate=pred))
    res = apply(r, store, cand("short, concise answers", predicate=pred, n=1))
    assert (res.action.value, res.reason) == ("DUPLICATE", "near_duplicate_same_key")
    # a genuinely different value still supersedes
    res = apply(r, store, cand("long detailed answers with examples", predicate=pred, n=2))
    assert res.action.value == "SUPERSEDE"


def test_tenants_and_users_never_share_keys(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand("vim", tenant="acme", user="u1"))
    res_b = apply(r, store, cand("emacs", tenant="globex", user="u1", n=1))
    res_c = apply(r, store, cand("emacs", tenant="acme", user="u2", n=2))
    assert res_b.action.value == "ADD" and res_c.action.value == "ADD"
    [a] = store.list_facts("acme", "u1")
    assert a.value == "vim" and a.status is FactStatus.ACTIVE


values = st.sampled_from(["vim", "neovim", "emacs", "VS Code", "helix", "Vim "])
predicates = st.sampled_from(["uses_tool:editor", "deploys_with", "lives_in"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(predicates, values, st.integers(0, 30), st.booleans()), max_size=14),
    st.sampled_from(sorted(PRESETS)),
)
def test_exactly_one_active_fact_per_key(
    writes: list[tuple[str, str, int, bool]], policy: str
) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = EmbeddedIndex(Path(d) / "r.sqlite3", dim=EMB.dim)
        r = Resolver(preset(policy), EMB, clock=CLOCK)
        for i, (pred, val, day, confirmed) in enumerate(writes):
            apply(r, store, cand(val, predicate=pred, n=i, days=day, confirmed=confirmed or None))
        facts = store.list_facts("acme", "u1", include_inactive=True)
        by_key: dict[str, int] = {}
        for f in facts:
            if f.status is FactStatus.ACTIVE:
                by_key[f.key] = by_key.get(f.key, 0) + 1
            if f.status is FactStatus.SUPERSEDED:
                assert f.superseded_by, "a superseded fact always points at its successor"
        assert all(n == 1 for n in by_key.values()), by_key
        store.close()


def test_newer_statement_with_vague_earlier_valid_time_still_wins(store: EmbeddedIndex) -> None:
    """'We moved from X to Y last month', said after 'we use X': Y wins, intervals stay ordered."""
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    first = apply(r, store, cand("Jenkins", predicate="deploys_with", days=10))
    late = cand("GitHub Actions", predicate="deploys_with", n=1, days=30)
    c = late.candidate.model_copy(update={"valid_from": T0})  # "last month": before day 10
    res = apply(r, store, late.model_copy(update={"candidate": c}))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "new_value")
    old = store.get("acme", "u1", first.writes[0].fact_id)
    assert old is not None and old.status is FactStatus.SUPERSEDED
    assert old.valid_to is not None and old.valid_to >= old.valid_from


def _retraction(obj: str, n: int, days: int, predicate: str = "deploys_with") -> RedactedCandidate:
    item = cand(obj, predicate=predicate, n=n, days=days)
    c = item.candidate.model_copy(update={"retracts": True})
    return item.model_copy(update={"candidate": c})


def test_retraction_closes_the_fact_and_keeps_history(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    first = apply(r, store, cand("Jenkins", predicate="deploys_with", days=0))
    res = apply(r, store, _retraction("Jenkins", n=1, days=20))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "retracted")
    assert store.list_facts("acme", "u1") == []  # nothing served any more
    old = store.get("acme", "u1", first.writes[0].fact_id)
    assert old is not None and old.status is FactStatus.SUPERSEDED
    assert old.valid_to == T0 + timedelta(days=20, seconds=1)
    again = apply(r, store, _retraction("Jenkins", n=1, days=20))
    assert (again.action.value, again.reason) == ("DUPLICATE", "redelivered")


def test_retracting_a_value_that_is_not_current_changes_nothing(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand("GitHub Actions", predicate="deploys_with", days=0))
    res = apply(r, store, _retraction("Bamboo", n=1, days=3))
    assert (res.action.value, res.reason) == ("REJECT", "nothing_to_retract")
    assert [f.value for f in store.list_facts("acme", "u1")] == ["GitHub Actions"]
