"""Untrusted text is shown literally: never read as rich markup, emoji codes or terminal controls.

Issue 8, item 7: a ``[/x]`` in a stored fact crashed ``facts``, ``search``,
``audit`` and the error printer (rich's MarkupError) and ``[red]`` was
rendered as a style.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.embedding import load_embedder
from memgate.core.events import FactStatus, FactType, StoredFact
from memgate.sinks.embedded import EmbeddedIndex

NASTY = ["[/x]", "[red]x[/red]", ":thumbs_up:", "[link=http://e.vil]y[/link]"]
ESC = "\x1b]0;owned\x07\x1b[2J"


def _cli(tmp_path: Path, *args: str) -> Any:
    # wide enough that no cell is wrapped: the check compares cell texts
    return CliRunner(env={"COLUMNS": "400"}).invoke(
        app, ["--embedder", "hashing", "--data-dir", str(tmp_path / "data"), *args]
    )


def _store_facts(tmp_path: Path) -> None:
    """Facts whose values carry markup, written to the real embedded index of the data dir."""
    emb = load_embedder("hashing")
    now = datetime(2024, 5, 1, tzinfo=UTC)
    (tmp_path / "data").mkdir(mode=0o700, exist_ok=True)
    facts = []
    for i, value in enumerate([*NASTY, f"editor {ESC}"]):
        text = f"user editor {value}"
        facts.append(
            StoredFact(
                fact_id=f"f{i}",
                tenant_id="acme",
                user_id="alice",
                key=f"acme/alice/user/editor{i}",
                type=FactType.PREFERENCE,
                subject="user",
                predicate=f"editor{i}",
                value=value,
                text=text,
                status=FactStatus.ACTIVE,
                confidence=0.9,
                valid_from=now,
                recorded_at=now,
                first_seen=now,
                last_seen=now,
                source_turn_ids=[f"t[/x]{i}"],
                extractor="rules",
                extractor_version="1",
                policy_version="balanced-1",
                rationale="[/why]",
                embedding=[float(x) for x in emb.embed([text])[0]],
            )
        )
    with EmbeddedIndex(tmp_path / "data" / "retrieval.sqlite3", dim=emb.dim) as store:
        store.upsert(facts, wait=True)


def _assert_literal(result: Any, *texts: str) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and "MarkupError" not in result.output
    for t in texts:
        assert t in result.output, (t, result.output)


def test_facts_shows_markup_in_values_literally(tmp_path: Path) -> None:
    _store_facts(tmp_path)
    result = _cli(tmp_path, "facts", "-t", "acme", "-u", "alice")
    assert result.exit_code == 0, result.output
    # cells may be wrapped by the table: compare without the table's layout
    flat = "".join(result.output.split())
    for value in NASTY:
        assert value.replace(" ", "") in flat, value
    assert "[/why]" in flat and "t[/x]0" in flat
    _assert_literal(result)


def test_search_shows_markup_in_values_and_query_literally(tmp_path: Path) -> None:
    _store_facts(tmp_path)
    result = _cli(tmp_path, "search", "editor [/x] [red]x[/red]", "-t", "acme", "-u", "alice",
                  "--min-score", "-1")  # every fact: this checks rendering, not relevance
    assert result.exit_code == 0, result.output
    flat = "".join(result.output.split())
    for value in NASTY:
        assert value.replace(" ", "") in flat, value
    assert "editor[/x][red]x[/red]" in flat  # the query in the title
    _assert_literal(result)


def test_terminal_control_sequences_are_shown_escaped_never_emitted(tmp_path: Path) -> None:
    _store_facts(tmp_path)
    ids = ("-t", "acme", "-u", "alice")
    for args in (("facts", *ids), ("search", "editor", *ids)):
        result = _cli(tmp_path, *args)
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.output and "\x07" not in result.output
        assert "\\x1b" in "".join(result.output.split())


def test_json_output_keeps_the_exact_values(tmp_path: Path) -> None:
    _store_facts(tmp_path)
    result = _cli(tmp_path, "facts", "-t", "acme", "-u", "alice", "--json")
    assert result.exit_code == 0, result.output
    assert {f["value"] for f in json.loads(result.stdout)} >= set(NASTY)


def test_audit_shows_markup_in_cells_and_column_names_literally(tmp_path: Path) -> None:
    turns = tmp_path / "t.jsonl"
    row = {
        "tenant_id": "acme",
        "user_id": "alice",
        "session_id": "s1",
        "turn_id": "t1",
        "role": "user",
        "content": "I use Neovim [/x] and [red]x[/red] every day.",
        "ts": "2024-05-01T10:00:00Z",
    }
    turns.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert _cli(tmp_path, "ingest", str(turns)).exit_code == 0
    result = _cli(
        tmp_path, "audit", "--sql", "SELECT redacted_text AS `[/col]` FROM memgate.journal"
    )
    assert result.exit_code == 0, result.output
    _assert_literal(result, "[/col]")
    flat = "".join(result.output.split())
    assert "Neovim[/x]and[red]x[/red]" in flat


@pytest.mark.parametrize("sql", ["SELECT [/x]", "SELECT '[red]x[/red]' FROM nowhere_[/t]"])
def test_the_error_printer_shows_markup_literally(tmp_path: Path, sql: str) -> None:
    result = _cli(tmp_path, "audit", "--sql", sql)
    assert result.exit_code == 1
    _assert_literal(result)
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "[/x]" in lines[0] or "[/t]" in lines[0]


def test_a_file_name_with_markup_is_shown_literally(tmp_path: Path) -> None:
    turns = tmp_path / "[red]turns[bold] :thumbs_up:.jsonl"
    turns.write_text("{not json\n", encoding="utf-8")
    result = _cli(tmp_path, "ingest", str(turns))
    assert result.exit_code == 1
    _assert_literal(result, "[red]turns[bold] :thumbs_up:.jsonl:1: not valid JSON")


def test_json_output_escapes_what_a_terminal_would_act_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json as _json

    from memgate.cli.common import print_json

    value = "x\u202ey\u2066z\u2028w\u009b[31m \u200b \U000e0041 中文 é"
    print_json({"text": value})
    out = capsys.readouterr().out
    assert not any(c in out for c in "\u202e\u2066\u2028\u009b\u200b\U000e0041"), repr(out)
    assert "中文 é" in out  # ordinary letters stay readable
    assert _json.loads(out) == {"text": value}  # and the JSON means the same text
