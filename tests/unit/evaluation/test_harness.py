"""The evaluation harness is honest: each score can reach both ends, and can fail.

The gates here are built from the real stages with one part swapped (a triage
that keeps every turn, an extractor that stores every turn or nothing, a
detector that finds nothing), so the figures do not depend on the rule
extractor, which is tuned separately.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import memgate
from memgate.core.embedding import Embedder, HashingEmbedder
from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    FactStatus,
    FactType,
    JournalRecord,
    TriagedTurn,
    TurnEvent,
    stable_id,
)
from memgate.core.settings import Settings, load_settings
from memgate.evaluation import labelled, leaks, scenarios
from memgate.evaluation.common import BUNDLED_FILES, Confusion, Workspace
from memgate.keys import hmac_key
from memgate.stages.dedupe import Resolver
from memgate.stages.detectors import Detector
from memgate.stages.policy import preset
from memgate.stages.redact import Redactor
from memgate.streams.pipeline import ExtractStep, Pipeline, TriageStep

EVAL_DIR = Path(memgate.__file__).parent / "data" / "eval"
EMBEDDER = HashingEmbedder()


def settings(tmp_path: Path, policy: str = "balanced") -> Settings:
    return load_settings(data_dir=tmp_path / "unused", embedder="hashing", policy=policy)


# ------------------------------------------------------------------ fakes


class KeepAllTriage(TriageStep):
    """Journals every turn like the real triage, then lets every turn through."""

    def __call__(self, turn: TurnEvent) -> list[TriagedTurn | JournalRecord | DecisionRecord]:
        out = super().__call__(turn)
        if not any(isinstance(e, TriagedTurn) and not e.probe for e in out):
            # a dropped turn's probe (resolve_probe) is no turn let through
            out = [e for e in out if not isinstance(e, TriagedTurn)]
            out.insert(0, TriagedTurn(turn=turn, reason="keep_all"))
        return out


class KeepEverything:
    """One fact per turn, under a key of its own: the turn's whole text."""

    name = "keep-everything"
    version = "1"

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        return [_fact(turn, "turn", f"said_{turn.turn_id}", turn.content or "-", self)]


class KeepNothing:
    name = "keep-nothing"
    version = "1"

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        return []


class KeyValue:
    """'key=value' stores value under key (confidence from 'conf=0.5;' when given)."""

    name = "key-value"
    version = "1"
    _RE = re.compile(r"(?:conf=(?P<c>[0-9.]+);\s*)?(?P<k>\w+)=(?P<v>.+)")

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        m = self._RE.fullmatch(turn.content.strip())
        if m is None:
            return []
        conf = float(m.group("c") or 0.9)
        return [_fact(turn, "user", m.group("k"), m.group("v"), self, conf)]


def _fact(
    turn: TurnEvent, subject: str, predicate: str, obj: str, ex: Any, conf: float = 1.0
) -> CandidateFact:
    return CandidateFact(
        candidate_id=stable_id(turn.tenant_id, turn.turn_id, predicate),
        tenant_id=turn.tenant_id,
        user_id=turn.user_id,
        session_id=turn.session_id,
        type=FactType.FACT,
        subject=subject,
        predicate=predicate,
        object=obj[:2000],
        confidence=conf,
        source_turn_ids=[turn.turn_id],
        extractor=ex.name,
        extractor_version=ex.version,
        turn_ts=turn.ts,
        outcome=turn.outcome,
        confirmed=turn.confirmed,
    )


def gate(extractor: Any, *, detector: Detector | None = None, keep_all: bool = True) -> Any:
    """A pipeline factory: the real redact and resolve stages around the given parts."""

    def factory(s: Settings, embedder: Embedder) -> Pipeline:
        det = detector or Detector()
        triage_cls = KeepAllTriage if keep_all else TriageStep
        return Pipeline(
            triage=triage_cls(detector=det, hmac_key=hmac_key(s)),
            extract=ExtractStep(extractor=extractor),
            redact=Redactor(detector=det, regulated=s.regulated),
            resolve=Resolver(policy=preset(s.policy), embedder=embedder),
        )

    return factory


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def turn(tid: str, content: str, ts: str, **kw: Any) -> dict[str, Any]:
    base = {
        "tenant_id": "acme",
        "user_id": "alice",
        "session_id": "s1",
        "turn_id": tid,
        "role": "user",
        "content": content,
        "ts": ts,
    }
    return {**base, **kw}


# ------------------------------------------------------------------ scores


