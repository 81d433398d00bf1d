"""Replays change nothing, on both paths.

For any sequence of turns (fact-bearing sentences from a small vocabulary, for
several tenants, users and sessions, at any event times) and any prefix of it
delivered again, once or twice, the stores hold what one delivery left: every
fact as a whole record (value, status, occurrences, sessions, source turns,
valid and system times, vectors) and every audit row read with FINAL,
system-time columns included (the clock moves at every reading, so a row made
again would show).

* In process (:class:`InProcessRunner`): the replay in the same run as the
  first delivery (the batch not committed yet) or in a later run.
* Through the Faust agents' bodies: the replay after the audit agent caught up
  (the journal knows the turn: it is skipped), or before (the audit agent
  lagging, nothing journaled yet: the replay goes through every stage). In the
  second case the facts are still identical, system times included, since a
  candidate delivered again writes nothing; the audit keeps every row of the
  single delivery, only re-stamped where a stage made its decision again
  (``decided_at``, ``ingested_at``), plus a ``redelivered`` row for each
  candidate that found the fact it was folded into.

And the two paths hold the same facts and rows for the same turns (but for the
columns stamped with the clock, which they read in another order).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgate.core.events import TurnEvent
from memgate.core.settings import Settings, load_settings
from memgate.sinks.audit import ClickHouseAudit
from tests.unit.streams.conftest import KEY
from tests.unit.streams.replay_harness import INGEST_TIME, in_process, through_agents

VOCABULARY = (
    "I like long hikes in the mountains near the lake.",
    "I like long hikes in the mountains near the lake with friends.",  # near-dup, other key
    "I no longer like long hikes in the mountains near the lake.",  # a retraction
    "We deploy with Jenkins and Helm charts.",
    "Actually we deploy with ArgoCD now.",  # supersedes
    "We stopped using Jenkins.",  # retracts, or nothing to retract
    "I prefer dark mode in every editor.",
    "I usually prefer dark mode.",
    "My wife keeps telling me I work too late.",  # pending; promoted in a second session
    "Please forget that I like jazz.",
    "I like jazz, especially Coltrane.",
    "I live in Berlin.",
    "I moved to Paris last year.",
    "What time is it?",  # dropped by triage
    "My card number is 4111 1111 1111 1111.",  # no fact
    "My api key is sk-abcdef1234567890abcdef.",  # rejected by redact (a credential)
    "I prefer to be emailed at alice@example.com.",  # stored with a placeholder
    "My dog's name is Rocco.",
    "Rocco es el nombre de mi perro.",  # folded as a paraphrase (another language)
    "For indentation I always want tabs rather than spaces.",
    "I prefer tabs over spaces.",  # folded as the same clause
)
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
_names = itertools.count()


@pytest.fixture(scope="module")
def audit_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One chDB engine for the module; every run gets its own database in it."""
    path = tmp_path_factory.mktemp("replays") / "audit"
    with ClickHouseAudit.embedded(path):
        yield path


@pytest.fixture(scope="module")
def gate_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return load_settings(data_dir=tmp_path_factory.mktemp("data"), embedder="hashing", hmac_key=KEY)


#: Facts said again in other words, and turns that close them: a redelivered fold must
#: neither count again nor bring back what a later turn closed (replayfold).
FOLDS = (
    "My dog's name is Rocco.",
    "Rocco es el nombre de mi perro.",
    "I no longer have a dog named Rocco.",
    "I prefer tabs over spaces.",
    "For indentation I always want tabs rather than spaces.",
    "Actually I now prefer spaces over tabs.",
)


@st.composite
def turn_sequences(
    draw: st.DrawFn,
    in_time_order: bool = False,
    vocabulary: tuple[str, ...] = VOCABULARY,
    one_user: bool = False,
) -> list[TurnEvent]:
    said = draw(
        st.lists(
            st.tuples(
                st.integers(0, len(vocabulary) - 1),
                st.sampled_from(["acme"] if one_user else ["acme", "globex"]),
                st.sampled_from(["alice"] if one_user else ["alice", "bob"]),
                st.sampled_from(["s1", "s2", "s3"]),
                st.integers(0, 30),  # event time, in minutes: not always in order
            ),
            min_size=1,
            max_size=8,
        )
    )
    if in_time_order:
        minutes = sorted(m for *_, m in said)
        said = [(*rest, m) for (*rest, _), m in zip(said, minutes, strict=True)]
    return [
        TurnEvent(
            tenant_id=tenant,
            user_id=user,
            session_id=session,
            turn_id=f"t{i}",
            role="user",
            content=vocabulary[v],
            ts=T0 + timedelta(minutes=minutes),
        )
        for i, (v, tenant, user, session, minutes) in enumerate(said)
    ]


