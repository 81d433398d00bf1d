"""`memgate eval`: suites chosen by option, one JSON object, exit code 1 on a failure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memgate.cli import app


def turn(tid: str, content: str, role: str = "user") -> dict[str, Any]:
    return {
        "tenant_id": "acme",
        "user_id": "alice",
        "session_id": "s1",
        "turn_id": tid,
        "role": role,
        "content": content,
        "ts": "2024-03-01T09:00:00Z",
    }


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def invoke(tmp_path: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--embedder", "hashing", "--data-dir", str(tmp_path / "data"), "eval", *args]
    )


def scenario_file(tmp_path: Path) -> Path:
    quiet = {
        "id": "quiet",
        "description": "system and assistant turns store nothing",
        "turns": [
            turn("a", "You are a helpful assistant.", "system"),
            turn("b", "I think you would like Rust.", "assistant"),
        ],
        "checks": [{"type": "fact_count", "tenant": "acme", "user": "alice", "equals": 0}],
    }
    impossible = {
        "id": "impossible",
        "description": "a check no gate can pass",
        "turns": [turn("c", "ok thanks")],
        "checks": [{"type": "fact_count", "tenant": "acme", "user": "alice", "equals": 5}],
    }
    return write(tmp_path / "scenarios.jsonl", [quiet, impossible])


def test_a_failing_scenario_exits_1_and_is_named(tmp_path: Path) -> None:
    result = invoke(tmp_path, "--scenarios", str(scenario_file(tmp_path)), "--json")
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout)
    assert set(out) >= {"dev", "targets", "ok", "failures", "policy", "embedder"}
    assert "test" not in out, "a corpus file given: the development split only"
    assert set(out["dev"]) == {"scenarios", "detail"}, "only the suites given run"
    assert out["ok"] is False
    assert out["dev"]["detail"]["scenarios"]["failed"] == ["impossible"]
    assert out["dev"]["scenarios"]["by_class"] == {"-": {"ok": 1, "n": 2, "share": 0.5}}
    assert out["failures"] == [
        "scenario impossible failed: check 0 (fact_count): 0 active, pending, superseded "
        "fact(s) for acme/alice, expected 5"
    ]
    assert "impossible" in result.stderr
    assert not (tmp_path / "data").exists(), "eval never writes to the data dir"


def test_a_clean_leak_run_exits_0_with_tables(tmp_path: Path) -> None:
    rows = [
        {
            "id": "b1",
            "kind": "benign",
            "lookalike": "3.12.4",
            "lookalike_kind": "version",
            "turn": turn("b1", "We standardise on Python 3.12.4 from now on."),
        },
        {
            "id": "k1",
            "kind": "email",
            "secret": "ap@harbor-logistics.co.uk",
            "turn": turn("k1", "Send invoices to ap@harbor-logistics.co.uk from now on."),
        },
    ]
    path = write(tmp_path / "leaks.jsonl", rows)
    result = invoke(tmp_path, "--leaks", str(path), "--policy", "conservative")
    assert result.exit_code == 0, result.output
    assert "leak check" in result.stdout
    assert "benign look-alikes intact" in result.stdout
    assert "conservative" in result.stdout


def test_an_unknown_policy_is_refused(tmp_path: Path) -> None:
    result = invoke(tmp_path, "--policy", "strict", "--scenarios", str(scenario_file(tmp_path)))
    assert result.exit_code == 2
    assert "strict" in result.output


def test_a_bad_corpus_line_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "x"}\n', encoding="utf-8")
    result = invoke(tmp_path, "--labelled", str(path))
    assert result.exit_code == 1
    assert "bad.jsonl:1" in result.stderr


def test_a_corpus_file_with_bad_bytes_or_deep_nesting_is_one_error_per_line(
    tmp_path: Path,
) -> None:
    """Bytes that are not UTF-8 and JSON nested too deeply were a traceback
    (UnicodeDecodeError, RecursionError); now each is a numbered line of the one error."""
    path = tmp_path / "scenarios.jsonl"
    good = json.dumps({"id": "x"}).encode()
    path.write_bytes(
        good + b"\n" + b'{"id": "\xff\xfe"}\n' + b"[" * 100_000 + b"]" * 100_000 + b"\n"
    )
    result = invoke(tmp_path, "--scenarios", str(path))
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, (UnicodeDecodeError, RecursionError))
    out = " ".join(result.output.split())
    assert "scenarios.jsonl:2: not UTF-8 (byte 0xff at byte 9 of the line)" in out, out
    assert "scenarios.jsonl:3: not JSON (nested too deeply)" in out, out
    assert "scenarios.jsonl:1: description: Field required" in out  # the other lines still read