def test_confusion_edges() -> None:
    c = Confusion()
    assert c.precision is None and c.recall is None and c.f1 is None
    c = Confusion(tp=0, fp=0, fn=5, tn=5)
    assert c.precision is None and c.recall == 0.0 and c.f1 == 0.0
    c = Confusion(tp=3, fp=1, fn=1, tn=5)
    assert c.precision == 0.75 and c.recall == 0.75 and c.f1 == pytest.approx(0.75)
    assert c.add(keep=True, stored=False).fn == 2


# --------------------------------------------------------------- labelled


def test_a_gate_that_keeps_everything_recalls_every_keep_turn(tmp_path: Path) -> None:
    path = EVAL_DIR / BUNDLED_FILES["labelled"]
    items = labelled.load(path)
    rep = labelled.evaluate(
        path, settings(tmp_path, "permissive"), EMBEDDER, pipeline_factory=gate(KeepEverything())
    )
    keep = sum(i.keep for i in items)
    assert rep.overall.recall == 1.0, [m.id for m in rep.false_negatives]
    assert rep.overall.tp == keep
    assert rep.overall.fp == len(items) - keep, "every negative is stored too"
    assert rep.overall.precision == pytest.approx(keep / len(items))
    assert not rep.false_negatives
    assert len(rep.false_positives) == len(items) - keep
    assert rep.extractor == "keep-everything-1"
    for kind, c in rep.by_kind.items():
        assert c.fn == 0 and c.tn == 0, kind


def test_a_gate_that_keeps_nothing_scores_zero(tmp_path: Path) -> None:
    path = EVAL_DIR / BUNDLED_FILES["labelled"]
    rep = labelled.evaluate(
        path, settings(tmp_path), EMBEDDER, pipeline_factory=gate(KeepNothing(), keep_all=False)
    )
    assert rep.overall.tp == 0 and rep.overall.fp == 0
    assert rep.overall.recall == 0.0
    assert rep.overall.f1 == 0.0
    assert rep.f1 == 0.0
    assert rep.overall.precision is None
    assert not rep.false_positives
    assert len(rep.false_negatives) == rep.overall.fn > 0
    # the gate's decisions explain each miss
    assert all(any(d.startswith("triage:") for d in m.decisions) for m in rep.false_negatives)
    d = rep.as_dict()
    assert d["overall"]["f1"] == 0.0 and d["overall"]["recall"] == 0.0


def test_stored_statuses_decide_what_counts(tmp_path: Path) -> None:
    rows = [
        {
            "id": "a",
            "domain": "personal",
            "lang": "en",
            "kind": "preference",
            "keep": True,
            "turn": turn("a", "conf=0.5; diet=vegan", "2024-01-01T00:00:00Z"),
        },
        {
            "id": "b",
            "domain": "personal",
            "lang": "en",
            "kind": "small_talk",
            "keep": False,
            "turn": turn("b", "nice weather today", "2024-01-01T00:01:00Z"),
        },
    ]
    path = write_jsonl(tmp_path / "l.jsonl", rows)
    s = settings(tmp_path)  # balanced: 0.5 is an inference, stored PENDING
    rep = labelled.evaluate(path, s, EMBEDDER, pipeline_factory=gate(KeyValue()))
    assert rep.overall.tp == 1 and rep.overall.tn == 1
    assert rep.stored_pending_only == ["a"]
    strict = labelled.evaluate(
        path,
        s,
        EMBEDDER,
        pipeline_factory=gate(KeyValue()),
        stored_statuses=(FactStatus.ACTIVE,),
    )
    assert strict.overall.fn == 1 and [m.id for m in strict.false_negatives] == ["a"]


# ------------------------------------------------------------------ leaks


def test_the_leak_check_finds_every_secret_when_redaction_is_bypassed(tmp_path: Path) -> None:
    path = EVAL_DIR / BUNDLED_FILES["leaks"]
    cases = leaks.load(path)
    blind = Detector(kinds=frozenset())  # finds nothing: no masking, no rejection
    rep = leaks.evaluate(
        path,
        settings(tmp_path, "permissive"),
        EMBEDDER,
        pipeline_factory=gate(KeepEverything(), detector=blind),
    )
    secrets = [c for c in cases if c.kind != "benign"]
    assert rep.secrets == len(secrets)
    assert rep.leaks == len(secrets), "every raw secret is found"
    for r in rep.leaked:
        assert "audit.journal" in r.where, r.id
        assert "retrieval.facts" in r.where, r.id
        assert "retrieval.sqlite" in r.where, r.id
        assert any(w.startswith("files:retrieval.sqlite3") for w in r.where), r.id
    assert all(v["leaked"] == v["cases"] for v in rep.by_kind.values())
    assert rep.benign_share == 1.0, "nothing is masked, so every look-alike survives"
    # the report names stores, never the secret values
    dumped = json.dumps(rep.as_dict())
    assert not any(c.secret and c.secret in dumped for c in secrets)