def _name() -> str:
    return f"replay_{next(_names)}"


def _replayed(turns: list[TurnEvent], prefix: int, times: int) -> list[TurnEvent]:
    return turns[:prefix] * times


common = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@common
@given(turn_sequences(), st.data())
def test_in_process_a_replayed_prefix_changes_nothing(
    audit_path: Path, gate_settings: Settings, turns: list[TurnEvent], data: st.DataObject
) -> None:
    prefix = data.draw(st.integers(0, len(turns)), label="prefix")
    times = data.draw(st.integers(1, 2), label="times")
    same_run = data.draw(st.booleans(), label="same_run")
    once = in_process(gate_settings, audit_path, _name(), [turns])
    again = _replayed(turns, prefix, times)
    runs = [[*turns, *again]] if same_run else [turns, *([again] if again else [])]
    assert in_process(gate_settings, audit_path, _name(), runs) == once


@common
@given(turn_sequences(), st.data())
def test_through_the_agents_a_replayed_prefix_changes_nothing(
    audit_path: Path, gate_settings: Settings, turns: list[TurnEvent], data: st.DataObject
) -> None:
    prefix = data.draw(st.integers(0, len(turns)), label="prefix")
    times = data.draw(st.integers(1, 2), label="times")
    once = through_agents(gate_settings, audit_path, _name(), [turns])
    replayed = [turns, _replayed(turns, prefix, times)]
    assert through_agents(gate_settings, audit_path, _name(), replayed) == once


@common
@given(
    st.one_of(
        turn_sequences(in_time_order=True),
        turn_sequences(in_time_order=True, vocabulary=FOLDS, one_user=True),
    ),
    st.data(),
)
def test_through_the_agents_a_replay_before_the_journal_is_stored_changes_no_fact(
    audit_path: Path, gate_settings: Settings, turns: list[TurnEvent], data: st.DataObject
) -> None:
    prefix = data.draw(st.integers(1, len(turns)), label="prefix")
    times = data.draw(st.integers(1, 2), label="times")
    once = through_agents(gate_settings, audit_path, _name(), [turns], audit_lag=True)
    replayed = [turns, _replayed(turns, prefix, times)]
    got = through_agents(gate_settings, audit_path, _name(), replayed, audit_lag=True)
    assert got.facts == once.facts  # whole records, system times included
    for table, rows in once.audit.items():
        by_id = {r["event_id"]: r for r in got.audit[table]}
        clock = INGEST_TIME[table]
        for row in rows:  # every row of the single delivery, re-stamped at most
            assert {**by_id.pop(row["event_id"]), clock: None} == {**row, clock: None}
        # and a redelivered row for each candidate that found its fact
        assert all(
            r["stage"] == "dedupe" and r["reason"] == "redelivered" for r in by_id.values()
        ), (table, by_id)


@common
@given(turn_sequences())
def test_both_paths_hold_the_same_facts_and_rows(
    audit_path: Path, gate_settings: Settings, turns: list[TurnEvent]
) -> None:
    here = in_process(gate_settings, audit_path, _name(), [turns])
    there = through_agents(gate_settings, audit_path, _name(), [turns])
    assert there.without_clock() == here.without_clock()


