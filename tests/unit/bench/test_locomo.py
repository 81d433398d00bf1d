"""The LoCoMo harness on a tiny synthetic conversation in LoCoMo's format.

The honesty properties: a gated store that keeps every turn (same texts,
same provenance) scores exactly the baseline's figures, and a store that
keeps nothing scores zero. The audit runs in chDB, one engine per process:
``run_locomo`` closes every store it opens.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from memgate.backends import build_pipeline
from memgate.bench.locomo import (
    BenchResult,
    evidence_ids,
    observation_ids,
    pollute,
    questions_of,
    run_locomo,
)
from memgate.core.embedding import HashingEmbedder
from memgate.core.events import CandidateFact, FactType, TurnEvent, stable_id
from memgate.core.settings import Settings
from memgate.inputs import load_locomo
from memgate.stages.triage import TriagePolicy
from memgate.streams.pipeline import Pipeline

# Every speaker's turns have distinct lengths in words, so no two of them tie in BM25,
# and the test embedder (below) leaves no cosine ties: the store breaks ties by fact
# id, which differs between the gated and the baseline store even for the same texts.
SESSION_1 = [
    ("Ann", "I adopted a golden retriever named Biscuit from the shelter last week."),
    ("Bob", "I started training for the Lisbon marathon with my running club."),
    ("Ann", "I painted a sunrise over the lake for my grandmother's birthday party."),
    ("Bob", "I switched my team from Jenkins to GitHub Actions for all deployments."),
    ("Ann", "I am volunteering at the community garden every Saturday morning."),
    ("Bob", "I bought a vintage Yamaha guitar at the big flea market downtown yesterday."),
    ("Ann", "My younger sister moved to Toronto to study marine biology at the big university."),
    ("Bob", "I have been reading science fiction novels by Ursula Le Guin every night lately."),
    ("Ann", "I went camping in the Rocky Mountains with my two kids."),
    ("Bob", "I cooked a spicy Thai green curry with fresh basil for the neighbours on Friday."),
    ("Ann", "I signed up for a pottery class at the art centre right near my office."),
    ("Bob", "I repaired the old red bicycle my father gave me when I was twelve years old."),
]
SESSION_2 = [
    ("Ann", "Biscuit learned to fetch the frisbee at the beach."),
    ("Bob", "I finished the half marathon in one hour fifty minutes."),
    (
        "Ann",
        "I sold my sunrise painting at the local gallery exhibition downtown for three "
        "hundred euros today.",
    ),
    (
        "Bob",
        "I joined a jazz band that rehearses in a basement studio on Tuesdays and I play guitar.",
    ),
    ("Ann", "I harvested tomatoes and zucchini from my garden."),
    ("Bob", "I visited my cousin in Montreal and ate bagels."),
    (
        "Ann",
        "I am learning Portuguese because my husband and I plan a long trip to Brazil next year.",
    ),
    (
        "Bob",
        "I planted an apple tree and two cherry trees in the backyard with my daughter last "
        "Sunday afternoon.",
    ),
    (
        "Ann",
        "I made a ceramic vase in my Tuesday pottery class and glazed it a deep ocean blue colour.",
    ),
    ("Bob", "I started an astronomy podcast with a friend."),
    (
        "Ann",
        "I organised a charity bake sale for the animal shelter and we raised enough money for "
        "three new kennels.",
    ),
    (
        "Bob",
        "I upgraded my laptop memory to thirty two gigabytes so the video editing for my "
        "channel runs much faster.",
    ),
]
QA: list[dict[str, Any]] = [
    {
        "question": "When did Ann adopt Biscuit?",
        "answer": "May 2023",
        "evidence": ["D1:1"],
        "category": 2,
    },
    {
        "question": "What race is Bob training for?",
        "answer": "the Lisbon marathon",
        "evidence": ["D1:2"],
        "category": 4,
    },
    {
        "question": "What did Ann make in her ceramics lessons?",
        "answer": "a vase glazed blue",
        "evidence": ["D2:9"],
        "category": 4,
    },
    {
        "question": "Which CI tool does Bob deploy with now?",
        "answer": "GitHub Actions",
        "evidence": ["D1:4"],
        "category": 4,
    },
    {
        "question": "What music does Bob play?",
        "answer": "guitar, jazz",
        "evidence": ["D1:6", "D2:4"],
        "category": 1,
    },
    {
        "question": "Where does Ann's sister study?",
        "answer": "Toronto",
        "evidence": ["D1:7"],
        "category": 4,
    },
    {
        "question": "What trick did the dog learn?",
        "answer": "fetch the frisbee",
        "evidence": ["D2:1"],
        "category": 4,
    },
    {
        "question": "Which hobby about space might Bob enjoy?",
        "answer": "an astronomy podcast",
        "evidence": ["D2:10"],
        "category": 3,
    },
    {
        "question": "What did Ann grow and sell?",
        "answer": "tomatoes, zucchini and a painting",
        "evidence": ["D2:5; D2:3"],
        "category": 1,
    },
    {
        "question": "What is Bob's cat called?",
        "adversarial_answer": "Bob has no cat",
        "evidence": [],
        "category": 5,
    },
    {
        "question": "What is Ann's favourite movie?",
        "answer": "unknown",
        "evidence": ["D"],
        "category": 4,
    },
]
OBSERVATION = {
    "session_1_observation": {
        "Ann": [["Ann adopted a dog named Biscuit.", "D1:1"], ["Ann paints.", "D1:3"]],
        "Bob": [["Bob trains for a marathon.", "D1:2"], ["Bob deploys with Actions.", ["D1:4"]]],
    },
    "session_2_observation": {
        "Ann": [["Ann does pottery and bakes.", "D2:9, D2:11"]],
        "Bob": [["Bob plays jazz.", "D2:4"]],
    },
}


def _session(n: int, turns: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"speaker": s, "dia_id": f"D{n}:{i}", "text": t} for i, (s, t) in enumerate(turns, 1)]


def write_conversation(path: Path, sample_id: str = "conv-t1") -> Path:
    item = {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": _session(1, SESSION_1),
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": _session(2, SESSION_2),
        },
        "qa": QA,
        "observation": OBSERVATION,
        "event_summary": {},
        "session_summary": {},
    }
    path.write_text(json.dumps([item]), encoding="utf-8")
    return path


class NoTieEmbedder:
    """Hashed bag of words plus a small dense component seeded by the text.

    The hashing embedder gives exactly 0 to every document sharing no word with
    the query, and the store orders such ties by fact id; the dense component
    makes every similarity distinct (same text, same vector, in every store).
    """

    def __init__(self, dim: int = 256) -> None:
        self.inner = HashingEmbedder(dim)
        self.dim = dim
        self.name = f"no-tie-{dim}"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        base = self.inner.embed(texts).astype(np.float64)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
            base[i] += 0.05 * np.random.default_rng(seed).standard_normal(self.dim)
        base /= np.linalg.norm(base, axis=1, keepdims=True)
        return base.astype(np.float32)


class KeepAll:
    """One fact per turn whose rendered text is the turn itself (subject, predicate, rest)."""

    name = "keep-all"
    version = "1"

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        words = turn.content.split(" ")
        return [
            CandidateFact(
                candidate_id=stable_id("cand", turn.tenant_id, turn.turn_id),
                tenant_id=turn.tenant_id,
                user_id=turn.user_id,
                session_id=turn.session_id,
                type=FactType.FACT,
                subject=words[0],
                predicate=words[1],
                object=" ".join(words[2:]),
                confidence=0.9,
                source_turn_ids=[turn.turn_id],
                extractor=self.name,
                extractor_version=self.version,
                turn_ts=turn.ts,
                multi_valued=True,
            )
        ]


class KeepNothing:
    name = "keep-nothing"
    version = "1"

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        return []


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return write_conversation(tmp_path / "locomo-tiny.json")


def _run(data: Path, workdir: Path, *, context_chars: int = 320, **kw: Any) -> BenchResult:
    kw.setdefault("pollution", (0,))
    return run_locomo(
        data,
        embedder=NoTieEmbedder(),
        workdir=workdir,
        settings=Settings(
            embedder="hashing", data_dir=workdir / "unused", context_chars=context_chars
        ),
        **kw,
    )


# ------------------------------------------------------------------ parsing


def test_questions_keep_categories_1_to_4_with_usable_evidence(data: Path) -> None:
    (conv,) = load_locomo(data)
    qs, skipped = questions_of(conv)
    assert len(qs) == 9  # the adversarial one is not scored, the "D"-only one is skipped
    assert skipped == 1
    assert {q.category for q in qs} == {1, 2, 3, 4}
    grow = next(q for q in qs if q.text.startswith("What did Ann grow"))
    assert grow.evidence == {"D2:5", "D2:3"}


def test_observation_ids_accept_lists_and_comma_strings(data: Path) -> None:
    (conv,) = load_locomo(data)
    assert observation_ids(conv.observation) == {
        "D1:1",
        "D1:3",
        "D1:2",
        "D1:4",
        "D2:9",
        "D2:11",
        "D2:4",
    }
    assert evidence_ids("D:11:26") == {"D11:26"}
    assert evidence_ids(None) == frozenset()


# ------------------------------------------------------------------ honesty


def _keep_everything(policy: str) -> Pipeline:
    """The real pipeline with the KeepAll extractor and a triage that drops nothing
    (the durable-sentence classifier judges the fixture's chatter, and rightly drops some)."""
    s = Settings(embedder="hashing", policy=policy, context_chars=0)
    p = build_pipeline(s, NoTieEmbedder(), KeepAll())
    keep = TriagePolicy(durable_model=False, drop_questions=False, min_chars=0, min_words=0)
    return dataclasses.replace(p, triage=dataclasses.replace(p.triage, policy=keep))


def test_a_store_that_keeps_everything_scores_the_baseline(data: Path, tmp_path: Path) -> None:
    # no context: the kept facts' search texts are then exactly the baseline's texts
    res = _run(data, tmp_path / "w", policies=["permissive"], pipeline_factory=_keep_everything)
    g, b = res.gated["permissive"].clean, res.baseline.clean
    assert res.questions == 9
    assert b.recall(10) > 0  # the harness is not trivially zero
    assert b.recall(5) < 1.0  # ... nor trivially one at k=5: the equality below means something
    for k in (5, 10):
        assert g.recall(k) == b.recall(k)
        assert g.hits[k] == b.hits[k]
        assert g.answer_token_recall(k) == pytest.approx(b.answer_token_recall(k))
    assert g.write_amplification == b.write_amplification == 1.0
    assert g.coverage == b.coverage == 1.0
    assert res.gated["permissive"].per_conversation["conv-t1"].hits == (
        res.baseline.per_conversation["conv-t1"].hits
    )


def test_a_store_that_keeps_nothing_scores_zero(data: Path, tmp_path: Path) -> None:
    res = _run(data, tmp_path / "w", extractor=KeepNothing())
    g = res.gated["balanced"].clean
    assert g.turns == 24
    assert g.stored == g.rows == 0
    assert g.recall(5) == g.recall(10) == 0.0
    assert g.coverage == 0.0
    assert g.write_amplification == 0.0
    assert g.answer_token_recall(10) == 0.0
    assert res.baseline.clean.recall(10) > 0
    assert res.gated["balanced"].drops["extract:no_fact"] > 0


# ------------------------------------------------------------------ pollution


def test_pollution_is_interleaved_deterministically_with_distinct_ids(data: Path) -> None:
    (conv,) = load_locomo(data)
    real = conv.turns
    one = pollute(real, 1, seed=0)
    assert [t.model_dump() for t in one] == [t.model_dump() for t in pollute(real, 1, seed=0)]
    assert [t.content for t in one] != [t.content for t in pollute(real, 1, seed=1)]
    assert len(one) == 2 * len(real)
    ids = [t.turn_id for t in one]
    assert len(set(ids)) == len(ids)
    synthetic = [t for t in one if t.turn_id.startswith("P")]
    assert len(synthetic) == len(real)
    assert {t.turn_id for t in real}.isdisjoint(t.turn_id for t in synthetic)
    # the real turns keep their order, and synthetic ones sit between them
    assert [t for t in one if not t.turn_id.startswith("P")] == real
    assert one[0].turn_id.startswith("P") or any(
        a.turn_id.startswith("D") and b.turn_id.startswith("P") for a, b in itertools.pairwise(one)
    )
    for session in {t.session_id for t in one}:
        ts = [t.ts for t in one if t.session_id == session]
        assert ts == sorted(ts)
    assert {t.user_id for t in synthetic} <= {"Ann", "Bob"}
    # nested: the synthetic turns of ratio 1 are the first of ratio 5
    five = {t.turn_id: t.content for t in pollute(real, 5, seed=0) if t.turn_id.startswith("P")}
    assert len(five) == 5 * len(real)
    assert all(five[t.turn_id] == t.content for t in synthetic)
    assert pollute(real, 0) == list(real)


def test_json_has_the_documented_keys_with_the_rule_extractor(data: Path, tmp_path: Path) -> None:
    res = _run(data, tmp_path / "w", pollution=(0, 1, 5))
    out = res.as_json()
    json.dumps(out)
    for key in ("write_amplification", "recall@5", "recall@10", "coverage"):
        assert key in out and key in out["baseline"]
    assert out["baseline"]["write_amplification"] == 1.0
    assert set(out["pollution"]) == {"1", "5"} == set(out["baseline"]["pollution"])
    assert out["pollution"]["5"]["turns"] == 6 * 24
    assert "rot_cost_5x" in out and "rot_cost_5x" in out["baseline"]
    assert out["answers"]["without_memory"] == 0.0
    assert [c["sample_id"] for c in out["per_conversation"]] == ["conv-t1"]
    assert out["questions"] == 9 and out["turns"] == 24
    assert "presets" not in out
    assert set(out["targets"]) >= {"write_amplification_met", "recall@10_met", "rot_cost_5x_met"}


def test_several_presets_and_a_limit(data: Path, tmp_path: Path) -> None:
    two = tmp_path / "two.json"
    items = json.loads(data.read_text()) * 2
    items[1] = {**items[1], "sample_id": "conv-t2"}
    two.write_text(json.dumps(items))
    res = _run(two, tmp_path / "w", policies=["balanced", "permissive"], limit_conversations=1)
    out = res.as_json()
    assert set(out["presets"]) == {"balanced", "permissive"}
    assert res.conversations == ["conv-t1"]


def test_the_workdir_must_be_empty(data: Path, tmp_path: Path) -> None:
    from memgate.core.errors import ConfigError

    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "x").write_text("x")
    with pytest.raises(ConfigError, match="not empty"):
        _run(data, tmp_path / "w")


