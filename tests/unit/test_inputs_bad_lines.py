"""One bad line never stops a file: every failure of one line is reported and the rest is read.

Issue 8, item 5: an invalid UTF-8 byte, deep nesting, a huge integer or a
timestamp at year 1 with an offset each aborted the whole file with a
traceback; a malformed LoCoMo file did too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.errors import InvalidEvent, MemgateError
from memgate.core.events import parse_turn
from memgate.inputs import MAX_LINE_BYTES, ReadErrors, load_locomo, read_turns

GOOD = {
    "tenant_id": "acme",
    "user_id": "alice",
    "session_id": "s1",
    "turn_id": "t1",
    "role": "user",
    "content": "We deploy with ArgoCD.",
    "ts": "2024-05-01T10:00:00Z",
}


def _line(**change: object) -> bytes:
    return json.dumps({**GOOD, **change}).encode()


def _read(p: Path) -> tuple[list[str], list[str]]:
    errors = ReadErrors()
    turns = [t.turn_id for t in read_turns(p, errors)]
    return turns, errors.errors


def test_an_invalid_utf8_byte_is_reported_with_line_and_offset_and_the_rest_is_read(
    tmp_path: Path,
) -> None:
    p = tmp_path / "turns.jsonl"
    bad = _line(turn_id="t2", content="caf\u00e9 XX").replace(b"XX", b"\xff\xfe")
    p.write_bytes(b"\n".join([_line(), bad, _line(turn_id="t3")]) + b"\n")
    turns, errors = _read(p)
    assert turns == ["t1", "t3"]
    assert len(errors) == 1
    col = bad.index(b"\xff")
    assert errors[0].startswith(f"{p}:2: ")
    assert "UTF-8" in errors[0] and "0xff" in errors[0]
    assert f"byte {col + 1} of the line" in errors[0]
    assert f"file offset {len(_line()) + 1 + col}" in errors[0]


def test_deep_nesting_is_reported_and_the_rest_is_read(tmp_path: Path) -> None:
    p = tmp_path / "turns.jsonl"
    deep = b'{"a":' * 200_000 + b"1" + b"}" * 200_000
    if len(deep) > MAX_LINE_BYTES:  # keep the line under the size bound: nesting is the subject
        deep = b"[" * (MAX_LINE_BYTES // 2) + b"]" * (MAX_LINE_BYTES // 2)
    p.write_bytes(b"\n".join([_line(), deep, _line(turn_id="t3")]) + b"\n")
    turns, errors = _read(p)
    assert turns == ["t1", "t3"]
    assert len(errors) == 1 and errors[0].startswith(f"{p}:2: ") and "nested" in errors[0]


def test_a_raw_nul_in_a_string_is_named_and_the_rest_is_read(tmp_path: Path) -> None:
    """It read "not valid JSON (Invalid control character at at column N)"."""
    p = tmp_path / "turns.jsonl"
    bad = _line(turn_id="t2", content="nul XX here").replace(b"XX", b"\x00")
    p.write_bytes(b"\n".join([_line(), bad, _line(turn_id="t3")]) + b"\n")
    turns, errors = _read(p)
    assert turns == ["t1", "t3"]
    (error,) = errors
    col = bad.index(b"\x00") + 1
    assert error == (
        f"{p}:2: not valid JSON (a raw control character U+0000 inside a string at column "
        f"{col}: write it escaped, \\u0000)"
    ), error


def test_a_huge_integer_and_nan_are_reported_and_the_rest_is_read(tmp_path: Path) -> None:
    p = tmp_path / "turns.jsonl"
    digits = b"9" * 5000
    huge = _line(turn_id="t2").replace(b'"role"', b'"metadata": {"n": ' + digits + b'}, "role"')
    nan = _line(turn_id="t3").replace(b'"role"', b'"metadata": {"n": NaN}, "role"')
    p.write_bytes(b"\n".join([_line(), huge, nan, _line(turn_id="t4")]) + b"\n")
    turns, errors = _read(p)
    assert turns == ["t1", "t4"]
    assert [e.split(": ", 1)[0] for e in errors] == [f"{p}:2", f"{p}:3"]
    assert "NaN" in errors[1]


def test_an_overlong_line_is_skipped_with_a_clear_error_and_the_rest_is_read(
    tmp_path: Path,
) -> None:
    p = tmp_path / "turns.jsonl"
    long = _line(turn_id="t2", content="x" * (MAX_LINE_BYTES + 10))
    p.write_bytes(b"\n".join([_line(), long, _line(turn_id="t3")]) + b"\n")
    turns, errors = _read(p)
    assert turns == ["t1", "t3"]
    assert len(errors) == 1
    assert errors[0].startswith(f"{p}:2: ") and f"{MAX_LINE_BYTES:,}" in errors[0]


def test_a_last_line_without_newline_and_a_bom_are_read(tmp_path: Path) -> None:
    p = tmp_path / "turns.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + _line() + b"\r\n" + _line(turn_id="t2"))
    assert _read(p) == (["t1", "t2"], [])


@pytest.mark.parametrize(
    "ts",
    [
        "0001-01-01T00:00:00+05:00",  # converting to UTC overflowed
        "9999-12-31T23:00:00-05:00",  # ... at the other end
        "0001-01-01T00:00:00Z",
        "1969-12-31T23:59:59Z",
        "2200-01-01T00:00:00Z",
    ],
)
def test_a_timestamp_out_of_range_is_an_invalid_turn(ts: str) -> None:
    with pytest.raises(InvalidEvent) as exc:
        parse_turn({**GOOD, "ts": ts})
    assert exc.value.problems[0].startswith("ts: ")
    assert "1970-01-01" in exc.value.problems[0] and "2199-12-31" in exc.value.problems[0]


def test_timestamps_at_the_edges_of_the_range_are_accepted() -> None:
    assert parse_turn({**GOOD, "ts": "1970-01-01T05:00:00+05:00"}).ts.year == 1970
    assert parse_turn({**GOOD, "ts": "2199-12-31T23:59:59Z"}).ts.year == 2199


def test_year_one_in_a_file_is_one_bad_line(tmp_path: Path) -> None:
    p = tmp_path / "turns.jsonl"
    p.write_bytes(
        b"\n".join(
            [_line(), _line(turn_id="t2", ts="0001-01-01T00:00:00+05:00"), _line(turn_id="t3")]
        )
    )
    turns, errors = _read(p)
    assert turns == ["t1", "t3"]
    assert len(errors) == 1 and errors[0].startswith(f"{p}:2: ") and "ts:" in errors[0]


@pytest.mark.parametrize("bad", ["alice\n", "alice\r", " alice", "al ice", "a/b", "\u0430lice"])
def test_ids_with_a_trailing_newline_space_slash_or_look_alike_are_refused(bad: str) -> None:
    with pytest.raises(InvalidEvent) as exc:
        parse_turn({**GOOD, "user_id": bad})
    assert exc.value.problems[0].startswith("user_id: ")


def test_a_non_ascii_look_alike_is_named_in_the_error() -> None:
    with pytest.raises(InvalidEvent) as exc:
        parse_turn({**GOOD, "user_id": "\u0430lice"})
    assert "U+0430 CYRILLIC SMALL LETTER A" in str(exc.value)


def test_cli_ingest_reports_every_bad_line_and_ingests_the_rest(tmp_path: Path) -> None:
    p = tmp_path / "turns.jsonl"
    p.write_bytes(
        b"\n".join(
            [
                _line(content="I use Neovim as my editor."),
                b'{"content": "\xff"}',
                b"[" * 100_000 + b"]" * 100_000,
                _line(turn_id="t4", ts="0001-01-01T00:00:00+05:00"),
                _line(turn_id="t5", content="I prefer dark mode."),
            ]
        )
        + b"\n"
    )
    args = ["--embedder", "hashing", "--data-dir", str(tmp_path / "data"), "ingest", "--json"]
    result = CliRunner().invoke(app, [*args, str(p)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    summary = json.loads(result.stdout)
    assert summary["turns"] == 2
    assert [e.split(": ", 1)[0] for e in summary["errors"]] == [f"{p}:{n}" for n in (2, 3, 4)]
    assert "Traceback" not in result.output


# ----------------------------------------------------------------------------- LoCoMo


def _locomo(tmp_path: Path, data: object) -> Path:
    p = tmp_path / "locomo.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


CONV = {
    "sample_id": "conv-1",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Bob",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I moved to Lisbon."},
            {"speaker": "Bob", "dia_id": "D1:2", "text": "Nice!"},
        ],
    },
    "qa": [],
}


def test_a_well_formed_locomo_file_loads(tmp_path: Path) -> None:
    (conv,) = load_locomo(_locomo(tmp_path, [CONV]))
    assert [t.turn_id for t in conv.turns] == ["D1:1", "D1:2"]


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"sample_id": None}, "sample_id"),
        ({"conversation": []}, "conversation"),
        ({"conversation": {**CONV["conversation"], "session_1": "x"}}, "session_1"),  # type: ignore[dict-item]
        (
            {"conversation": {**CONV["conversation"], "session_1_date_time": "someday"}},  # type: ignore[dict-item]
            "someday",
        ),
        (
            {"conversation": {**CONV["conversation"], "session_1": [{"speaker": "Ann"}]}},  # type: ignore[dict-item]
            "dia_id",
        ),
        (
            {
                "conversation": {
                    **CONV["conversation"],  # type: ignore[dict-item]
                    "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": 5}],
                }
            },
            "text",
        ),
    ],
)
def test_a_malformed_locomo_file_is_one_clear_error(
    tmp_path: Path, change: dict[str, object], says: str
) -> None:
    p = _locomo(tmp_path, [CONV, {**CONV, **change}])
    with pytest.raises(MemgateError) as exc:
        load_locomo(p)
    msg = str(exc.value)
    assert msg.startswith(f"{p}: ") and "conversation 2" in msg and says in msg, msg
    assert "\n" not in msg


def test_a_locomo_file_with_a_bad_byte_or_bad_json_is_one_clear_error(tmp_path: Path) -> None:
    p = _locomo(tmp_path, [CONV])
    raw = p.read_bytes()
    p.write_bytes(raw.replace(b"Lisbon", b"Lisb\xffn"))
    with pytest.raises(MemgateError, match=r"not UTF-8.*0xff"):
        load_locomo(p)
    p.write_bytes(raw[:-5])
    with pytest.raises(MemgateError, match="not valid JSON"):
        load_locomo(p)


def test_cli_ingest_of_a_malformed_locomo_file_is_one_error_line(tmp_path: Path) -> None:
    bad = {**CONV, "conversation": {**CONV["conversation"], "session_1": [{"speaker": "A"}]}}  # type: ignore[dict-item]
    p = _locomo(tmp_path, [bad])
    args = ["--embedder", "hashing", "--data-dir", str(tmp_path / "data"), "ingest"]
    result = CliRunner().invoke(app, [*args, str(p)])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "dia_id" in lines[0]