def test_the_real_gate_masks_the_journal_and_scans_every_store(tmp_path: Path) -> None:
    rows = [
        {
            "id": "k1",
            "kind": "email",
            "secret": "dana.k@fabrikam-mail.com",
            "turn": turn(
                "k1", "Send the report to dana.k@fabrikam-mail.com.", "2024-01-01T00:00:00Z"
            ),
        },
        {
            "id": "b1",
            "kind": "benign",
            "lookalike": "3.12.4",
            "lookalike_kind": "version",
            "turn": turn("b1", "We use Python 3.12.4 everywhere.", "2024-01-01T00:01:00Z"),
        },
    ]
    path = write_jsonl(tmp_path / "k.jsonl", rows)
    rep = leaks.evaluate(
        path, settings(tmp_path), EMBEDDER, pipeline_factory=gate(KeepEverything())
    )
    assert rep.leaks == 0 and rep.secrets == 1
    assert rep.benign == 1 and rep.benign_intact == 1
    for store in ("retrieval.facts", "retrieval.sqlite", "audit.journal", "audit.decisions"):
        assert store in rep.stores_scanned
    assert "audit.fact_history" in rep.stores_scanned
    # a dead-letter payload holding the raw value is a leak
    dlq = ['{"payload": "Send the report to dana.k@fabrikam-mail.com."}']
    rep = leaks.evaluate(
        path,
        settings(tmp_path),
        EMBEDDER,
        pipeline_factory=gate(KeepEverything()),
        dead_letters=dlq,
    )
    assert rep.leaks == 1 and rep.leaked[0].where == ["kafka.dead_letters"]


def test_an_over_eager_detector_fails_the_benign_share(tmp_path: Path) -> None:
    class MasksDigits(Detector):
        # every digit run is a "phone" (the redact stage and the journal both scan)
        def scan(self, text: str) -> Any:
            from memgate.stages.detectors import Category, Finding

            return [
                Finding("phone", Category.PII, m.start(), m.end())
                for m in re.finditer(r"\d[\d.\-]*", text)
            ]

    rows = [
        {
            "id": f"b{i}",
            "kind": "benign",
            "lookalike": v,
            "lookalike_kind": "version",
            "turn": turn(
                f"b{i}", f"We pin release {v} from now on.", f"2024-01-0{i + 1}T00:00:00Z"
            ),
        }
        for i, v in enumerate(["3.12.4", "0.73.6", "v-only"])
    ]
    path = write_jsonl(tmp_path / "b.jsonl", rows)
    rep = leaks.evaluate(
        path,
        settings(tmp_path),
        EMBEDDER,
        pipeline_factory=gate(KeepEverything(), detector=MasksDigits()),
    )
    assert rep.benign == 3 and rep.benign_intact == 1
    assert rep.benign_share == pytest.approx(1 / 3)
    masked = {b.id: b for b in rep.benign_masked}
    assert set(masked) == {"b0", "b1"}
    assert masked["b0"].journal_redactions == {"phone": 1}
    assert masked["b0"].fact_path_findings == ["redacted:placeholders"]


# -------------------------------------------------------------- scenarios


