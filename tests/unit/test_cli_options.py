"""The command line by command (issue 10, item 5): global options before or after the command.

``memgate search q -t a -u b --data-dir X`` runs as ``memgate --data-dir X
search q -t a -u b``; a value given after the command wins over one given
before it; a value with fixed choices (policy, embedder, extractor, backends,
output format) is a usage error listing them; ``--version`` prints the
installed version.
"""

from __future__ import annotations

import json
import typing
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.settings import Settings

TURN = {
    "tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": "t1",
    "role": "user", "content": "I use Neovim as my editor.", "ts": "2024-03-01T09:00:00Z",
}  # fmt: skip


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _flat(output: str) -> str:
    """The output without the error box's borders and line breaks."""
    return " ".join(output.replace("│", " ").split())


def _config(*args: str) -> dict[str, Any]:
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    shown: dict[str, Any] = json.loads(result.stdout)
    return shown


# ------------------------------------------------------------- before or after the command


def test_search_takes_the_global_options_after_the_command(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    turns = tmp_path / "turns.jsonl"
    turns.write_text(json.dumps(TURN) + "\n", encoding="utf-8")
    assert _invoke("ingest", str(turns), "--embedder", "hashing", "--data-dir", data).exit_code == 0
    query = ["search", "editor", "-t", "acme", "-u", "alice", "--now", "2024-03-02T00:00:00Z",
             "--min-score", "-1"]  # the hashing embedder: the floor is set for MiniLM
    before = _invoke("--embedder", "hashing", "--data-dir", data, "--json", *query)
    after = _invoke(*query, "--embedder", "hashing", "--data-dir", data, "--json")
    assert before.exit_code == 0 and after.exit_code == 0, before.output + after.output
    hits = json.loads(after.stdout)
    assert hits and "Neovim" in hits[0]["fact"]["text"]
    first = json.loads(before.stdout)
    # the same answer; only the usage differs (the first search served the fact once)
    assert [h["fact"].pop("usage")["served_count"] for h in (*first, *hits)] == [0, 1]
    assert hits == first


#: every command, with what it needs to get as far as opening its settings
COMMANDS = {
    "ingest": ["ingest", "turns.jsonl"],
    "search": ["search", "editor", "-t", "acme", "-u", "alice"],
    "facts": ["facts", "-t", "acme", "-u", "alice"],
    "forget": ["forget", "-t", "acme", "-u", "alice", "--yes"],
    "audit": ["audit", "verdicts"],
    "config": ["config"],
    "demo": ["demo"],
    "worker": ["worker"],
    "produce": ["produce", "turns.jsonl"],
    "bench": ["bench", "locomo", "--data", "missing.json"],
    "eval": ["eval"],
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_every_command_reads_its_settings_from_options_after_its_name(
    tmp_path: Path, command: list[str]
) -> None:
    """A data dir that is a file, given after the command, stops it before it does anything."""
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    result = _invoke(*command, "--embedder", "hashing", "--data-dir", str(not_a_folder))
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "not a folder" in lines[0]


def test_a_value_after_the_command_wins_over_one_before_it(tmp_path: Path) -> None:
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    top = ["--data-dir", a, "--policy", "conservative", "--embedder", "hashing"]
    assert _config(*top, "config")["data_dir"] == a
    shown = _config(*top, "config", "--data-dir", b, "--policy", "permissive")
    assert (shown["data_dir"], shown["policy"], shown["embedder"]) == (b, "permissive", "hashing")
    shown = _config("config", "--extractor", "rules", "--retrieval-backend", "embedded",
                    "--audit-backend", "chdb", "--data-dir", a, "-v")  # fmt: skip
    assert (shown["extractor"], shown["retrieval_backend"], shown["audit_backend"]) == (
        "rules", "embedded", "chdb",
    )  # fmt: skip


def test_json_before_or_after_the_command_and_format_json_are_the_same(tmp_path: Path) -> None:
    base = ["--embedder", "hashing", "--data-dir", str(tmp_path / "d")]
    facts = ["facts", "-t", "acme", "-u", "alice"]
    outputs = {
        _invoke(*base, "--json", *facts).stdout,
        _invoke(*base, *facts, "--json").stdout,
        _invoke(*facts, "--format", "json", *base).stdout,
        _invoke("--format", "table", *base, *facts, "--format", "json").stdout,
    }
    assert outputs == {"[]\n"}
    table = _invoke("--json", *base, *facts, "--format", "table")
    assert table.exit_code == 0 and "facts tenant=acme user=alice" in table.stdout
    clash = _invoke(*base, *facts, "--json", "--format", "table")
    assert clash.exit_code == 2 and "--json and --format table disagree" in _flat(clash.output)


# ------------------------------------------------------------------------------ choices


@pytest.mark.parametrize(
    ("option", "choices"),
    [
        ("--policy", "'conservative', 'balanced', 'permissive'"),
        ("--embedder", "'minilm', 'hashing'"),
        ("--extractor", "'rules', 'statements', 'hybrid', 'anthropic'"),
        ("--retrieval-backend", "'embedded', 'opensearch'"),
        ("--audit-backend", "'chdb', 'clickhouse'"),
        ("--format", "'table', 'json'"),
    ],
)
@pytest.mark.parametrize("where", ["before", "after"])
def test_a_value_outside_the_choices_is_a_usage_error_listing_them(
    option: str, choices: str, where: str
) -> None:
    args = [option, "bogus", "facts", "-t", "acme", "-u", "alice"]
    if where == "after":
        args = [*args[2:], *args[:2]]
    result = _invoke(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    flat = _flat(result.output)
    assert option in flat and "'bogus' is not one of" in flat and choices in flat, flat


def test_bench_keeps_its_own_repeatable_policy_with_the_same_choices() -> None:
    result = _invoke("bench", "locomo", "--policy", "balanced", "--policy", "strict")
    assert result.exit_code == 2
    assert "'strict' is not one of 'conservative', 'balanced', 'permissive'" in _flat(
        result.output
    )


@pytest.mark.parametrize(
    ("enum", "field"),
    [
        ("Policy", "policy"),
        ("EmbedderName", "embedder"),
        ("ExtractorName", "extractor"),
        ("RetrievalBackend", "retrieval_backend"),
        ("AuditBackend", "audit_backend"),
    ],
)
def test_the_choices_are_the_values_the_settings_accept(enum: str, field: str) -> None:
    from memgate.cli import args

    accepted = typing.get_args(Settings.model_fields[field].annotation)
    assert [e.value for e in getattr(args, enum)] == list(accepted)


# ------------------------------------------------------------------------------ version


def test_version_prints_the_installed_version() -> None:
    result = _invoke("--version")
    assert result.exit_code == 0
    assert result.stdout == f"memgate {version('memgate')}\n"