def test_the_vocabulary_reaches_every_path_of_the_gate(
    audit_path: Path, gate_settings: Settings
) -> None:
    """The sentences exercise what a replay could disturb: adds, a near-duplicate under
    another key, supersession, retraction, pending and promotion, drops, rejections.

    Pinned to the rule extractor, whose keys the vocabulary was written for: the retraction
    ("forget that I like ...") finds the rules' ``likes`` fact; the default hybrid extractor
    says that sentence as a statement with its own key (semantic retraction: issue 9 item 3).
    """
    gate_settings = gate_settings.model_copy(update={"extractor": "rules"})
    sessions = itertools.cycle(["s1", "s2"])
    turns = [
        TurnEvent(
            tenant_id="acme",
            user_id="alice",
            session_id=next(sessions),
            turn_id=f"t{i}",
            role="user",
            content=text,
            ts=T0 + timedelta(minutes=i),
        )
        for i, text in enumerate([*VOCABULARY, VOCABULARY[8]])  # the pending one again
    ]
    got = in_process(gate_settings, audit_path, _name(), [turns])
    reasons = {(r["verdict"], r["reason"]) for r in got.audit["decisions"]}
    for wanted in [
        ("ADD", "new_key"),
        ("DUPLICATE", "near_duplicate"),
        ("SUPERSEDE", "new_value"),
        ("SUPERSEDE", "retracted"),
        ("PENDING", "needs_confirmation_or_evidence"),
        ("ADD", "promoted_repeated_evidence"),
        ("drop", "question_only"),
        ("none", "no_fact"),
        ("rejected", "credential"),
        ("redacted", "placeholders"),
    ]:
        assert wanted in reasons, (wanted, sorted(reasons))
    assert "alice@example.com" not in str(got)


def test_the_vocabulary_reaches_the_folds_of_the_default_extractor(
    audit_path: Path, gate_settings: Settings
) -> None:
    """With the default (hybrid) extractor, the vocabulary's last four sentences are folded
    into an earlier fact in other words: as a paraphrase and as the same clause, the two
    folds whose redelivery once counted again (replayfold). The properties above draw
    from them, so a replayed prefix may hold a fold."""
    turns = [
        TurnEvent(tenant_id="acme", user_id="alice", session_id="s1", turn_id=f"t{i}",
                  role="user", content=text, ts=T0 + timedelta(minutes=i))
        for i, text in enumerate(VOCABULARY[-4:])
    ]  # fmt: skip
    got = in_process(gate_settings, audit_path, _name(), [turns])
    dedupe = {(r["turn_id"], r["reason"]) for r in got.audit["decisions"] if r["stage"] == "dedupe"}
    assert dedupe == {
        ("t0", "new_key"),
        ("t1", "paraphrase"),
        ("t2", "new_key"),
        ("t3", "same_clause"),
    }


