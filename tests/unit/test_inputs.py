"""Reading turns: JSONL with per-line errors, and LoCoMo's JSON format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgate.core.errors import InvalidEvent
from memgate.core.events import parse_turn
from memgate.inputs import ReadErrors, detect_format, parse_locomo_time, read_turns
from tests.datasets import locomo_file

GOOD = {
    "tenant_id": "acme",
    "user_id": "alice",
    "session_id": "s1",
    "turn_id": "t1",
    "role": "user",
    "content": "We deploy with ArgoCD.",
    "ts": "2024-05-01T10:00:00Z",
}


def test_jsonl_bad_lines_are_reported_with_line_numbers_and_the_rest_is_read(
    tmp_path: Path,
) -> None:
    p = tmp_path / "turns.jsonl"
    lines = [
        json.dumps(GOOD),
        "{not json",
        json.dumps({**GOOD, "turn_id": "t3", "role": "robot"}),
        "",
        json.dumps({**GOOD, "turn_id": "t5", "ts": "2024-05-01T10:00:00"}),
        json.dumps([1, 2]),
        json.dumps({**GOOD, "turn_id": "t7"}),
    ]
    p.write_text("\n".join(lines) + "\n")
    errors = ReadErrors()
    turns = list(read_turns(p, errors))
    assert [t.turn_id for t in turns] == ["t1", "t7"]
    assert len(errors.errors) == 4
    assert errors.errors[0].startswith(f"{p}:2: not valid JSON")
    assert f"{p}:3" in errors.errors[1] and "role" in errors.errors[1]
    assert f"{p}:5" in errors.errors[2] and "time zone" in errors.errors[2]
    assert f"{p}:6" in errors.errors[3] and "JSON object" in errors.errors[3]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"tenant_id": ""}, "tenant_id"),
        ({"tenant_id": "a/b"}, "tenant_id"),
        ({"content": None}, "content"),
        ({"outcome": "maybe"}, "outcome"),
        ({"extra_field": 1}, "extra_field"),
        ({"ts": "yesterday"}, "ts"),
    ],
)
def test_invalid_turn_names_the_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidEvent) as exc:
        parse_turn({**GOOD, **change})
    assert any(p.startswith(field) for p in exc.value.problems), exc.value.problems


def test_missing_field_is_named() -> None:
    data = dict(GOOD)
    del data["session_id"]
    with pytest.raises(InvalidEvent, match="session_id: Field required"):
        parse_turn(data)


def test_locomo_time() -> None:
    assert parse_locomo_time("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00+00:00"
    with pytest.raises(ValueError, match="unrecognised"):
        parse_locomo_time("sometime in May")


def test_locomo_maps_conversation_to_tenant_and_speaker_to_user() -> None:
    locomo = locomo_file()
    assert detect_format(locomo) == "locomo"
    errors = ReadErrors()
    turns = list(read_turns(locomo, errors))
    assert not errors
    tenants = {t.tenant_id for t in turns}
    assert len(tenants) == 7
    users_per_tenant = {ten: {t.user_id for t in turns if t.tenant_id == ten} for ten in tenants}
    assert all(len(u) == 2 for u in users_per_tenant.values())
    ids = [(t.tenant_id, t.turn_id) for t in turns]
    assert len(ids) == len(set(ids))
