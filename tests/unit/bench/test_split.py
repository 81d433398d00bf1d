"""`memgate bench locomo --split`: development and held-back conversations side by side.

Two tiny LoCoMo-shaped conversations (the one of ``test_locomo``, under two
sample ids) and a split file naming one per split; the hashing-based test
embedder; no MiniLM.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.bench.figures import Figures
from memgate.bench.locomo import run_locomo
from memgate.bench.split import SplitBench, load_split, run_split
from memgate.cli import app
from memgate.core.errors import ConfigError
from memgate.core.settings import Settings
from tests.unit.bench.test_locomo import (
    NoTieEmbedder,
    _keep_everything,
    write_conversation,
)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    one = write_conversation(tmp_path / "one.json")
    items = json.loads(one.read_text()) * 2
    items[1] = {**items[1], "sample_id": "conv-t2"}
    path = tmp_path / "two.json"
    path.write_text(json.dumps(items))
    return path


@pytest.fixture
def split_file(tmp_path: Path) -> Path:
    path = tmp_path / "split.json"
    path.write_text(json.dumps({"development": ["conv-t1"], "test": ["conv-t2"]}))
    return path


def _kw(workdir: Path, **kw: Any) -> dict[str, Any]:
    return {
        "embedder": NoTieEmbedder(),
        "settings": Settings(embedder="hashing", data_dir=workdir / "unused"),
        "pollution": (0,),
        **kw,
    }


def _same(a: Figures, b: Figures) -> None:
    assert (a.turns, a.stored, a.rows, a.kept, a.questions) == (
        b.turns,
        b.stored,
        b.rows,
        b.kept,
        b.questions,
    )
    assert a.hits == b.hits and a.covered == b.covered and a.observed == b.observed
    assert a.answer_token_sum == pytest.approx(b.answer_token_sum)


def test_the_bundled_split_holds_4_development_and_3_held_back_conversations() -> None:
    split = load_split()
    assert split.conversations["dev"] == ["conv-26", "conv-30", "conv-41", "conv-42"]
    assert split.conversations["heldout"] == ["conv-43", "conv-44", "conv-47"]
    assert len(split.source_sha256) == 64


def test_each_split_is_measured_on_its_own_conversations_alone(
    data: Path, split_file: Path, tmp_path: Path
) -> None:
    split = load_split(split_file)
    bench = run_split(data, split=split, which="all", workdir=tmp_path / "w", **_kw(tmp_path))
    assert bench.names == ["dev", "heldout"]
    assert bench.results["dev"].conversations == ["conv-t1"]
    assert bench.results["heldout"].conversations == ["conv-t2"]
    assert bench.data_matches_source is False, "the split file records no source sha256"
    # a held-back figure is that of a run holding the held-back conversations only (BM25's
    # statistics are the index's: the development conversations must not be in it) ...
    items = [c for c in json.loads(data.read_text()) if c["sample_id"] == "conv-t2"]
    alone = tmp_path / "alone.json"
    alone.write_text(json.dumps(items))
    ref = run_locomo(alone, workdir=tmp_path / "alone", **_kw(tmp_path))
    held = bench.results["heldout"]
    for variant in ("balanced", "baseline"):
        got = held.baseline if variant == "baseline" else held.gated[variant]
        want = ref.baseline if variant == "baseline" else ref.gated[variant]
        _same(got.clean, want.clean)
    # ... and the same whichever --split asked for it
    only = run_split(data, split=split, which="heldout", workdir=tmp_path / "h", **_kw(tmp_path))
    assert only.names == ["heldout"]
    assert only.figures("heldout") == bench.figures("heldout")
    dev = bench.figures("dev")
    assert dev["turns"] == 24 and dev["questions"] == 9
    assert dev["baseline_recall@10"] > 0


def test_targets_are_met_or_missed_by_how_much(
    data: Path, split_file: Path, tmp_path: Path
) -> None:
    bench = run_split(
        data,
        split=load_split(split_file),
        which="heldout",
        workdir=tmp_path / "w",
        **_kw(tmp_path, policies=["permissive"], pipeline_factory=_keep_everything),
    )
    assert bench.names == ["heldout"]
    f = bench.figures("heldout")
    assert f["writes_per_turn"] == 1.0
    targets = {t["name"]: t for t in bench.targets("heldout")}
    writes = targets["writes per turn"]
    assert (writes["met"], writes["measured"], writes["gap"]) == (False, "1.000", "by 0.650")
    recall = targets["recall@10 / baseline"]
    assert recall["measured"] == f"{f['recall@10_ratio']:.3f}"
    assert recall["met"] is (f["recall@10_ratio"] >= 0.95)
    answers = targets["answer-token recall@10 / baseline"]
    assert answers["met"] is (f["answer_token_recall@10_ratio"] >= 0.80)
    out = bench.as_json()
    json.dumps(out)
    assert set(out["runs"]) == {"heldout"} and out["side_by_side"]["heldout"] == f


def test_a_split_naming_a_conversation_not_in_the_data_is_refused(
    data: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"development": ["conv-t1"], "test": ["conv-99"]}))
    with pytest.raises(ConfigError, match="holds no conversation conv-99"):
        run_split(data, split=load_split(bad), which="all", workdir=tmp_path / "w", **_kw(tmp_path))
    bad.write_text(json.dumps({"development": ["conv-t1"], "test": ["conv-t1"]}))
    with pytest.raises(ConfigError, match="in both splits: conv-t1"):
        load_split(bad)
    bad.write_text(json.dumps({"development": "conv-t1", "test": []}))
    with pytest.raises(ConfigError, match="'development' must be a list"):
        load_split(bad)


def test_cli_prints_both_splits_side_by_side(data: Path, split_file: Path, tmp_path: Path) -> None:
    base = ["--embedder", "hashing", "--data-dir", str(tmp_path / "d"), "bench", "locomo"]
    base += ["--data", str(data), "--pollution", "0", "--split-file", str(split_file)]
    result = CliRunner().invoke(app, base)
    assert result.exit_code == 0, result.output
    header = [ln for ln in result.stdout.splitlines() if "development" in ln and "held back" in ln]
    assert header, result.stdout
    assert re.search(r"conv-t1\s.*conv-t2", result.stdout)
    assert re.search(r"writes per turn\s+.*MISSED|writes per turn\s+.*met", result.stdout)
    assert "answer-token recall@10" in result.stdout
    one = CliRunner().invoke(app, [*base, "--split", "dev", "--json"])
    assert one.exit_code == 0, one.output
    out = json.loads(one.stdout)
    assert out["splits"] == ["dev"] and out["side_by_side"]["dev"]["conversations"] == ["conv-t1"]
    bad = CliRunner().invoke(app, [*base, "--split", "test"])
    assert bad.exit_code == 2 and "dev, heldout or all" in bad.output


def test_the_figures_of_a_split_bench_need_a_run() -> None:
    bench = SplitBench(split=load_split(), data="x", data_matches_source=False)
    assert bench.names == [] and bench.as_json()["splits"] == []
