"""`memgate eval --split`: development and frozen figures side by side, the frozen
split only in aggregate, the value-correct measure and issue 9's targets.

The frozen split used here is synthetic (written in ``tmp_path``, passed with
``--test-dir``): the bundled one is never run by the unit tests.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.events import CandidateFact, TurnEvent
from memgate.evaluation import labelled, leaks, scenarios
from memgate.evaluation import run as ev
from memgate.evaluation.aggregate import (
    CaseLeakError,
    Count,
    LabelledSummary,
    ScenarioSummary,
    assert_aggregate_only,
    case_strings,
    summarise_leaks,
)
from memgate.evaluation.common import Confusion, CorpusError
from memgate.evaluation.erasure import ErasureResult
from memgate.evaluation.leaks import LeakReport
from memgate.stages.detectors import Detector
from tests.unit.evaluation.test_harness import (
    EMBEDDER,
    KeepEverything,
    _fact,
    gate,
    settings,
    turn,
    write_jsonl,
)

# ------------------------------------------------------------------ value correct


class FirstClause:
    """'key=value' stores the value cut at its first comma (a truncating extractor)."""

    name = "first-clause"
    version = "1"

    def extract(self, t: TurnEvent) -> list[CandidateFact]:
        if "=" not in t.content:
            return []
        key, value = t.content.split("=", 1)
        return [_fact(t, "user", key.strip(), value.split(",")[0].strip(), self)]


def _labelled(tid: str, content: str, keep: bool, lang: str = "en", **kw: Any) -> dict[str, Any]:
    return {
        "id": tid,
        "domain": "coding",
        "lang": lang,
        "kind": "work_fact" if keep else "question",
        "keep": keep,
        **kw,
        "turn": turn(tid, content, "2024-03-01T09:00:00Z"),
    }


def test_value_correct_counts_stored_keep_turns_whose_facts_hold_the_value(
    tmp_path: Path,
) -> None:
    rows = [
        _labelled("k1", "city=Lisbon", True, expect_value="Lisbon"),
        _labelled("k2", "stack=Django, Celery and Redis", True, expect_value="Celery and Redis"),
        _labelled("k3", "ci=GitLab   CI", True, lang="de", expect_value="GitLab   CI"),
        _labelled("k4", "no value here", True, expect_value="value"),  # not stored: recall only
        _labelled("k5", "os=Debian", True),  # no expect_value: not measured
        _labelled("d1", "editor=vim", False),  # a false positive: not measured
    ]
    path = write_jsonl(tmp_path / "turns.jsonl", rows)
    rep = labelled.evaluate(
        path, settings(tmp_path), EMBEDDER, pipeline_factory=gate(FirstClause())
    )
    assert rep.overall.tp == 4 and rep.overall.fn == 1 and rep.overall.fp == 1
    assert rep.value_checked == {"en": 2, "de": 1}
    assert rep.value_correct == {"en": 1, "de": 1}
    assert [m.id for m in rep.value_wrong] == ["k2"]
    assert rep.value_share == pytest.approx(2 / 3)
    assert rep.as_dict()["value"]["share"] == 0.6667


def test_value_form_folds_case_and_whitespace() -> None:
    assert labelled.value_form("  GitLab \t  CI\n") == "gitlab ci"
    assert labelled.value_form("Dana Kowalski") in labelled.value_form("user boss DANA  Kowalski")
    assert labelled.value_form("Dana Kowalski") not in labelled.value_form("user boss Dana")


# ------------------------------------------------------------------ a synthetic frozen split


def _leak(tid: str, kind: str, lang: str, **kw: Any) -> dict[str, Any]:
    content = kw.pop("content")
    return {"id": tid, "kind": kind, "lang": lang, **kw, "turn": turn(tid, content, TS)}


TS = "2024-03-01T09:00:00Z"
SECRET = "Quillfeather Lane 4711"


def write_split(folder: Path) -> dict[str, Path]:
    """Three suites with cases any gate gets wrong (junk labelled keep, an impossible
    check, a street address) and distinctive ids and texts to look for in the output."""
    folder.mkdir(parents=True, exist_ok=True)
    lab = [
        _labelled("zq-keep-1", "ok thanks zorblat", True, expect_value="zorblat"),
        _labelled("zq-keep-2", "Our checkout service is written in Go.", True, expect_value="Go"),
        _labelled("zq-drop-1", "What is the capital of Mongolia, vexillum?", False),
        _labelled("zq-drop-2", "I prefer tabs over spaces in every repo.", False, lang="de"),
    ]
    leak_rows = [
        _leak("zq-mail", "email", "en", secret="wyvern.pell@quasar-mail.test",
              content="Send the invoices to wyvern.pell@quasar-mail.test from now on."),
        _leak("zq-benign", "benign", "en", lookalike="v9.41.7", lookalike_kind="version",
              content="We pinned the runtime to v9.41.7 for the whole team."),
    ]  # fmt: skip
    extra = [
        _leak("zq-addr", "address", "fr", secret=SECRET,
              content=f"Please ship my parcels to {SECRET}, Bordeaux from now on."),
    ]  # fmt: skip
    story = {
        "id": "zq-story",
        "description": "an impossible check about glimmerwick",
        "covers": ["supersede"],
        "turns": [turn("zq-s1", "I moved my glimmerwick repo to GitLab.", TS)],
        "checks": [{"type": "fact_count", "tenant": "acme", "user": "alice", "equals": 5}],
    }
    return {
        "labelled": write_jsonl(folder / "labelled_turns.jsonl", lab),
        "leaks": write_jsonl(folder / "leaks.jsonl", leak_rows),
        "extra": write_jsonl(folder / "leaks_extra.jsonl", extra),
        "scenarios": write_jsonl(folder / "scenarios.jsonl", [story]),
    }


def forbidden_of(folder: Path) -> set[str]:
    return case_strings(
        labelled.load(folder / "labelled_turns.jsonl"),
        leaks.load([folder / "leaks.jsonl", folder / "leaks_extra.jsonl"]),
        scenarios.load(folder / "scenarios.jsonl"),
    )


def test_the_frozen_summary_holds_counts_and_no_case(tmp_path: Path) -> None:
    folder = tmp_path / "frozen"
    write_split(folder)
    files = ev.frozen_files(folder, ev.SUITES)
    assert [p.name for p in files["leaks"]] == ["leaks.jsonl", "leaks_extra.jsonl"]
    blind = Detector(kinds=frozenset())  # nothing masked: every secret leaks
    fig = ev.score_frozen(
        files,
        settings(tmp_path),
        EMBEDDER,
        pipeline_factory=gate(KeepEverything(), detector=blind),
    )
    assert fig.labelled is not None and fig.leaks is not None and fig.scenarios is not None
    assert fig.labelled.overall.fp == 2 and fig.labelled.overall.tp == 2
    assert fig.leaks.leaks == 2 and fig.leaks.by_kind["address"] == Count(1, 1)
    assert fig.leaks.by_lang == {"en": Count(1, 1), "fr": Count(1, 1)}
    assert fig.leaks.by_store["retrieval.facts"] == 2
    assert fig.scenarios.by_class == {"supersede": Count(0, 1)}
    # what failed first, by the harness's check type: a label, never the case's text
    assert sum(fig.scenarios.first_failing["supersede"].values()) == 1
    # and its cause, in the category words of memgate.evaluation.trace, never the case's
    (why,) = fig.scenarios.first_failing_cause["supersede"]
    assert why.split(": ")[0] in fig.scenarios.first_failing["supersede"]
    dumped = json.dumps(fig.as_dict(), ensure_ascii=False)
    forbidden = forbidden_of(folder)
    assert {SECRET, "zq-keep-1", "zq-story", "ok thanks zorblat"} <= forbidden
    assert not [s for s in forbidden if s in dumped]


def test_the_guard_refuses_an_output_naming_a_case(tmp_path: Path) -> None:
    folder = tmp_path / "frozen"
    paths = write_split(folder)
    forbidden = forbidden_of(folder)
    full = labelled.evaluate(
        paths["labelled"], settings(tmp_path), EMBEDDER, pipeline_factory=gate(KeepEverything())
    )
    with pytest.raises(CaseLeakError, match="name one of its cases"):
        assert_aggregate_only(full.as_dict(), forbidden)  # the full report names the FPs
    with pytest.raises(CaseLeakError):
        assert_aggregate_only({"x": ["found in zq-s1"]}, forbidden)  # a short id, as a token
    assert_aggregate_only({"by_kind": {"work_fact": 1, "zq-s10": 0}}, forbidden)


def test_a_frozen_erasure_residue_is_counted_never_named() -> None:
    rep = LeakReport(path="x", policy="balanced", extractor="e", embedder="h")
    rep.erasure = ErasureResult(
        users=["acme/erin.gone@example.org"],
        strings=3,
        found_before=3,
        residues=["acme/erin.gone@example.org: user id in files:audit"],
    )
    summary = summarise_leaks(rep)
    assert summary.erasure["residues"] == 1 and summary.erasure["ok"] is False
    [failure] = ev._frozen_erasure_failure(summary)
    assert failure.startswith("frozen split: erasure left 1 residue(s) over 1 forgotten user")
    assert "erin" not in failure and "erin" not in json.dumps(summary.as_dict())


def test_leak_files_read_as_one_corpus_refuse_a_shared_id(tmp_path: Path) -> None:
    row = _leak("same", "email", "en", secret="a.b@c-d.test", content="Mail a.b@c-d.test now.")
    one = write_jsonl(tmp_path / "one.jsonl", [row])
    two = write_jsonl(tmp_path / "two.jsonl", [row])
    with pytest.raises(CorpusError, match="id same is also in"):
        leaks.load([one, two])


def test_scenario_files_read_as_one_corpus_refuse_a_shared_id(tmp_path: Path) -> None:
    story = {
        "id": "same",
        "description": "d",
        "turns": [
            {
                "tenant_id": "acme",
                "user_id": "alice",
                "session_id": "s1",
                "turn_id": "t1",
                "role": "user",
                "content": "I use Vim.",
                "ts": "2024-01-01T00:00:00Z",
            }
        ],
        "checks": [{"type": "active_count", "tenant": "acme", "user": "alice", "equals": 1}],
    }
    one = write_jsonl(tmp_path / "one.jsonl", [story])
    two = write_jsonl(tmp_path / "two.jsonl", [{**story, "id": "other"}])
    assert [s.id for s in scenarios.load([one, two])] == ["same", "other"]
    with pytest.raises(CorpusError, match="id same is also in"):
        scenarios.load([one, one])


def test_the_bundled_frozen_files_are_found_and_match_their_manifest() -> None:
    with ev.bundled_test_dir() as folder:
        files = ev.frozen_files(folder, ev.SUITES)
        checked = ev.verify_manifest(folder, files)
    assert checked["verified"] is True
    assert set(checked["files"]) == {
        "labelled_turns.jsonl",
        "leaks.jsonl",
        "leaks_extra.jsonl",
        "scenarios.jsonl",
    }


def test_a_missing_frozen_file_is_one_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "frozen"
    write_split(folder)
    (folder / "scenarios.jsonl").unlink()
    (folder / "leaks_extra.jsonl").unlink()  # optional
    assert ev.frozen_files(folder, ["leaks"])["leaks"] == [folder / "leaks.jsonl"]
    with pytest.raises(CorpusError, match=r"scenarios.jsonl does not exist"):
        ev.frozen_files(folder, ev.SUITES)


# ------------------------------------------------------------------ targets


def _labelled_summary(f1_tp: int, recalls: dict[str, tuple[int, int]], value: Count) -> Any:
    by_lang = {k: Confusion(tp=ok, fn=n - ok, tn=10) for k, (ok, n) in recalls.items()}
    return LabelledSummary(
        overall=Confusion(tp=f1_tp, fp=10, fn=10, tn=50),
        by_kind={},
        by_lang=by_lang,
        by_domain={},
        value=value,
        value_by_lang={},
        pending_only=0,
    )


def test_issue_9_targets_say_met_or_by_how_much_they_are_missed() -> None:
    fig = ev.SplitFigures(
        labelled=_labelled_summary(90, {"de": (16, 20), "zh": (5, 20)}, Count(17, 20)),
        scenarios=ScenarioSummary(passed=Count(35, 40), by_class={}),
    )
    got = {t.name: t for t in ev.frozen_targets(fig)}
    assert got["write decision F1"].measured == "0.900" and got["write decision F1"].met
    recall = got["keep recall, every language"]
    assert not recall.met and recall.gap == "zh by 0.550" and recall.measured == "min 0.250 (zh)"
    assert got["value correct on stored keep turns"].met  # 0.85 exactly
    sc = got["scenarios passed"]
    assert (sc.threshold, sc.measured, sc.met, sc.gap) == (
        ">= 36/40",
        "35/40",
        False,
        "by 1 scenario(s)",
    )
    fig.scenarios = ScenarioSummary(passed=Count(36, 40), by_class={})
    assert {t.name: t for t in ev.frozen_targets(fig)}["scenarios passed"].met
    fig.labelled = _labelled_summary(80, {"de": (16, 20)}, Count(0, 0))
    got = {t.name: t for t in ev.frozen_targets(fig)}
    assert not got["write decision F1"].met and got["write decision F1"].gap == "by 0.011"
    assert got["value correct on stored keep turns"].gap == "not measured"


# ------------------------------------------------------------------ command line


def invoke(tmp_path: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--embedder", "hashing", "--data-dir", str(tmp_path / "data"), "eval", *args]
    )


def test_cli_frozen_split_prints_aggregates_and_no_case(tmp_path: Path) -> None:
    folder = tmp_path / "frozen"
    paths = write_split(folder)
    forbidden = forbidden_of(folder)

    def named(output: str) -> list[str]:
        return [s for s in forbidden if re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", output)]

    # the same files as the development split: their misses are printed, case by case
    dev_args = ["--labelled", str(paths["labelled"]), "--leaks", str(paths["extra"])]
    dev = invoke(tmp_path, *dev_args, "--scenarios", str(paths["scenarios"]))
    assert dev.exit_code == 1, dev.output  # the impossible scenario fails the command
    assert {"zq-story", "zq-keep-1"} <= set(named(dev.stdout + dev.stderr)), dev.output

    for extra in ([], ["--json"]):
        test = invoke(tmp_path, "--split", "test", "--test-dir", str(folder), *extra)
        assert test.exit_code == 0, test.output  # frozen misses are reported, not failures
        assert named(test.stdout + test.stderr) == [], test.output
    table = invoke(tmp_path, "--split", "test", "--test-dir", str(folder)).stdout
    assert "frozen test" in table and "development" not in table.split("issue 9")[0]
    assert re.search(r"class=supersede\s.*0/1", table), table
    assert re.search(r"scenarios passed\s.*0/1 .*MISSED by 1", table), table
    out = json.loads(test.stdout)
    assert out["splits"] == ["test"] and "dev" not in out
    assert out["test"]["scenarios"]["by_class"]["supersede"] == {"ok": 0, "n": 1, "share": 0.0}
    assert out["test"]["leaks"]["by_kind"]["address"]["cases"] == 1
    assert out["test"]["files"]["verified"] is False, "no MANIFEST.json in the synthetic split"
    names = [t["name"] for t in out["targets"]["issue9"]["test"]]
    assert "value correct on stored keep turns" in names and "secrets stored anywhere" in names


def test_cli_both_splits_side_by_side(tmp_path: Path) -> None:
    folder = tmp_path / "frozen"
    paths = write_split(folder)
    dev_dir = tmp_path / "dev"
    dev_dir.mkdir()
    scen = shutil.copy(paths["scenarios"], dev_dir / "s.jsonl")
    result = invoke(
        tmp_path, "--split", "both", "--test-dir", str(folder), "--scenarios", str(scen), "--json"
    )
    out = json.loads(result.stdout)
    assert out["splits"] == ["dev", "test"]
    assert set(out["dev"]) == {"scenarios", "detail"} and set(out["test"]) == {"scenarios", "files"}
    assert out["dev"]["scenarios"] == out["test"]["scenarios"]  # same file, same figures
    [failure] = out["failures"]  # the development split's scenario; the frozen one is counted
    assert failure.startswith("scenario zq-story failed: check 0 (fact_count)")
    table = invoke(tmp_path, "--split", "both", "--test-dir", str(folder), "--scenarios", str(scen))
    head = [ln for ln in table.stdout.splitlines() if "development" in ln and "frozen test" in ln]
    assert head, table.stdout


def test_cli_refuses_an_unknown_split(tmp_path: Path) -> None:
    result = invoke(tmp_path, "--split", "heldout")
    assert result.exit_code == 2
    assert "--split" in result.output and "dev, test or both" in result.output
