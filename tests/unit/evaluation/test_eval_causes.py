"""tools/eval_causes.py: failing checks counted by cause, no text, and never the frozen split."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from memgate.evaluation.scenarios import CheckResult

ROOT = Path(__file__).resolve().parents[3]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_causes", ROOT / "tools" / "eval_causes.py")
    if spec is None or spec.loader is None:
        raise ImportError("tools/eval_causes.py cannot be loaded")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CAUSES = _tool()


def _failed(label: str, message: str) -> CheckResult:
    return CheckResult(
        index=0, type=label.split(":")[0], passed=False, message=message, label=label
    )


@pytest.mark.parametrize(
    ("label", "message", "want"),
    [
        (
            "fact_status:active",
            "no active fact for text~'zebra'; found: none",
            "no matching fact at all",
        ),
        (
            "fact_status:active",
            "no active fact for text~'zebra'; found: 'user likes zebra' [pending, x1]",
            "found only as pending",
        ),
        (
            "fact_status:active",
            "active fact for text~'zebra' has occurrences 'user zebra' [active, x1], want >= 2",
            "found, too few occurrences (a restatement not folded in)",
        ),
        (
            "fact_status:superseded",
            "no superseded fact for text~'x'; found: 'a x' [active, x1]; 'b x' [active, x2]",
            "found only as active",
        ),
        (
            "fact_status:absent",
            "facts for x: 'a' [active, x1] (expected none)",
            "still stored (active)",
        ),
        (
            "active_count",
            "2 active fact(s) for text~'x', expected 1: 'a'; 'b'",
            "more than expected (+1)",
        ),
        ("fact_count", "0 active fact(s) for text~'x', expected 1", "fewer than expected (-1)"),
        (
            "search_top",
            "search 'q' (t/u): top hit lacks 'Oslo'; got no hits",
            "top hit wrong: nothing found",
        ),
        (
            "search_top",
            "search 'q' (t/u): top hit lacks 'Oslo'; got no hits; trace: no deletion or"
            " retraction; triage dropped 1 of 2; the user holds no fact",
            "top hit wrong: nothing found (no deletion or retraction; triage dropped 1 of 2;"
            " the user holds no fact)",
        ),
        (
            "search_top",
            "search 'q' (t/u): top hit lacks 'Oslo'; got 'Bergen' [active, from t1]",
            "top hit wrong",
        ),
        (
            "search_top",
            "search 'q' (t/u): a hit contains 'Bergen': 'x'",
            "a stale or foreign hit served",
        ),
    ],
)
def test_each_failing_check_gets_its_cause(label: str, message: str, want: str) -> None:
    assert CAUSES.cause(_failed(label, message)) == want


def _scenario(turns: list[str], checks: list[dict[str, object]]) -> str:
    return json.dumps(
        {
            "id": "causes-probe",
            "description": "probe",
            "covers": ["dedupe"],
            "turns": [
                {
                    "tenant_id": "t", "user_id": "u", "session_id": "s", "turn_id": f"c-{i}",
                    "role": "user", "content": text, "ts": f"2025-0{i + 1}-01T09:00:00Z",
                }
                for i, text in enumerate(turns)
            ],
            "checks": [{"tenant": "t", "user": "u", **c} for c in checks],
        }
    )  # fmt: skip


def _causes(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    turns: list[str],
    checks: list[dict[str, object]],
) -> tuple[dict[str, Any], str]:
    """Run the tool on one scenario; its JSON answer and the text it printed."""
    f = tmp_path / "probe.jsonl"
    f.write_text(_scenario(turns, checks) + "\n", encoding="utf-8")
    assert CAUSES.main(["--json", str(f)]) == 0
    out = capsys.readouterr().out
    return json.loads(out), out


def test_the_table_counts_causes_and_prints_no_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    got, out = _causes(
        tmp_path,
        capsys,
        ["My favourite editor is Neovim."],
        [
            {"type": "fact_status", "status": "active", "text_contains": "Neovim"},
            {"type": "fact_status", "status": "active", "text_contains": "Zanzibar"},
            {"type": "active_count", "equals": 0, "text_contains": "Neovim"},
        ],
    )
    assert got["scenarios"] == 1 and got["passed"] == 0
    assert got["causes"] == {
        "dedupe": {
            "fact_status:active: no matching fact at all (no deletion or retraction;"
            " triage dropped 0 of 1; the user holds 1 active)": 1,
            "active_count: more than expected (+1) (from turn 1 of 1 (kept, dedupe ADD"
            " (new_key)); no deletion or retraction; triage dropped 0 of 1; the user holds"
            " 1 active)": 1,
        }
    }
    assert "Neovim" not in out and "Zanzibar" not in out


def test_a_missing_fact_is_traced_through_the_gate_in_category_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the fact a check expected went: its turn dropped by triage (with the reason),
    or stored and then erased by a deletion request (its tombstone is what the user holds);
    never a word of the turns."""
    got, out = _causes(
        tmp_path,
        capsys,
        [
            "I live in Trondheim.",
            "Ugh, so tired today, barely slept.",
            "Please delete what you know about where I live.",
        ],
        [
            {"type": "fact_status", "status": "active", "from_turn": "c-0"},
            {"type": "fact_status", "status": "active", "from_turn": "c-1"},
        ],
    )
    assert got["causes"] == {
        "dedupe": {
            "fact_status:active: no matching fact at all (kept, dedupe ADD (new_key);"
            " 1 deletion(s) or retraction(s) resolved; triage dropped 1 of 3; the user holds"
            " 1 superseded)": 1,
            "fact_status:active: no matching fact at all (triage drop (moment);"
            " 1 deletion(s) or retraction(s) resolved; triage dropped 1 of 3; the user holds"
            " 1 superseded)": 1,
        }
    }
    assert "Trondheim" not in out and "tired" not in out


