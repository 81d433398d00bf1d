"""Bounds on what one input file can cost, and LoCoMo speakers that stay apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.inputs import (
    MAX_ERRORS,
    MAX_KEPT_ERRORS,
    InputFileError,
    ReadErrors,
    load_locomo,
    read_turns,
)


def _turn(i: int) -> dict[str, str]:
    return {
        "tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": f"t{i}",
        "role": "user", "content": f"I use tool number {i} every day.",
        "ts": "2024-03-01T09:00:00Z",
    }


def test_a_file_of_bad_lines_keeps_few_messages_and_stops_reading(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good_after = json.dumps(_turn(1))
    path.write_text("1\n" * (MAX_ERRORS + 50) + good_after + "\n", encoding="utf-8")
    errors = ReadErrors()
    assert list(read_turns(path, errors)) == []
    assert errors.count == MAX_ERRORS
    assert len(errors.errors) == MAX_KEPT_ERRORS + 1  # the first ones, and where it stopped
    assert "stopped reading after 10,000 bad lines" in errors.errors[-1]
    assert f":{MAX_ERRORS + 1}:" in errors.errors[-1]


def test_a_json_array_of_non_objects_is_bounded_too(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([1] * (MAX_ERRORS * 3)), encoding="utf-8")
    errors = ReadErrors()
    assert list(read_turns(path, errors)) == []
    assert errors.count == MAX_ERRORS and len(errors.errors) == MAX_KEPT_ERRORS + 1


def test_the_cli_prints_the_first_errors_and_counts_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    lines = ["1"] * 150 + [json.dumps(_turn(i)) for i in range(3)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["--embedder", "hashing", "--data-dir", str(tmp_path / "d"), "ingest", str(path)]
    )
    assert result.exit_code == 1
    assert result.output.count("expected a JSON object") == MAX_KEPT_ERRORS
    assert "150 line(s) rejected (50 more not shown)" in " ".join(result.output.split())
    facts = CliRunner().invoke(
        app, ["--embedder", "hashing", "--data-dir", str(tmp_path / "d"), "facts", "-t", "acme",
              "-u", "alice", "--all", "--json"],
    )
    assert facts.exit_code == 0, facts.output
    assert len(json.loads(facts.output)) == 3  # the good lines after the bad ones went in


def _locomo(tmp_path: Path, speakers: list[str]) -> Path:
    session = [
        {"speaker": sp, "dia_id": f"D1:{i + 1}", "text": f"I moved to city {i} last year."}
        for i, sp in enumerate(speakers)
    ]
    data = [{
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": speakers[0], "speaker_b": speakers[-1],
            "session_1": session, "session_1_date_time": "1:56 pm on 8 May, 2023",
        },
        "qa": [],
    }]
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(("a", "b"), [("Zoë", "Zoé"), ("李雷", "韩梅梅"), ("Élodie", "Elodie")])
def test_locomo_speakers_with_other_letters_stay_two_users(
    tmp_path: Path, a: str, b: str
) -> None:
    (conv,) = load_locomo(_locomo(tmp_path, [a, b]))
    users = [t.user_id for t in conv.turns]
    assert users[0] != users[1], users
    assert "unknown" not in users


def test_two_speakers_that_would_share_an_id_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="would both be user 'Mary-Ann'"):
        load_locomo(_locomo(tmp_path, ["Mary Ann", "Mary-Ann"]))


def test_a_line_with_a_key_twice_is_refused_not_guessed(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    row = json.dumps(_turn(1))[:-1] + ', "user_id": "mallory"}'
    path.write_text(row + "\n" + json.dumps(_turn(2)) + "\n", encoding="utf-8")
    errors = ReadErrors()
    turns = list(read_turns(path, errors))
    assert [t.turn_id for t in turns] == ["t2"]
    assert "'user_id' appears twice" in errors.errors[0]


def test_a_byte_order_mark_where_two_files_were_joined_is_read(tmp_path: Path) -> None:
    path = tmp_path / "joined.jsonl"
    path.write_text(
        "\ufeff" + json.dumps(_turn(1)) + "\n\ufeff" + json.dumps(_turn(2)) + "\n",
        encoding="utf-8",
    )
    errors = ReadErrors()
    assert [t.turn_id for t in read_turns(path, errors)] == ["t1", "t2"]
    assert not errors


def test_config_masks_secrets_by_name_only_when_they_are_text() -> None:
    from memgate.core.settings import load_settings

    described = load_settings(data_dir=Path("/tmp/x"), opensearch_password="pw").describe()
    assert described["token_budget"] == 800  # a number named like a secret is not one
    assert described["opensearch_password"] == "****"
