"""A turn that yields no fact reinforces the stored fact it says again (resolve_probe).

Through the whole gate (triage, extract, redact, dedupe, persist) on fresh embedded stores,
with the real MiniLM: a restatement triage drops (a question tag, a request after it) or
extraction finds nothing in is one more occurrence of the fact it repeats; it never makes
a fact, never changes a value, never touches another user's or tenant's fact, and a near
but different turn (another person, another value, a negation, a wish) reinforces nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from memgate.core.events import (
    CandidateFact,
    FactType,
    Role,
    StoredFact,
    TriagedTurn,
    TriageVerdict,
    TurnEvent,
)
from memgate.core.settings import Settings
from memgate.evaluation.common import Workspace
from memgate.stages.resolve_probe import PROBE, Probe, covered, probe_candidate
from tests.unit.stages.resolver_kit import minilm

T0 = datetime(2025, 2, 3, 9, 0, tzinfo=UTC)


def _turn(
    text: str, n: int, *, user: str = "ada", tenant: str = "acme", role: str = "user"
) -> TurnEvent:
    return TurnEvent(
        tenant_id=tenant,
        user_id=user,
        session_id=f"s{n}",
        turn_id=f"{tenant}-{user}-t{n}",
        role=Role(role),
        content=text,
        ts=T0 + timedelta(days=20 * n),
    )


@pytest.fixture(scope="module")
def gate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("probe"))
    with Workspace(settings, minilm()) as ws:
        yield ws


def _said(ws: Workspace, *texts: str, user: str, tenant: str = "acme") -> list[StoredFact]:
    for n, text in enumerate(texts, start=1):
        ws.process(_turn(text, n, user=user, tenant=tenant))
    return ws.store.list_facts(tenant, user, include_inactive=True)


def _only(facts: list[StoredFact], word: str) -> StoredFact:
    found = [f for f in facts if word.casefold() in f.text.casefold()]
    assert len(found) == 1, [f.text for f in facts]
    return found[0]


def _dedupe_reasons(ws: Workspace, tenant: str, user: str) -> list[str]:
    _, rows = ws.audit_store.query(
        "SELECT reason FROM decisions WHERE tenant_id = {t:String} AND user_id = {u:String} "
        "AND stage = 'dedupe' ORDER BY decided_at",
        {"t": tenant, "u": user},
    )
    return [str(r[0]) for r in rows]


# ------------------------------------------------------------------ restatements fold


@pytest.mark.parametrize(
    ("n", "first", "again", "word"),
    [
        # triage drops it: only a question, with the fact in it
        (1, "My daughter's name is Nora.", "You know my daughter Nora, right?", "Nora"),
        (2, "Mein Sohn heißt Jakob.", "Du kennst doch meinen Sohn Jakob, oder?", "Jakob"),
        # triage drops it: the fact said again inside a request (a statement after a repeat
        # marker, "Like I said, I'm a pharmacist. Could you ...?", is kept since session 40)
        (
            3,
            "I'm a pharmacist.",
            "Could you suggest a good book about sleep for a pharmacist like me?",
            "pharmacist",
        ),
        # kept, but extraction finds no fact: a bare noun phrase with a tag
        (
            4,
            "Soy alérgica a la penicilina.",
            "Alérgica a la penicilina, ya te lo dije.",
            "penicilina",
        ),
        (5, "Je suis végétarienne.", "Végétarienne, tu t'en souviens ?", "végétarienne"),
    ],
)
def test_a_restatement_without_a_fact_of_its_own_is_one_more_occurrence(
    gate: Workspace, n: int, first: str, again: str, word: str
) -> None:
    user = f"same{n}"
    before = _only(_said(gate, first, user=user), word)
    after = _only(_again(gate, again, user), word)
    assert after.fact_id == before.fact_id
    assert after.occurrences == before.occurrences + 1
    assert (after.value, after.text, after.key) == (before.value, before.text, before.key)
    assert after.confidence == before.confidence  # a probe never raises it
    assert f"acme-{user}-t2" in after.source_turn_ids
    assert "restatement" in _dedupe_reasons(gate, "acme", user)
    assert len(gate.store.list_facts("acme", user, include_inactive=True)) == 1


def _again(ws: Workspace, text: str, user: str) -> list[StoredFact]:
    ws.process(_turn(text, 2, user=user))
    return ws.store.list_facts("acme", user, include_inactive=True)


def test_a_replayed_restatement_counts_once(gate: Workspace) -> None:
    user = "replay"
    _said(gate, "My daughter's name is Mia.", user=user)
    turn = _turn("You know my daughter Mia, right?", 2, user=user)
    gate.process(turn)
    gate.process(turn)  # the same turn delivered again
    assert _only(gate.store.list_facts("acme", user), "Mia").occurrences == 2


# ------------------------------------------------------------------ hard negatives


@pytest.mark.parametrize(
    ("n", "first", "other", "word"),
    [
        # another person's fact with the same value
        (
            1,
            "My sister lives in Porto.",
            "My neighbour lives in Porto too, funny enough.",
            "sister",
        ),
        # another value of the same kind
        (
            2,
            "Ich spiele Geige im Schulorchester.",
            "Ich spiele außerdem ein wenig Gitarre.",
            "Geige",
        ),
        # a negation about the same thing, kept; and one triage drops (a probe)
        (3, "Je bois du thé vert tous les matins.", "Je ne bois jamais de thé le soir.", "vert"),
        (4, "Eu moro em Braga.", "Eu não moro em Braga, mas trabalho lá, lembras-te?", "Braga"),
        # a wish, not the thing done (triage drops it: a probe)
        (
            5,
            "Terminé un doctorado en física.",
            "Quiero empezar otro doctorado en química.",
            "física",
        ),
        # another relative, another job, one city
        (6, "我哥哥在北京当老师。", "我表姐也在北京，不过她是护士。", "老师"),
    ],
)
def test_a_near_but_different_turn_reinforces_nothing(
    gate: Workspace, n: int, first: str, other: str, word: str
) -> None:
    user = f"other{n}"
    before = _only(_said(gate, first, user=user), word)
    after = _only(_again(gate, other, user), word)
    assert after.occurrences == before.occurrences == 1
    assert "restatement" not in _dedupe_reasons(gate, "acme", user)


def test_a_probe_never_makes_a_fact(gate: Workspace) -> None:
    user = "nofact"
    assert _said(gate, "You know my daughter Clara, right?", user=user) == []
    assert _dedupe_reasons(gate, "acme", user) == []


def test_another_users_and_another_tenants_facts_are_not_reinforced(gate: Workspace) -> None:
    _said(gate, "My daughter's name is Alma.", user="owner")
    gate.process(_turn("You know my daughter Alma, right?", 2, user="stranger"))
    gate.process(_turn("You know my daughter Alma, right?", 2, user="owner", tenant="other"))
    assert _only(gate.store.list_facts("acme", "owner"), "Alma").occurrences == 1
    assert gate.store.list_facts("acme", "stranger", include_inactive=True) == []
    assert gate.store.list_facts("other", "owner", include_inactive=True) == []


# ------------------------------------------------------------------ the parts


def test_covered_counts_the_stored_words_said_again_by_word_or_prefix() -> None:
    assert covered("data engineer", "Like I said, I'm a data engineer.") == 1.0
    assert covered("runs PostgreSQL 15", "It runs on Postgres 15") == 1.0  # "postg", 15
    assert covered("Ich spiele Cello", "Ich spiele Klavier") == 0.5
    assert covered("", "anything") == 0.0


def test_the_probe_of_a_turn_is_its_text_flagged_and_only_a_users() -> None:
    c = probe_candidate(_turn("  You know my son   Leo, right? ", 1))
    assert c is not None and (c.probe, c.object, c.confidence, c.type) == (
        True,
        "You know my son Leo, right?",
        0.0,
        FactType.FACT,
    )
    assert probe_candidate(_turn("You know my son Leo, right?", 1, role="assistant")) is None
    off = Probe.from_data({**_data(), "mode": "off"})
    assert probe_candidate(_turn("You know my son Leo, right?", 1), off) is None
    with pytest.raises(ValueError, match="unknown mode"):
        Probe.from_data({**_data(), "mode": "sometimes"})


def _data() -> dict[str, object]:
    return {
        "version": PROBE.version,
        "mode": "on",
        "drop_reasons": sorted(PROBE.drop_reasons),
        "nearest": PROBE.nearest,
        "model_bar": PROBE.model_bar,
        "cover_bar": PROBE.cover_bar,
        "prefix_chars": PROBE.prefix_chars,
    }


def test_triage_carries_a_dropped_question_on_as_a_probe_only(gate: Workspace) -> None:
    step = gate.pipeline.triage
    out = step(_turn("You know my son Leo, right?", 1))
    probes = [o for o in out if isinstance(o, TriagedTurn)]
    assert [p.probe for p in probes] == [True]
    for other in ("ok thanks!", "As I said, the first draft was better."):
        out_other = step(_turn(other, 1))  # filler, chatter: no probe (restate_probe.json)
        assert not [o for o in out_other if isinstance(o, TriagedTurn)]
    # the journal still says the turn was dropped
    assert any(getattr(o, "verdict", None) is TriageVerdict.DROP for o in out)


def test_a_probe_is_not_extracted_and_leaves_no_extract_or_redact_row(gate: Workspace) -> None:
    turn = _turn("You know my son Leo, right?", 1)
    out = gate.pipeline.extract(TriagedTurn(turn=turn, reason="question_only", probe=True))
    assert [type(o) for o in out] == [CandidateFact]
    assert out[0].probe
    redacted = gate.pipeline.redact(out[0])
    assert len(redacted) == 1 and redacted[0].candidate.probe


def test_the_run_summary_counts_no_probe_as_kept(gate: Workspace) -> None:
    s = gate.runner.summary
    kept, candidates = s.kept, s.candidates
    gate.ingest([_turn("You know my son Leo, right?", 1, user="count")])
    assert (s.kept, s.candidates) == (kept, candidates)
    assert s.dropped["question_only"] >= 1