def test_a_search_that_finds_nothing_says_what_the_user_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A search after a deletion that finds nothing: was the unrelated fact erased too, or
    never stored? The cause carries the user's counts, never a word of the turns."""
    got, out = _causes(
        tmp_path,
        capsys,
        [
            "I live in Trondheim.",
            "Please delete what you know about where I live.",
        ],
        [{"type": "search_top", "query": "which city", "expect_contains": "Trondheim"}],
    )
    assert got["causes"] == {
        "dedupe": {
            "search_top: top hit wrong: nothing found (1 deletion(s) or retraction(s)"
            " resolved; triage dropped 0 of 2; the user holds 1 superseded)": 1
        }
    }
    assert "Trondheim" not in out


def test_the_frozen_split_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    frozen = ROOT / "memgate" / "data" / "eval" / "test" / "scenarios.jsonl"
    assert CAUSES.main([str(frozen)]) == 2
    assert "--split test" in capsys.readouterr().err


def test_a_value_the_gate_masked_is_told_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A check that looks for a value redaction masks finds no fact; the trace says the
    user's fact holds a masked value (the gate's redaction, not a lost turn)."""
    got, out = _causes(
        tmp_path,
        capsys,
        ["My mobile number is +49 151 23456789."],
        [{"type": "fact_status", "status": "active", "text_contains": "23456789"}],
    )
    (cause,) = got["causes"]["dedupe"]
    assert cause.endswith("the user holds 1 active (1 with a masked value))")
    assert "23456789" not in out


def test_a_wrong_top_hit_says_where_the_top_and_the_wanted_fact_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A search that served the wrong fact first: which turn the top hit came from, and
    whether the wanted one ranked lower, sits in the store unserved or was never stored;
    a stale hit served: its rank and origin. Category words only."""
    got, out = _causes(
        tmp_path,
        capsys,
        ["I live in Trondheim.", "My favourite editor is Neovim."],
        [
            {"type": "search_top", "query": "which city do I live in", "expect_contains": "Neovim"},
            {"type": "search_top", "query": "which city do I live in", "expect_contains": "Zurich"},
            {"type": "search_top", "query": "which city", "expect_not_contains": "Trondheim"},
        ],
    )
    causes = got["causes"]["dedupe"]
    assert set(causes) == {
        "search_top: top hit wrong (top hit active from turn 1 of 2; the wanted fact ranked"
        " 2 of 2)",
        "search_top: top hit wrong (top hit active from turn 1 of 2; the wanted fact in no"
        " stored fact)",
        "search_top: a stale or foreign hit served (ranked 1 of 2, active from turn 1 of 2;"
        " no deletion or retraction; triage dropped 0 of 2; the user holds 2 active)",
    }
    assert "Trondheim" not in out and "Neovim" not in out and "Zurich" not in out