# ------------------------------------------------------------------ command line


def test_cli_prints_one_json_object_and_writes_a_report(data: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from memgate.cli import app

    report = tmp_path / "report"
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"development": ["conv-t1"], "test": []}))
    result = CliRunner().invoke(
        app,
        [
            "--embedder", "hashing", "--data-dir", str(tmp_path / "d"),
            "bench", "locomo", "--data", str(data), "--pollution", "0,1",
            "--json", "--report", str(report), "--split-file", str(split),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    full = json.loads(result.stdout)
    assert full["splits"] == ["dev"], "a split naming no conversation is not run"
    out = full["runs"]["dev"]
    assert {"write_amplification", "recall@5", "recall@10", "coverage"} <= set(out)
    assert {"write_amplification", "recall@5", "recall@10", "coverage"} <= set(out["baseline"])
    assert out["policy"] == "balanced"
    for name in ("report.md", "recall_vs_wa.png", "pollution.png", "drops.png", "redactions.png"):
        assert (report / name).stat().st_size > 0
    assert "memgate bench locomo" in (report / "report.md").read_text()


def test_cli_fails_clearly_without_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from memgate.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMGATE_LOCOMO_DIR", str(tmp_path / "nothing-here"))
    result = CliRunner().invoke(app, ["--embedder", "hashing", "bench", "locomo"])
    assert result.exit_code == 2
    assert "locomo-dev.json was not found" in result.stderr
    assert str(tmp_path / "nothing-here") in result.stderr
    assert "--data" in result.stderr and "MEMGATE_LOCOMO_DIR" in result.stderr
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------------ keys


def _key_files(config: Path) -> list[str]:
    keys = config / "memgate" / "keys"
    return sorted(p.name for p in keys.glob("*.key")) if keys.is_dir() else []


def test_a_run_makes_no_key_file_and_writes_nothing_in_the_data_dir(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bench's stores are thrown away: the gate that writes them is keyed in memory
    (as ``memgate eval``'s). A key file made for them was left in the key folder at every
    run, and the data dir of the settings (the user's) got an id and a key check."""
    from typer.testing import CliRunner

    from memgate.cli import app

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("MEMGATE_HMAC_KEY", raising=False)
    monkeypatch.delenv("MEMGATE_HMAC_KEY_FILE", raising=False)
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"development": ["conv-t1"], "test": []}))
    users = tmp_path / "d"
    for _ in range(2):
        result = CliRunner().invoke(
            app,
            ["--embedder", "hashing", "--data-dir", str(users), "bench", "locomo",
             "--data", str(data), "--pollution", "0", "--json", "--split-file", str(split)],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    _run(data, tmp_path / "w")  # the library's run_locomo
    assert _key_files(tmp_path / "config") == []
    assert not users.exists() or sorted(p.name for p in users.iterdir()) == []


def test_the_claude_extractor_s_answer_cache_still_serves_a_rerun(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its answers stay in the user's data dir, under that data dir's key: a second run
    asks nothing (tools/extract_cache_figure.py), and that key file is the only one."""
    from typer.testing import CliRunner

    from memgate.cli import app
    from tests.unit.stages.anthropic_standin import running_standin

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("MEMGATE_HMAC_KEY", raising=False)
    monkeypatch.delenv("MEMGATE_HMAC_KEY_FILE", raising=False)
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"development": ["conv-t1"], "test": []}))
    users = tmp_path / "d"
    api_key = "test-" + "key-" + "standin-0123456789"
    asked = []
    with running_standin(api_key=api_key) as api:
        env = {"MEMGATE_ANTHROPIC_API_KEY": api_key, "MEMGATE_ANTHROPIC_BASE_URL": api.base_url}
        for _ in range(2):
            result = CliRunner().invoke(
                app,
                ["--embedder", "hashing", "--extractor", "anthropic", "--data-dir", str(users),
                 "bench", "locomo", "--data", str(data), "--pollution", "0", "--json",
                 "--split-file", str(split)],
                env=env,
            )  # fmt: skip
            assert result.exit_code == 0, result.output
            asked.append(len(api.requests))
    assert asked[0] > 0 and asked[1] == asked[0]  # the second run read the cache
    assert (users / "extract_cache.sqlite3").is_file()
    ident = (users / "data_dir.id").read_text(encoding="ascii").strip()
    assert _key_files(tmp_path / "config") == [f"{ident}.key"]