def test_scenario_checks_pass_and_fail_on_a_known_gate(tmp_path: Path) -> None:
    story = {
        "id": "kv",
        "description": "key-value facts through the real resolver",
        "covers": ["contradiction", "as_of"],
        "turns": [
            turn("t1", "editor=vim", "2024-01-01T00:00:00Z"),
            turn("t2", "editor=neovim", "2024-06-01T00:00:00Z", session_id="s2"),
            turn("t2", "editor=neovim", "2024-06-01T00:00:00Z", session_id="s2"),
            turn("t3", "conf=0.5; diet=vegan", "2024-06-02T00:00:00Z"),
        ],
        "checks": [
            {
                "type": "search_top",
                "tenant": "acme",
                "user": "alice",
                "query": "editor",
                "expect_contains": "vim",
                "after": "t1",
            },
            {
                "type": "search_top",
                "tenant": "acme",
                "user": "alice",
                "query": "editor",
                "expect_contains": "neovim",
                "expect_none_from": "t1",
            },
            {
                "type": "search_top",
                "tenant": "acme",
                "user": "alice",
                "query": "editor",
                "as_of": "2024-03-01T00:00:00Z",
                "expect_top_from": "t1",
            },
            {
                "type": "fact_status",
                "tenant": "acme",
                "user": "alice",
                "from_turn": "t1",
                "status": "superseded",
            },
            {
                "type": "fact_status",
                "tenant": "acme",
                "user": "alice",
                "from_turn": "t2",
                "status": "active",
                "occurrences": 1,
            },
            {
                "type": "fact_status",
                "tenant": "acme",
                "user": "alice",
                "text_contains": "vegan",
                "status": "pending",
            },
            {"type": "active_count", "tenant": "acme", "user": "alice", "equals": 1},
            {"type": "fact_count", "tenant": "acme", "user": "alice", "equals": 3},
            {"type": "no_results", "tenant": "globex", "user": "alice", "query": "editor"},
            {"type": "no_secret", "secret": "hunter2-Xq9"},
            # the same gate, wrong expectations: each must fail
            {
                "type": "search_top",
                "tenant": "acme",
                "user": "alice",
                "query": "editor",
                "expect_contains": "emacs",
            },
            {
                "type": "search_top",
                "tenant": "acme",
                "user": "alice",
                "query": "editor",
                "expect_not_contains": "neovim",
            },
            {"type": "active_count", "tenant": "acme", "user": "alice", "equals": 2},
            {
                "type": "fact_status",
                "tenant": "acme",
                "user": "alice",
                "text_contains": "vegan",
                "status": "active",
            },
            {"type": "no_results", "tenant": "acme", "user": "alice", "query": "editor"},
            {
                "type": "fact_status",
                "tenant": "acme",
                "user": "alice",
                "text_contains": "emacs",
                "status": "absent",
            },
        ],
    }
    path = write_jsonl(tmp_path / "s.jsonl", [story])
    rep = scenarios.evaluate(path, settings(tmp_path), EMBEDDER, pipeline_factory=gate(KeyValue()))
    (res,) = rep.results
    outcome = [c.passed for c in res.checks]
    assert outcome == [True] * 10 + [False] * 5 + [True], [c.message for c in res.checks]
    assert not res.passed and rep.failed == [res]
    assert res.first_failure.startswith("check 10 (search_top)")
    assert "lacks 'emacs'" in res.first_failure
    assert rep.as_dict()["failed"] == ["kv"]


def test_a_scenario_catches_a_stored_secret(tmp_path: Path) -> None:
    story = {
        "id": "sec",
        "description": "a credential must not be stored",
        "turns": [
            turn("t1", "db=postgres://app:Zr8KpW3qLm5@db.internal/app", "2024-01-01T00:00:00Z")
        ],
        "checks": [{"type": "no_secret", "secret": "Zr8KpW3qLm5"}],
    }
    path = write_jsonl(tmp_path / "s.jsonl", [story])
    ok = scenarios.evaluate(path, settings(tmp_path), EMBEDDER, pipeline_factory=gate(KeyValue()))
    assert ok.passed == 1
    blind = gate(KeyValue(), detector=Detector(kinds=frozenset()))
    bad = scenarios.evaluate(path, settings(tmp_path), EMBEDDER, pipeline_factory=blind)
    assert bad.passed == 0
    assert "retrieval.facts" in bad.results[0].first_failure


def test_a_crashing_scenario_fails_and_the_others_run(tmp_path: Path) -> None:
    class Boom(KeyValue):
        def extract(self, turn: TurnEvent) -> list[CandidateFact]:
            if "boom" in turn.content:
                raise RuntimeError("extractor exploded")
            return super().extract(turn)

    stories = [
        {
            "id": "a",
            "description": "crashes",
            "turns": [turn("t1", "x=boom", "2024-01-01T00:00:00Z")],
            "checks": [{"type": "fact_count", "tenant": "acme", "user": "alice", "equals": 0}],
        },
        {
            "id": "b",
            "description": "runs",
            "turns": [turn("t1", "x=fine", "2024-01-01T00:00:00Z")],
            "checks": [{"type": "active_count", "tenant": "acme", "user": "alice", "equals": 1}],
        },
    ]
    path = write_jsonl(tmp_path / "s.jsonl", stories)
    rep = scenarios.evaluate(path, settings(tmp_path), EMBEDDER, pipeline_factory=gate(Boom()))
    assert [r.passed for r in rep.results] == [False, True]
    assert rep.results[0].error is not None and "exploded" in rep.results[0].error


# --------------------------------------------------------------- workspace


def test_the_workspace_is_fresh_and_removed(tmp_path: Path) -> None:
    s = settings(tmp_path)
    with Workspace(s, EMBEDDER, gate(KeyValue())) as ws:
        folder = ws.data_dir
        assert ws.settings.data_dir == folder != s.data_dir
        assert ws.settings.retrieval_backend == "embedded"
        ws.ingest([TurnEvent.model_validate(turn("t1", "editor=vim", "2024-01-01T00:00:00Z"))])
        assert [f.value for f in ws.facts()] == ["vim"]
        assert ("acme", "t1") in ws.journal_text()
    assert not folder.exists()
    assert not s.data_dir.exists(), "the user's data dir is never touched"