def test_a_redelivered_retraction_of_a_sentence_fact_finds_what_it_closed(
    audit_path: Path, gate_settings: Settings
) -> None:
    """Found by the property above in CI: the retraction closed a fact stored as a
    sentence (not under its own key); delivered again before the journal knew the turn,
    it looked under its key only, found nothing and wrote ``nothing_to_retract`` over
    its own ``retracted`` decision."""
    like = "I like long hikes in the mountains near the lake."
    texts = [like] * 4 + ["I no longer like long hikes in the mountains near the lake."]
    at = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    turns = [
        TurnEvent(
            tenant_id="acme",
            user_id="alice",
            session_id="s1",
            turn_id=f"t{i}",
            role="user",
            content=text,
            ts=at + timedelta(minutes=i // 4),
        )
        for i, text in enumerate(texts)
    ]
    once = through_agents(gate_settings, audit_path, _name(), [turns], audit_lag=True)
    got = through_agents(gate_settings, audit_path, _name(), [turns, turns], audit_lag=True)
    assert got.facts == once.facts
    for table, rows in once.audit.items():
        by_id = {r["event_id"]: r for r in got.audit[table]}
        clock = INGEST_TIME[table]
        for row in rows:
            assert {**by_id.pop(row["event_id"]), clock: None} == {**row, clock: None}


@pytest.mark.parametrize("lag", [True, False], ids=["before-journal", "after-journal"])
def test_a_redelivered_turn_does_not_bring_back_what_the_user_had_erased(
    audit_path: Path, gate_settings: Settings, lag: bool
) -> None:
    """A deletion request erases the fact (its tombstone keeps the id, not the content);
    the turn that made it, delivered again, finds the tombstone and writes nothing."""
    at = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    texts = ["I like jazz, especially Coltrane.", "Please forget that I like jazz."]
    turns = [
        TurnEvent(
            tenant_id="acme",
            user_id="alice",
            session_id="s1",
            turn_id=f"t{i}",
            role="user",
            content=text,
            ts=at + timedelta(minutes=i),
        )
        for i, text in enumerate(texts)
    ]
    once = through_agents(gate_settings, audit_path, _name(), [turns], audit_lag=lag)
    got = through_agents(gate_settings, audit_path, _name(), [turns, turns[:1]], audit_lag=lag)
    assert got.facts == once.facts
    assert not [f for f in once.facts if "jazz" in str(f).lower()]  # erased, not kept


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I prefer tabs over spaces.", "For indentation I always want tabs rather than spaces."),
        ("My employer is Airbus.", "Mon employeur, c'est Airbus."),
        ("My dog's name is Rocco.", "Rocco es el nombre de mi perro."),
    ],
    ids=["same_clause", "same_clause-fr", "paraphrase"],
)
def test_a_redelivered_paraphrase_is_not_counted_again(
    audit_path: Path, gate_settings: Settings, first: str, second: str
) -> None:
    """The second turn restates the first's fact in other words and is folded into it
    (``same_clause`` or ``paraphrase``, below the near-duplicate line); delivered again
    before the journal knew it, it reached dedupe again and counted once more
    (occurrences 3, one more write). Now it finds the fact citing its turn: nothing written."""
    a, b = (
        TurnEvent(tenant_id="acme", user_id="alice", session_id="s1", turn_id=f"t{i}",
                  role="user", content=text, ts=T0 + timedelta(minutes=5 * i))
        for i, text in enumerate([first, second])
    )  # fmt: skip
    once = through_agents(gate_settings, audit_path, _name(), [[a, b]], audit_lag=True)
    dedupe = {r["turn_id"]: r["reason"] for r in once.audit["decisions"] if r["stage"] == "dedupe"}
    assert dedupe in ({"t0": "new_key", "t1": "same_clause"}, {"t0": "new_key", "t1": "paraphrase"})
    assert [(f["occurrences"], f["source_turn_ids"]) for f in once.facts] == [(2, ["t0", "t1"])]
    for runs in ([[a, b], [b]], [[a, b], [b, b]]):
        got = through_agents(gate_settings, audit_path, _name(), runs, audit_lag=True)
        assert got.facts == once.facts  # whole records: seen count, sources, last seen, times
        for table, rows in once.audit.items():
            by_id = {r["event_id"]: r for r in got.audit[table]}
            clock = INGEST_TIME[table]
            for row in rows:  # every row of the single delivery, re-stamped at most
                assert {**by_id.pop(row["event_id"]), clock: None} == {**row, clock: None}
            # no fact_history row: the one new row is the dedupe's redelivered decision
            assert [(r.get("stage"), r.get("reason")) for r in by_id.values()] == (
                [("dedupe", "redelivered")] if table == "decisions" else []
            ), table
    here = in_process(gate_settings, audit_path, _name(), [[a, b]])
    for runs in ([[a, b, b]], [[a, b], [b]]):
        assert in_process(gate_settings, audit_path, _name(), runs) == here


@pytest.mark.parametrize(
    "texts",
    [
        [
            "I prefer tabs over spaces.",
            "For indentation I always want tabs rather than spaces.",
            "Actually I now prefer spaces over tabs.",
        ],
        ["My employer is Airbus.", "Mon employeur, c'est Airbus.", "I now work at Boeing."],
        [
            "My dog's name is Rocco.",
            "Rocco es el nombre de mi perro.",
            "I no longer have a dog named Rocco.",
        ],
    ],
    ids=["new_value", "semantic_update", "stopped_by_reference"],
)
def test_a_redelivered_paraphrase_does_not_bring_back_a_closed_fact(
    audit_path: Path, gate_settings: Settings, texts: list[str]
) -> None:
    """The second turn was folded into the first's fact, which the third closed; the
    second delivered again before the journal knew it found no active target and was
    stored as a new active fact (the old value back in other words)."""
    turns = [
        TurnEvent(tenant_id="acme", user_id="alice", session_id="s1", turn_id=f"t{i}",
                  role="user", content=text, ts=T0 + timedelta(minutes=5 * i))
        for i, text in enumerate(texts)
    ]  # fmt: skip
    once = through_agents(gate_settings, audit_path, _name(), [turns], audit_lag=True)
    assert [f["status"] for f in once.facts if f["source_turn_ids"][:2] == ["t0", "t1"]] == [
        "superseded"
    ]
    got = through_agents(gate_settings, audit_path, _name(), [turns, turns[1:2]], audit_lag=True)
    assert got.facts == once.facts
